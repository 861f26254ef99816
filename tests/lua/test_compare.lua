-- Description: luabench.compare on synthetic results of known difference
-- and of pure noise (repeats, and autocorrelated per-interval samples):
-- the noise says "no difference" at the stated confidence, a 20% gain is
-- "better" with an interval that holds 1.2, slower latency is "worse";
-- Student's t quantiles; points matched by parameters; report.json of a
-- real sweep and fio's JSON output read back.
local compare = require "luabench.compare"
local report = require "luabench.report"
local sweep = require "luabench.sweep"

local T = dofile("tests/lua/lib.lua")
local check = T.check

-- Student's t against the tables
for _, c in ipairs({{1, 12.706}, {2, 4.303}, {4, 2.776}, {10, 2.228}, {30, 2.042}, {1000, 1.962}}) do
  local q = compare.t_quantile(0.975, c[1])
  check(math.abs(q - c[2]) < 2e-3, "t(0.975, %d) = %.4f, want %.3f", c[1], q, c[2])
end
check(math.abs(compare.t_quantile(0.95, 5) - 2.015) < 2e-3, "t(0.95, 5)")

-- The mean of three runs and its interval: 200, 164, 185 -> mean 183,
-- sd 18.08, 95% interval mean +- 4.303 * sd / sqrt(3)
local mi = compare.mean_interval({200, 164, 185})
check(math.abs(mi.mean - 183) < 1e-9 and math.abs(mi.sd - 18.083141) < 1e-5, "mean %g sd %g", mi.mean, mi.sd)
check(math.abs(mi.hi - mi.mean - 4.3027 * mi.sd / math.sqrt(3)) < 0.01, "interval %g..%g", mi.lo, mi.hi)
check(math.abs((mi.lo + mi.hi) / 2 - 183) < 1e-9 and mi.n == 3 and mi.confidence == 0.95, "centred")
local lone = compare.mean_interval({7})
check(lone.mean == 7 and lone.sd == 0 and lone.lo == nil, "one number: no interval")
check(compare.mean_interval({}).mean == nil, "no number: no mean")

math.randomseed(17, 4)
local function gauss()
  local u1, u2 = 1 - math.random(), math.random()
  return math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2)
end

-- n repeats of a point around iops / p99, relative noise sd
local function point(params, n, iops, p99, sd)
  local p = {params = params, names = {"numjobs"}, values = {}, repeats = {}}
  for i = 1, n do
    p.repeats[i] = {iops = iops * (1 + sd * gauss()), p99 = p99 * (1 + sd * gauss())}
  end
  p.values = p.repeats[1]
  return {p}
end

local function verdicts(trials, mk)
  local count, hits = {}, 0
  for _ = 1, trials do
    local a, b, want = mk()
    local c = compare.compare(a, b, {metrics = {"iops", "p99"}})
    for _, e in ipairs(c.points[1].metrics) do
      count[e.metric .. " " .. e.verdict] = (count[e.metric .. " " .. e.verdict] or 0) + 1
      if want and e.metric == "iops" and e.lo <= want and want <= e.hi then hits = hits + 1 end
    end
  end
  return count, hits
end

-- pure noise from repeats: "no difference" in about 95% of the trials
local N = 400
local count = verdicts(N, function()
  return point({numjobs = 4}, 5, 1e5, 2e6, 0.05), point({numjobs = 4}, 5, 1e5, 2e6, 0.05)
end)
for _, m in ipairs({"iops", "p99"}) do
  local same = (count[m .. " no difference"] or 0) / N
  check(same >= 0.92 and same <= 0.985, "%s: noise said no difference in %.1f%% of trials", m, same * 100)
end

-- a 20% IOPS gain and 30% slower p99: better and worse, the interval holds 1.2
local hits
count, hits = verdicts(100, function()
  return point({numjobs = 4}, 5, 1e5, 2e6, 0.05), point({numjobs = 4}, 5, 1.2e5, 2.6e6, 0.05), 1.2
end)
check((count["iops better"] or 0) >= 98, "20%% gain: better in %d of 100", count["iops better"] or 0)
check((count["p99 worse"] or 0) >= 98, "30%% slower p99: worse in %d of 100", count["p99 worse"] or 0)
check(hits >= 88 and hits <= 100, "the 95%% interval held the true ratio in %d of 100", hits)

-- per-interval samples of one run each, autocorrelated (AR(1), r = 0.6)
local function run_point(iops)
  local p = {params = {}, names = {}, values = {}, repeats = {}, intervals = {iops = {}}}
  local e, sum = 0, 0
  for i = 1, 60 do
    e = 0.6 * e + 0.8 * gauss()
    p.intervals.iops[i] = iops * (1 + 0.04 * e)
    sum = sum + p.intervals.iops[i]
  end
  p.values.iops = sum / 60
  p.repeats[1] = p.values
  return {p}
end
local same = 0
for _ = 1, N do
  local c = compare.compare(run_point(1e5), run_point(1e5), {metrics = {"iops"}})
  local e = c.points[1].metrics[1]
  check(e.source == "intervals" and e.n_a < 60, "intervals, effective n %s", tostring(e.n_a))
  if e.verdict == "no difference" then same = same + 1 end
end
check(same / N >= 0.90, "autocorrelated noise said no difference in %.1f%% only", same / N * 100)
local c = compare.compare(run_point(1e5), run_point(1.1e5), {metrics = {"iops"}})
check(c.points[1].metrics[1].verdict == "better", "a 10%% gain over 60 intervals: %s",
      c.points[1].metrics[1].verdict)

-- a threshold turns a small sure difference into none
local a = point({numjobs = 1}, 8, 1e5, 1e6, 0.001)
local b = point({numjobs = 1}, 8, 1.02e5, 1e6, 0.001)
T.eq(compare.compare(a, b, {metrics = {"iops"}}).points[1].metrics[1].verdict, "better", "2% gain")
T.eq(compare.compare(a, b, {metrics = {"iops"}, threshold = 0.05}).points[1].metrics[1].verdict,
     "no difference", "2% gain under a 5% threshold")
-- one sample each: a ratio but no verdict
local one = compare.compare(point({numjobs = 1}, 1, 1e5, 1e6, 0), point({numjobs = 1}, 1, 2e5, 1e6, 0))
T.eq(one.points[1].metrics[1].verdict, "unknown", "one sample each")
T.eq(one.points[1].metrics[1].ratio, 2.0, "ratio of one sample each")

-- matching by parameters: numjobs 1, 2, 4 against 2, 4, 8
local function grid(jobs)
  local out = {}
  for _, j in ipairs(jobs) do out[#out + 1] = point({numjobs = j, rw = "randread"}, 3, 1e4 * j, 1e6, 0.01)[1] end
  for _, p in ipairs(out) do p.names = {"rw", "numjobs"} end
  return out
end
c = compare.compare(grid({1, 2, 4}), grid({2, 4, 8}))
T.eq(#c.points, 2, "points in common")
T.eq(c.points[1].label, "numjobs=2", "first common point")
T.eq(c.points[1].params.numjobs, 2, "its parameters")
T.eq(c.only_a[1], "numjobs=1", "only in A")
T.eq(c.only_b[1], "numjobs=8", "only in B")
for _, e in ipairs(c.points[1].metrics) do
  if e.metric == "iops" then T.eq(e.verdict, "no difference", "same point, same iops") end
end
local text = compare.text(c, {"a.json", "b.json"})
check(text:find("A = a.json, B = b.json", 1, true) and text:find("only in A: numjobs=1", 1, true),
      "text:\n%s", text)
local md = compare.markdown(c)
check(md:find("| point | metric | A | B | B/A | 95% CI | verdict |", 1, true), "markdown:\n%s", md)
local doc = lb.json_decode(compare.json(c, {"a.json", "b.json"}))
check(doc.schema == "luabench.compare/1" and doc.a == "a.json" and #doc.points == 2 and
      doc.points[1].metrics[1].verdict, "json of a comparison")
check(not pcall(compare.compare, grid({1}), grid({1}), {confidence = 1.5}), "confidence 1.5 raises")

-- report.json of a real sweep carries what compare needs
local dir, _ <close> = T.tmpdir("compare")
local sw = sweep.run{
  base = {name = "cmp", engine = "null", bs = "4k", size = "1g", time_based = true, runtime = "400ms",
          interval = "50ms"},
  vary = {{"numjobs", {1, 2}}}, repeat_n = 2, progress = false,
}
local path = dir .. "/a.json"
report.write(path, report.json(sw))
local pts = compare.load(path)
T.eq(#pts, 2, "points of report.json")
T.eq(#pts[1].repeats, 2, "repeats of a point")
check(#pts[1].intervals.iops >= 5, "intervals of a point: %d", #pts[1].intervals.iops)
check(pts[1].values.iops > 0 and pts[1].params.numjobs == 1, "values and parameters")
c = compare.compare(path, path)
T.eq(#c.points, 2, "a sweep against itself")
for _, p in ipairs(c.points) do
  for _, e in ipairs(p.metrics) do
    T.eq(e.verdict, "no difference", p.label .. " " .. e.metric .. " against itself")
    T.eq(e.source, "repeats", "samples of a repeated sweep")
  end
end

-- fio's JSON output: iops and bw from its per-interval mean, deviation and count
local function fio_doc(iops)
  return {["fio version"] = "fio-3.33", ["global options"] = {bs = "4k", rw = "randread"},
          jobs = {{jobname = "j", ["job options"] = {numjobs = "1"},
                   read = {total_ios = 1000, iops = iops, bw_bytes = iops * 4096,
                           iops_mean = iops, iops_stddev = iops * 0.02, iops_samples = 60,
                           bw_mean = iops * 4, bw_dev = iops * 0.08, bw_samples = 60,
                           clat_ns = {percentile = {["50.000000"] = 1000, ["99.000000"] = 5000}}},
                   write = {total_ios = 0, iops = 0, bw_bytes = 0}}}}
end
local fa, fb = dir .. "/fa.json", dir .. "/fb.json"
report.write(fa, lb.json(fio_doc(1e4)))
report.write(fb, lb.json(fio_doc(1.1e4)))
c = compare.compare(fa, fb)
T.eq(#c.points, 1, "fio outputs matched")
local by = {}
for _, e in ipairs(c.points[1].metrics) do by[e.metric] = e end
T.eq(by.iops.verdict, "better", "fio: 10% more IOPS at 2% deviation over 60 samples")
T.eq(by.bw.verdict, "better", "fio: bandwidth")
T.eq(by.p99.a, 5000, "fio: p99 read from clat_ns")
T.eq(by.p99.verdict, "unknown", "fio: one p99 each")
check(not pcall(compare.load, dir .. "/missing.json"), "a missing file raises")
print("ok")
