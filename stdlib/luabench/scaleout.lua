--[[
luabench.scaleout: the pieces of the storage guide's scale-out benchmark
(scripts/scaleout.lua) that do not run I/O: the two file access modes as
lb.run specs, the independent-file mode's file assignment, the peak table
in the guide's layout (topology xW/yC, GiB/s and Gbps), and scaling
efficiency against a one-client baseline.

Shared-file mode: ONE job, iodepth=1, numjobs threads that all read all
files (fio's colon-separated filename list).  Independent-file mode:
iodepth=32 and each thread, or small group of threads, pinned to its own
files:
  numjobs <= files: numjobs jobs of one thread; job s gets files
                    s, s+numjobs, s+2*numjobs... (Python's files[s::nj]);
  numjobs >  files: one job per file with numjobs // files threads each.
The guide divides without a remainder: with 20 files, numjobs=30 runs 20
jobs of 1 thread (20 threads, not 30).  assign() returns how many threads
were left out so the caller can say so.
]]

local prep = require "luabench.prep"

local M = {}

--[[ scaleout.assign(files, numjobs) -> jobs, dropped.  files: an array of
paths (any values); jobs: array of {files = {...}, numjobs = n} in section
order; dropped: threads the integer division leaves out (0 when numjobs
<= #files or #files divides numjobs). ]]
function M.assign(files, nj)
  assert(type(files) == "table" and #files > 0, "scaleout.assign: files must be a non-empty array")
  assert(math.type(nj) == "integer" and nj >= 1,
         "scaleout.assign: numjobs must be a positive integer")
  local n, jobs = #files, {}
  if nj <= n then
    for s = 1, nj do
      local mine = {}
      for i = s, n, nj do mine[#mine + 1] = files[i] end
      jobs[s] = {files = mine, numjobs = 1}
    end
    return jobs, 0
  end
  local per = nj // n
  for i = 1, n do jobs[i] = {files = {files[i]}, numjobs = per} end
  return jobs, nj - per * n
end

--[[ The lb.run spec of the shared-file mode (numjobs set by the sweep). ]]
function M.shared_spec(o)
  return {name = "shared", ioengine = o.engine, direct = o.direct, iodepth = o.iodepth or 1,
          rw = o.rw, bs = o.bs, filename = prep.colon(o.files), time_based = true,
          runtime = o.runtime, readonly = o.readonly, invalidate = o.invalidate,
          group_reporting = true}
end

--[[ The lb.run spec of the independent-file mode for numjobs threads:
one job per section of assign(), run concurrently, reported as a group.
Also returns the threads that ran and those the division left out. ]]
function M.independent_spec(o, nj)
  local parts, dropped = M.assign(o.files, nj)
  local jobs, threads = {}, 0
  for s, part in ipairs(parts) do
    jobs[s] = {name = string.format("section-%d", s - 1), filename = prep.colon(part.files),
               numjobs = part.numjobs}
    threads = threads + part.numjobs
  end
  local spec = {name = "independent", ioengine = o.engine, direct = o.direct,
                iodepth = o.iodepth or 32, rw = o.rw, bs = o.bs, time_based = true,
                runtime = o.runtime, readonly = o.readonly, invalidate = o.invalidate,
                group_reporting = true, jobs = jobs}
  return spec, threads, dropped
end

-- ---------------------------------------------------------------- units

function M.gib(bytes_per_s) return bytes_per_s / 2 ^ 30 end

-- Gigabits per second: bits / 1e9, as network links are rated.
function M.gbps(bytes_per_s) return bytes_per_s * 8 / 1e9 end

function M.topology(workers, clients)
  return string.format("%sW/%sC", tostring(workers), tostring(clients))
end

-- ---------------------------------------------------------------- efficiency

--[[ scaleout.efficiency(bw, clients, base_bw, base_clients) -> ratio:
the cluster's bandwidth over clients/base_clients times the baseline's
(the guide's scaling efficiency; base_clients is normally 1).  nil when
the baseline has no bandwidth. ]]
function M.efficiency(bw, clients, base_bw, base_clients)
  base_clients = base_clients or 1
  if not base_bw or base_bw <= 0 or not bw then return nil end
  return bw / (clients / base_clients * base_bw)
end

--[[ Efficiency of every mode of doc (this run's JSON document) against
base (a scaleout JSON of a smaller topology, normally one client): per
numjobs both runs measured, and at the peaks. ]]
function M.efficiencies(doc, base)
  local clients, bclients = doc.clients or 1, base.clients or 1
  local out = {clients = clients, baseline_clients = bclients}
  for name, mode in pairs(doc.modes or {}) do
    local bmode = base.modes and base.modes[name]
    if bmode then
      local by = {}
      for _, p in ipairs(bmode.points or {}) do by[p.numjobs] = p.bw_bytes end
      local pts = {}
      for _, p in ipairs(mode.points) do
        local e = M.efficiency(p.bw_bytes, clients, by[p.numjobs], bclients)
        if e then pts[#pts + 1] = {numjobs = p.numjobs, efficiency = e} end
      end
      out[name] = {points = pts,
                   peak = M.efficiency(mode.peak_bw_bytes, clients, bmode.peak_bw_bytes, bclients)}
    end
  end
  return out
end

-- ---------------------------------------------------------------- tables

local TITLES = {shared = "Shared-file", independent = "Independent-file"}

local function peak_cell(mode)
  if not mode or not mode.peak_bw_bytes then return "-" end
  return string.format("%.1f / %.1f", M.gib(mode.peak_bw_bytes), M.gbps(mode.peak_bw_bytes))
end

--[[ scaleout.peak_table(rows) -> Markdown in the guide's layout, one row
per topology: rows = {{topology = "1W/1C", modes = {shared = {peak_bw_bytes=},
independent = {...}}}, ...}. ]]
function M.peak_table(rows)
  local lines = {
    "| Topology | " .. TITLES.shared .. " peak (GiB/s / Gbps) | " ..
      TITLES.independent .. " peak (GiB/s / Gbps) |",
    "|---|---|---|",
  }
  for _, r in ipairs(rows) do
    lines[#lines + 1] = string.format("| %s | %s | %s |", r.topology,
                                      peak_cell(r.modes.shared), peak_cell(r.modes.independent))
  end
  return table.concat(lines, "\n") .. "\n"
end

M.TITLES = TITLES

return M
