-- Description: the record a stop rule gets names its counts as results do
-- (total_ios, io_bytes, iops, bw_bytes), its totals add up to the result's,
-- and reading a field it lacks fails the run naming the field.
local check = dofile("tests/lua/lib.lua").check

local seen
local r = lb.run{ioengine = "null", size = "1m", runtime = "300ms", time_based = true,
                 interval = "100ms", stop = function(iv)
  local t, x = iv.total.read, iv.interval.read
  check(math.type(t.total_ios) == "integer" and t.io_bytes == t.total_ios * 4096,
        "total: %s ios, %s bytes", tostring(t.total_ios), tostring(t.io_bytes))
  check(x.total_ios <= t.total_ios and x.iops > 0 and x.bw_bytes > 0 and x.clat_hist:count() > 0,
        "interval counts")
  check(t.ios == t.total_ios and t.bytes == t.io_bytes, "the older names")
  check(iv.index == #iv.intervals and iv.elapsed_s > 0, "index and elapsed")
  seen = t.total_ios
end}
check(seen and seen <= r.read.total_ios, "the last total %s, the result %d", tostring(seen),
      r.read.total_ios)
check(r.intervals[1].read.total_ios > 0, "result.intervals use the same names")

for _, read in ipairs({
  function(iv) return iv.total.read.ioss end,
  function(iv) return iv.interval.reads end,
  function(iv) return iv.elapsed end,
}) do
  local ok, err = pcall(lb.run, {ioengine = "null", size = "1m", runtime = "200ms",
                                 time_based = true, interval = "100ms", stop = read})
  check(not ok and tostring(err):find("the interval record has no field '[a-z_]+' %(it has: "),
        "a missing field: %s", tostring(err))
end
local ok, err = pcall(lb.run, {ioengine = "null", size = "1m", runtime = "200ms", time_based = true,
                               interval = "100ms", stop = function(iv) return iv.total.read.ioss end})
check(tostring(err):find("'ioss' (it has: bw_bytes, bytes, clat_hist, io_bytes, iops, ios, lat_hist, total_ios)",
                         1, true), "the fields listed: %s", tostring(err))

-- Intervals keep total latency beside clat: on an async engine (lat =
-- slat + clat) the intervals' lat histograms add up to the result's, and
-- each I/O's lat is at least its clat; on a sync engine lat is clat.
for _, depth in ipairs{4, 1} do
  local n = 0
  local rr = lb.run{ioengine = "null", iodepth = depth, null_lat = "20us", size = "1m",
                    runtime = "300ms", time_based = true, interval = "100ms", stop = function(iv)
    local x, t = iv.interval.read, iv.total.read
    check(x.lat_hist:count() == x.clat_hist:count(), "depth %d: interval lat %d of %d I/Os", depth,
          x.lat_hist:count(), x.clat_hist:count())
    check(t.lat_hist:count() == t.clat_hist:count() and t.lat_hist:count() == t.total_ios,
          "depth %d: total lat_hist", depth)
    n = n + 1
  end}
  local all = lb.hist()
  for _, iv in ipairs(rr.intervals) do all:merge(iv.read.lat_hist) end
  local want = rr.read.lat_hist
  check(n > 0 and all:count() == want:count() and all:percentile(99) == want:percentile(99) and
        all:max() == want:max(), "depth %d: intervals' lat %d I/Os p99 %d, result %d p99 %d", depth,
        all:count(), all:percentile(99), want:count(), want:percentile(99))
  local c = lb.hist()
  for _, iv in ipairs(rr.intervals) do c:merge(iv.read.clat_hist) end
  if depth == 1 then
    check(c:percentile(50) == all:percentile(50) and c:max() == all:max(), "sync: lat is clat")
  else
    check(all:min() >= c:min() and all:percentile(50) >= c:percentile(50), "async: lat below clat")
  end
end
