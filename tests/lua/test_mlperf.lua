-- Description: luabench.mlperf holds MLPerf Storage's presets and rules:
-- the llama3 checkpoint sizes computed from the models and their
-- parallelism equal DLIO's (104.7, 911.2, 5292.2 and 15426.6 GiB; MLPerf's
-- table rounds them to 105 GB, 912 GB, 5.29 TB and lists 18 TB for 1t,
-- which DLIO's model gives as 16.56 TB); the training presets carry the
-- configs' record sizes, batch sizes, compute times and AU thresholds; the
-- minimum dataset is the larger of 5x memory and 500 steps per epoch; the
-- lb.train spec is in the workload's container (npz, TFRecord) unless
-- format= says raw; find_max's search (sweep.search_max) tries each count
-- once, doubling then bisecting, and its verdict line names the most
-- accelerators that passed and the fewest that failed.
local T = dofile("tests/lua/lib.lua")
local check = T.check
local mlperf = require("luabench.mlperf")

local want = {["llama3-8b"] = {"104.7", 8}, ["llama3-70b"] = {"911.2", 64},
              ["llama3-405b"] = {"5292.2", 512}, ["llama3-1t"] = {"15426.6", 1024}}
for name, w in pairs(want) do
  local total, per_rank, ranks = mlperf.checkpoint_bytes(name)
  check(string.format("%.1f", total / 2^30) == w[1],
        name .. ": " .. string.format("%.3f GiB", total / 2^30))
  check(ranks == w[2] and #per_rank == w[2], name .. " ranks " .. tostring(ranks))
  local sum = 0
  for _, b in ipairs(per_rank) do sum = sum + b end
  check(sum == total, name .. ": ranks' parts add up")
end
check(mlperf.parameters(mlperf.models["llama3-8b"]) == 8030261248, "llama3-8b parameters")
-- ZeRO-1: the second data-parallel replica writes only optimizer state
local _, pr = mlperf.checkpoint_bytes("llama3-405b")
check(pr[1] > pr[257] and pr[257] == pr[512], "ZeRO-1 model on the first replica only")
local nothing, msg = mlperf.checkpoint_bytes("llama3-2t")
check(nothing == nil and msg:find("unknown model 'llama3-2t'", 1, true), "unknown model")

local u = assert(mlperf.workload("unet3d", "h100"))
check(u.compute_time == 0.323 and u.batch_size == 7 and u.record_length == 146600628 and
      u.au == 0.90 and u.files == 168 and u.read_threads == 4, "unet3d h100")
check(mlperf.workload("unet3d", "a100").compute_time == 0.636, "unet3d a100")
local rn = mlperf.workload("resnet50", "a100")
check(rn.compute_time == 0.435 and rn.batch_size == 400 and rn.samples_per_file == 1251 and
      rn.au == 0.90, "resnet50 a100")
check(mlperf.workload("resnet50", "h100").compute_time == 0.224, "resnet50 h100")
local cf = mlperf.workload("cosmoflow", "h100")
check(cf.compute_time == 0.00350 and cf.au == 0.70 and cf.batch_size == 1 and
      cf.record_length == 2828486, "cosmoflow h100")
check(mlperf.workload("cosmoflow", "a100").compute_time == 0.00551, "cosmoflow a100")
local none, m2 = mlperf.workload("bert", "h100")
check(none == nil and m2:find("unknown workload 'bert'", 1, true), "unknown workload")
check(select(2, mlperf.workload("unet3d", "v100")):find("unknown accelerator", 1, true),
      "unknown accelerator")

-- 64 GiB of memory, 8 accelerators: unet3d files by bytes 5 * 64 GiB /
-- 146600628 = 2343, by steps 500 * 8 * 7 = 28000
local files, by_bytes, by_steps = mlperf.min_files(u, 8, 64 * 2^30)
check(by_bytes == 2343 and by_steps == 28000 and files == 28000,
      string.format("unet3d min files %d %d %d", files, by_bytes, by_steps))
files, by_bytes = mlperf.min_files(rn, 1, 1024 * 2^30)
check(files == by_bytes and by_bytes == 5 * 1024 * 2^30 // (1251 * 114660), "resnet50 by bytes")

local s = mlperf.train_spec(u, {files = 3, accelerators = 2})
check(s.files == 3 and s.batch_size == 7 and s.compute_time == 0.323 and
      s.sample_size.mean == 146600628 and s.sample_size.stddev == 68341808, "train_spec")

check(s.format == "npz" and s.file_format == "one-sample-per-file" and s.shuffle == "sample" and
      s.shuffle_size == nil, "unet3d: npz, one sample a file")
local rs = mlperf.train_spec(rn)
check(rs.format == "tfrecord" and rs.file_format == "packed" and rs.samples_per_file == 1251 and
      rs.sample_size == 114660 and rs.shuffle == "none" and rs.read_threads == 8, "resnet50: tfrecord")
local cs = mlperf.train_spec(cf)
check(cs.format == "tfrecord" and cs.shuffle_size == 2 and cs.shuffle == "sample", "cosmoflow: shuffle_size 2")
check(mlperf.train_spec(cf, {format = "raw"}).format == "raw" and
      mlperf.train_spec(cf, {format = "raw"}).shuffle_size == nil, "format=raw overrides")
-- 42 unet3d samples feed 2 accelerators 3 steps of 7; 8 resnet50 files of
-- 1251 records hold a batch of 400 for 8 accelerators, 6 steps for 2
check(mlperf.most_accelerators(u, 42, 1, "npz") == 2, "most accelerators, npz")
check(mlperf.most_accelerators(u, 42, 2, "npz") == 1, "most accelerators per rank")
check(mlperf.most_accelerators(rn, 8, 1, "tfrecord") == 8, "most accelerators, tfrecord")
check(mlperf.most_accelerators(rn, 1, 1, "tfrecord") == 1, "one file of 1251 records")
check(mlperf.most_accelerators(cf, 5, 1, "tfrecord") == 1, "cosmoflow: 3 steps of 1")

local sweep = require("luabench.sweep")
local order = {}
local good, bad = sweep.search_max(function(k) order[#order + 1] = k; return k <= 12 end, 64)
check(good == 12 and bad == 13 and table.concat(order, ",") == "1,2,4,8,16,12,14,13",
      "search_max: " .. table.concat(order, ","))
good, bad = sweep.search_max(function(k) return k <= 100 end, 6)
check(good == 6 and bad == nil, "search_max: the bound passes")
good, bad = sweep.search_max(function() return false end, 6)
check(good == 0 and bad == 1, "search_max: 1 fails")
local uh = mlperf.workload("unet3d", "h100")
local vds = {[12] = {au_mean = 0.921, consistent = true}, [13] = {au_mean = 0.873, consistent = true},
             [1] = {au_mean = 0.5, consistent = false, spread = 0.061}}
check(mlperf.find_max_line(uh, 12, 13, vds) ==
      "unet3d h100: 12 accelerators per host pass (AU 92.1% >= 90%), 13 fail (AU 87.3%)",
      mlperf.find_max_line(uh, 12, 13, vds))
check(mlperf.find_max_line(uh, 0, 1, vds) == "unet3d h100: no accelerator count passes: 1 fails " ..
      "(AU 50.0% < 90%, samples/s spread 6.1% above 5%)", mlperf.find_max_line(uh, 0, 1, vds))
check(mlperf.find_max_line(uh, 12, nil, vds, "max_accelerators=12", "per rank") ==
      "unet3d h100: 12 accelerators per rank pass (AU 92.1% >= 90%), the most tried (max_accelerators=12)",
      "find_max line at the bound")

local vd = mlperf.verdict(u, {{au = 0.95, dlio_samples_per_s = 100},
                              {au = 0.91, dlio_samples_per_s = 104}})
check(vd.pass and math.abs(vd.au_mean - 0.93) < 1e-12 and math.abs(vd.spread - 0.04) < 1e-12,
      "verdict pass")
local wide = mlperf.verdict(u, {{au = 0.95, dlio_samples_per_s = 100}, {au = 0.95, dlio_samples_per_s = 106}})
check(not wide.pass and not wide.consistent, "runs 6 % apart do not pass (MLPerf: within 5 %)")
check(vd.consistent, "runs 4 % apart are consistent")
check(not mlperf.verdict(u, {{au = 0.95, dlio_samples_per_s = 1}, {au = 0.89, dlio_samples_per_s = 1}}).pass,
      "one run under the threshold fails")
print("ok")
