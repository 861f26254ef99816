-- Description: as fio's, a buffered time_based job drops its file's cached
-- pages at each wrap (sequential over one file, random when the map is
-- done), so every pass is read from the device: the kernel's count of the
-- bytes this process read from storage (/proc/self/io read_bytes) follows
-- io_bytes; invalidate=0 keeps the cache, and the later passes read
-- nothing from the device.  fadvise_hint takes fio's values.
local T = dofile("tests/lua/lib.lua")
local check = T.check

-- tmpfs has no device: the file lives on the disk.
local disk, _d <close> = T.tmpdir("wrap", "/var/tmp")
local data = disk .. "/data"
local SIZE = 4 << 20

local function read_bytes()
  local f = io.open("/proc/self/io")
  if not f then return nil end
  local n = f:read("a"):match("\nread_bytes: (%d+)")
  f:close()
  return tonumber(n)
end
if not read_bytes() then os.exit(77) end   -- no task I/O accounting here

do
  local f = assert(io.open(data, "wb"))
  local chunk = string.rep("luabench", 8192)
  for _ = 1, SIZE // #chunk do f:write(chunk) end
  f:close()
  os.execute("sync '" .. data .. "'")      -- dirty pages are never dropped
end

local function run(spec)
  local job = {name = "w", filename = data, size = SIZE, ioengine = "psync", time_based = true,
               runtime = "1s"}
  for k, v in pairs(spec) do job[k] = v end
  local before = read_bytes()
  local r = lb.run(job)
  return r.read.io_bytes, read_bytes() - before
end

local skipped = true
for _, rw in ipairs{"read", "randread"} do
  local bs = rw == "read" and "128k" or "16k"
  local io, dev = run{rw = rw, bs = bs}
  print(string.format("%s: io_bytes %d, read from the device %d", rw, io, dev))
  if io >= 3 * SIZE then                    -- two wraps at least
    skipped = false
    check(dev >= io // 2, "%s: %d of %d bytes read from the device", rw, dev, io)
    local io2, dev2 = run{rw = rw, bs = bs, invalidate = false}
    print(string.format("%s, invalidate=0: io_bytes %d, read from the device %d", rw, io2, dev2))
    check(io2 >= 3 * SIZE and dev2 <= SIZE, "%s, invalidate=0: %d of %d bytes from the device",
          rw, dev2, io2)
  end
end

-- fadvise_hint: fio's values, a bad one refused by name.
for _, v in ipairs{"0", "1", "sequential", "random"} do
  local r = lb.run{name = "h", filename = data, size = SIZE, bs = "64k", rw = "read",
                   ioengine = "psync", fadvise_hint = v}
  check(r.read.io_bytes == SIZE, "fadvise_hint=%s: io_bytes %d", v, r.read.io_bytes)
end
local ok, err = pcall(lb.run, {name = "h", filename = data, size = SIZE, rw = "read",
                               fadvise_hint = "often"})
check(not ok and tostring(err):find("fadvise_hint"), "fadvise_hint=often: %s", tostring(err))

if skipped then
  print("fewer than three passes in 1 s: the wraps were not exercised")
  os.exit(77)
end
