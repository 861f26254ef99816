-- The default benchmark: a 64 MiB file in the current directory, read
-- sequentially with 1 MiB blocks and randomly with 4 KiB blocks for a few
-- seconds each, through the page cache; the file is removed at the end.
--   luabench scripts/demo.lua [runtime=3s] [size=64m] [engine=psync]
local runtime = args.runtime or "3s"
local size = args.size or "64m"
local engine = args.engine or "psync"
local file = string.format("luabench-demo.%d.tmp", math.floor(lb.now() * 1000) % 1000000)

local function run(name, rw, bs)
  local r = lb.run{name = name, filename = file, size = size, rw = rw, bs = bs,
                   ioengine = engine, runtime = runtime, time_based = true}
  lb.report(r)
  return r
end

print(string.format("luabench %s demo: %s file %s in the current directory, %s per run (removed at the end)",
                    lb.version, size, file, runtime))
local ok, err = pcall(function()
  run("seq-read", "read", "1m")
  run("rand-read", "randread", "4k")
end)
lb.remove(file)
if not ok then error(err, 0) end
