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
check(tostring(err):find("'ioss' (it has: bw_bytes, bytes, clat_hist, io_bytes, iops, ios, total_ios)",
                         1, true), "the fields listed: %s", tostring(err))
