-- Description: cache.drop empties a file's pages (drop_caches, or fadvise
-- when that is refused, and says so), cache.warm fills them, residency
-- reports it; cache.exec and cache.poll run commands, stop on the success
-- or failure text or a timeout, and log every hook.
local cache = require "luabench.cache"

local T = dofile("tests/lua/lib.lua")
local check = T.check

-- Page-cache residency needs a disk file system: tmpfs pages cannot be
-- dropped, so the data file lives in /var/tmp.
local disk, _d <close> = T.tmpdir("cache", "/var/tmp")
local shm, _s <close> = T.tmpdir("cache", "/dev/shm")

local function write_file(path, bytes)
  local f = assert(io.open(path, "wb"))
  local chunk = string.rep("luabench", 8192)
  for _ = 1, bytes // #chunk do f:write(chunk) end
  f:close()
end

local data = disk .. "/data"
write_file(data, 4 << 20)
if not lb.residency(data) then os.exit(77) end   -- no mincore here

-- warm: fully resident; fadvise drop: (almost) nothing left.
local bytes = cache.warm(data)
check(bytes == 4 << 20, "warm read %d bytes", bytes)
local frac, detail = cache.residency(data)
check(frac == 1.0, "residency after warm = %s", tostring(frac))
check(#detail == 1 and detail[1].path == data and detail[1].total == (4 << 20) // 4096 or
      detail[1].total > 0, "residency detail")

local method, note = cache.drop({data}, {global = false})
check(method == "fadvise" and note and note:find("fadvise"), "local drop: %s %s", method, tostring(note))
frac = cache.residency(data)
check(frac < 1, "residency after fadvise dontneed = %s", tostring(frac))

-- the default drop: the whole page cache when the kernel lets us, else
-- fadvise with a note saying drop_caches was refused.
cache.warm(data)
method, note = cache.drop(data)
if method == "drop_caches" then
  check(note == nil, "drop_caches worked but a note was given: %s", tostring(note))
else
  check(method == "fadvise" and note and note:find("drop_caches refused"), "fallback: %s %s",
        tostring(method), tostring(note))
end
check(cache.residency(data) < 1, "residency after cache.drop")

-- tmpfs pages stay: the note says the files are still resident.
local shmfile = shm .. "/data"
write_file(shmfile, 1 << 20)
method, note = cache.drop(shmfile, {global = false})
check(note and note:find("still resident"), "tmpfs note: %s", tostring(note))

-- an empty file holds no pages; several files at once; a colon list.
local empty = disk .. "/empty"
io.open(empty, "w"):close()
frac, detail = cache.residency(data .. ":" .. empty)
check(#detail == 2 and detail[2].total == 0 and detail[2].fraction == 0, "empty file residency")
check(select(2, pcall(cache.residency, disk .. "/missing")):find("No such file"), "missing file")

-- exec
local r = cache.exec{cmd = "echo hello; echo oops >&2; exit 3"}
check(r.status == 3 and r.output == "hello\noops\n" and r.time_s >= 0, "exec: %d %q", r.status, r.output)
check(not pcall(cache.exec, {cmd = "exit 1", check = true}), "check=true raises")
check(not pcall(cache.exec, {}), "exec without cmd raises")

-- poll: a counter that reports SUCCEEDED on the third try
local counter = shm .. "/n"
write_file(counter, 0)
local cmd = string.format("n=$(cat %s); n=$((${n:-0}+1)); echo $n > %s; " ..
                          "if [ $n -ge 3 ]; then echo 'Job State: SUCCEEDED'; else echo 'Job State: RUNNING'; fi",
                          counter, counter)
r = cache.poll{cmd = cmd, done = "SUCCEEDED", fail = "FAILED", every = "20ms", timeout = "10s"}
check(r.tries == 3 and r.output:find("SUCCEEDED"), "poll tries %d", r.tries)
-- ["until"] is the same as done; patterns are plain text unless pattern=true
write_file(counter, 0)
r = cache.poll{cmd = cmd, ["until"] = "State: SUCC", every = "10ms", timeout = "10s"}
check(r.tries == 3, "until= tries %d", r.tries)
write_file(counter, 0)
r = cache.poll{cmd = cmd, done = "SUCC%a+ED\n", pattern = true, every = "10ms", timeout = "10s"}
check(r.tries == 3, "pattern tries %d", r.tries)

local ok, err = pcall(cache.poll, {cmd = "echo 'Job State: FAILED'", done = "SUCCEEDED",
                                   fail = "FAILED", every = "10ms", timeout = "5s"})
check(not ok and err:find("reported 'FAILED'") and err:find("Job State: FAILED"), "fail: %s", tostring(err))
ok, err = pcall(cache.poll, {cmd = "echo RUNNING", done = "SUCC.*", every = "20ms", timeout = "100ms"})
check(not ok and err:find("timed out") and err:find("RUNNING"), "timeout: %s", tostring(err))
ok, err = pcall(cache.poll, {cmd = "no-such-command-lb", done = "x", every = "10ms", timeout = "5s"})
check(not ok and err:find("cannot run"), "missing command: %s", tostring(err))

-- the log has every hook with its command, status and time
local kinds = {}
for _, e in ipairs(cache.log()) do
  check(e.cmd and e.status and e.time_s, "log entry without cmd/status/time")
  kinds[e.kind] = (kinds[e.kind] or 0) + 1
end
check(kinds.drop == 3 and kinds.warm == 2 and kinds.exec == 2 and kinds.poll == 6,
      "log kinds: drop %s warm %s exec %s poll %s", kinds.drop, kinds.warm, kinds.exec, kinds.poll)
