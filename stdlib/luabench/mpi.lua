--[[
luabench.mpi: phases of a multi-host run.  Under mpirun/srun every rank
runs the same script; lb.run already starts the timed phase on all ranks
together and returns the cluster's merged result.  This module runs the
other steps on the right ranks:

  local mpi = require "luabench.mpi"
  mpi.phase("one", function() prep.files{...} end)   -- rank 0 only
  mpi.phase("host", function() cache.drop(files) end) -- one rank per host
  mpi.phase("all", function() ... end)                -- every rank

with barriers before and after, so no rank starts the next step early.  A
phase's return value (strings, numbers, booleans, tables of them) reaches
every rank.  An error on any rank ends all ranks (the host aborts MPI).
]]
local M = {}

local function hostname()
  return lb.hostname and lb.hostname() or "localhost"
end

-- The ranks that share this host, and whether this rank leads them (the
-- lowest rank on each host).
function M.host_ranks()
  local names = lb.allgather(hostname())
  local mine, ranks = names[lb.rank + 1], {}
  for i, n in ipairs(names) do
    if n == mine then ranks[#ranks + 1] = i - 1 end
  end
  return ranks, ranks[1] == lb.rank
end

-- Number of distinct hosts in the run.
function M.hosts()
  local seen, n = {}, 0
  for _, h in ipairs(lb.allgather(hostname())) do
    if not seen[h] then seen[h], n = true, n + 1 end
  end
  return n
end

local scopes = {one = true, host = true, all = true}

function M.phase(scope, fn)
  if not scopes[scope] then
    error(string.format("mpi.phase: scope must be one, host or all, not '%s'", tostring(scope)), 2)
  end
  if type(fn) ~= "function" then error("mpi.phase: the second argument must be a function", 2) end
  local runs = scope == "all" or (scope == "one" and lb.rank == 0)
  if scope == "host" then
    local _, leader = M.host_ranks()
    runs = leader
  end
  lb.barrier()
  local value
  if runs then value = fn() end
  lb.barrier()
  if scope == "one" and lb.size > 1 then
    local text = lb.bcast(lb.rank == 0 and lb.json({v = value}) or "", 0)
    value = (lb.json_decode(text) or {}).v
  end
  return value
end

-- A per-rank name: pattern with %r replaced by the rank (per-client files
-- in the independent mode), e.g. mpi.per_rank("/mnt/data/client%r").
function M.per_rank(pattern)
  return (pattern:gsub("%%r", tostring(lb.rank)))
end

return M
