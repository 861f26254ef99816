#!/usr/bin/env bash
# Description: scripts/ai_training.lua under mpirun -np 2: the ranks train
# on one dataset (the temporary one too: rank 0 names it for all) and rank
# 0 alone prints the merged figures, once: the header names the ranks,
# each epoch counts every sample of the dataset, the layout counts the
# files of both ranks; find_max prints one table and one answer.
# lb-test: labels noleak (Open MPI's own leaks, or LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
# lb-test: serial (two ranks with their readers need the cores)
command -v mpirun >/dev/null || skip "mpirun not installed"
"$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
cd "$LB_SRC" || fail "cd $LB_SRC"
tmp=$(lb_tmpdir)
mpi() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 "$@"; }
once() { # text needle what
  [ "$(printf '%s\n' "$1" | grep -cF -- "$2")" -eq 1 ] || fail "$3: '$2' not printed once: $1"
}

args=(files=8 samples_per_file=4 sample_size=4k batch_size=2 epochs=2 compute_time=0
      read_threads=1)
out=$(mpi "$LUABENCH" --quiet scripts/ai_training.lua dir="$tmp/ds" "${args[@]}" 2>&1) ||
  fail "ai_training under mpirun: $out"
once "$out" "accelerators 1 x 2 ranks, read_threads 1, batch 2" "header"
once "$out" "8 files laid out" "the layout of both ranks"
once "$out" "DLIO's figures" "figures"
for e in 1 2; do once "$out" "epoch $e:" "epoch $e"; contains "$out" ", 32 samples, AU" "epoch $e merged"; done
[ "$(ls "$tmp/ds" | grep -c '^shard_')" -eq 8 ] || fail "dataset: $(ls "$tmp/ds")"

# the temporary dataset: one for both ranks, removed after
before=$(ls /tmp | grep -c '^lua_' || true)
out=$(mpi "$LUABENCH" --quiet scripts/ai_training.lua "${args[@]}" 2>&1) || fail "temporary dataset: $out"
once "$out" "under a temporary directory, 8 files laid out" "one temporary dataset"
[ "$(ls /tmp | grep -c '^lua_' || true)" -eq "$before" ] || fail "temporary dataset left behind"

out=$(mpi "$LUABENCH" --quiet scripts/ai_training.lua dir="$tmp/ds" "${args[@]}" find_max=1 \
      max_accelerators=2 2>&1) || fail "find_max under mpirun: $out"
once "$out" "wait p99" "one find_max table"
[ "$(printf '%s\n' "$out" | grep -cE '^ +[12] +[0-9.]+%')" -ge 1 ] || fail "find_max rows: $out"
[ "$(printf '%s\n' "$out" | grep -c 'at AU >= 90%')" -eq 1 ] || fail "one find_max answer: $out"
pass
