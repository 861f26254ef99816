#!/usr/bin/env bash
# Description: lb.train under mpirun -np 3 shards the dataset over all
# ranks x accelerators as DLIO does (rank r's accelerator a reads global
# shard r * accelerators + a, a contiguous slice of the sample list): every
# sample is opened exactly once per epoch over all ranks (counted with
# strace, each rank only its own slice), the layout is split over the ranks,
# the merged counts equal the sums of the host rows (which carry the
# result's own names), histograms merge bucket by bucket, AU is the mean
# over all accelerators and DLIO's throughput the sum; the barrier after
# each step spans the ranks; scripts/mlperf.lua runs under mpirun.
# lb-test: labels noleak (Open MPI's own leaks, or LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
# lb-test: serial (three ranks with their readers need the cores)
command -v mpirun >/dev/null || skip "mpirun not installed"
command -v strace >/dev/null || skip "strace not installed"
"$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
tmp=$(lb_tmpdir)
mpi() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$@"; }

# 24 files, 3 ranks x 2 accelerators, batch 2: 6 shards of 4 samples,
# 2 steps each, nothing dropped
cat > "$tmp/spec.lua" <<EOF2
return {dir = "$tmp/ds", files = 24, sample_size = "4k", batch_size = 2, accelerators = 2,
        read_threads = 2, epochs = 2, seed = 7, shuffle = "sample"}
EOF2
cat > "$tmp/layout.lua" <<EOF2
local spec = dofile("$tmp/spec.lua")
spec.epochs = 1
local r = lb.train(spec)
assert(r.layout.files == 24, "all files laid out: " .. r.layout.files)
for _, h in ipairs(r.hosts) do assert(h.layout.files == 8, "each rank lays out 8") end
if lb.rank == 0 then print("laid out") end
EOF2
out=$(mpi "$LUABENCH" --quiet "$tmp/layout.lua" 2>&1) || fail "layout: $out"
contains "$out" "laid out" "layout split over the ranks"

cat > "$tmp/merge.lua" <<EOF2
local spec = dofile("$tmp/spec.lua")
local r = lb.train(spec)
assert(#r.hosts == 3, "three host rows")
local sum = {samples = 0, bytes = 0, steps = 0, reads = 0, waits = 0, au = 0, tp = 0}
for i, h in ipairs(r.hosts) do
  assert(h.rank == i - 1 and h.hostname and h.samples_per_s and h.sample_read_ns, "host row names")
  sum.samples = sum.samples + h.samples
  sum.bytes = sum.bytes + h.bytes
  sum.steps = sum.steps + h.steps
  sum.reads = sum.reads + h.sample_read_hist:count()
  sum.waits = sum.waits + h.batch_wait_hist:count()
  sum.au = sum.au + h.au / 3
  sum.tp = sum.tp + h.dlio_samples_per_s
end
assert(r.samples == 48 and sum.samples == r.samples, "samples " .. r.samples .. " " .. sum.samples)
assert(sum.bytes == r.bytes and r.bytes == 48 * 4096, "bytes")
assert(sum.steps == r.steps and r.steps == 3 * 2 * 2 * 2, "steps " .. r.steps)
assert(sum.reads == r.sample_read_hist:count() and sum.waits == r.batch_wait_hist:count(), "hists")
assert(math.abs(sum.au - r.au) < 1e-12, "AU is the mean over all accelerators")
assert(math.abs(sum.tp - r.dlio_samples_per_s) <= 1e-9 * sum.tp, "throughput is the sum")
for e, ep in ipairs(r.epochs) do
  assert(ep.samples == 24, "an epoch reads every sample")
  local slowest = 0
  for _, h in ipairs(r.hosts) do slowest = math.max(slowest, h.epochs[e].time_s) end
  assert(ep.time_s == slowest, "an epoch lasts as long as its slowest rank")
end
-- the local result is this rank's row
assert(r["local"].samples == r.hosts[lb.rank + 1].samples, "local = own row")
-- the cluster p99 is the union's, rebuilt from every rank's local histogram
local union = lb.hist()
for _, text in ipairs(lb.allgather(lb.json(r["local"].sample_read_hist:buckets()))) do
  for _, b in ipairs(lb.json_decode(text)) do union:record((b.lo + b.hi) // 2, b.count) end
end
local p99 = r.sample_read_hist:percentile(99)
assert(math.abs(p99 - union:percentile(99)) <= p99 / 64 + 1, "merged p99 is the union's")
if lb.rank == 0 then print("merged", r.samples, r.steps) end
EOF2
# each rank traced apart: the files it opens
out=$(mpi sh -c 'exec strace -f -qq -e trace=openat -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
      "$tmp/trace" "$LUABENCH" --quiet "$tmp/merge.lua" 2>&1) || fail "merge run: $out"
contains "$out" "$(printf "merged\t48\t24")" "rank 0 prints the merged counts"
for r in 0 1 2; do
  [ -s "$tmp/trace.$r" ] || fail "no trace of rank $r"
  grep -o 'img_[0-9]*\.dat' "$tmp/trace.$r" | sort | uniq -c > "$tmp/count.$r"
  # rank r reads files 8r .. 8r+7 (its two global shards), each once per epoch
  want=$(for f in $(seq $((8 * r)) $((8 * r + 7))); do printf '      2 img_%06d.dat\n' "$f"; done)
  [ "$(cat "$tmp/count.$r")" = "$want" ] || fail "rank $r opened: $(cat "$tmp/count.$r")"
done

# the barrier spans the ranks: rank 2 computes 100 ms a step, so every
# rank's steps take that long; without it the others' epochs take about
# 2 ms. The ranks leave the start barrier a few ms apart, hence 0.15 s.
cat > "$tmp/bar.lua" <<EOF2
local spec = dofile("$tmp/spec.lua")
spec.epochs = 1
spec.compute_time = lb.rank == 2 and "100ms" or "1ms"
local r = lb.train(spec)
local t = r["local"].time_s
assert(t >= 0.15, ("rank %d: an epoch of 2 steps took %.4f s, under 0.15 s (rank 2 computes 0.2 s)"):format(lb.rank, t))
if lb.rank == 0 then print("barrier ok") end
EOF2
out=$(mpi "$LUABENCH" --quiet "$tmp/bar.lua" 2>&1) || fail "barrier: $out"
contains "$out" "barrier ok" "the barrier after each step spans the ranks"

# scripts/mlperf.lua: one table and verdict (rank 0), the dataset sized
# for every rank's accelerators
out=$(cd "$LB_SRC" && mpi "$LUABENCH" --quiet scripts/mlperf.lua workload=unet3d accelerator=a100 \
      accelerators=2 scaled=1 files=84 sample_size=4k compute_time=0 epochs=1 runs=2 \
      dir="$tmp/ml" 2>&1) || fail "mlperf.lua under mpirun: $out"
contains "$out" "unet3d on a100 x 2 x 3 ranks" "header names the ranks"
[ "$(printf '%s\n' "$out" | grep -c 'FAIL, mean AU')" -eq 1 ] || fail "one verdict line: $out"
[ "$(printf '%s\n' "$out" | grep -cE '^ +[0-9]+ +0\.[0-9][0-9]% ')" -eq 2 ] || fail "two run rows: $out"
# find_max counts accelerators per rank: 84 samples feed one each on 3 ranks
out=$(cd "$LB_SRC" && mpi "$LUABENCH" --quiet scripts/mlperf.lua workload=unet3d find_max=1 scaled=1 \
      files=84 sample_size=4k compute_time=0 epochs=1 runs=1 warmup=0 dir="$tmp/ml" 2>&1) ||
  fail "mlperf.lua find_max under mpirun: $out"
contains "$out" "unet3d on h100 x 3 ranks, find_max up to 1 accelerator per rank (files=84 feed at most 1)" \
  "find_max header under MPI"
[ "$(printf '%s\n' "$out" | grep -c '^unet3d h100: no accelerator count passes: 1 fails')" -eq 1 ] ||
  fail "one find_max verdict: $out"
pass
