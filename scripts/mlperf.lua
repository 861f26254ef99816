-- MLPerf Storage's training workloads (unet3d, resnet50, cosmoflow on a100
-- or h100) run by lb.train with DLIO's accounting, the rules checked: the
-- dataset at least 5x the clients' memory and 500 steps per epoch (or
-- scaled=1, labelled, for small trials), a warm-up run and `runs` seeded
-- runs, the AU threshold of the workload in every run and their samples/s
-- within 5 % of each other.  The dataset is laid out in the workload's
-- format, as its DLIO config says (npz for unet3d, TFRecord for resnet50
-- and cosmoflow); format=raw gives bare samples.  direct=1 is MLPerf's
-- reader.odirect (unet3d): each npz file read whole with O_DIRECT, as
-- DLIO's O_DIRECT reader does; the TFRecord workloads need format=raw for it.
-- Prints the run table and a verdict line.  do_eval=1 adds DLIO's
-- evaluation phase (a valid set of num_files_eval files after the epochs
-- eval_after_epoch, then every epochs_between_evals), which none of
-- MLPerf's workloads runs: its AU on an "eval" row after each run, outside
-- the verdict, as DLIO keeps eval_au apart from train_au.
-- find_max=1 asks MLPerf's question instead: the most accelerators per
-- host (per rank under MPI), up to max_accelerators, for which all `runs`
-- runs pass; doubling, then bisection, a row per count tried and a verdict
-- line naming the most that passed and the fewest that failed.  Each count
-- reads the rules' minimum for it (files= fixes one dataset for all, and
-- bounds the counts to those it feeds, or, without scaled=1, holds the
-- minimum for): files are added as larger counts need them, smaller counts
-- read the first ones, and the subfolders are those of the most files the
-- search may ask, so that one layout serves every count.
-- model=llama3-8b|70b|405b|1t prints the checkpoint size of
-- the model and the bytes each rank writes, as DLIO sizes them; with dir=
-- it also writes `checkpoints` checkpoints (each rank its part, fsync at
-- the end) and reads them back, reporting MLPerf's figures: the duration
-- of the slowest rank and the checkpoint's bytes over it.
--   luabench scripts/mlperf.lua workload=unet3d accelerator=h100 accelerators=4 dir=PATH
--   luabench scripts/mlperf.lua workload=resnet50 find_max=1 max_accelerators=32 dir=PATH
--   luabench scripts/mlperf.lua model=llama3-70b [dir=PATH checkpoint_scale=0.001]
-- Under mpirun/srun each rank emulates `accelerators` accelerators, the
-- dataset is sharded over all of them, the rules are checked for all ranks
-- (their accelerators, the memory of every host) and rank 0 prints.
local mlperf = require("luabench.mlperf")
local prep = require("luabench.prep")
local sweep = require("luabench.sweep")
local report = require("luabench.report")
local script = require("luabench.script")
local mpi = require("luabench.mpi")
local checkpoint_run

local v = script.params({
  {"workload", default = "unet3d", choices = mlperf.workloads, help = "MLPerf training workload"},
  {"accelerator", default = "h100", choices = mlperf.accelerators,
   help = "accelerator type (sets the compute time per step)"},
  {"accelerators", type = "int", default = 1, min = 1, help = "emulated accelerators (per rank under MPI; find_max=1 searches the count)"},
  {"dir", help = "dataset directory (default: a temporary one, removed at the end)"},
  {"client_memory", type = "size", help = "clients' memory in bytes (fio units; default: MemTotal of this host)"},
  {"scaled", type = "bool", default = false,
   help = "1: allow a dataset below the rules' minimum (files=, sample_size=); not a submission"},
  {"files", type = "int", default = 0, help = "files in the dataset (0: the rules' minimum)"},
  {"sample_size", type = "size", help = "bytes per sample, with scaled=1 (default: the workload's)"},
  {"compute_time", type = "time", help = "compute per step, with scaled=1 (default: the accelerator's)"},
  {"read_threads", type = "int", min = 0,
   help = "reader threads per accelerator, one of the parameters a CLOSED submission may set " ..
   "(default: the workload's; 0: each accelerator loads its own batches, as DLIO's PyTorch " ..
   "loader with no workers)"},
  {"prefetch_size", type = "int", min = 0, max = 2,
   help = "reader.prefetch_size, which a CLOSED submission may set to 0, 1 or 2 (default " ..
   "DLIO's 2): ceil(prefetch_size / read_threads) batches ahead a reader, 2 for 0"},
  {"epochs", type = "int", default = mlperf.EPOCHS, min = 1, help = "epochs per run"},
  {"runs", type = "int", default = mlperf.RUNS, min = 1, help = "seeded runs"},
  {"warmup", type = "bool", default = true,
   help = "1: a warm-up run first (seed - 1), shown and not counted, as MLPerf's rules ask"},
  {"seed", type = "int", default = 1, help = "seed of the first run (then seed+1, ...)"},
  {"format", choices = mlperf.formats,
   help = "the files' container (default: the workload's, npz for unet3d, tfrecord for " ..
   "resnet50 and cosmoflow); raw: the bare samples"},
  {"direct", type = "bool", default = false, help = "1: read with O_DIRECT (reader.odirect: npz files whole; TFRecord workloads need format=raw)"},
  {"names", default = "luabench", choices = {"luabench", "dlio"},
   help = "dlio: dir= is DLIO's data_folder (train/img_F_of_N.ext, valid/), read by both"},
  {"do_eval", type = "bool", default = false,
   help = "1: DLIO's evaluation phase (none of MLPerf's workloads runs one): its AU on a row " ..
   "of its own after each run, not judged"},
  {"num_files_eval", type = "int", default = 0, help = "do_eval: files of the valid set (dir/valid)"},
  {"batch_size_eval", type = "int", default = 1, min = 1, help = "do_eval: samples per evaluation batch"},
  {"eval_time", type = "time", help = "do_eval: compute per evaluation step (default 0)"},
  {"eval_after_epoch", type = "int", default = 1, min = 1, help = "do_eval: the first epoch evaluated after"},
  {"epochs_between_evals", type = "int", default = 1, min = 1, help = "do_eval: then every N epochs"},
  {"find_max", type = "bool", default = false,
   help = "1: search the most accelerators per host for which all `runs` runs pass"},
  {"max_accelerators", type = "int", default = 64, min = 1,
   help = "find_max: the most accelerators per host tried"},
  {"model", help = "llama3-8b, llama3-70b, llama3-405b or llama3-1t: its checkpoint size " ..
   "(with dir=: written and read back)"},
  {"checkpoints", type = "int", default = 10, min = 1,
   help = "model= with dir=: checkpoints written, then read (MLPerf: 10 and 10)"},
  {"checkpoint_scale", type = "number", default = 1,
   help = "model= with dir=: fraction of each rank's part written (1: the real size)"},
}, {about = "MLPerf Storage's training workloads with DLIO's accounting and the rules " ..
            "checked (dataset >= 5x client memory, >= 500 steps per epoch, AU threshold " ..
            "in every run), in each workload's format (npz, tfrecord); find_max=1 for the " ..
            "most accelerators per host that pass; or model= for the size of an LLM checkpoint."})

-- A rank's part, scaled, in whole blocks of bs (1 MiB, 4 KiB when smaller).
local function part_job(name, path, bytes, scale)
  local b = math.floor(bytes * scale)
  local bs = b >= 2^20 and 2^20 or 4096
  b = math.max(b // bs * bs, 4096)
  return {name = name, filename = path, size = b, bs = b < bs and b or bs}
end

-- One lb.run of every rank's part: the slowest rank's time and the bytes.
local function ckpt_phase(jobs, rw)
  local r = lb.run{jobs = jobs, rw = rw, end_fsync = rw == "write" and 1 or 0}
  local slowest, bytes = 0, 0
  for _, j in ipairs(r.jobs) do
    slowest = math.max(slowest, j.runtime_ns)
    bytes = bytes + j[rw].io_bytes
  end
  return slowest / 1e9, bytes
end

checkpoint_run = function(v, per_rank)
  local dir = script.tempdir("ckpt", v.dir)
  local ok, err = pcall(function()
    print(string.format("%5s %5s %12s %10s %10s", "ckpt", "phase", "GiB", "seconds", "GiB/s"))
    local sets = {}
    for c = 1, v.checkpoints do
      local jobs = {}
      for r, b in ipairs(per_rank) do
        jobs[r] = part_job(string.format("rank%d", r - 1),
                           string.format("%s/ckpt_%02d_rank_%04d", dir, c, r - 1), b,
                           v.checkpoint_scale)
      end
      sets[c] = jobs
    end
    local function phase(rw)
      local sum_s, sum_b = 0, 0
      for c, jobs in ipairs(sets) do
        local s, b = ckpt_phase(jobs, rw)
        sum_s, sum_b = sum_s + s, sum_b + b
        print(string.format("%5d %5s %12.3f %10.3f %10.3f", c, rw, b / 2^30, s, b / 2^30 / s))
      end
      return sum_s / #sets, sum_b / #sets
    end
    local ws, wb = phase("write")
    local rs, rb = phase("read")
    print(string.format("%s checkpoint%s: save %.3f s, %.3f GiB/s; load %.3f s, %.3f GiB/s " ..
                        "(mean of %d; duration = slowest rank)", v.model,
                        v.checkpoint_scale < 1 and string.format(" (scale %g)", v.checkpoint_scale) or "",
                        ws, wb / 2^30 / ws, rs, rb / 2^30 / rs, #sets))
  end)
  local left = script.cleanup{dir = dir}
  if left then script.warn("%s", left) end
  if not ok then error(err, 0) end
end

if v.model then
  local total, per_rank, ranks = mlperf.checkpoint_bytes(v.model)
  if not total then script.usage_error("%s", per_rank) end
  local m = mlperf.models[v.model]
  local lo, hi = math.huge, 0
  for _, b in ipairs(per_rank) do lo, hi = math.min(lo, b), math.max(hi, b) end
  print(string.format("%s: %d parameters, TP %d x PP %d x DP %d, ZeRO-%d, %d ranks",
                      v.model, mlperf.parameters(m), m.tp, m.pp, m.dp, m.zero, ranks))
  print(string.format("checkpoint %.1f GiB (%.2f TB), per rank %.2f to %.2f GiB",
                      total / 2^30, total / 1e12, lo / 2^30, hi / 2^30))
  if v.dir then
    if lb.readonly then script.usage_error("checkpoints write, and --readonly was given") end
    if not (v.checkpoint_scale > 0 and v.checkpoint_scale <= 1) then
      script.usage_error("parameter 'checkpoint_scale' must be in (0, 1], not %s", v.checkpoint_scale)
    end
    checkpoint_run(v, per_rank)
  end
  return
end

local w = assert(mlperf.workload(v.workload, v.accelerator))
if v.read_threads then w.read_threads = v.read_threads end
if v.prefetch_size then w.prefetch = v.prefetch_size end
local format = v.format or w.format
if v.direct and format ~= "raw" and format ~= "npz" then
  script.usage_error("direct=1 needs format=npz or raw: DLIO has no O_DIRECT reader for %s " ..
                     "files; add format=raw to read %s's samples as bare files", format, w.name)
end

local function mem_total()
  local f = io.open("/proc/meminfo")
  local kb = f and f:read("a"):match("MemTotal:%s*(%d+) kB")
  if f then f:close() end
  return kb and tonumber(kb) * 1024 or 0
end

-- every host's memory and every rank's accelerators count
local hosts = lb.size > 1 and mpi.hosts() or 1
local memory = (v.client_memory and prep.bytes(v.client_memory) or mem_total()) * hosts
local function need_for(k) return (mlperf.min_files(w, k * lb.size, memory)) end
local function below_minimum(files, k)
  script.usage_error("files=%d is below the rules' minimum of %d for %d accelerator%s and %s of " ..
                     "client memory (add scaled=1 for a trial)", files, need_for(k), k * lb.size,
                     k * lb.size == 1 and "" or "s", report.fmt_bytes(memory))
end
if not v.scaled and (v.sample_size or v.compute_time) then
  script.usage_error("sample_size= and compute_time= change the workload: add scaled=1")
end

-- find_max's counts: up to max_accelerators, and with files= fixed no more
-- than that many files feed (and, without scaled=1, hold the rules' minimum for)
local kmax, bound = v.max_accelerators, string.format("max_accelerators=%d", v.max_accelerators)
if v.find_max and v.files > 0 then
  local most = mlperf.most_accelerators(w, v.files, lb.size, format)
  if not v.scaled then
    if v.files < need_for(1) then below_minimum(v.files, 1) end
    local k = 1
    while k < kmax and need_for(k + 1) <= v.files do k = k + 1 end
    if k < kmax then
      kmax, bound = k, string.format("files=%d holds the rules' minimum up to %d", v.files, k)
    end
  end
  if most < 1 then
    script.usage_error("files=%d do not feed one accelerator per rank %d steps of %d samples",
                       v.files, mlperf.MIN_STEPS, w.batch_size)
  elseif most < kmax then
    kmax, bound = most, string.format("files=%d feed at most %d", v.files, most)
  end
end

local files = v.files > 0 and v.files or need_for(v.accelerators)
if not v.scaled and not v.find_max and files < need_for(v.accelerators) then
  below_minimum(files, v.accelerators)
end

local spec = mlperf.train_spec(w, {files = files, accelerators = v.accelerators,
                                   epochs = v.epochs, direct = v.direct, format = format})
if v.sample_size then spec.sample_size = v.sample_size end
if v.compute_time then spec.compute_time = v.compute_time end
if v.do_eval then
  spec.do_eval, spec.num_files_eval, spec.batch_size_eval = true, v.num_files_eval, v.batch_size_eval
  spec.eval_time, spec.eval_after_epoch = v.eval_time or 0, v.eval_after_epoch
  spec.epochs_between_evals = v.epochs_between_evals
end
if v.names == "dlio" then
  if v.find_max and v.files == 0 then
    script.usage_error("names=dlio needs files= with find_max=1: DLIO's names carry the file " ..
                       "count, which find_max would change from count to count")
  end
  spec.names = "dlio"
end
-- Without files=, find_max lays out files as the counts need them, the
-- subfolders fixed for the most files it may ask (lb.train's default
-- depends on files: flat up to 10000, groups of 1000 above)
local files_of = function() return files end
if v.find_max and v.files == 0 then
  files_of = need_for
  local most_files = need_for(kmax)
  spec.num_subfolders = most_files > 10000 and (most_files + 999) // 1000 or 1
end

local tmpname
if v.dir then
  spec.dir = v.dir
elseif lb.readonly then
  script.usage_error("--readonly needs dir= naming a dataset laid out before")
else
  tmpname = lb.rank == 0 and os.tmpname() or nil
  spec.dir = (lb.size > 1 and lb.bcast(tmpname or "", 0) or tmpname) .. ".d"
end

local function say(...)
  if lb.rank == 0 then print(...) end
end
local ranks = lb.size > 1 and string.format(" x %d ranks", lb.size) or ""
local compute = tostring(spec.compute_time)
if compute:match("^[%d.]+$") then compute = compute .. "s" end   -- seconds, fio's unit
local laid = 0      -- the most files asked for: what lb.train_remove removes

-- `runs` seeded runs of k accelerators over the files k reads.
local function train(k, seed)
  spec.accelerators, spec.files, spec.seed = k, files_of(k), seed
  laid = math.max(laid, spec.files)
  return lb.train(spec)
end
-- A signal ends them: the run it stopped is shown as such, not counted,
-- and none follows.
local function seeded_runs(k, row)
  local runs = {}
  for i = 1, v.runs do
    local r = train(k, v.seed + i - 1)
    local stopped = lb.interrupted()
    if not stopped then runs[i] = r end
    if row then row(i, r, stopped) end
    if stopped then break end
  end
  return runs
end
local INTERRUPTED = {}

local function one_count()
  say(string.format("%s on %s x %d%s: %d files x %d samples (%s), batch %d, %d read threads each, " ..
                      "compute %s per step%s", w.name, w.accelerator, v.accelerators, ranks, files,
                      w.samples_per_file, format, w.batch_size, w.read_threads, compute,
                      v.scaled and " (scaled: not a closed submission)" or ""))
  say(string.format("%4s %9s %8s %14s %12s  %s", "run", "AU", "stdev", "samples/s", "MB/s", "AU >= " ..
                      string.format("%.0f%%", w.au * 100)))
  if v.warmup then
    local r = train(v.accelerators, v.seed - 1)
    say(string.format("%4s %8.2f%% %8.2f %14.2f %12.2f  %s", "warm", r.au * 100, r.au_stdev * 100,
                      r.dlio_samples_per_s, r.dlio_mb_per_s,
                      lb.interrupted() and "(interrupted, not counted)" or "(not counted)"))
    if lb.interrupted() then return end
  end
  local runs = seeded_runs(v.accelerators, function(i, r, stopped)
    say(string.format("%4d %8.2f%% %8.2f %14.2f %12.2f  %s", i, r.au * 100, r.au_stdev * 100,
                        r.dlio_samples_per_s, r.dlio_mb_per_s, stopped and "(interrupted, not counted)"
                        or r.au >= w.au and "success" or "fail"))
    if r.eval_au then
      say(string.format("%4s %8.2f%% %8.2f %14.2f %12.2f  %s", "eval", r.eval_au * 100,
                          r.eval_au_stdev * 100, r.eval_dlio_samples_per_s, r.eval_dlio_mb_per_s,
                          string.format("(%d evaluation%s, not judged)", #r.evals,
                                        #r.evals == 1 and "" or "s")))
    end
  end)
  if #runs == 0 then return end       -- interrupted in the first run
  local vd = mlperf.verdict(w, runs)
  local done = #runs < v.runs and string.format("INTERRUPTED after %d of %d runs", #runs, v.runs)
  say(string.format("%s %s x %d%s: %s, mean AU %.2f%% (threshold %.0f%%), samples/s spread " ..
                      "%.1f%% (%s %.0f%%) over %d runs%s", w.name, w.accelerator, v.accelerators,
                      ranks, done or vd.pass and "PASS" or "FAIL", vd.au_mean * 100, w.au * 100,
                      vd.spread * 100, vd.consistent and "within" or "above", mlperf.SPREAD * 100,
                      #runs, v.scaled and " (scaled)" or ""))
end

-- MLPerf's question: the most accelerators per host whose runs all pass.
local function search()
  local per = lb.size > 1 and "per rank" or "per host"
  say(string.format("%s on %s%s, find_max up to %d accelerator%s %s (%s): %s (%s), " ..
                      "batch %d, %d read threads each, compute %s per step, %d runs a count%s",
                      w.name, w.accelerator, ranks, kmax, kmax == 1 and "" or "s", per, bound,
                      v.files > 0 and string.format("%d files", v.files) or
                        "files: the rules' minimum of each count",
                      format, w.batch_size, w.read_threads, compute, v.runs,
                      v.scaled and " (scaled: not a closed submission)" or ""))
  local cols = "%6s %9s %9s %9s %9s %14s  %s"
  say(string.format(cols, "accel", "files", "mean AU", "min AU", "spread", "samples/s",
                    string.format("AU >= %.0f%%, spread <= %.0f%%", w.au * 100, mlperf.SPREAD * 100)))
  if v.warmup then
    local r = train(1, v.seed - 1)
    say(string.format("%6s %9d %8.2f%% %8.2f%% %9s %14.2f  %s", "warm", spec.files, r.au * 100,
                      r.au * 100, "-", r.dlio_samples_per_s, "(not counted)"))
  end
  local verdicts = {}
  local found, good, bad = pcall(sweep.search_max, function(k)
    local runs = seeded_runs(k)
    if lb.interrupted() then error(INTERRUPTED, 0) end
    local vd, min_au, tp = mlperf.verdict(w, runs), math.huge, 0
    for _, r in ipairs(runs) do
      min_au, tp = math.min(min_au, r.au), tp + r.dlio_samples_per_s / #runs
    end
    verdicts[k] = vd
    say(string.format("%6d %9d %8.2f%% %8.2f%% %8.1f%% %14.2f  %s", k, spec.files, vd.au_mean * 100,
                      min_au * 100, vd.spread * 100, tp, vd.pass and "pass" or "fail"))
    return vd.pass
  end, kmax)
  if not found and good == INTERRUPTED then
    say(string.format("%s %s: find_max INTERRUPTED: the counts above are those it finished",
                      w.name, w.accelerator))
    return
  end
  if not found then error(good, 0) end
  say(mlperf.find_max_line(w, good, bad, verdicts, bound, per) .. (v.scaled and " (scaled)" or ""))
end

local ok, err = pcall(v.find_max and search or one_count)
if lb.size > 1 then pcall(lb.barrier) end   -- no rank still reads
if tmpname then
  spec.files = math.max(laid, 1)
  pcall(lb.train_remove, spec)
  os.remove(spec.dir)
  os.remove(tmpname)
end
if not ok then error(err, 0) end
