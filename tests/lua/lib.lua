--[[
Shared by the Lua tests (tests/lua/test_*.lua, run from the source
directory, also under plain lua5.4):

  local T = dofile("tests/lua/lib.lua")
  local check = T.check           -- check(cond, msg) or check(cond, fmt, ...):
                                  -- the one assertion of the Lua tests;
                                  -- raises the message at the caller's line
  local eq = T.eq                 -- eq(got, want, what): check(got == want)
                                  -- with both values in the message
  local dir, _ <close> = T.tmpdir("meta")
                                  -- a fresh directory, removed when the
                                  -- second value goes out of scope
]]
local T = {}

-- The failure of a check: the message, raised at the line that checked.
local function fail(fmt, ...)
  error(select("#", ...) > 0 and string.format(fmt, ...) or fmt, 3)
end

function T.check(cond, fmt, ...)
  if not cond then fail(fmt, ...) end
end

function T.eq(got, want, what)
  if got ~= want then fail("%s: got %s, want %s", what, tostring(got), tostring(want)) end
end

-- A fresh directory lbtest-TAG.XXXXXX under base, else under /dev/shm (or
-- where mktemp -d makes one), and a to-be-closed value that removes it.
function T.tmpdir(tag, base)
  local name = "lbtest-" .. tag .. ".XXXXXX"
  local p = io.popen(base and ("mktemp -d '" .. base .. "/" .. name .. "'") or
                     ("mktemp -d /dev/shm/" .. name .. " 2>/dev/null || mktemp -d"))
  local d = p:read("l")
  p:close()
  if not (d and #d > 0) then error("mktemp -d in " .. (base or "/dev/shm") .. " failed", 2) end
  return d, setmetatable({}, {__close = function() os.execute("rm -rf '" .. d .. "'") end})
end

return T
