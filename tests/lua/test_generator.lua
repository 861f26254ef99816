-- Description: lb.run{generator = ...}: the operations a Lua generator
-- produces are executed exactly as produced (counts, bytes, the blocks
-- written on disk), its state lasts across calls, and its mistakes stop the
-- run with the generator's own file:line.
local T = dofile("tests/lua/lib.lua")
local check = T.check

local function fails(spec, pattern)
  local ok, err = pcall(lb.run, spec)
  check(not ok, "expected an error matching %q", pattern)
  check(tostring(err):find(pattern), "error %q does not match %q", tostring(err), pattern)
  return err
end

local function line() return debug.getinfo(2, "l").currentline end

-- 1. counts and bytes: 1000 ops of varied length over four batches, the
-- position kept in ctx between calls
local r = lb.run{name = "seq", ioengine = "null", size = "1m", bs = "4k", rw = "randrw",
                 generator_args = {total = 1000},
                 generator = function(ctx)
                   local i = ctx.i or 0
                   if i == ctx.args.total then return end
                   local rd, wr = ctx.read, ctx.write
                   while i < ctx.args.total and ctx.batch > 0 do
                     local len = 512 * (i % 8 + 1)
                     if i % 3 == 0 then wr(i * 512, len) else rd(i * 512, len) end
                     i = i + 1
                     if (i % 256) == 0 then break end
                   end
                   ctx.i = i
                 end}
local want = {read = {ios = 0, bytes = 0}, write = {ios = 0, bytes = 0}}
for i = 0, 999 do
  local d = i % 3 == 0 and want.write or want.read
  d.ios, d.bytes = d.ios + 1, d.bytes + 512 * (i % 8 + 1)
end
for _, d in ipairs{"read", "write"} do
  check(r[d].total_ios == want[d].ios, "%s ios %d, want %d", d, r[d].total_ios, want[d].ios)
  check(r[d].io_bytes == want[d].bytes, "%s bytes %d, want %d", d, r[d].io_bytes, want[d].bytes)
end

-- 2. clones: each has its own state, ctx.clone and ctx.args copy
local r2 = lb.run{name = "clones", ioengine = "null", size = "1m", bs = "4k", numjobs = 3,
                  generator_args = {per = {10, 20, 30}},
                  generator = {
                    init = function(ctx) ctx.left = ctx.args.per[ctx.clone + 1]; ctx.args.per = nil end,
                    next = function(ctx)
                      if ctx.left == 0 then return end
                      for _ = 1, ctx.left do ctx.read(0, 4096) end
                      ctx.left = 0
                    end}}
check(r2.read.total_ios == 60, "clones ios %d, want 60", r2.read.total_ios)

-- 3. nothing produced: no I/O, no error
local r3 = lb.run{name = "none", ioengine = "null", size = "1m", generator = function() end}
check(r3.read.total_ios == 0 and r3.error == 0, "an empty generator runs nothing")

-- 4. ctx.rand is seeded per worker from randseed: same seed, same stream
local function rand_bytes(seed)
  return lb.run{name = "rand", ioengine = "null", size = "1m", bs = "64k", randseed = seed,
                generator = function(ctx)
                  if ctx.calls > 4 then return end
                  for _ = 1, 100 do ctx.read(0, 512 * ctx.rand(128)) end
                end}.read.io_bytes
end
local a, b, c = rand_bytes(7), rand_bytes(7), rand_bytes(8)
check(a == b, "same randseed, same ops (%d vs %d)", a, b)
check(a ~= c, "another randseed, other ops")

-- 5. the bytes on disk: writes land exactly at the generated blocks of a
-- zero-filled file, from a generator file whose locals keep its state
local dir, _ <close> = T.tmpdir("gen")
local path, bs, nblocks = dir .. "/data", 4096, 64
local f = assert(io.open(path, "wb"))
f:write(string.rep("\0", bs * nblocks))
f:close()
local genfile = dir .. "/gen.lua"
f = assert(io.open(genfile, "w"))
f:write([[
local blocks, k = ..., 0           -- the file runs once per worker: its own locals
return function(ctx)
  if k == #blocks.list then return end
  k = k + 1
  ctx.write(blocks.list[k] * blocks.bs, blocks.bs)
  return true
end
]])
f:close()
local chosen = {3, 0, 63, 17, 18, 40, 17}
local r5 = lb.run{name = "disk", ioengine = "psync", filename = path, size = bs * nblocks,
                  bs = "4k", rw = "write", allow_overwrite = true, invalidate = false,
                  generator = genfile, generator_args = {list = chosen, bs = bs}}
check(r5.write.total_ios == #chosen, "disk ios %d", r5.write.total_ios)
local set = {}
for _, k in ipairs(chosen) do set[k] = true end
f = assert(io.open(path, "rb"))
for k = 0, nblocks - 1 do
  local blk = f:read(bs)
  local zero = not blk:find("[^%z]")
  check(zero ~= (set[k] or false), "block %d is %s", k, zero and "zero" or "written")
end
f:close()

-- 6. errors inside the generator stop the run with its file:line
local l6 = line(); local boom = function(ctx) if ctx.calls == 3 then error("boom") end ctx.read(0, 512) end
fails({name = "err", ioengine = "null", size = "1m", numjobs = 2, time_based = true,
       runtime = "30s", generator = boom}, "test_generator%.lua:" .. l6 .. ": boom")
local l7 = line(); local init_err = function() error("no init") end
fails({name = "err", ioengine = "null", size = "1m",
       generator = {init = init_err, next = function() end}}, "test_generator%.lua:" .. l7 .. ": no init")
fails({name = "range", ioengine = "null", size = "1m", bs = "4k",
       generator = function(ctx) ctx.read(1024 * 1024, 4096) end}, "outside file 1")
fails({name = "file", ioengine = "null", size = "1m",
       generator = function(ctx) ctx.read(0, 4096, 2) end}, "file 2 is not one of")
fails({name = "long", ioengine = "null", size = "1m", bs = "4k",
       generator = function(ctx) ctx.read(0, 8192) end}, "length 8192")
fails({name = "ro", ioengine = "null", size = "1m",
       generator = function(ctx) ctx.write(0, 4096) end}, "rw=read")

-- 7. bad input: one line naming the field
fails({ioengine = "null", generator = function() end, generator_args = {x = {print}}},
      "generator_args%.x%[1%]: a function cannot be copied")
fails({ioengine = "null", generator_args = {}}, "generator_args given without a generator")
fails({ioengine = "null", generator = 42}, "generator must be a function")
-- upvalues are not copied: a generator using an outer local is refused
local outer = 4096
fails({ioengine = "null", generator = function(ctx) ctx.read(0, outer) end},
      "uses 'outer', a local variable from outside it")
print("ok")
