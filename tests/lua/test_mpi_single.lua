-- Description: without a launcher there is one rank: phases run here,
-- allgather/bcast return this rank's value, results carry no hosts table.
local mpi = require "luabench.mpi"
local check = dofile("tests/lua/lib.lua").check
check(lb.rank == 0 and lb.size == 1, "one rank")
local ran = 0
check(mpi.phase("one", function() ran = ran + 1; return {x = 1} end).x == 1, "phase value")
mpi.phase("host", function() ran = ran + 1 end)
mpi.phase("all", function() ran = ran + 1 end)
check(ran == 3, "every scope runs on a single rank")
check(#lb.allgather("a") == 1 and lb.allgather("a")[1] == "a", "allgather")
check(lb.bcast("b", 0) == "b", "bcast")
check(mpi.per_rank("f%r") == "f0", "per_rank")
local ok, err = pcall(mpi.phase, "some", function() end)
check(not ok and err:find("scope must be one, host or all"), "bad scope")
local r = lb.run{ioengine = "null", size = "1m"}
check(r.hosts == nil, "no hosts table on one rank")
print("ok")
