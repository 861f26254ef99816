-- Small files and metadata, as mdtest measures them: create N small files
-- in a tree of directories, read them whole in a random order, stat them,
-- and delete them, each phase by several threads; prints ops/s and
-- latency percentiles per operation.  Only files luabench created are
-- deleted.
--   luabench scripts/small_files.lua [files=10000] [size=4k] [threads=4] [dir=PATH]
--   luabench scripts/small_files.lua help=1
local report = require("luabench.report")
local script = require("luabench.script")

-- size and the names in ops stay text: lb.meta checks them (a bad one is
-- a refused field, exit 2).
local v = script.params({
  {"dir", help = "top of the tree (default: a temporary directory, removed at the end)"},
  {"files", type = "int", default = 10000, help = "number of files"},
  {"size", default = "4k", help = "bytes per file (fio units: 4k, 64k, 1m)"},
  {"fanout", type = "int", default = 1000, help = "files per directory"},
  {"threads", type = "int", default = 4, help = "threads per phase"},
  {"ops", type = "list", default = "create,read,stat,unlink",
   help = "phases, in order: create, stat, read, unlink, mkdir, readdir"},
  {"seed", type = "int", default = 1, help = "seed of the random order of read and stat"},
  {"openfiles", type = "int", default = 0,
   help = "descriptors kept open at most (0: close after each file)"},
  {"json", type = "bool", default = false,
   help = "1: print the result as JSON instead of a table"},
}, {about = "Small files and metadata, as mdtest measures them: create, read, stat and " ..
            "delete small files in a tree of directories, each phase by several threads; " ..
            "prints ops/s and latency percentiles per operation. Only files luabench " ..
            "created are deleted."})

local function progress_line()
  if lb.quiet or not (lb.isatty and lb.isatty(2)) then return nil end
  return function(done, total, phase)
    io.stderr:write(string.format("\r%-8s %d/%d files   ", phase, done, total))
  end
end

local function print_table(r, ops)
  print(string.format("%-8s %10s %10s %10s %10s %10s %9s", "op", "count", "ops/s",
                      "mean", "p50", "p99", "time"))
  for _, op in ipairs(ops) do
    local o = r.ops[op]
    local p = o.lat_ns.percentile or {}
    print(string.format("%-8s %10d %10s %10s %10s %10s %9s", op, o.count,
                        report.fmt_iops(o.ops_per_s), report.fmt_ns(o.lat_ns.mean),
                        report.fmt_ns(p[50]), report.fmt_ns(p[99]), report.fmt_s(o.time_s)))
  end
end

local ops = v.ops
local spec = {dir = v.dir, files = v.files, size = v.size, fanout = v.fanout,
              threads = v.threads, ops = ops, seed = v.seed, openfiles = v.openfiles,
              progress = progress_line()}
local tmpname
if not spec.dir then
  tmpname = os.tmpname()              -- reserves a unique name
  spec.dir = tmpname .. ".d"
end
local dir = spec.dir

local ok, r = pcall(lb.meta, spec)
if spec.progress then io.stderr:write("\n") end
local unlinked = ok and r.ops.unlink ~= nil and ops[#ops] == "unlink"
if tmpname then
  if not unlinked then
    pcall(lb.meta, {dir = dir, files = spec.files, fanout = spec.fanout, ops = {"unlink"}})
  end
  os.remove(dir)                      -- empty once unlinked
  os.remove(tmpname)
end
if not ok then error(r, 0) end

if v.json then
  local out = {files = r.files, dirs = r.dirs, ops = {}}
  for _, op in ipairs(ops) do
    local o = r.ops[op]
    out.ops[op] = {count = o.count, ops_per_s = o.ops_per_s, lat_ns = o.lat_ns, time_s = o.time_s}
  end
  print(lb.json(out))
  return
end
print(string.format("%d files of %s in %d directories under %s, %d threads",
                    r.files, v.size, r.dirs, tmpname and "a temporary directory" or dir,
                    spec.threads))
print_table(r, ops)
