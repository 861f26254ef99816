-- Start-up of lb.train with many files and many accelerators, without
-- writing that many files: the dataset is a list of `files` paths that
-- name `real` small files over and over (each path stat'ed and sized as an
-- existing dataset's), or, with mode=layout, a generated layout of `files`
-- files in dir (written once, then found in place by the timed run).  The
-- timed run makes one step (total_training_steps=1) of one sample per
-- accelerator; start-up is its wall time less the epoch's.
--   luabench tests/bench/train_startup.lua dir=/dev/shm/x files=10000000 accelerators=1024
--   luabench tests/bench/train_startup.lua dir=/dev/shm/x mode=layout files=100000
local n = math.tointeger(tonumber(args.files or "10000000"))
local K = math.tointeger(tonumber(args.accelerators or "1024"))
local real = math.tointeger(tonumber(args.real or "64"))
local mode = args.mode or "list"
local dir = assert(args.dir, "dir= is required")

local function spec(d, files)
  return {dir = d, files = files, samples_per_file = 1, sample_size = "4k", batch_size = 1,
          read_threads = 1, accelerators = K, compute_time = "0s", epochs = 1,
          total_training_steps = 1, shuffle = "sample"}
end

local s
local t_list = 0
if mode == "list" then
  local base = spec(dir, real)
  base.accelerators = 1
  lb.train(base)                            -- lays out the few real files
  local names = {}
  for i = 1, real do names[i] = string.format("%s/img_%06d.dat", dir, i - 1) end
  local t0 = lb.now()
  local paths = {}
  for i = 1, n do paths[i] = names[(i - 1) % real + 1] end
  t_list = lb.now() - t0
  s = spec(paths, n)
else
  local first = spec(dir, n)
  first.accelerators = 1
  first.read_threads = 2
  local r = lb.train(first)                 -- written once
  print(string.format("layout of %d files: %.3f s", n, r.layout.time_s))
  s = spec(dir, n)
end
collectgarbage()
local t0 = lb.now()
local r = lb.train(s)
local wall = lb.now() - t0
local ep = r.epochs[1] and r.epochs[1].time_s or 0
print(string.format("mode=%s files=%d accelerators=%d: lb.train %.3f s, of which the epoch " ..
                    "(readers started, one step, joined) %.3f s, layout check %.3f s: " ..
                    "start-up %.3f s (building the Lua list of paths: %.3f s, not counted)",
                    mode, n, K, wall, ep, r.layout.time_s, wall - ep, t_list))
