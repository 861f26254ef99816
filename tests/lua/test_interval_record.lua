-- Description: the record a stop rule gets names its counts as results do
-- (total_ios, io_bytes, iops, bw_bytes), its totals add up to the result's,
-- and reading a field it lacks fails the run naming the field.
--
-- The runs have a fixed size and a set latency that sleeps: 256 I/Os of at
-- least 1ms last at least 256ms, two intervals of 100ms or more however
-- loaded the machine is.  Any one interval may hold no I/O (a thread kept
-- off the cores for 100ms), so the counts are checked in sum.
local check = dofile("tests/lua/lib.lua").check

-- a run of 256 I/Os (4 KiB each, iodepth depth) over at least 256ms
local function spec(depth, stop)
  return {ioengine = "null", iodepth = depth, size = 256 * 4096 * depth, null_lat = "1ms",
          interval = "100ms", stop = stop}
end

local seen, calls, sum = nil, 0, 0
local r = lb.run(spec(1, function(iv)
  local t, x = iv.total.read, iv.interval.read
  check(math.type(t.total_ios) == "integer" and t.io_bytes == t.total_ios * 4096,
        "total: %s ios, %s bytes", tostring(t.total_ios), tostring(t.io_bytes))
  check(math.type(x.total_ios) == "integer" and x.io_bytes == x.total_ios * 4096 and
        x.total_ios <= t.total_ios and x.clat_hist:count() == x.total_ios and
        (x.total_ios > 0) == (x.iops > 0) and (x.total_ios > 0) == (x.bw_bytes > 0),
        "interval counts: %d ios, %s iops, %s bw", x.total_ios, tostring(x.iops), tostring(x.bw_bytes))
  check(t.ios == t.total_ios and t.bytes == t.io_bytes, "the older names")
  check(iv.index == #iv.intervals and iv.elapsed_s > 0, "index and elapsed")
  calls, sum, seen = calls + 1, sum + x.total_ios, t.total_ios
end))
check(calls >= 2, "%d intervals of a run of 256ms or more", calls)
check(seen == sum and seen == r.read.total_ios and seen == 256,
      "the last total %s, the intervals' sum %d, the result %d", tostring(seen), sum, r.read.total_ios)
local n = 0
for _, iv in ipairs(r.intervals) do n = n + iv.read.total_ios end
check(#r.intervals == calls and n == r.read.total_ios, "result.intervals use the same names")

for _, read in ipairs({
  function(iv) return iv.total.read.ioss end,
  function(iv) return iv.interval.reads end,
  function(iv) return iv.elapsed end,
}) do
  local ok, err = pcall(lb.run, spec(1, read))
  check(not ok and tostring(err):find("the interval record has no field '[a-z_]+' %(it has: "),
        "a missing field: %s", tostring(err))
end
local ok, err = pcall(lb.run, spec(1, function(iv) return iv.total.read.ioss end))
check(tostring(err):find("'ioss' (it has: bw_bytes, bytes, clat_hist, io_bytes, iops, ios, lat_hist, total_ios)",
                         1, true), "the fields listed: %s", tostring(err))

-- Intervals keep total latency beside clat: on an async engine (lat =
-- slat + clat) the intervals' lat histograms add up to the result's, and
-- each I/O's lat is at least its clat; on a sync engine lat is clat.
for _, depth in ipairs{4, 1} do
  local n = 0
  local rr = lb.run(spec(depth, function(iv)
    local x, t = iv.interval.read, iv.total.read
    check(x.lat_hist:count() == x.clat_hist:count(), "depth %d: interval lat %d of %d I/Os", depth,
          x.lat_hist:count(), x.clat_hist:count())
    check(t.lat_hist:count() == t.clat_hist:count() and t.lat_hist:count() == t.total_ios,
          "depth %d: total lat_hist", depth)
    n = n + 1
  end))
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
