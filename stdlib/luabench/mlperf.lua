--[[
luabench.mlperf: MLPerf Storage's workloads and rules as data, for
scripts/mlperf.lua: the training presets (unet3d, resnet50, cosmoflow on
a100 and h100, the figures of mlcommons/storage configs/dlio/workload), the
minimum dataset of the rules (5x the clients' memory, 500 steps per epoch),
the lb.train spec of a preset (in the workload's container: npz for
unet3d, TFRecord for resnet50 and cosmoflow, as the configs' format), the
verdict of a set of runs and of a find_max search, and the LLM checkpoint sizes computed from
the model and its parallelism the way DLIO's checkpointing sizes its
tensors (fp16 model, fp32 optimizer state with three groups).

  local mlperf = require "luabench.mlperf"
  local w = mlperf.workload("unet3d", "h100")
  local files = mlperf.min_files(w, accelerators, client_memory_bytes)
  local bytes, per_rank = mlperf.checkpoint_bytes("llama3-8b")

It runs nothing and reads no file.
]]

local M = {}

-- The training workloads.  format is the dataset's format, record_length
-- DLIO's record_length_bytes (the mean sample; resnet50's 114660.07 whole),
-- stdev its record_length_bytes_stdev; compute is the computation_time per
-- step in seconds; au the pass threshold.  shuffle: "sample" where the
-- config seeds file_shuffle and sample_shuffle, "none" where it sets
-- neither (DLIO's default off); shuffle_size the TFRecord shuffle buffer
-- where the config gives one (else DLIO's 1024).  No config sets
-- transfer_size: the readers' own (numpy's and TensorFlow's 256 KiB).
local base = {
  unet3d = {format = "npz", files = 168, samples_per_file = 1,
            record_length = 146600628, stdev = 68341808, batch_size = 7,
            read_threads = 4, au = 0.90, shuffle = "sample",
            compute = {a100 = 0.636, h100 = 0.323}},
  resnet50 = {format = "tfrecord", files = 1024, samples_per_file = 1251,
              record_length = 114660, stdev = 0, batch_size = 400,
              read_threads = 8, au = 0.90, shuffle = "none",
              compute = {a100 = 0.435, h100 = 0.224}},
  cosmoflow = {format = "tfrecord", files = 524288, samples_per_file = 1,
               record_length = 2828486, stdev = 71311, batch_size = 1,
               read_threads = 4, au = 0.70, shuffle = "sample", shuffle_size = 2,
               compute = {a100 = 0.00551, h100 = 0.00350}},
}

M.workloads = {"unet3d", "resnet50", "cosmoflow"}
M.accelerators = {"a100", "h100"}
M.formats = {"raw", "npz", "tfrecord", "hdf5"}   -- lb.train's containers
M.STEPS_PER_EPOCH = 500       -- the rules' minimum
M.MEMORY_MULTIPLIER = 5       -- dataset >= 5x the clients' memory
M.EPOCHS = 5                  -- the configs' epochs
M.RUNS = 5                    -- runs a submission reports
M.SPREAD = 0.05               -- the runs' samples/s within 5 % of each other

-- The preset of a workload on an accelerator type, or nil and a message.
function M.workload(name, accel)
  local b = base[name]
  if not b then
    return nil, string.format("unknown workload '%s' (known: %s)", tostring(name),
                              table.concat(M.workloads, ", "))
  end
  local c = b.compute[accel]
  if not c then
    return nil, string.format("unknown accelerator '%s' (known: %s)", tostring(accel),
                              table.concat(M.accelerators, ", "))
  end
  local w = {name = name, accelerator = accel, compute_time = c}
  for k, v in pairs(b) do
    if k ~= "compute" then w[k] = v end
  end
  return w
end

-- Files the rules ask for: enough samples for 500 steps of every
-- accelerator, and 5x the clients' memory in bytes (mlpstorage's
-- calculate_training_data_size, integer divisions as there).
function M.min_files(w, accelerators, memory_bytes)
  local file_bytes = w.samples_per_file * w.record_length
  local by_bytes = (M.MEMORY_MULTIPLIER * memory_bytes) // file_bytes
  local by_steps = (M.STEPS_PER_EPOCH * accelerators * w.batch_size) // w.samples_per_file
  return math.max(by_bytes, by_steps), by_bytes, by_steps
end

-- The lb.train spec of a preset (dir, files, accelerators and the rest are
-- the caller's; format= overrides the workload's container, "raw" for the
-- bare samples).  Sample sizes follow DLIO's normal draw when stdev > 0.
function M.train_spec(w, t)
  t = t or {}
  local format = t.format or w.format
  local s = {files = w.files, samples_per_file = w.samples_per_file,
             batch_size = w.batch_size, read_threads = w.read_threads, prefetch = w.prefetch,
             epochs = M.EPOCHS, shuffle = w.shuffle,
             compute_time = w.compute_time, format = format,
             file_format = w.samples_per_file > 1 and "packed" or "one-sample-per-file",
             sample_size = w.record_length}
  if w.stdev > 0 then
    s.sample_size = {dist = "normal", mean = w.record_length, stddev = w.stdev}
  end
  if format == "tfrecord" and w.shuffle_size then s.shuffle_size = w.shuffle_size end
  for k, v in pairs(t) do s[k] = v end
  return s
end

M.MIN_STEPS = 3   -- steps per epoch for one counted by DLIO's throughput (steps - 2)

-- The most accelerators per rank a dataset of `files` files feeds over
-- `ranks` ranks: M.MIN_STEPS whole batches each per epoch, and in TFRecord
-- (files sharded over the accelerators) a batch's records in each one's files.
function M.most_accelerators(w, files, ranks, format)
  local n = files * w.samples_per_file
  local most = n // (M.MIN_STEPS * w.batch_size) // ranks
  if format == "tfrecord" then
    local per = (w.batch_size + w.samples_per_file - 1) // w.samples_per_file
    most = math.min(most, files // per // ranks)
  end
  return most
end

-- ------------------------------------------------------------ checkpoints

-- The llama3 models of MLPerf Storage's checkpointing workloads:
-- tensor x pipeline x data parallelism and ZeRO stage as its table lists.
M.models = {
  ["llama3-8b"] = {layers = 32, hidden = 4096, ffn = 14336, heads = 32, kv_heads = 8,
                   vocab = 128256, tp = 1, pp = 1, dp = 8, zero = 3},
  ["llama3-70b"] = {layers = 80, hidden = 8192, ffn = 28672, heads = 128, kv_heads = 8,
                    vocab = 128256, tp = 8, pp = 1, dp = 8, zero = 3},
  ["llama3-405b"] = {layers = 126, hidden = 16384, ffn = 53248, heads = 128, kv_heads = 8,
                     vocab = 128256, tp = 8, pp = 32, dp = 2, zero = 1},
  ["llama3-1t"] = {layers = 128, hidden = 25872, ffn = 98304, heads = 192, kv_heads = 32,
                   vocab = 128256, tp = 8, pp = 64, dp = 2, zero = 1},
}
M.model_names = {"llama3-8b", "llama3-70b", "llama3-405b", "llama3-1t"}

local FP16, FP32 = 2, 4

-- Parameters of the whole model: embedding, the layers (norms, q/k/v,
-- the output projection, the gated MLP's two matrices), final norm, head.
function M.parameters(m)
  local dim_kv = m.hidden // m.heads * m.kv_heads
  local layer = m.hidden + m.hidden * (m.hidden + 2 * dim_kv) + m.hidden * m.hidden +
                m.hidden + 3 * m.ffn * m.hidden
  return 2 * m.vocab * m.hidden + layer * m.layers + m.hidden
end

-- Elements of layer i (0: embedding, layers+1: head, layers+2: final norm)
-- held by one rank: matrices split over the tensor ranks, everything over
-- the data ranks under ZeRO-3.
local function layer_elements(m, i)
  local sf = m.zero >= 3 and m.dp or 1
  local h, tp = m.hidden, m.tp
  if i == 0 or i == m.layers + 1 then return h * m.vocab // tp // sf end
  if i == m.layers + 2 then return h // sf end
  local dim_kv = h // m.heads * m.kv_heads
  return h // sf + h * (h + 2 * dim_kv) // tp // sf + h * h // tp // sf + h // sf +
         h * 2 * m.ffn // tp // sf + h * m.ffn // tp // sf
end

-- The layers pipeline stage p holds: the transformer layers split as
-- evenly as they go, the embedding on the first, head and norm on the last.
local function stage_layers(m, p)
  local per, rem = m.layers // m.pp, m.layers % m.pp
  local first, last
  if p < rem then
    first = p * (per + 1) + 1
    last = first + per
  else
    first = rem * (per + 1) + (p - rem) * per + 1
    last = first + per - 1
  end
  if p == m.pp - 1 then last = m.layers + 2 end
  if p == 0 then first = 0 end
  return first, last
end

-- Bytes every rank writes per checkpoint and their sum.  Under ZeRO-1 only
-- the first data-parallel replica writes the model; every rank writes its
-- share of the optimizer state (three groups of parameters / ranks and
-- three of 5 x hidden, fp32).
function M.checkpoint_bytes(name)
  local m = type(name) == "table" and name or M.models[name]
  if not m then
    return nil, string.format("unknown model '%s' (known: %s)", tostring(name),
                              table.concat(M.model_names, ", "))
  end
  local mp, ranks = m.tp * m.pp, m.tp * m.pp * m.dp
  local opt = (3 * (M.parameters(m) // ranks) + 3 * 5 * m.hidden) * FP32
  local stage_bytes = {}
  for p = 0, m.pp - 1 do
    local first, last = stage_layers(m, p)
    local n = 0
    for i = first, last do n = n + layer_elements(m, i) end
    stage_bytes[p] = n * FP16
  end
  local per_rank, total = {}, 0
  for r = 0, ranks - 1 do
    local model = stage_bytes[(r // m.tp) % m.pp]
    if m.zero == 1 and r // mp ~= 0 then model = 0 end
    per_rank[r + 1] = model + opt
    total = total + per_rank[r + 1]
  end
  return total, per_rank, ranks
end

-- ------------------------------------------------------------ the verdict

-- MLPerf's figures of a set of runs: the AU of each, their mean, the
-- spread of samples/s (max/min - 1), whether that is within M.SPREAD
-- (consistent), and the pass: the threshold by every run, consistently.
function M.verdict(w, runs)
  local min_tp, max_tp, pass, au_sum = math.huge, 0, true, 0
  for _, r in ipairs(runs) do
    min_tp = math.min(min_tp, r.dlio_samples_per_s)
    max_tp = math.max(max_tp, r.dlio_samples_per_s)
    pass = pass and r.au >= w.au
    au_sum = au_sum + r.au
  end
  local spread = min_tp > 0 and max_tp / min_tp - 1 or math.huge
  local consistent = spread <= M.SPREAD + 1e-12
  return {pass = pass and consistent and #runs > 0, au_mean = #runs > 0 and au_sum / #runs or 0,
          spread = spread, consistent = consistent}
end

-- Why a verdict failed, for a find_max line: the AU (against the threshold
-- when `against` and below it), and the spread when the runs were not
-- consistent.
local function failed_by(w, vd, against)
  return string.format("AU %.1f%%%s%s", vd.au_mean * 100,
                       against and vd.au_mean < w.au and string.format(" < %.0f%%", w.au * 100) or "",
                       vd.consistent and "" or string.format(", samples/s spread %.1f%% above %.0f%%",
                                                             vd.spread * 100, M.SPREAD * 100))
end

-- The verdict line of a find_max search: good the most accelerators per
-- host that passed (0: none), bad the fewest that failed (nil: none tried),
-- verdicts[k] the verdict of k, bound the search's upper bound and why.
function M.find_max_line(w, good, bad, verdicts, bound, per)
  per = per or "per host"
  local head = string.format("%s %s: ", w.name, w.accelerator)
  if good == 0 then
    return head .. string.format("no accelerator count passes: 1 fails (%s)",
                                 failed_by(w, verdicts[1], true))
  end
  local g = verdicts[good]
  local line = head .. string.format("%d accelerator%s %s pass (AU %.1f%% >= %.0f%%)", good,
                                     good == 1 and "" or "s", per, g.au_mean * 100, w.au * 100)
  if bad then
    return line .. string.format(", %d fail (%s)", bad, failed_by(w, verdicts[bad]))
  end
  return line .. string.format(", the most tried (%s)", bound)
end

return M
