-- A custom stop rule: end the run when the bandwidth of the last interval
-- falls 30% below the best interval so far (a device that starts to
-- throttle), or when the run is steady, whichever comes first.
--
--   luabench examples/stop_rule.lua [runtime=10s]
local stop = require "luabench.stop"
local report = require "luabench.report"

-- A rule is any function of the interval record; a string return stops
-- the run and becomes result.stopped_by.
local function throttled(drop)
  local best = 0
  return function(iv)
    local bw = report.metric(iv.interval, "bw")
    best = math.max(best, bw)
    if iv.index > 3 and bw < (1 - drop) * best then
      return string.format("throttled: %s, best %s", report.fmt_bw(bw), report.fmt_bw(best))
    end
  end
end

local result = lb.run{
  name = "stop-rule", engine = "null", rw = "randread", bs = "4k", size = "1g",
  null_lat = "50us", time_based = true, runtime = args.runtime or "10s", interval = "200ms",
  stop = stop.any{
    throttled(0.30),
    stop.steady{metric = "iops", window = "1s", deviation = 0.10, ramp = "400ms"},
  },
}
lb.report(result)
print("ended by: " .. (result.stopped_by or "runtime"))
