-- Description: sweeps run the cartesian product in the given order with
-- hooks and repeats; sweep.knee stops a numjobs sweep on the null engine
-- after its knee (null_knee=4) and names numjobs=4 as the knee.
-- lb-test: serial (set latencies need the cores)
local sweep = require "luabench.sweep"
local cache = require "luabench.cache"

local check = dofile("tests/lua/lib.lua").check

local function labels(points)
  local out = {}
  for i, p in ipairs(points) do out[i] = p.label end
  return table.concat(out, ", ")
end

-- The grid: array form keeps the given order, keyed form goes by name.
local g = sweep.grid(sweep.dims{{"numjobs", {1, 2}}, {"bs", {"4k", "1M"}}})
check(#g == 4 and g[1].numjobs == 1 and g[1].bs == "4k" and g[2].bs == "1M" and g[3].numjobs == 2,
      "array-form grid order")
local d = sweep.dims{numjobs = {1, 2}, bs = "4k", rw = {"read", "randread"}}
check(d[1].name == "bs" and d[2].name == "numjobs" and d[3].name == "rw" and #d[1].values == 1,
      "keyed vary is ordered by name")
check(not pcall(sweep.dims, {{"numjobs"}}), "a pair without values is refused")

-- Synthetic points: the knee rule's decisions without running anything.
local function pt(n, bw, p99)
  return {params = {numjobs = n}, label = "numjobs=" .. n, values = {bw = bw, p99 = p99}}
end
local knee = sweep.knee{bw_gain = 0.05, p99_growth = 2.0}
local s = {pt(1, 100, 1e5), pt(2, 200, 1e5), pt(4, 400, 1e5), pt(8, 410, 2e5), pt(16, 400, 4e5)}
check(knee(s, {point = s[3], series = {s[1], s[2], s[3]}, axis = "numjobs"}) == false, "no knee at 4")
local why = knee(s, {point = s[4], series = {s[1], s[2], s[3], s[4]}, axis = "numjobs"})
check(type(why) == "string" and why:find("numjobs 4 %-> 8 added 2.5%% bw"), "plateau reason: %s", tostring(why))
check(knee.finish(s, {axis = "numjobs"}) == s[3], "knee of a plateau")
-- p99 tripling for 30% more bandwidth is past the knee too.
local t = {pt(16, 1000, 1e6), pt(32, 1300, 3e6)}
why = knee(t, {point = t[2], series = t, axis = "numjobs"})
check(type(why) == "string" and why:find("grew lat p99 3.00x"), "latency reason: %s", tostring(why))
-- The knee follows total latency (lat) by default; latency = "clat_p99"
-- follows completion latency, which here stays flat.
t[1].values.clat_p99, t[2].values.clat_p99 = 1e5, 1e5
why = sweep.knee{latency = "clat_p99"}(t, {point = t[2], series = t, axis = "numjobs"})
check(why == false, "clat knee on flat clat: %s", tostring(why))
t[2].values.clat_p99 = 4e5
why = sweep.knee{latency = "clat_p99"}(t, {point = t[2], series = t, axis = "numjobs"})
check(type(why) == "string" and why:find("grew clat p99 4.00x"), "clat reason: %s", tostring(why))

-- Judged from the samples: a plateau whose noise makes 2 -> 4 look like a
-- 7% gain is no gain at 95% confidence; the measured values alone say it is.
local function hist(v)
  return {count = function() return 1 end, percentile = function() return v end, mean = function() return v end}
end
local function noisy(n, bw, p99, spread)
  local ivs = {}
  for i = 1, 10 do
    local b = bw + (i % 2 == 0 and spread or -spread) * (1 + (i % 3) / 2)
    ivs[i] = {duration_s = 1, read = {bw_bytes = b, iops = b / 4096, clat_hist = hist(p99)}}
  end
  local res = {read = {bw_bytes = bw, iops = bw / 4096, clat_hist = hist(p99)}, intervals = ivs}
  return {params = {numjobs = n}, label = "numjobs=" .. n, values = {bw = bw, p99 = p99},
          result = res, repeats = {res}}
end
local ns = {noisy(1, 100e6, 1e5, 4e6), noisy(2, 200e6, 1e5, 8e6), noisy(4, 214e6, 1.1e5, 25e6)}
why = sweep.knee{}(ns, {point = ns[3], series = ns, axis = "numjobs"})
check(type(why) == "string" and why:find("numjobs 2 %-> 4 added 7.0%% bw %(95%% interval") and
      why:find("not above 5.0%%"), "a noisy plateau is a knee: %s", tostring(why))
check(sweep.knee{}(ns, {point = ns[2], series = {ns[1], ns[2]}, axis = "numjobs"}) == false,
      "a sure doubling is a gain")
check(sweep.knee{confidence = false}(ns, {point = ns[3], series = ns, axis = "numjobs"}) == false,
      "without statistics the 7%% look like a gain")
check(not pcall(sweep.knee, {confidence = 2}), "confidence 2 is refused")

-- refine bisects between the knee and the next point: throughput climbs to
-- 5 threads and falls after, so 6 still beats 4 and 7 does not.
local function model(n) return pt(n, n <= 5 and n * 100 or 500 - (n - 5) * 50, 1e5 * math.max(1, n / 5)) end
local coarse = {model(1), model(2), model(4), model(8)}
check(sweep.knee{}.finish(coarse, {axis = "numjobs"}).params.numjobs == 4, "coarse knee")
local ran = {}
local fine = sweep.knee{refine = true}.finish(coarse, {axis = "numjobs", run = function(params)
  ran[#ran + 1] = params.numjobs
  return model(params.numjobs)
end})
check(fine.params.numjobs == 6 and table.concat(ran, ",") == "6,7", "refined knee %s after %s",
      tostring(fine.params.numjobs), table.concat(ran, ","))

-- A small real sweep: order, options applied, hooks, repeats.
local before, after = 0, 0
local sw = sweep.run{
  base = {name = "order", engine = "null", rw = "read", size = "1g", time_based = true,
          runtime = "100ms"},
  vary = {{"bs", {"4k", "8k"}}, {"numjobs", {1, 2}}},
  before_each = function(point)
    before = before + 1
    cache.exec{cmd = "true"}
  end,
  after_each = function(point, result)
    after = after + 1
    check(result.options.bs == point.params.bs, "bs option %s for %s", tostring(result.options.bs), point.label)
  end,
  repeat_n = 2, progress = false,
}
check(labels(sw.points) == "bs=4k numjobs=1, bs=4k numjobs=2, bs=8k numjobs=1, bs=8k numjobs=2",
      "order: %s", labels(sw.points))
check(before == 8 and after == 8, "hooks ran %d/%d times, wanted 8", before, after)
for _, p in ipairs(sw.points) do
  check(#p.repeats == 2 and p.result and p.spread and p.spread.bw >= 0, "repeats of %s", p.label)
  check(#p.hooks == 2 and p.hooks[1].kind == "exec" and p.hooks[1].cmd == "true", "hooks of %s", p.label)
  check(p.values.iops > 0, "iops of %s", p.label)
end
check(sw.peak ~= nil and sw.knee == nil and sw.stopped_by == nil, "no rule: a peak, no knee")

-- The knee on the real core.  The null engine's latency grows as
-- null_lat * numjobs / null_knee beyond null_knee, so bandwidth doubles up
-- to 4 threads, stays flat after, and the latency doubles at 8.  Each I/O
-- sleeps its set latency, and on a loaded machine a thread wakes some
-- milliseconds late: that delay adds the same time to every I/O, so it
-- counts for more where the set latency is short (4 threads) than where it
-- is long (8), and makes the plateau look like a gain.  With 20ms and a 10%
-- bound 5ms of lateness at load 10 moved the knee to 8.  So the set latency
-- is long (50ms) and the bounds sit halfway between the designed steps (a
-- doubling against no gain: 50% more bandwidth, 1.5x the latency), which a
-- lateness of a whole set latency does not cross.  With a few dozen I/Os
-- per thread p99 is nearly the maximum, and one late I/O can multiply it:
-- the knee is left to the bandwidth plateau (no p99 bound), and the
-- latency's growth is checked on the median and the mean, which one late
-- I/O does not move.
local lat = args and args.null_lat or "50ms"
sw = sweep.run{
  base = {name = "knee", engine = "null", rw = "randread", bs = "4k", size = "1g",
          time_based = true, runtime = args and args.runtime or "1s", null_lat = lat,
          null_knee = 4},
  vary = {{"numjobs", {1, 2, 4, 8, 16}}},
  stop = sweep.knee{bw_gain = 0.5, p99_growth = math.huge},
  progress = false,
}
local report = require "luabench.report"
local msg = "\n" .. report.text(sw)
check(sw.knee ~= nil, "no knee found:%s", msg)
check(sw.knee.params.numjobs == 4, "knee at numjobs=%s, wanted 4:%s", tostring(sw.knee.params.numjobs), msg)
check(#sw.points == 4 and sw.points[4].params.numjobs == 8, "the sweep went on after the knee: %s", labels(sw.points))
check(sw.stopped_by and sw.stopped_by:find("^knee: numjobs 4 %-> 8"), "stopped_by: %s", tostring(sw.stopped_by))
local p = {}
for _, x in ipairs(sw.points) do p[x.params.numjobs] = x.values end
check(p[8].p50 > 1.5 * p[4].p50 and p[8].lat_mean > 1.5 * p[4].lat_mean,
      "latency did not grow from 4 to 8 threads:%s", msg)
check(p[4].bw > 2 * p[1].bw, "bandwidth did not scale from 1 to 4 threads:%s", msg)
