-- The I/O of training a model, as DLIO and MLPerf Storage emulate it: a
-- dataset of files (laid out when missing), reader threads that fetch
-- shuffled samples into batches, and K emulated accelerators that each
-- take a batch per step and compute for compute_time.  Prints samples/s,
-- MB/s, accelerator utilisation (AU, as DLIO computes it: the first step of
-- each epoch excluded, mean over accelerators and epochs) against au_min,
-- the time and AU of each epoch, and the batch wait and sample read
-- percentiles.
-- find_max=1 raises K until AU falls below au_min (0.9) and reports the
-- most accelerators the storage keeps busy.  do_eval=1 adds DLIO's
-- evaluation phase (num_files_eval files in dir/valid, read after the
-- epochs eval_after_epoch, then every epochs_between_evals): a line per
-- evaluation and DLIO's eval AU and throughput, apart from the training's.
--
-- Reading a dataset that fits in the page cache measures memory: use a
-- dataset larger than RAM, or direct=1, to measure the storage.
-- Under mpirun/srun each rank emulates `accelerators` accelerators, the
-- dataset is sharded over all of them, and rank 0 prints the merged figures.
--   luabench scripts/ai_training.lua [dir=PATH] [accelerators=4] [find_max=1]
--   luabench scripts/ai_training.lua help=1
local report = require("luabench.report")
local script = require("luabench.script")
local sweep = require("luabench.sweep")

-- Sizes, times, shuffle and file_format stay text: lb.train checks them
-- (a bad one is a refused field, exit 2).
local v = script.params({
  {"dir", help = "dataset directory (default: a temporary one, removed at the end)"},
  {"files", type = "int", default = 8, help = "files in the dataset"},
  {"samples_per_file", type = "int", default = 256,
   help = "samples in each file (1: one sample per file)"},
  {"sample_size", default = "64k", help = "bytes per sample (fio units)"},
  {"sample_stddev", default = "0", help = "standard deviation of the sample size (0: fixed size)"},
  {"file_format", help = "packed or one-sample-per-file (default from samples_per_file)"},
  {"format", default = "raw", help = "raw, npz, tfrecord or hdf5: the files' container, " ..
   "written and read as numpy, TensorFlow and h5py do"},
  {"compression", default = "none", help = "npz: zip lays out deflated members " ..
   "(numpy.savez_compressed, DLIO's compression: zip); hdf5: gzip deflates the chunks " ..
   "(h5py's compression='gzip', DLIO's compression: gzip)"},
  {"compression_level", type = "int", default = 4, help = "gzip: deflate's level, 0 to 9 " ..
   "(DLIO's compression_level)"},
  {"transfer_size", default = "256k", help = "npz, tfrecord: bytes per data read"},
  {"shuffle_size", type = "int", default = 1024, help = "tfrecord: samples in the shuffle buffer"},
  {"num_subfolders", type = "int", default = 0,
   help = "spread the files over S subdirectories (0: over 10000 files, 1000 a subdirectory)"},
  {"names", default = "luabench", choices = {"luabench", "dlio"},
   help = "dlio: dir is DLIO's data_folder (train/img_F_of_N.ext, valid/)"},
  {"relayout", type = "bool", default = false,
   help = "1: rewrite a dataset laid out with other parameters (default: refused)"},
  {"batch_size", type = "int", default = 16, help = "samples per batch"},
  {"read_threads", type = "int", default = 4, help = "reader threads"},
  {"epochs", type = "int", default = 2, help = "passes over the dataset"},
  {"shuffle", default = "sample", help = "none, file or sample"},
  {"seed", type = "int", default = 1, help = "seed of the shuffles"},
  {"compute_time", default = "5ms", help = "time an accelerator computes per batch"},
  {"compute_stddev", default = "0", help = "standard deviation of the compute time (0: fixed)"},
  {"prefetch", type = "int", default = 4, min = 0,
   help = "DLIO's prefetch_size: batches read ahead per accelerator, ceil(prefetch / " ..
   "read_threads) a reader (0: 2 a reader)"},
  {"loader", default = "shard", help = "shard (DLIO: each accelerator its own readers and " ..
   "contiguous shard) or shared (one pool of readers for all)"},
  {"drop_last", type = "bool", default = true, help = "0: read the last partial batch too"},
  {"accelerators", type = "int", default = 1, help = "emulated accelerators"},
  {"checkpoint_steps", type = "int", default = 0,
   help = "write a checkpoint every N steps (0: never)"},
  {"checkpoint_size", default = "64m", help = "bytes per checkpoint"},
  {"direct", type = "bool", default = false, help = "1: read with O_DIRECT"},
  {"do_eval", type = "bool", default = false,
   help = "1: DLIO's evaluation phase over a valid set (dir/valid) after some epochs"},
  {"num_files_eval", type = "int", default = 0, help = "do_eval: files of the valid set"},
  {"batch_size_eval", type = "int", default = 1, help = "do_eval: samples per evaluation batch"},
  {"eval_time", default = "0", help = "do_eval: time an accelerator computes per evaluation batch"},
  {"eval_time_stdev", default = "0", help = "do_eval: its standard deviation (0: fixed)"},
  {"eval_after_epoch", type = "int", default = 1, help = "do_eval: the first epoch evaluated after"},
  {"epochs_between_evals", type = "int", default = 1, help = "do_eval: then every N epochs"},
  {"find_max", type = "bool", default = false,
   help = "1: search the most accelerators kept at AU >= au_min"},
  {"au_min", type = "number", default = 0.9, help = "AU an accelerator must keep in find_max"},
  {"max_accelerators", type = "int", default = 256, help = "upper bound of the find_max search"},
}, {about = "The I/O of training a model, as DLIO and MLPerf Storage emulate it: reader " ..
            "threads fetch shuffled samples of a dataset (laid out when missing) into " ..
            "batches for K emulated accelerators; prints samples/s, MB/s and accelerator " ..
            "utilisation (AU). Use a dataset larger than RAM, or direct=1, to measure the " ..
            "storage rather than the page cache."})

local rank, size = lb.rank or 0, lb.size or 1

-- Ranks train together; rank 0 prints for all of them.
local function say(...)
  if rank == 0 then print(...) end
end

local function stddev_or(value, stddev)
  if stddev == "0" then return value end
  return {mean = value, stddev = stddev}
end

local function spec_of(v)
  local s = {files = v.files, samples_per_file = v.samples_per_file,
             sample_size = v.sample_size, file_format = v.file_format,
             batch_size = v.batch_size, read_threads = v.read_threads,
             epochs = v.epochs, shuffle = v.shuffle, seed = v.seed,
             compute_time = stddev_or(v.compute_time, v.compute_stddev),
             prefetch = v.prefetch, accelerators = v.accelerators, direct = v.direct,
             loader = v.loader, drop_last = v.drop_last, format = v.format,
             compression = v.compression, compression_level = v.compression_level,
             transfer_size = v.transfer_size, shuffle_size = v.shuffle_size,
             num_subfolders = v.num_subfolders, relayout = v.relayout, names = v.names}
  if v.sample_stddev ~= "0" then
    s.sample_size = {dist = "normal", mean = v.sample_size, stddev = v.sample_stddev}
  end
  if v.do_eval then
    s.do_eval, s.num_files_eval, s.batch_size_eval = true, v.num_files_eval, v.batch_size_eval
    s.eval_time = stddev_or(v.eval_time, v.eval_time_stdev)
    s.eval_after_epoch, s.epochs_between_evals = v.eval_after_epoch, v.epochs_between_evals
  end
  if v.checkpoint_steps > 0 then
    s.checkpoint = {every_steps = v.checkpoint_steps, size = v.checkpoint_size}
  end
  if rank == 0 and not lb.quiet and lb.isatty and lb.isatty(2) then
    s.progress = function(done, total, phase)
      io.stderr:write(string.format("\r%-6s %d/%d   ", phase, done, total))
    end
  end
  return s
end

local function pct(l, p)
  return report.fmt_ns(l.percentile and l.percentile[p] or 0)
end

local function print_result(r, s, au_min)
  say(string.format("accelerators %d%s, read_threads %d, batch %d, compute %s",
                      s.accelerators, size > 1 and string.format(" x %d ranks", size) or "",
                      s.read_threads, s.batch_size,
                      type(s.compute_time) == "table" and
                        (s.compute_time.mean .. " +- " .. s.compute_time.stddev) or s.compute_time))
  say(string.format("  samples/s %s   %s   AU %.2f%% (stdev %.2f)", report.fmt_iops(r.samples_per_s),
                      report.fmt_bw(r.bw_bytes, "MB/s"), r.au * 100, r.au_stdev * 100))
  say(string.format("  DLIO's figures: %.2f samples/s, %.2f MB/s (2^20 bytes, mean sample size), " ..
                      "train_au_meet_expectation: %s (AU >= %.0f%%)", r.dlio_samples_per_s,
                      r.dlio_mb_per_s, r.au >= au_min and "success" or "fail", au_min * 100))
  for i, e in ipairs(r.epochs) do
    say(string.format("  epoch %d: %s, %d samples, AU %.2f%%", i, report.fmt_s(e.time_s),
                        e.samples, e.au * 100))
  end
  for _, e in ipairs(r.evals or {}) do
    say(string.format("  eval after epoch %d: %s, %d steps, %d samples, AU %.2f%%, %.2f samples/s",
                        e.epoch, report.fmt_s(e.time_s), e.steps, e.samples, e.au * 100,
                        e.dlio_samples_per_s))
  end
  if r.eval_au then
    say(string.format("  DLIO's eval figures: Eval AU %.2f%% (stdev %.2f), %.2f samples/s, %.2f MB/s",
                        r.eval_au * 100, r.eval_au_stdev * 100, r.eval_dlio_samples_per_s,
                        r.eval_dlio_mb_per_s))
  end
  say(string.format("  batch wait  p50 %s  p99 %s", pct(r.batch_wait_ns, 50), pct(r.batch_wait_ns, 99)))
  say(string.format("  sample read p50 %s  p99 %s", pct(r.sample_read_ns, 50), pct(r.sample_read_ns, 99)))
  if r.checkpoints.count > 0 then
    say(string.format("  checkpoints %d, mean %s, max %s", r.checkpoints.count,
                        report.fmt_ns(r.checkpoints.time_ns.mean), report.fmt_ns(r.checkpoints.time_ns.max)))
  end
  say(string.format("  reader CPU usr %.2fs sys %.2fs", r.cpu.usr_s, r.cpu.sys_s))
end

local function run(s, k)
  s.accelerators = k
  local r = lb.train(s)
  if s.progress then io.stderr:write("\r") end
  return r
end

-- The most accelerators kept at AU >= au_min (sweep.search_max: doubling,
-- then bisection), a row per K tried.
local function find_max(s, au_min, kmax)
  local tried = {}
  say(string.format("%6s %8s %12s %12s %12s", "accel", "AU", "samples/s", "MB/s", "wait p99"))
  local good = sweep.search_max(function(k)
    local r = run(s, k)
    tried[k] = r
    say(string.format("%6d %7.1f%% %12s %12s %12s", k, r.au * 100,
                        report.fmt_iops(r.samples_per_s), report.fmt_bw(r.bw_bytes, "MB/s"),
                        pct(r.batch_wait_ns, 99)))
    return r.au >= au_min
  end, kmax)
  return good, tried[math.max(good, 1)]
end

local s = spec_of(v)
local au_min = v.au_min
local tmpname
if v.dir then
  s.dir = v.dir
elseif lb.readonly then
  script.usage_error("--readonly needs dir= naming a dataset laid out before")
else
  tmpname = rank == 0 and os.tmpname() or nil     -- reserves a unique name
  s.dir = (size > 1 and lb.bcast(tmpname or "", 0) or tmpname) .. ".d"
end

local ok, err = pcall(function()
  if v.find_max then
    -- each accelerator needs a whole batch of its shard: no more than N / batch
    -- over the ranks
    local most = v.files * v.samples_per_file // v.batch_size // size
    local k, r = find_max(s, au_min, math.max(1, math.min(v.max_accelerators, most)))
    if k == 0 then
      say(string.format("no accelerator kept at AU >= %.0f%%: %.1f%% with one", au_min * 100, r.au * 100))
    else
      say(string.format("most accelerators kept at AU >= %.0f%%: %d (AU %.1f%%, %s samples/s, %s)",
                          au_min * 100, k, r.au * 100, report.fmt_iops(r.samples_per_s),
                          report.fmt_bw(r.bw_bytes, "MB/s")))
    end
    return
  end
  local r = run(s, s.accelerators)
  say(string.format("dataset: %d files x %d samples of %s under %s%s", s.files, s.samples_per_file,
                      v.sample_size, tmpname and "a temporary directory" or s.dir,
                      r.layout.files > 0 and string.format(", %d files laid out in %s",
                        r.layout.files, report.fmt_s(r.layout.time_s)) or ""))
  print_result(r, s, au_min)
end)
if size > 1 then pcall(lb.barrier) end   -- no rank still reads
if tmpname then
  s.progress = nil
  pcall(lb.train_remove, s)
  os.remove(s.dir)
  os.remove(tmpname)
end
if not ok then error(err, 0) end
