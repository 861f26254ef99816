-- Description: under a rate cap each interval record carries the open-loop
-- latency (sched_lat_hist) beside clat and lat, and the intervals add up to
-- the result's; stop.latency{latency = "sched"}, metric names sched_p99...
-- and sweep.knee{latency = "sched"} judge it.  One 200 ms stall (the fault
-- engine's, fixed by its seed) in a 1000 IOPS run: the I/Os due during it
-- are issued together after it, in the interval where it ends, so that
-- interval's open-loop p50 holds the stall while its lat p50 does not.
local stop, sweep = require "luabench.stop", require "luabench.sweep"
local metrics = require "luabench.metric"
local check = dofile("tests/lua/lib.lua").check

local stall = {name = "ivsched", ioengine = "fault", fault_engine = "null", rw = "randread",
               bs = "4k", size = "8m", fault_delay = 0.001, fault_delay_us = 200000,
               fault_seed = 5, rate_iops = 1000, interval = "100ms"}

-- the intervals hold the whole result's open-loop latency, and only theirs
local seen_total = false
local spec = {}
for k, v in pairs(stall) do spec[k] = v end
spec.stop = function(iv)
  if rawget(iv.total.read, "sched_lat_hist") then seen_total = true end
  return false
end
local r = lb.run(spec)
local sum, top, ios = lb.hist(), 0, 0
for _, iv in ipairs(r.intervals) do
  if iv.read.total_ios > 0 then
    local h = rawget(iv.read, "sched_lat_hist")
    check(h ~= nil, "interval %d did I/O and has no sched_lat_hist", iv.index)
    check(h:count() == iv.read.total_ios, "interval %d: sched of %d I/Os, %d done", iv.index,
          h:count(), iv.read.total_ios)
    sum:merge(h)
    ios = ios + iv.read.total_ios
    top = math.max(top, metrics.metric(iv, "sched_p50"))
  end
  check(rawget(iv.write, "sched_lat_hist") == nil, "a write sched_lat_hist in a read job")
end
-- (an interval the stall kept its thread from publishing in time is handed
-- out without it, so the intervals may hold fewer I/Os than the result)
local whole = r.jobs[1].read.sched_lat_hist
check(whole:count() == r.read.total_ios and ios <= whole:count() and ios >= whole:count() / 2,
      "intervals hold %d sched samples, the result %d of %d I/Os", ios, whole:count(),
      r.read.total_ios)
check(sum:max() <= whole:max(), "an interval's sched max %d above the result's %d", sum:max(),
      whole:max())
check(top >= 20e6, "no interval's sched p50 holds the stall (at most %d ns)", top)
check(seen_total, "the stop rule's running total has no sched_lat_hist")
print(string.format("%d intervals, %d I/Os, highest interval sched p50 %.1f ms, p99 %.1f ms",
                    #r.intervals, sum:count(), top / 1e6, whole:percentile(99) / 1e6))

-- no rate cap: no sched_lat_hist, and the sched metrics are nil
local free = lb.run{name = "free", ioengine = "null", rw = "randread", bs = "4k", size = "1m",
                    interval = "100ms"}
check(rawget(free.intervals[1].read, "sched_lat_hist") == nil, "sched_lat_hist without a rate cap")
check(metrics.metric(free.intervals[1], "sched_p99") == nil, "a sched_p99 without a rate cap")

-- stop.latency on the open-loop latency stops at the stall; on lat it does not
local function run_with(rule)
  local s = {}
  for k, v in pairs(stall) do s[k] = v end
  s.stop = rule
  return lb.run(s)
end
local hit = run_with(stop.latency{p = 50, above = "20ms", window = "100ms", latency = "sched"})
check(hit.stopped_by and hit.stopped_by:find("^latency: sched p50 [%d.]+ms"),
      "latency=sched: stopped_by %s", tostring(hit.stopped_by))
check(hit.read.total_ios < 2048, "latency=sched stopped nothing: %d I/Os", hit.read.total_ios)
local miss = run_with(stop.latency{p = 50, above = "20ms", window = "100ms"})
check(miss.stopped_by == nil and miss.read.total_ios == 2048,
      "latency=lat stopped at the stall: %s", tostring(miss.stopped_by))

-- sweep.knee on the open-loop p99: two points, the second's sched p99 5x
local a = {params = {numjobs = 1}, values = {bw = 100e6, p99 = 1e6, sched_p99 = 1e6}}
local b = {params = {numjobs = 2}, values = {bw = 150e6, p99 = 1e6, sched_p99 = 5e6}}
local why = sweep.knee{latency = "sched", confidence = false}.compare(a, b, "numjobs")
check(why and why:find("grew sched p99 5.00x"), "knee on sched: %s", tostring(why))
check(sweep.knee{latency = "sched_p99", confidence = false}.compare(a, b, "numjobs") == why,
      "latency = 'sched_p99' is latency = 'sched'")
check(sweep.knee{confidence = false}.compare(a, b, "numjobs") == nil, "knee on lat fired")
local okk, errk = pcall(sweep.knee, {latency = "sched_pxx"})
check(not okk and errk:find("unknown metric 'sched_pxx'"), "bad knee latency: %s", tostring(errk))
print("ok")
