-- Description: scripts/small_files.lua, run in this state with `args` set,
-- creates, reads, stats and deletes the files it was asked for and prints
-- one row per operation with the count; its temporary tree is gone after.
local T = dofile("tests/lua/lib.lua")
local check = T.check
check(lb.train and lb.meta, "lb.train/lb.meta missing: luaopen_luabench must call lb_train_open")

local dir = T.tmpdir("sf")

local lines = {}
local real_print = print
args = {dir = dir .. "/tree", files = "200", size = "1k", fanout = "64", threads = "2"}
print = function(...)
  local t = {}
  for i = 1, select("#", ...) do t[#t + 1] = tostring(select(i, ...)) end
  lines[#lines + 1] = table.concat(t, "\t")
end
local ok, err = pcall(dofile, "scripts/small_files.lua")
print = real_print
local leftover = io.popen("ls -A '" .. dir .. "/tree' 2>/dev/null"):read("a")
os.execute("rm -rf '" .. dir .. "'")
check(ok, tostring(err))

local out = table.concat(lines, "\n")
check(out:find("200 files of 1k in 4 directories", 1, true), "summary line: " .. out)
for _, op in ipairs{"create", "read", "stat", "unlink"} do
  check(out:find("\n" .. op .. "%s+200%s"), op .. " row with 200: " .. out)
end
check(out:find("p99", 1, true), "p99 column")
check(leftover == "", "files left: " .. leftover)
real_print("ok")
