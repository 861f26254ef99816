-- Hot versus cold cache on a small file, the guide's way: control the
-- cache state before every read run, check it, and distrust a "hot" run
-- that is barely faster than the cold one.
--
--   luabench examples/hot_cold.lua [dir=/var/tmp] [size=64M]
-- The file goes in a fresh directory under dir (not tmpfs: tmpfs pages
-- cannot be dropped), removed at the end.
local prep = require "luabench.prep"
local cache = require "luabench.cache"
local report = require "luabench.report"

local p = io.popen("mktemp -d " .. (args.dir or "/var/tmp") .. "/luabench-hotcold.XXXXXX")
local dir = p:read("l")
p:close()
assert(dir and dir ~= "", "cannot make a temporary directory")
local _ <close> = setmetatable({}, {__close = function() os.execute("rm -rf '" .. dir .. "'") end})

local files = prep.file{path = dir .. "/data", size = args.size or "64M"}

-- invalidate=false: like fio, lb.run drops a file's cached pages before
-- reading it unless told not to, which would turn every hot run cold.
local function read_run(name)
  return lb.run{name = name, engine = "psync", rw = "read", bs = "1M", filename = files.colon,
                size = files.size, readonly = true, invalidate = false}
end

local method, note = cache.drop(files)
print(string.format("cold: cache dropped with %s%s, %.0f%% resident", method,
                    note and (" (" .. note .. ")") or "", cache.residency(files) * 100))
local cold = read_run("cold")

cache.warm(files)
print(string.format("hot:  file read through, %.0f%% resident", cache.residency(files) * 100))
local hot = read_run("hot")

local cbw, hbw = report.metric(cold, "bw"), report.metric(hot, "bw")
print(string.format("cold %s, hot %s: hot is %.1fx faster", report.fmt_bw(cbw), report.fmt_bw(hbw),
                    hbw / math.max(cbw, 1)))
if hbw < 2 * cbw then
  print("note: cold-cache throughput is usually 10-50x lower than hot; when the gap is this " ..
        "small the hot run may have gone to the backend (the cache was not fully loaded), " ..
        "or the backend is itself cached (a VM disk, a RAID controller)")
end
