-- Small files and metadata, as mdtest measures them: create N small files
-- in a tree of directories, read them whole in a random order, stat them,
-- and delete them, each phase by several threads; prints ops/s and
-- latency percentiles per operation.  Only files luabench created are
-- deleted.
--   luabench scripts/small_files.lua [files=10000] [size=4k] [threads=4] [dir=PATH]
--   luabench scripts/small_files.lua help=1
local report = require("luabench.report")

local PARAMS = {
  {"dir", nil, "top of the tree (default: a temporary directory, removed at the end)"},
  {"files", "10000", "number of files"},
  {"size", "4k", "bytes per file (fio units: 4k, 64k, 1m)"},
  {"fanout", "1000", "files per directory"},
  {"threads", "4", "threads per phase"},
  {"ops", "create,read,stat,unlink", "phases, in order: create, stat, read, unlink, mkdir, readdir"},
  {"seed", "1", "seed of the random order of read and stat"},
  {"openfiles", "0", "descriptors kept open at most (0: close after each file)"},
  {"json", "0", "1: print the result as JSON instead of a table"},
  {"help", nil, "print these parameters"},
}

-- key=value parameters from `args`: defaults filled in, unknown names refused
-- with exit status 2.
local function usage_exit(fmt, ...)
  io.stderr:write("luabench: small_files.lua: " .. string.format(fmt, ...) .. "\n")
  os.exit(2, true)
end

local function params(spec)
  local by, known = {}, {}
  for _, p in ipairs(spec) do by[p[1]] = p; known[#known + 1] = p[1] end
  for k, val in pairs(args or {}) do
    if type(k) ~= "string" then
      usage_exit("unexpected argument '%s' (parameters are key=value)", tostring(val))
    elseif not by[k] then
      usage_exit("unknown parameter '%s' (known: %s)", k, table.concat(known, ", "))
    end
  end
  local v = {}
  for _, p in ipairs(spec) do v[p[1]] = (args or {})[p[1]] or p[2] end
  return v
end

local function usage()
  print("usage: luabench scripts/small_files.lua [key=value ...]\n")
  for _, p in ipairs(PARAMS) do
    print(string.format("  %-10s %s%s", p[1], p[3], p[2] and (" [" .. p[2] .. "]") or ""))
  end
end

local function split(s)
  local t = {}
  for w in s:gmatch("[^,%s]+") do t[#t + 1] = w end
  return t
end

local function number_param(v, name)
  local n = math.tointeger(tonumber(v[name]))
  if not n then usage_exit("parameter '%s' must be an integer, not '%s'", name, v[name]) end
  return n
end

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

local v = params(PARAMS)
if v.help then
  usage()
  return
end

local ops = split(v.ops)
local spec = {dir = v.dir, files = number_param(v, "files"), size = v.size,
              fanout = number_param(v, "fanout"), threads = number_param(v, "threads"),
              ops = ops, seed = number_param(v, "seed"),
              openfiles = number_param(v, "openfiles"), progress = progress_line()}
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

if v.json == "1" then
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
