-- expect: 1 foreign.dat: not created by luabench, left in place
local ok, msg = lb.remove("foreign.dat")
if not ok then error(msg, 0) end
