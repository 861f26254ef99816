-- Description: lb.train lays out a dataset, reads every sample once per
-- epoch, and returns the result fields (samples, rates, AU, per-epoch
-- figures, fio-style latency objects, histograms, checkpoints, CPU); a
-- second run reuses the dataset; lb.train_remove deletes it; bad fields
-- raise one line naming the field, runtime failures name the path.
local T = dofile("tests/lua/lib.lua")
local check = T.check
check(lb.train and lb.meta, "lb.train/lb.meta missing: luaopen_luabench must call lb_train_open")

local function file_size(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  return n
end

local dir = T.tmpdir("train")
local spec = {dir = dir, files = 4, samples_per_file = 8, file_format = "packed",
              sample_size = "4k", batch_size = 4, read_threads = 2, epochs = 2,
              shuffle = "sample", seed = 1, compute_time = "1ms", prefetch = 2,
              accelerators = 2, checkpoint = {every_steps = 4, size = "64k"}}

local ok, err = pcall(function()
  local r = lb.train(spec)
  check(r.samples == 4 * 8 * 2, "samples " .. tostring(r.samples))
  check(r.bytes == r.samples * 4096, "bytes " .. tostring(r.bytes))
  check(r.steps == 16, "steps " .. tostring(r.steps))
  check(type(r.samples_per_s) == "number" and r.samples_per_s > 0, "samples_per_s")
  check(type(r.bw_bytes) == "number" and r.bw_bytes > 0, "bw_bytes")
  check(r.au >= 0 and r.au <= 1, "au " .. tostring(r.au))
  check(math.abs(r.au_steps - r.compute_s / (r.compute_s + r.wait_s)) < 1e-9, "au_steps from totals")
  check(math.abs(r.au - (r.epochs[1].au + r.epochs[2].au) / 2) < 1e-12, "au: the mean of the epochs'")
  check(r.au_stdev >= 0 and r.dlio_samples_per_s > 0, "DLIO's figures")
  check(math.abs(r.dlio_mb_per_s - r.dlio_samples_per_s * 4096 / 1048576) < 1e-9, "DLIO's MB/s")
  check(#r.epochs == 2, "epochs")
  for i, e in ipairs(r.epochs) do
    check(e.samples == 32 and e.time_s > 0, "epoch " .. i)
  end
  for _, k in ipairs{"batch_wait_ns", "sample_read_ns"} do
    local l = r[k]
    check(type(l) == "table", k)
    for _, f in ipairs{"min", "max", "mean", "stddev", "N"} do
      check(type(l[f]) == "number", k .. "." .. f)
    end
    check(l.percentile[50] and l.percentile[99] and l.percentile[99] >= l.percentile[50],
          k .. " percentiles")
  end
  check(r.batch_wait_ns.N == 16, "one batch wait per step")
  check(r.sample_read_ns.N == 64, "one read time per sample")
  check(r.batch_wait_hist:count() == 16, "batch_wait_hist")
  check(r.sample_read_hist:percentile(50) == r.sample_read_ns.percentile[50], "hist p50")
  -- each accelerator writes its part at its steps 4 and 8
  check(r.checkpoints.count == 2, "checkpoints " .. tostring(r.checkpoints.count))
  check(r.checkpoints.time_ns.N == 4 and r.checkpoints.hist:count() == 4, "checkpoint times")
  check(type(r.cpu.usr_s) == "number" and type(r.cpu.sys_s) == "number", "cpu")
  check(#r.cpu.readers == 4, "per-reader cpu: read_threads for each accelerator")
  check(r.layout.files == 4, "laid out " .. tostring(r.layout.files))
  check(type(r.evals) == "table" and #r.evals == 0 and r.eval_au == nil,
        "no evaluation without do_eval")
  check(r.stopped == false, "not stopped")
  for f = 0, 3 do
    local p = string.format("%s/shard_%04d.dat", dir, f)
    check(file_size(p) == 8 * 4096, p .. " size")
  end
  check(io.open(dir .. "/ckpt_00000008_0001.dat") == nil, "checkpoint left behind")

  -- epoch checkpoints: after epoch 1, then every 2 epochs (1 and 3 of 4),
  -- each accelerator its part; after epoch 3, then every one (3 and 4)
  local ce = {}
  for k, x in pairs(spec) do ce[k] = x end
  ce.epochs = 4
  ce.checkpoint = {every_epochs = 2, after_epoch = 1, size = "64k"}
  local rc = lb.train(ce)
  check(rc.checkpoints.count == 2 and rc.checkpoints.hist:count() == 4,
        "epoch checkpoints " .. rc.checkpoints.count .. " " .. rc.checkpoints.hist:count())
  ce.checkpoint = {every_epochs = 1, after_epoch = 3, size = "64k"}
  rc = lb.train(ce)
  check(rc.checkpoints.count == 2, "checkpoints after epochs 3 and 4: " .. rc.checkpoints.count)
  local left = io.popen("ls " .. dir .. " | grep -c ckpt"):read("l")
  check(left == "0", "epoch checkpoints left behind: " .. tostring(left))

  -- the same dataset is reused; other shapes of sizes and compute times
  spec.checkpoint = nil
  spec.shuffle = "file"
  spec.compute_time = {mean = "1ms", stddev = "100us"}
  local r2 = lb.train(spec)
  check(r2.layout.files == 0 and r2.samples == 64, "reuse")
  local r3 = lb.train{dir = dir, files = 10, sample_size = {dist = "uniform", min = "1k", max = "8k"},
                      batch_size = 3, shuffle = "none", compute_time = 0, drop_last = false}
  check(r3.samples == 10 and r3.steps == 4, "one sample per file, last batch partial")
  local r4 = lb.train{dir = dir, files = 10, sample_size = {dist = "uniform", min = "1k", max = "8k"},
                      batch_size = 3, shuffle = "none", loader = "shared", barrier = false,
                      compute_time = {dist = "uniform", min = 0, max = "1ms"}}
  check(r4.samples == 9 and r4.steps == 3, "drop_last drops the partial batch")
  -- DLIO's other computation_time forms, DLIO's key names too (type=, stdev=)
  for _, ct in ipairs{{dist = "gamma", shape = 2, scale = "100us"},
                      {type = "exponential", scale = 0.0002}, {dist = "poisson", lam = 1e-9},
                      {mean = "200us", stdev = "50us"}} do
    local rg = lb.train{dir = dir .. "/dists", files = 9, sample_size = "1k", batch_size = 3,
                        shuffle = "none", compute_time = ct, preprocess_time = ct}
    check(rg.samples == 9 and rg.steps == 3 and (rg.au > 0.01) == (ct.dist ~= "poisson"),
          "compute_time " .. (ct.dist or ct.type or "normal") .. ": au " .. rg.au)
  end
  -- preprocess_time: each of the 8 samples of an epoch holds its one reader 5 ms
  local r5 = lb.train{dir = dir, files = 8, sample_size = "1k", batch_size = 2, read_threads = 1,
                      compute_time = 0, preprocess_time = "5ms", relayout = true}
  check(r5.layout.rewritten == 8 and r5.layout.relaid:find("sample_size=uniform 1024 8192", 1, true),
        "relayout rewrites the 8 files laid out with other sizes")
  check(r5.samples == 8 and r5.epochs[1].time_s >= 0.040,
        "preprocess_time: epoch of " .. tostring(r5.epochs[1].time_s) .. " s")
  check(r3.bytes >= 10 * 1024 and r3.bytes <= 10 * 8192, "uniform sizes")
  check(file_size(dir .. "/img_000009.dat") ~= nil, "img files")
  check(file_size(dir .. "/img_000007.dat") == 1024, "rewritten with relayout")
  -- many loaders at once (their threads on stacks of one mapping): 512
  -- accelerators of 2 readers, every sample of the epoch read once
  local rk = lb.train{dir = dir .. "/many", files = 1024, sample_size = "1k", batch_size = 2,
                      read_threads = 2, accelerators = 512, compute_time = 0}
  check(rk.samples == 1024 and rk.steps == 512 and #rk.cpu.readers == 1024,
        "512 accelerators: " .. rk.samples .. " samples, " .. rk.steps .. " steps")
  check(lb.train_remove{dir = dir, files = 10} == 10, "train_remove one per file")
  check(file_size(dir .. "/img_000000.dat") == nil, "img files removed")

  -- bad fields: one line naming the field
  local function bad(t, needle)
    t.dir = t.dir or dir
    local ok2, e = pcall(lb.train, t)
    check(not ok2, "accepted: " .. needle)
    check(tostring(e):find(needle, 1, true), "message '" .. tostring(e) .. "' lacks " .. needle)
    check(not tostring(e):find("\n"), "message on one line")
  end
  bad({batch_size = 0}, "lb.train: field 'batch_size' must be a positive integer")
  bad({files = "x"}, "field 'files'")
  bad({batchsize = 4}, "unknown field 'batchsize'")
  bad({shuffle = "random"}, "field 'shuffle'")
  bad({sample_size = "4q"}, "field 'sample_size'")
  bad({compute_time = {dist = "gamma", shape = 1}}, "field 'compute_time'")
  bad({compute_time = {dist = "gamma", shape = 0, scale = "1ms"}}, "field 'compute_time'")
  bad({compute_time = {dist = "poisson", lam = 20000}}, "lam in seconds up to 10000")
  bad({eval_time = {dist = "exponential"}, do_eval = true, num_files_eval = 4}, "field 'eval_time'")
  bad({preprocess_time = {dist = "weibull"}}, "field 'preprocess_time'")
  bad({sample_size = {dist = "gamma", shape = 2, scale = "4k"}}, "field 'sample_size'")
  bad({loader = "pool"}, "field 'loader'")
  bad({preprocess_time = "5q"}, "field 'preprocess_time'")
  bad({barrier = 1}, "field 'barrier'")
  bad({read_threads = -1}, "field 'read_threads'")
  bad({prefetch = 0, loader = "shared", barrier = false},
      "prefetch=0 (DLIO's prefetch_size 0: a prefetch factor of 2) is for the PyTorch loader")
  bad({prefetch = 0, format = "tfrecord"}, "prefetch=0")
  bad({prefetch = 65537}, "prefetch is above 65536 batches")
  bad({files = 2, batch_size = 4}, "an epoch has no step")
  bad({files = 8, total_training_steps = 9}, "total_training_steps")
  bad({file_format = "one-sample-per-file", samples_per_file = 4}, "field 'samples_per_file'")
  bad({checkpoint = {every_steps = 0, size = "1m"}}, "checkpoint: field 'every_steps'")
  bad({checkpoint = {every_steps = 2, every_epochs = 1, size = "1m"}}, "field 'checkpoint'")
  bad({dir = 5}, "field 'dir'")
  bad({format = "parquet"}, "field 'format' must be \"raw\", \"npz\", \"tfrecord\" or \"hdf5\"")
  bad({format = "hdf5", direct = true}, "direct reads need format=raw or npz")
  bad({format = "tfrecord", files = 2, accelerators = 3, batch_size = 1}, "files must be at least accelerators")
  bad({transfer_size = "1k"}, "transfer_size must be at least 4 KiB")
  bad({do_eval = true, num_files_eval = 1, batch_size_eval = 2}, "num_files_eval: an evaluation has no step")
  bad({eval_time = "1ms"}, "field 'eval_time' needs do_eval=true")
  bad({dir = dir .. "/*.dat", do_eval = true, num_files_eval = 4}, "do_eval needs dir= a directory")

  -- runtime failure: the path and the reason
  local blocker = dir .. "/plain"
  local f = io.open(blocker, "w"); f:write("x"); f:close()
  local ok3, e3 = pcall(lb.train, {dir = blocker, files = 4})
  check(not ok3 and tostring(e3):find(blocker, 1, true), "runtime error names the path: " .. tostring(e3))
  os.remove(blocker)

  check(lb.train_remove(spec) == 4, "train_remove packed")
end)
os.execute("rm -rf '" .. dir .. "'")
if not ok then error(err, 0) end
print("ok")
