-- The knee of a psync numjobs sweep on tmpfs, n times over, judged by the
-- measured values alone and at 95% confidence from the per-interval
-- samples: how often each lands on the same knee.
--   luabench tests/bench/knee_repeat.lua [n=10] [runtime=2s] [dir=/dev/shm]
local sweep = require "luabench.sweep"
local n = tonumber(args.n or 10)
local dir = args.dir or "/dev/shm"
local file = dir .. "/lb-knee-repeat.dat"
local counts = {values = {}, stats = {}}
local _ <close> = setmetatable({}, {__close = function() lb.remove(file) end})
local order = {}
for i = 1, n do
  for _, how in ipairs({"values", "stats"}) do
    local sw = sweep.run{
      base = {name = "knee", engine = "psync", rw = "randread", bs = "4k", size = "256m",
              filename = file, time_based = true, runtime = args.runtime or "2s",
              interval = "200ms"},
      vary = {{"numjobs", {1, 2, 4, 8, 16}}},
      stop = sweep.knee{confidence = how == "stats" and 0.95 or false},
      progress = false,
    }
    local k = sw.knee and tostring(sw.knee.params.numjobs) or "none"
    counts[how][k] = (counts[how][k] or 0) + 1
    order[#order + 1] = string.format("run %d %s: knee %s", i, how, k)
  end
end
print(table.concat(order, "\n"))
for _, how in ipairs({"values", "stats"}) do
  local s = {}
  for k, c in pairs(counts[how]) do s[#s + 1] = string.format("numjobs=%s %d/%d", k, c, n) end
  table.sort(s)
  print(string.format("%-6s %s", how, table.concat(s, ", ")))
end
