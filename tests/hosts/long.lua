-- Run by every rank of tests/sh/test_hosts_vanish.sh: a short point whose
-- result rank 0 writes to out= at once, then a point of ten minutes
-- (started.<rank> in dir= says this rank reached it) that a lost host
-- must end long before its time.
local r = lb.run{name = "p1", ioengine = "null", rw = "read", bs = "4k", size = "1m"}
if lb.rank == 0 then
  local f = assert(io.open(args.out, "w"))
  f:write(lb.json({total_ios = r.read.total_ios, hosts = #r.hosts}))
  f:close()
end
assert(io.open(args.dir .. "/started." .. lb.rank, "w")):close()
lb.run{name = "p2", ioengine = "null", rw = "read", bs = "4k", size = "1g", time_based = 1,
       runtime = "600s", rate_iops = 200}
print("the long point ended on rank " .. lb.rank)
