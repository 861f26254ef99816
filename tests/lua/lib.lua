--[[
Shared by the Lua tests (tests/lua/test_*.lua, run from the source
directory, also under plain lua5.4):

  local T = dofile("tests/lua/lib.lua")
  local check = T.check           -- check(cond, msg) or check(cond, fmt, ...):
                                  -- raises the message at the caller
  local dir, _ <close> = T.tmpdir("meta")
                                  -- a fresh directory, removed when the
                                  -- second value goes out of scope
  local check, eq, finish = T.counter()
                                  -- checks that print "FAIL: ..." and go on;
                                  -- finish() prints "N checks, M failed"
                                  -- and exits 0 or 1
]]
local T = {}

function T.check(cond, fmt, ...)
  if cond then return end
  error(select("#", ...) > 0 and string.format(fmt, ...) or fmt, 2)
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

function T.counter()
  local failures, checks = 0, 0
  local function check(cond, what)
    checks = checks + 1
    if not cond then
      failures = failures + 1
      io.stderr:write("FAIL: ", what, "\n")
    end
  end
  local function eq(got, want, what)
    check(got == want, what .. ": got " .. tostring(got) .. ", want " .. tostring(want))
  end
  local function finish()
    io.stdout:write(string.format("%d checks, %d failed\n", checks, failures))
    os.exit(failures == 0 and 0 or 1)
  end
  return check, eq, finish
end

return T
