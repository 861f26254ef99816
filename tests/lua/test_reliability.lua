-- Description: runs that fail can be caught (pcall) and leave nothing
-- behind: after hundreds of refused, failing and aborted runs the process
-- holds the same descriptors and threads as before, the user's file is
-- untouched, and the next run works.  Failed I/Os come back in
-- result.errors with errno, file, offset and direction.
local check = dofile("tests/lua/lib.lua").check

local function slurp(path, mode)
  local fh = assert(io.open(path, mode or "rb"))
  local s = fh:read("a")
  fh:close()
  return s
end
local pid = slurp("/proc/self/stat"):match("^(%d+)")
local function count(dir)
  local p = assert(io.popen("ls " .. dir .. " | wc -l"))
  local n = tonumber(p:read("l"))
  p:close()
  return n
end
-- descriptors; the pipe of the popen that counts them may show up once
-- (the child lists them before this process closes its copy of the pipe's
-- other end), so a count is the least of a few
local function fds(want)
  collectgarbage()
  local n = math.huge
  for _ = 1, 20 do
    n = math.min(n, count("/proc/" .. pid .. "/fd"))
    if want and n <= want then break end
  end
  return n
end
-- threads; with want, once a thread just joined has left /proc (up to 1 s)
local function threads(want)
  local n
  for _ = 1, 20 do
    n = count("/proc/" .. pid .. "/task")
    if want == nil or n == want then break end
    lb.sleep(0.05)
  end
  return n
end

local base = (lb.stat("/dev/shm") and "/dev/shm" or "/tmp") .. "/lbrel." .. pid
assert(lb.mkdir(base))
local user = base .. "/user.dat"
local f = assert(io.open(user, "wb"))
f:write(string.rep("user data\n", 6554))
f:close()
local user_bytes = slurp(user)

local function body()
  -- a first run starts what stays for good (a sanitizer's own thread)
  lb.run{ioengine = "null", size = "64k", numjobs = 2}
  local fds0, threads0 = fds(), threads()

  -- refused before anything starts
  for i = 1, 100 do
    local ok, err = pcall(lb.run, {filename = user, rw = "write", size = "64k"})
    check(not ok and tostring(err):find("refusing to write", 1, true), "refused write: " .. tostring(err))
  end
  -- bad options
  for i = 1, 100 do
    local ok, err = pcall(lb.run, {ioengine = "null", size = "1m", bs = i % 2 == 0 and 0 or "4x"})
    check(not ok and tostring(err):find("bad value", 1, true), "bad value: " .. tostring(err))
  end
  -- a world that refuses: a missing directory
  for i = 1, 50 do
    local ok, err = pcall(lb.run, {directory = base .. "/nodir", rw = "write", size = "64k"})
    check(not ok and tostring(err):find("nodir", 1, true), "missing directory: " .. tostring(err))
  end
  -- a stop rule that fails ends the run it watches, with its threads
  for i = 1, 20 do
    local ok, err = pcall(lb.run, {ioengine = "null", null_lat = "100us", size = "1m", numjobs = 4,
                                   runtime = "30s", time_based = true, interval = "10ms",
                                   stop = function() error("stop rule failed") end})
    check(not ok and tostring(err):find("stop rule failed", 1, true), "stop error: " .. tostring(err))
    -- at once, not when the collector comes by
    check(threads(threads0) == threads0, "the workers of a run whose stop rule failed still run")
  end
  -- the engine fails to start (unknown wrapped engine; its file is laid out
  -- first, hence the directory)
  for i = 1, 20 do
    local ok = pcall(lb.run, {ioengine = "fault", fault_engine = "nosuch", size = "1m", directory = base})
    check(not ok, "fault_engine=nosuch ran")
  end
  lb.remove(base .. "/job.0.0")
  -- a real engine over real files, cut short by errors
  for i = 1, 20 do
    local r = lb.run{ioengine = "fault", fault_engine = "psync", fault_eio = 0.2, fault_seed = i,
                     filename = base .. "/f" .. (i % 3), size = "256k", bs = "4k", rw = "randread"}
    check(r.error == 5, "EIO expected, got " .. tostring(r.error))
  end

  -- (a sanitizer may close one of its own meanwhile: fewer is fine)
  local fds1 = fds(fds0)
  check(fds1 <= fds0, ("descriptors: %d before, %d after"):format(fds0, fds1))
  check(threads(threads0) == threads0, ("threads: %d before, %d after"):format(threads0, threads(threads0)))
  check(slurp(user) == user_bytes, "user.dat changed")

  -- result.errors: what a script needs to say what went wrong
  local r = lb.run{ioengine = "fault", fault_engine = "null", fault_eio = 0.1, fault_seed = 7,
                   rw = "randrw", bs = "4k", size = "1m", continue_on_error = "all"}
  local e = r.errors
  check(r.error == 5 and e.first_errno == 5 and e.first_error == "EIO", "first error " .. tostring(e.first_error))
  check(e.count == r.read.errors + r.write.errors and e.count > 0, "count " .. tostring(e.count))
  check(r.read.total_ios + r.write.total_ios + e.count == 256, "every I/O done or failed")
  check(e.first_ddir == "read" or e.first_ddir == "write", "first_ddir " .. tostring(e.first_ddir))
  check(type(e.first_offset) == "number" and e.first_offset % 4096 == 0, "first_offset")
  check(e.first_file == "job.0.0", "first_file " .. tostring(e.first_file))
  check(e.message:find("at offset " .. e.first_offset, 1, true), "message " .. tostring(e.message))
  local by = 0
  for _, b in ipairs(e.by_errno) do
    check(b.name == "EIO" and b.errno == 5, "by_errno name")
    by = by + b.count
  end
  check(by == e.count, "by_errno adds up")
  check(r.partial == false and r.stopped_by == nil, "a run with errors is not partial")

  -- and the next run works
  local ok = lb.run{ioengine = "null", size = "1m"}
  check(ok.error == 0 and ok.read.total_ios == 256, "a clean run after all that")

end

-- the files go whatever happened
local passed, err = pcall(body)
for _, n in ipairs{"f0", "f1", "f2", "job.0.0"} do lb.remove(base .. "/" .. n) end
os.remove(user)
os.remove(base)
if not passed then error(err, 0) end
