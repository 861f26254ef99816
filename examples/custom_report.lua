-- Your own report format over report.table: the same rows the built-in
-- text, Markdown, CSV and JSON reports use (bw in bytes/s, latencies ns).
--
--   luabench examples/custom_report.lua
local sweep = require "luabench.sweep"
local report = require "luabench.report"

local sw = sweep.run{
  base = {engine = "null", bs = "4k", size = "1g", null_lat = "20us", time_based = true,
          runtime = "300ms"},
  vary = {{"rw", {"read", "randread"}}, {"numjobs", {1, 2}}},
}

local t = report.table(sw)
print(string.format("%-9s %7s %12s %10s", "pattern", "threads", "GiB/s", "p99 (us)"))
for _, row in ipairs(t.rows) do
  print(string.format("%-9s %7d %12.3f %10.1f", row.rw, row.numjobs, row.bw / 2^30, row.p99 / 1e3))
end

-- The guide's table layout, in MB/s this time.
print()
io.write(report.markdown(sw, {rows = "rw", cols = "numjobs", metric = "bw", unit = "MB/s"}))
