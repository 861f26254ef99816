#!/usr/bin/env bash
# Description: lb.train do_eval=true under mpirun -np 2 shards the valid
# set as DLIO's comm_size division does: 2 ranks x 2 accelerators, 12 valid
# files, batch_size_eval 1: floor(12 / 1 / 4) = 3 steps per accelerator,
# rank r's accelerator a reading global shard 2r + a, so rank r opens valid
# files 6r .. 6r + 5 once per evaluation (strace, each rank apart); the
# merged evaluations sum the host rows' steps, samples, bytes and
# throughput, their AU is the mean over all accelerators, their time the
# slowest rank's, and the training's counts hold no evaluation sample.
# lb-test: labels noleak (Open MPI's own leaks, or LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
# lb-test: serial (two ranks with their readers need the cores)
command -v mpirun >/dev/null || skip "mpirun not installed"
command -v strace >/dev/null || skip "strace not installed"
"$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
tmp=$(lb_tmpdir)
mpi() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$@"; }
cat > "$tmp/eval.lua" <<EOF2
local r = lb.train{dir = "$tmp/ds", names = "dlio", files = 8, sample_size = "4k", batch_size = 2,
                   accelerators = 2, epochs = 2, seed = 7, compute_time = 0, do_eval = true,
                   num_files_eval = 12, batch_size_eval = 1, eval_time = "1ms",
                   epochs_between_evals = 1}
assert(#r.hosts == 2 and #r.evals == 2, "two hosts, two evaluations")
assert(r.samples == 16 and r.steps == 8, "the training's counts: " .. r.samples .. " " .. r.steps)
for i, e in ipairs(r.evals) do
  local sum = {steps = 0, samples = 0, bytes = 0, au = 0, tp = 0, slowest = 0}
  for _, h in ipairs(r.hosts) do
    local x = h.evals[i]
    sum.steps, sum.samples, sum.bytes = sum.steps + x.steps, sum.samples + x.samples, sum.bytes + x.bytes
    sum.au, sum.tp = sum.au + x.au / 2, sum.tp + x.dlio_samples_per_s
    sum.slowest = math.max(sum.slowest, x.time_s)
    assert(x.steps == 6, "each rank: 2 accelerators x 3 steps, got " .. x.steps)
  end
  assert(e.epoch == i and e.steps == 12 and e.samples == 12 and e.bytes == 12 * 4096, "eval counts")
  assert(sum.steps == e.steps and sum.samples == e.samples and sum.bytes == e.bytes, "sums")
  assert(math.abs(sum.au - e.au) < 1e-12, "AU is the mean over all accelerators")
  assert(math.abs(sum.tp - e.dlio_samples_per_s) <= 1e-9 * sum.tp, "throughput is the sum")
  assert(e.time_s == sum.slowest, "an evaluation lasts as long as its slowest rank")
end
if lb.rank == 0 then print("merged evals", #r.evals) end
EOF2
out=$(mpi sh -c 'exec strace -f -qq -e trace=openat -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
      "$tmp/trace" "$LUABENCH" --quiet "$tmp/eval.lua" 2>&1) || fail "eval run: $out"
contains "$out" "$(printf "merged evals\t2")" "rank 0 prints the merged evaluations"
for r in 0 1; do
  [ -s "$tmp/trace.$r" ] || fail "no trace of rank $r"
  grep 'O_RDONLY' "$tmp/trace.$r" | grep -o 'valid/img_[0-9]*_of_12\.dat' | sort | uniq -c > "$tmp/count.$r"
  want=$(for f in $(seq $((6 * r)) $((6 * r + 5))); do printf '      2 valid/img_%02d_of_12.dat\n' "$f"; done)
  [ "$(cat "$tmp/count.$r")" = "$want" ] || fail "rank $r opened: $(cat "$tmp/count.$r")"
done
pass
