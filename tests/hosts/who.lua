-- Run by every rank of the multi-host tests (tests/hosts/): each rank writes
-- its own file on the shared directory dir=, w.<hostname>, of rank+1 MiB,
-- and says where it runs; rank 0 writes the cluster's result (host rows and
-- merged totals) to out=, for tests/hosts/rows.py to check.
local me = lb.hostname()
local r = lb.run{name = "w", ioengine = "psync", rw = "write", bs = "4k",
                 filename = args.dir .. "/w." .. me, size = (lb.rank + 1) .. "m"}
print(string.format("rank %d of %d on %s", lb.rank, lb.size, me))
if lb.rank == 0 then
  local f = assert(io.open(args.out, "w"))
  f:write(lb.json({hosts = r.hosts, total_ios = r.write.total_ios, io_bytes = r.write.io_bytes}))
  f:close()
end
