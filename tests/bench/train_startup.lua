-- Start-up of lb.train with many files and many accelerators, without
-- writing that many files: the dataset is a list of `files` paths that
-- name `real` small files over and over (each sized as an existing
-- dataset's file when a reader first opens it), or, with mode=layout, a
-- generated layout of `files` files of `size` bytes in dir (written once,
-- then taken on its layout record's word by the timed runs).  A timed run
-- makes one step (total_training_steps=1) of one sample per accelerator;
-- start-up is its wall time less the epoch's (the epoch: one step; the
-- loaders' and accelerators' threads start before it and are joined after
-- it, in the start-up).  files= and
-- accelerators= take lists; each pair is timed `rounds` times.
--   luabench tests/bench/train_startup.lua dir=/dev/shm/x files=1000000,10000000 accelerators=64,1024
--   luabench tests/bench/train_startup.lua dir=/dev/shm/x mode=layout files=100000,1000000 size=512
local function list(s)
  local t = {}
  for x in s:gmatch("[^,]+") do t[#t + 1] = math.tointeger(tonumber(x)) end
  return t
end
local counts = list(args.files or "10000000")
local accels = list(args.accelerators or "1024")
local real = math.tointeger(tonumber(args.real or "64"))
local rounds = math.tointeger(tonumber(args.rounds or "1"))
local size = args.size or "4k"
local mode = args.mode or "list"
local dir = assert(args.dir, "dir= is required")

local function spec(d, files, K)
  return {dir = d, files = files, samples_per_file = 1, sample_size = size, batch_size = 1,
          read_threads = 1, accelerators = K, compute_time = "0s", epochs = 1,
          total_training_steps = 1, shuffle = "sample"}
end

-- The dataset of n files: a list of paths (and the time the script took
-- to build it, not counted), or a layout directory laid out once.
local function dataset(n)
  if mode == "list" then
    local base = spec(dir, real, 1)
    lb.train(base)                          -- lays out the few real files
    local names = {}
    for i = 1, real do names[i] = string.format("%s/img_%06d.dat", dir, i - 1) end
    local t0 = lb.now()
    local paths = {}
    for i = 1, n do paths[i] = names[(i - 1) % real + 1] end
    return paths, lb.now() - t0
  end
  os.execute(string.format("mkdir -p '%s'", dir))
  local d = string.format("%s/n%d", dir, n)
  local first = spec(d, n, 1)
  first.read_threads = 2
  local r = lb.train(first)                 -- written once
  print(string.format("layout of %d files of %s: %.3f s (%d written)", n, size,
                      r.layout.time_s, r.layout.files))
  return d, 0
end

for _, n in ipairs(counts) do
  local d, t_list = dataset(n)
  for _, K in ipairs(accels) do
    for _ = 1, rounds do
      collectgarbage()
      local t0 = lb.now()
      local r = lb.train(spec(d, n, K))
      local wall = lb.now() - t0
      local ep = r.epochs[1] and r.epochs[1].time_s or 0
      print(string.format("mode=%s files=%d accelerators=%d: lb.train %.3f s, of which the " ..
                          "epoch %.3f s, layout check %.3f s: start-up %.3f s (building the " ..
                          "Lua list of paths: %.3f s, not counted)", mode, n, K, wall, ep,
                          r.layout.time_s, wall - ep, t_list))
    end
  end
  d = nil
  collectgarbage()
end
