-- The storage guide's numjobs sweep, stopped at the knee: doubling threads
-- until bandwidth stops growing or p99 degrades, then bisecting to place the
-- knee.  The null engine's null_lat/null_knee make a device whose latency
-- grows past null_knee busy threads, so this runs anywhere; swap in your
-- engine, filename and runtime="60s" for a real device.
--
--   luabench examples/knee_sweep.lua [null_lat=20ms] [out=DIR]
local sweep = require "luabench.sweep"
local report = require "luabench.report"

local sw = sweep.run{
  base = {name = "knee", engine = "null", rw = "randread", bs = "4k", size = "1g",
          null_lat = args.null_lat or "20ms", null_knee = 4,
          time_based = true, runtime = args.runtime or "500ms"},
  vary = {{"numjobs", {1, 2, 4, 8, 16, 32, 64}}},
  stop = sweep.knee{bw_gain = 0.05, p99_growth = 2.0, refine = true},
}

print(report.text(sw))
print()
io.write(report.markdown(sw))
if sw.knee then
  local peak = sw.peak.params.numjobs
  print(string.format("\nuse numjobs=%d, the knee%s", sw.knee.params.numjobs,
                      peak ~= sw.knee.params.numjobs and
                      string.format(", not the bandwidth peak (numjobs=%d): p99 degrades first", peak) or ""))
end
if args.out then
  report.write(args.out .. "/knee.svg", report.svg(sw, {x = "numjobs", y = {"bw", "p99"}}))
  report.write(args.out .. "/knee.html", report.html(sw, {title = "numjobs sweep"}))
  report.write(args.out .. "/knee.json", report.json(sw, {pretty = true}))
  print("wrote knee.svg, knee.html and knee.json in " .. args.out)
end
