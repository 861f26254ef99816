-- The I/O of training a model, as DLIO and MLPerf Storage emulate it: a
-- dataset of files (laid out when missing), reader threads that fetch
-- shuffled samples into batches, and K emulated accelerators that each
-- take a batch per step and compute for compute_time.  Prints samples/s,
-- MB/s, accelerator utilisation (AU: compute time over step time), the
-- time of each epoch, and the batch wait and sample read percentiles.
-- find_max=1 raises K until AU falls below au_min (0.9) and reports the
-- most accelerators the storage keeps busy.
--
-- Reading a dataset that fits in the page cache measures memory: use a
-- dataset larger than RAM, or direct=1, to measure the storage.
--   luabench scripts/ai_training.lua [dir=PATH] [accelerators=4] [find_max=1]
--   luabench scripts/ai_training.lua help=1
local report = require("luabench.report")

local PARAMS = {
  {"dir", nil, "dataset directory (default: a temporary one, removed at the end)"},
  {"files", "8", "files in the dataset"},
  {"samples_per_file", "256", "samples in each file (1: one sample per file)"},
  {"sample_size", "64k", "bytes per sample (fio units)"},
  {"sample_stddev", "0", "standard deviation of the sample size (0: fixed size)"},
  {"file_format", nil, "packed or one-sample-per-file (default from samples_per_file)"},
  {"batch_size", "16", "samples per batch"},
  {"read_threads", "4", "reader threads"},
  {"epochs", "2", "passes over the dataset"},
  {"shuffle", "sample", "none, file or sample"},
  {"seed", "1", "seed of the shuffles"},
  {"compute_time", "5ms", "time an accelerator computes per batch"},
  {"compute_stddev", "0", "standard deviation of the compute time (0: fixed)"},
  {"prefetch", "4", "ready batches queued at most"},
  {"accelerators", "1", "emulated accelerators"},
  {"checkpoint_steps", "0", "write a checkpoint every N steps (0: never)"},
  {"checkpoint_size", "64m", "bytes per checkpoint"},
  {"direct", "0", "1: read with O_DIRECT"},
  {"find_max", "0", "1: search the most accelerators kept at AU >= au_min"},
  {"au_min", "0.9", "AU an accelerator must keep in find_max"},
  {"max_accelerators", "256", "upper bound of the find_max search"},
  {"help", nil, "print these parameters"},
}

local function usage_exit(fmt, ...)
  io.stderr:write("luabench: ai_training.lua: " .. string.format(fmt, ...) .. "\n")
  os.exit(2, true)
end

-- key=value parameters from `args`: defaults filled in, unknown names refused.
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
  print("usage: luabench scripts/ai_training.lua [key=value ...]\n")
  for _, p in ipairs(PARAMS) do
    print(string.format("  %-17s %s%s", p[1], p[3], p[2] and (" [" .. p[2] .. "]") or ""))
  end
end

local function int(v, name)
  local n = math.tointeger(tonumber(v[name]))
  if not n then usage_exit("parameter '%s' must be an integer, not '%s'", name, v[name]) end
  return n
end

local function stddev_or(value, stddev)
  if stddev == "0" then return value end
  return {mean = value, stddev = stddev}
end

local function spec_of(v)
  local s = {files = int(v, "files"), samples_per_file = int(v, "samples_per_file"),
             sample_size = v.sample_size, file_format = v.file_format,
             batch_size = int(v, "batch_size"), read_threads = int(v, "read_threads"),
             epochs = int(v, "epochs"), shuffle = v.shuffle, seed = int(v, "seed"),
             compute_time = stddev_or(v.compute_time, v.compute_stddev),
             prefetch = int(v, "prefetch"), accelerators = int(v, "accelerators"),
             direct = v.direct == "1" or v.direct == "true"}
  if v.sample_stddev ~= "0" then
    s.sample_size = {dist = "normal", mean = v.sample_size, stddev = v.sample_stddev}
  end
  if int(v, "checkpoint_steps") > 0 then
    s.checkpoint = {every_steps = int(v, "checkpoint_steps"), size = v.checkpoint_size}
  end
  if not lb.quiet and lb.isatty and lb.isatty(2) then
    s.progress = function(done, total, phase)
      io.stderr:write(string.format("\r%-6s %d/%d   ", phase, done, total))
    end
  end
  return s
end

local function pct(l, p)
  return report.fmt_ns(l.percentile and l.percentile[p] or 0)
end

local function print_result(r, s)
  print(string.format("accelerators %d, read_threads %d, batch %d, compute %s",
                      s.accelerators, s.read_threads, s.batch_size,
                      type(s.compute_time) == "table" and
                        (s.compute_time.mean .. " +- " .. s.compute_time.stddev) or s.compute_time))
  print(string.format("  samples/s %s   %s   AU %.1f%%", report.fmt_iops(r.samples_per_s),
                      report.fmt_bw(r.bw_bytes, "MB/s"), r.au * 100))
  for i, e in ipairs(r.epochs) do
    print(string.format("  epoch %d: %s, %d samples", i, report.fmt_s(e.time_s), e.samples))
  end
  print(string.format("  batch wait  p50 %s  p99 %s", pct(r.batch_wait_ns, 50), pct(r.batch_wait_ns, 99)))
  print(string.format("  sample read p50 %s  p99 %s", pct(r.sample_read_ns, 50), pct(r.sample_read_ns, 99)))
  if r.checkpoints.count > 0 then
    print(string.format("  checkpoints %d, mean %s, max %s", r.checkpoints.count,
                        report.fmt_ns(r.checkpoints.time_ns.mean), report.fmt_ns(r.checkpoints.time_ns.max)))
  end
  print(string.format("  reader CPU usr %.2fs sys %.2fs", r.cpu.usr_s, r.cpu.sys_s))
end

local function run(s, k)
  s.accelerators = k
  local r = lb.train(s)
  if s.progress then io.stderr:write("\r") end
  return r
end

-- Doubles K while AU holds, then bisects between the last K that held and
-- the first that did not.
local function find_max(s, au_min, kmax)
  local tried = {}
  local function try(k)
    if not tried[k] then
      local r = run(s, k)
      tried[k] = r
      print(string.format("%6d %7.1f%% %12s %12s %12s", k, r.au * 100,
                          report.fmt_iops(r.samples_per_s), report.fmt_bw(r.bw_bytes, "MB/s"),
                          pct(r.batch_wait_ns, 99)))
    end
    return tried[k].au >= au_min
  end
  print(string.format("%6s %8s %12s %12s %12s", "accel", "AU", "samples/s", "MB/s", "wait p99"))
  if not try(1) then return 0, tried[1] end
  local good, bad = 1, nil
  while not bad and good < kmax do
    local k = math.min(good * 2, kmax)
    if try(k) then good = k else bad = k end
  end
  while bad and bad - good > 1 do
    local mid = (good + bad) // 2
    if try(mid) then good = mid else bad = mid end
  end
  return good, tried[good]
end

local v = params(PARAMS)
if v.help then
  usage()
  return
end
local s = spec_of(v)
local au_min = tonumber(v.au_min) or usage_exit("parameter 'au_min' must be a number")
local tmpname
if v.dir then
  s.dir = v.dir
elseif lb.readonly then
  usage_exit("--readonly needs dir= naming a dataset laid out before")
else
  tmpname = os.tmpname()              -- reserves a unique name
  s.dir = tmpname .. ".d"
end

local ok, err = pcall(function()
  if v.find_max == "1" then
    local k, r = find_max(s, au_min, int(v, "max_accelerators"))
    if k == 0 then
      print(string.format("no accelerator kept at AU >= %.0f%%: %.1f%% with one", au_min * 100, r.au * 100))
    else
      print(string.format("most accelerators kept at AU >= %.0f%%: %d (AU %.1f%%, %s samples/s, %s)",
                          au_min * 100, k, r.au * 100, report.fmt_iops(r.samples_per_s),
                          report.fmt_bw(r.bw_bytes, "MB/s")))
    end
    return
  end
  local r = run(s, s.accelerators)
  print(string.format("dataset: %d files x %d samples of %s under %s%s", s.files, s.samples_per_file,
                      v.sample_size, tmpname and "a temporary directory" or s.dir,
                      r.layout.files > 0 and string.format(", %d files laid out in %s",
                        r.layout.files, report.fmt_s(r.layout.time_s)) or ""))
  print_result(r, s)
end)
if tmpname then
  s.progress = nil
  pcall(lb.train_remove, s)
  os.remove(s.dir)
  os.remove(tmpname)
end
if not ok then error(err, 0) end
