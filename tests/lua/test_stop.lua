-- Description: per-run stop rules (steady, ci, latency, any, all) stop
-- synthetic interval sequences where they should, with readable reasons;
-- a real run on the null engine ends early with result.stopped_by set.
local stop = require "luabench.stop"

local check = dofile("tests/lua/lib.lua").check

local function empty() return {ios = 0, bytes = 0, iops = 0, bw_bytes = 0, clat_hist = lb.hist()} end

-- Interval i (1 s long) with bandwidth bw B/s and every I/O at lat_ns.
local function interval(i, bw, lat_ns)
  local h = lb.hist()
  h:record(math.floor(lat_ns), 1000)
  return {index = i, start_ms = (i - 1) * 1000, end_ms = i * 1000, duration_s = 1,
          read = {ios = 1000, bytes = bw, iops = 1000, bw_bytes = bw, clat_hist = h},
          write = empty(), trim = empty()}
end

-- Feeds bw/lat pairs to rule; returns the index it stopped at and why.
local function feed(rule, seq)
  local ivs = {}
  for i, s in ipairs(seq) do
    ivs[i] = interval(i, s[1], s[2] or 100000)
    local r = rule{index = i, elapsed_s = i, interval = ivs[i], intervals = ivs}
    if r then return i, r end
  end
  return nil
end

local function series(n, f)
  local out = {}
  for i = 1, n do out[i] = {f(i)} end
  return out
end

-- steady, slope: rising for 3 s, flat afterwards; ramp 2 s, window 5 s.
local seq = series(20, function(i) return i <= 3 and i * 300e6 or 1000e6 end)
local at, why = feed(stop.steady{metric = "bw", window = "5s", slope = 0.01, ramp = "2s"}, seq)
check(at == 8, "steady slope stopped at %s, wanted 8", tostring(at))
check(why:find("^steady state: bw") and why:find("slope"), "steady reason: %s", why)

-- a slow ramp whose slope is 2%/s of the mean never counts as steady.
at = feed(stop.steady{window = "5s", slope = 0.01}, series(20, function(i) return 1e9 * (1 + 0.02 * i) end))
check(at == nil, "a 2%%/s ramp was taken as steady at %s", tostring(at))

-- steady, deviation: +-10% alternation never passes 5%, +-2% does.
at = feed(stop.steady{window = "5s", deviation = 0.05},
          series(20, function(i) return i % 2 == 0 and 1.1e9 or 0.9e9 end))
check(at == nil, "+-10%% passed a 5%% deviation bound at %s", tostring(at))
at, why = feed(stop.steady{window = "5s", deviation = 0.05},
               series(20, function(i) return i % 2 == 0 and 1.02e9 or 0.98e9 end))
check(at == 5 and why:find("deviation"), "+-2%% should stop at 5: %s %s", tostring(at), tostring(why))

-- steady on a percentile: per-interval p99 from each interval's histogram.
at, why = feed(stop.steady{metric = "p99", window = "4s", deviation = 0.05},
               series(10, function(i) return 1e9, i <= 2 and 5e6 or 1e6 end))
check(at == 6 and why:find("p99"), "steady p99 stopped at %s (%s)", tostring(at), tostring(why))

-- ci: +-1% noise converges as soon as min has passed ...
at, why = feed(stop.ci{metric = "bw", rel = 0.02, min = "5s", max = "30s"},
               series(30, function(i) return 1e9 * (1 + (i % 2 == 0 and 0.01 or -0.01)) end))
check(at == 5 and why:find("^ci: bw"), "ci stopped at %s: %s", tostring(at), tostring(why))
-- ... +-50% noise does not, and max ends it with a reason that says so.
at, why = feed(stop.ci{metric = "bw", rel = 0.02, min = "2s", max = "8s"},
               series(30, function(i) return 1e9 * (1 + (i % 2 == 0 and 0.5 or -0.5)) end))
check(at == 8 and why:find("did not converge"), "ci max: %s %s", tostring(at), tostring(why))
-- the interval of the t distribution is wide for few samples (t(0.975, 2) = 4.30).
check(math.abs(stop.t_quantile(0.975, 2) - 4.3027) < 1e-3, "t quantile")
check(math.abs(stop.t_quantile(0.975, 30) - 2.0423) < 1e-3, "t quantile 30")

-- latency: 1 ms for 5 s, then 10 ms; the 3 s window's p99 passes 5 ms at 6.
seq = series(10, function(i) return 1e9, i <= 5 and 1e6 or 10e6 end)
at, why = feed(stop.latency{p = 99, above = "5ms", window = "3s"}, seq)
check(at == 6 and why:find("p99 [%d.]+ms") and why:find("above 5ms"), "latency: %s %s", tostring(at), tostring(why))
at = feed(stop.latency{p = 99, above = "20ms", window = "3s"}, seq)
check(at == nil, "latency below the bound stopped at %s", tostring(at))

-- latency judges total latency: clat stays at 1 ms while lat (slat + clat)
-- grows to 10 ms from interval 6, as when submission does the I/O.
local function slow_submit(i)
  local iv = interval(i, 1e9, 1e6)
  iv.read.lat_hist = lb.hist()
  iv.read.lat_hist:record(i <= 5 and 1.1e6 or 10e6, 1000)
  return iv
end
local function feed_ivs(rule, n, make)
  local ivs = {}
  for i = 1, n do
    ivs[i] = make(i)
    local r = rule{index = i, elapsed_s = i, interval = ivs[i], intervals = ivs}
    if r then return i, r end
  end
end
at, why = feed_ivs(stop.latency{p = 99, above = "5ms", window = "3s"}, 10, slow_submit)
check(at == 6 and why:find("^latency: lat p99 [%d.]+ms"), "latency on lat: %s %s", tostring(at), tostring(why))
at = feed_ivs(stop.latency{p = 99, above = "5ms", window = "3s", latency = "clat"}, 10, slow_submit)
check(at == nil, "latency=clat stopped at %s on lat", tostring(at))
at, why = feed_ivs(stop.steady{metric = "p99", window = "3s", deviation = 0.05}, 10, function(i)
  local iv = slow_submit(i); iv.read.lat_hist = lb.hist(); iv.read.lat_hist:record(i * 1e6, 1000); return iv
end)
check(at == nil, "steady p99 on a growing lat (flat clat) stopped at %s: %s", tostring(at), tostring(why))
at = feed_ivs(stop.steady{metric = "clat_p99", window = "3s", deviation = 0.05}, 10, function(i)
  local iv = slow_submit(i); iv.read.lat_hist = lb.hist(); iv.read.lat_hist:record(i * 1e6, 1000); return iv
end)
check(at == 3, "steady clat_p99 on a flat clat stopped at %s", tostring(at))
local okl, errl = pcall(stop.latency, {above = "5ms", latency = "slat"})
check(not okl and errl:find("latency must be 'lat', 'clat' or 'sched'"), "latency=slat: %s", tostring(errl))

-- any: the first rule that fires; all: every rule on the same interval.
local after4 = function(iv) return iv.index >= 4 and "four" end
local after6 = function(iv) return iv.index >= 6 and "six" end
at, why = feed(stop.any{after6, after4}, series(10, function() return 1e9 end))
check(at == 4 and why == "four", "any: %s %s", tostring(at), tostring(why))
at, why = feed(stop.all{after6, after4}, series(10, function() return 1e9 end))
check(at == 6 and why == "six; four", "all: %s %s", tostring(at), tostring(why))
at, why = feed(stop.all{after4, function(iv) return iv.index >= 5 end}, series(10, function() return 1e9 end))
check(at == 5 and why == "four; rule 2", "all with a boolean rule: %s", tostring(why))
check(stop.rule{after4, after6} ~= nil and stop.rule(after4) == after4, "stop.rule")

-- bad input raises with the problem named
local ok, err = pcall(stop.steady, {metric = "pxx"})
check(not ok and err:find("unknown metric 'pxx'"), "bad metric: %s", tostring(err))
ok, err = pcall(stop.steady, {window = "10 parsecs"})
check(not ok and err:find("bad duration"), "bad duration: %s", tostring(err))
ok, err = pcall(stop.latency, {})
check(not ok and err:find("above"), "latency without a bound: %s", tostring(err))
check(stop.seconds("500ms") == 0.5 and stop.seconds("2m") == 120 and stop.seconds("3", 1e-6) == 3e-6,
      "stop.seconds")

-- a real run: the rule ends a 30 s run after 3 intervals of 100 ms.
local r = lb.run{name = "stoptest", engine = "null", rw = "read", bs = "4k", size = "1g",
                 time_based = true, runtime = "30s", interval = "100ms",
                 stop = function(iv) return iv.index >= 3 and "three intervals" end}
check(r.stopped_by == "three intervals", "stopped_by = %s", tostring(r.stopped_by))
check(r.elapsed < 10, "the run went on for %s s", tostring(r.elapsed))
check(#r.intervals >= 3 and r.read.total_ios > 0, "intervals %d, ios %d", #r.intervals, r.read.total_ios)

-- a library rule on the real run: ci always decides by its max.
r = lb.run{name = "citest", engine = "null", rw = "read", bs = "4k", size = "1g",
           time_based = true, runtime = "30s", interval = "100ms",
           stop = stop.ci{metric = "iops", rel = 0.5, min = "300ms", max = "1s"}}
check(r.stopped_by and r.stopped_by:find("^ci: "), "ci stopped_by = %s", tostring(r.stopped_by))
check(r.elapsed < 10, "ci run went on for %s s", tostring(r.elapsed))
