-- Description: lb.run on the null engine returns fio's job object shape with
-- exact counts, latency summaries, histograms and per-interval samples.
local check = dofile("tests/lua/lib.lua").check

local r = lb.run{name = "api", ioengine = "null", rw = "randread", bs = "4k", size = "4m", numjobs = 2}
check(r.jobname == "api", "jobname")
check(r.read.total_ios == 2048, "total_ios " .. tostring(r.read.total_ios))
check(r.read.io_bytes == 2048 * 4096, "io_bytes")
check(r.read.io_kbytes == 2048 * 4, "io_kbytes")
check(r.write.total_ios == 0, "no writes")
check(r.read.clat_ns.N == 2048, "clat N")
check(r.read.lat_ns.N == 2048, "lat N")
check(r.read.clat_ns.percentile[99] >= r.read.clat_ns.percentile[50], "p99 >= p50")
check(r.read.clat_ns.percentile[99.9] ~= nil, "p99.9 present")
check(r.read.clat_ns.min <= r.read.clat_ns.max, "min <= max")
check(r.read.clat_hist:count() == 2048, "hist count")
check(r.read.clat_hist:percentile(50) == r.read.clat_ns.percentile[50], "hist p50 = summary p50")
check(r.read.iops > 0 and r.read.bw_bytes > 0, "rates")
check(r.clock == "tsc" or r.clock == "clock_gettime", "clock name")
check(type(r.usr_cpu) == "number" and type(r.sys_cpu) == "number", "cpu")
check(type(r.cpu.s_per_gb) == "number", "cpu per GB")
check(r.options.rw == "randread" and r.options.size == "4m", "options kept")
check(type(r.intervals) == "table" and #r.intervals >= 1, "intervals")
local ios = 0
for _, iv in ipairs(r.intervals) do ios = ios + iv.read.ios end
check(ios == 2048, "interval ios sum to total: " .. ios)
check(r.partial == false, "not partial")

-- histograms merge exactly
local h = lb.hist()
h:merge(r.read.clat_hist)
h:merge(r.read.clat_hist)
check(h:count() == 4096, "merged count")
check(h:percentile(99) == r.read.clat_hist:percentile(99), "merge keeps percentiles")
h:record(1000, 10)
check(h:count() == 4106, "record n")

-- several jobs run together; results per job
local r2 = lb.run{ioengine = "null", size = "1m", jobs = {{name = "a", bs = "4k"}, {name = "b", bs = "8k"}}}
check(#r2.jobs == 2, "two jobs")
check(r2.jobs[1].read.total_ios == 256 and r2.jobs[2].read.total_ios == 128, "per job ios")
check(r2.read.total_ios == 384, "merged ios")

-- a stop rule ends a time-based run
local calls, seen = 0, 0
local r3 = lb.run{ioengine = "null", null_lat = "10us", time_based = true, runtime = "30s",
                  interval = "100ms", stop = function(iv)
                    calls = calls + 1
                    check(iv.total.read.ios >= seen, "cumulative ios never decrease")
                    seen = iv.total.read.ios
                    if iv.index >= 3 and seen > 0 then return "enough" end
                  end}
check(r3.stopped_by == "enough", "stopped_by " .. tostring(r3.stopped_by))
check(calls >= 3 and r3.job_runtime < 30000, "stopped early")
check(r3.read.total_ios >= seen, "the result holds at least what the rule saw")

-- JSON round trip
local t = lb.json_decode(lb.json({a = 1, b = {1, 2, 3}, c = "x"}))
check(t.a == 1 and #t.b == 3 and t.c == "x", "json roundtrip")
check(lb.json({}) == "{}", "empty object")
print("ok")
