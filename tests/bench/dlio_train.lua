-- lb.train over an existing dataset (DLIO's own files, by glob), as
-- tests/bench/dlio_bench.py runs it beside DLIO; prints the result's
-- figures as key=value lines, then each epoch's AU and samples/s.  Under
-- mpirun (one accelerator or more per rank) the figures are the merged ones
-- of all ranks, printed by rank 0 alone.
--   luabench tests/bench/dlio_train.lua dir=GLOB format=npz samples_per_file=1
--     batch_size=4 read_threads=4 compute_time=0.1 epochs=3 accelerators=1
local a = args
local function num(k, d) return tonumber(a[k] or d) end
local r = lb.train{
  dir = a.dir, format = a.format or "npz", files = math.tointeger(tonumber(a.files)),
  samples_per_file = num("samples_per_file", 1),
  batch_size = num("batch_size", 4), read_threads = num("read_threads", 4),
  compute_time = (a.compute_time or "0") .. "s", epochs = num("epochs", 1),
  accelerators = num("accelerators", 1), shuffle = a.shuffle or "none",
  prefetch = num("prefetch", 2), direct = a.direct == "1", seed = math.tointeger(num("seed", 0)),
  total_training_steps = a.total_training_steps and math.tointeger(tonumber(a.total_training_steps)),
}
if (lb.rank or 0) ~= 0 then return end
local e = r.epochs or {}
local t = 0
for _, x in ipairs(e) do t = t + x.time_s end
for _, k in ipairs{"au", "au_stdev", "dlio_samples_per_s", "dlio_mb_per_s", "samples",
                   "samples_per_s", "bytes", "bw_bytes"} do
  print(string.format("%s=%.17g", k, r[k] or 0))
end
print(string.format("epochs_time_s=%.17g", t))
for i, x in ipairs(e) do   -- DLIO's per-epoch figures (summary.json's lists)
  print(string.format("epoch%d_au=%.17g epoch%d_dlio_samples_per_s=%.17g", i, x.au, i,
                      x.dlio_samples_per_s))
end
print(string.format("usr_s=%.17g", r.cpu and r.cpu.usr_s or 0))
print(string.format("sys_s=%.17g", r.cpu and r.cpu.sys_s or 0))
