-- Description: the fio modules' old names (luabench.fio_parse, ...) load
-- the very modules of their new ones (luabench.fio.parse, ...), kept for
-- one release so that scripts written against them still run.
local check = dofile("tests/lua/lib.lua").check

for _, m in ipairs({"parse", "run", "output", "text", "logs"}) do
  local old, new = require("luabench.fio_" .. m), require("luabench.fio." .. m)
  check(type(new) == "table" and old == new, "luabench.fio_%s is not luabench.fio.%s", m, m)
end
