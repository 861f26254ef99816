-- Description: fio's report formats from a result table: the JSON has
-- every key fio's has, percentile keys look like "99.000000", json+ bins
-- add up to total_ios, the normal report has the IOPS/BW line, terse v3
-- has 121 fields, and the log files have fio's columns.
-- Needs the lb binding (lb.hist, lb.json_decode): exit 77 without it.

if not (rawget(_G, "lb") and lb.hist and lb.json_decode) then
  io.stderr:write("SKIP: needs lb.hist and lb.json_decode\n")
  os.exit(77)
end

local fio = require "luabench.fio"
local O = require "luabench.fio.output"
local L = require "luabench.fio.logs"

local T = dofile("tests/lua/lib.lua")
local check, eq = T.check, T.eq

-- A result as lb.run gives it, built by hand: reads of 600 ns to 3 ms,
-- writes of 20 us, in two 1 s intervals.
local function hist(values)
  local h = lb.hist()
  for _, v in ipairs(values) do h:record(v) end
  return h
end

local function dir(values, bs)
  local n = #values
  local x = {io_bytes = n * bs, io_kbytes = n * bs // 1024, bw_bytes = n * bs // 2, bw = n * bs // 2048,
             iops = n / 2, runtime = n > 0 and 2000 or 0, total_ios = n, short_ios = 0, drop_ios = 0,
             errors = 0, bs_min = bs, bs_max = bs, bw_min = 1, bw_max = 2, bw_agg = 100.0, bw_mean = 1.5,
             bw_dev = 0.5, bw_samples = 2, iops_min = 1, iops_max = 2, iops_mean = 1.5, iops_stddev = 0.5,
             iops_samples = 2}
  x.clat_hist, x.lat_hist, x.slat_hist = hist(values), hist(values), hist({})
  for _, k in ipairs{"clat", "lat", "slat"} do x[k .. "_ns"] = O.lat_summary(x[k .. "_hist"]) end
  return x
end

local reads, writes = {}, {}
for i = 1, 400 do reads[i] = 600 + (i * 7919) % 3000000 end
for i = 1, 100 do writes[i] = 20000 + i end

local function interval(index, r, w)
  local function part(values, bs)
    return {ios = #values, bytes = #values * bs, iops = #values, bw_bytes = #values * bs, clat_hist = hist(values)}
  end
  return {index = index, start_ms = (index - 1) * 1000.0, end_ms = index * 1000.0,
          read = part(r, 4096), write = part(w, 4096), trim = part({}, 4096)}
end

local result = {jobname = "out", groupid = 0, error = 0, read = dir(reads, 4096), write = dir(writes, 4096),
                trim = dir({}, 4096), usr_cpu = 1.25, sys_cpu = 2.5, ctx = 7, majf = 0, minf = 3,
                job_runtime = 2000, elapsed = 2.0, fsyncs = 0,
                iodepth_level = {["1"] = 100.0, ["2"] = 0, ["4"] = 0, ["8"] = 0, ["16"] = 0, ["32"] = 0, [">=64"] = 0},
                options = {name = "out", rw = "randrw", bs = "4k", ioengine = "null"},
                intervals = {interval(1, table.move(reads, 1, 200, 1, {}), table.move(writes, 1, 50, 1, {})),
                             interval(2, table.move(reads, 201, 400, 1, {}), table.move(writes, 51, 100, 1, {}))}}

-- json ---------------------------------------------------------------------

local doc = lb.json_decode(fio.json(result))
for _, k in ipairs{"fio version", "timestamp", "time", "jobs"} do
  check(doc[k] ~= nil, "top-level key '" .. k .. "'")
end
-- as fio's: no "global options" without one, no "disk_util" without disk statistics
check(doc["global options"] == nil and doc.disk_util == nil, "global options or disk_util present")
eq(doc["fio version"], "luabench-" .. lb.version, "fio version")
local job = doc.jobs[1]
for _, k in ipairs{"jobname", "groupid", "error", "job options", "read", "write", "trim", "sync",
                   "job_runtime", "usr_cpu", "sys_cpu", "ctx", "majf", "minf", "iodepth_level",
                   "iodepth_submit", "iodepth_complete", "latency_ns", "latency_us", "latency_ms",
                   "latency_depth", "latency_target", "latency_percentile", "latency_window"} do
  check(job[k] ~= nil, "job key '" .. k .. "'")
end
for _, d in ipairs{"read", "write", "trim"} do
  for _, k in ipairs{"io_bytes", "io_kbytes", "bw_bytes", "bw", "iops", "runtime", "total_ios", "short_ios",
                     "drop_ios", "slat_ns", "clat_ns", "lat_ns", "bw_min", "bw_max", "bw_agg", "bw_mean",
                     "bw_dev", "bw_samples", "iops_min", "iops_max", "iops_mean", "iops_stddev",
                     "iops_samples"} do
    check(job[d][k] ~= nil, d .. " key '" .. k .. "'")
  end
  for _, l in ipairs{"slat_ns", "clat_ns", "lat_ns"} do
    for _, k in ipairs{"min", "max", "mean", "stddev", "N"} do
      check(job[d][l][k] ~= nil, d .. "." .. l .. " key '" .. k .. "'")
    end
  end
end
eq(job.read.total_ios, 400, "read total_ios"); eq(job.write.total_ios, 100, "write total_ios")
eq(job.read.io_bytes, 400 * 4096, "read io_bytes"); eq(job.jobname, "out", "jobname")
local pct = job.read.clat_ns.percentile
for _, k in ipairs{"1.000000", "50.000000", "99.000000", "99.500000", "99.900000", "99.950000", "99.990000"} do
  check(pct[k] ~= nil, "percentile key " .. k)
end
local npct = 0
for k in pairs(pct) do npct = npct + 1; check(k:match("^%d+%.%d%d%d%d%d%d$"), "percentile key format " .. k) end
eq(npct, 17, "17 percentiles")
check(job.read.clat_ns.bins == nil, "plain json has no bins")
for _, k in ipairs{"2", "4", "10", "20", "50", "100", "250", "500", "750", "1000"} do
  check(job.latency_ns[k] and job.latency_us[k] and job.latency_ms[k], "latency bucket " .. k)
end
check(job.latency_ms["2000"] and job.latency_ms[">=2000"], "latency_ms 2000 and >=2000")
local share = 0
for _, t in ipairs{job.latency_ns, job.latency_us, job.latency_ms} do for _, v in pairs(t) do share = share + v end end
check(math.abs(share - 100) < 0.01, "latency buckets add up to 100%: " .. share)
local in50 = #writes
for _, v in ipairs(reads) do if v >= 20000 and v < 50000 then in50 = in50 + 1 end end
check(math.abs(job.latency_us["50"] - 100 * in50 / 500) < 0.5, "20..50 us bucket: " .. job.latency_us["50"])

-- json+ --------------------------------------------------------------------

local plus = lb.json_decode(fio.json(result, {plus = true}))
for _, d in ipairs{"read", "write"} do
  local sum = 0
  for k, v in pairs(plus.jobs[1][d].clat_ns.bins) do
    check(k:match("^%d+$"), "bin key is ns: " .. k)
    sum = sum + v
  end
  eq(sum, plus.jobs[1][d].total_ios, d .. " json+ bins add up to total_ios")
end

-- group_reporting and clones ----------------------------------------------------

local a = setmetatable({jobname = "a", groupid = 0, _job = {group_reporting = "1", numjobs = "2"}},
                       {__index = result})
local b = setmetatable({jobname = "b", groupid = 0, _job = {group_reporting = "1"}}, {__index = result})
local c = setmetatable({jobname = "c", groupid = 1, _job = {}}, {__index = result})
local entries = O.entries({a, b, c})
eq(#entries, 2, "group_reporting: one entry per reporting group")
eq(entries[1].read.total_ios, 800, "merged reads"); eq(entries[1].jobname, "a", "merged name")
eq(O.threads_of(entries[1]), 3, "merged threads")
eq(entries[1].read.clat_ns.N, 800, "merged histogram")
local cl = setmetatable({jobname = "cl", groupid = 0, _job = {numjobs = "2"}, _clones = {result, result}},
                        {__index = result})
eq(#O.entries({cl}), 2, "without group_reporting each clone is an entry")

-- normal and terse ------------------------------------------------------------

local text = fio.normal(result)
check(text:find("out: (groupid=0, jobs=1): err= 0: pid=", 1, true), "normal: header\n" .. text)
check(text:find("\n  read: IOPS=200, BW=800KiB/s (819kB/s)(1600KiB/2000msec)\n", 1, true), "normal: read line\n" .. text)
check(text:find("\n  write: IOPS=", 1, true), "normal: write line")
check(text:find("clat percentiles (", 1, true), "normal: percentile block")
check(text:find("|  1.00th=[", 1, true) and text:find("99.99th=[", 1, true), "normal: percentile entries")
check(text:find("\n  cpu          : usr=1.25%, sys=2.50%, ctx=7, majf=0, minf=3\n", 1, true), "normal: cpu")
check(text:find("\n  IO depths    : 1=100.0%", 1, true), "normal: IO depths")
check(text:find("\nRun status group 0 (all jobs):\n   READ: bw=800KiB/s (819kB/s)", 1, true), "normal: run status\n" .. text)
local terse = fio.terse(result)
local fields = {}
for f in (terse:gsub("\n$", "") .. ";"):gmatch("([^;]*);") do fields[#fields + 1] = f end
eq(#fields, 121, "terse v3 field count")
eq(fields[1], "3", "terse version"); eq(fields[3], "out", "terse jobname"); eq(fields[6], "1600", "terse read KiB")
eq(fields[18], "1.000000%=" .. (result.read.clat_ns.percentile[1] // 1000), "terse first percentile")

-- log files ------------------------------------------------------------------

eq(L.plat_idx(127), 127, "fio bin of 127 ns"); eq(L.plat_idx(128), 128, "fio bin of 128 ns")
eq(L.plat_idx(1 << 40), L.NBINS - 1, "fio bins end at 1855")
local prev = 0
for v = 1, 100000, 37 do
  local i = L.plat_idx(v)
  check(i >= prev, "fio bins grow with the value")
  prev = i
end
local r = setmetatable({_job = {name = "out"}}, {__index = result})
local hist_log = L.histogram(r, 1000, 0)
local lines = 0
for line in hist_log:gmatch("[^\n]+") do
  lines = lines + 1
  local cols, sum = {}, 0
  for v in line:gmatch("[^,]+") do cols[#cols + 1] = tonumber(v) end
  eq(#cols, 3 + 1856, "hist log columns")
  for i = 4, #cols do sum = sum + cols[i] end
  eq(sum, cols[2] == 0 and 200 or 50, "hist log bins add up to the interval's I/Os")
end
eq(lines, 4, "hist log: two intervals, two directions")
local coarse = L.histogram(r, 1000, 2):match("[^\n]+")
eq(select(2, coarse:gsub(",", ",")) + 1, 3 + 1856 // 4, "log_hist_coarseness=2 quarters the bins")
local bw = L.windowed(r, "bw", 1000)
eq(bw:match("[^\n]+"), "1000, 800, 0, 0, 0", "bw log line")
eq(select(2, bw:gsub("\n", "")), 4, "bw log lines")
eq(L.windowed(r, "iops", 2000):match("[^\n]+"), "2000, 200, 0, 0, 0", "iops log over a 2 s window")
