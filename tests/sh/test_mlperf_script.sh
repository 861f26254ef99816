#!/usr/bin/env bash
# Description: scripts/mlperf.lua prints the llama3 checkpoint sizes as DLIO
# computes them, writes and reads back each rank's part of a scaled
# checkpoint and leaves no file behind; refuses a dataset below the rules' minimum unless
# scaled=1 (exit 2, one line naming the minimum), a changed sample size or
# compute time without scaled=1, an unknown workload or accelerator; a
# scaled run prints one row per seeded run and a verdict line labelled
# scaled, after a warm-up run that is shown and not counted (warmup=0: none);
# with no compute every run's AU is 0, so the verdict is FAIL, and it says
# whether the runs' samples/s are within MLPerf's 5 %.
. "$(dirname "$0")/lib.sh"
cd "$LB_SRC" || fail "cd $LB_SRC"
tmp=$(lb_tmpdir)

out=$("$LUABENCH" --quiet scripts/mlperf.lua model=llama3-8b) || fail "model exit"
contains "$out" "checkpoint 104.7 GiB (0.11 TB)" "llama3-8b size"
contains "$out" "TP 1 x PP 1 x DP 8, ZeRO-3, 8 ranks" "llama3-8b parallelism"
out=$("$LUABENCH" --quiet scripts/mlperf.lua model=llama3-1t) || fail "model 1t exit"
contains "$out" "checkpoint 15426.6 GiB (16.56 TB)" "llama3-1t size"
expect_exit 2 "unknown model 'llama3-2t'" "$LUABENCH" --quiet scripts/mlperf.lua model=llama3-2t

# checkpoints written by 8 ranks and read back: 8 x 1 MiB at this scale
# (13.09 GiB per rank x 1e-4, whole MiB), every file gone afterwards
mkdir "$tmp/ck" && echo keep > "$tmp/ck/mine"
out=$("$LUABENCH" --quiet scripts/mlperf.lua model=llama3-8b dir="$tmp/ck" checkpoint_scale=0.0001 \
      checkpoints=2) || fail "checkpoint run exit"
[ "$(printf '%s\n' "$out" | grep -cE '^ +[12] write +0\.008 ')" -eq 2 ] || fail "two writes of 8 MiB: $out"
[ "$(printf '%s\n' "$out" | grep -cE '^ +[12]  read +0\.008 ')" -eq 2 ] || fail "two reads of 8 MiB: $out"
contains "$out" "llama3-8b checkpoint (scale 0.0001): save" "checkpoint summary"
[ "$(ls -A "$tmp/ck")" = "mine" ] || fail "checkpoint files left: $(ls -A "$tmp/ck")"
expect_exit 2 "parameter 'checkpoint_scale' must be in (0, 1]" "$LUABENCH" --quiet scripts/mlperf.lua \
  model=llama3-8b dir="$tmp/ck" checkpoint_scale=2

expect_exit 2 "files=10 is below the rules' minimum of 28000 for 8 accelerators" \
  "$LUABENCH" --quiet scripts/mlperf.lua workload=unet3d accelerators=8 client_memory=64g files=10
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for a dataset below the minimum"
expect_exit 2 "add scaled=1" "$LUABENCH" --quiet scripts/mlperf.lua workload=unet3d \
  client_memory=1g files=100000 compute_time=1ms
expect_exit 2 "parameter 'workload'" "$LUABENCH" --quiet scripts/mlperf.lua workload=bert
expect_exit 2 "parameter 'accelerator'" "$LUABENCH" --quiet scripts/mlperf.lua accelerator=v100

out=$("$LUABENCH" --quiet scripts/mlperf.lua workload=unet3d accelerator=a100 accelerators=2 \
      scaled=1 files=56 sample_size=4k compute_time=0 epochs=2 runs=3 dir="$tmp/ds") ||
  fail "scaled run exit"
contains "$out" "unet3d on a100 x 2: 56 files x 1 samples (npz), batch 7, 4 read threads each" "header"
contains "$out" "(scaled: not a closed submission)" "scaled label"
# (with no compute the AU is the step's bookkeeping: under 1 %)
[ "$(printf '%s\n' "$out" | grep -cE '^ +[0-9]+ +0\.[0-9][0-9]% .* fail$')" -eq 3 ] ||
  fail "three runs with AU 0 and fail: $out"
printf '%s\n' "$out" | grep -q "unet3d a100 x 2: FAIL, mean AU 0\.[0-9][0-9]%" || fail "verdict: $out"; contains "$out" "% (threshold 90%)" "verdict threshold"
contains "$out" "over 3 runs (scaled)" "verdict counts runs"
[ "$(printf '%s\n' "$out" | grep -cE '^warm +0\.[0-9][0-9]% .*\(not counted\)$')" -eq 1 ] ||
  fail "one warm-up run, not counted: $out"
printf '%s\n' "$out" | grep -qE 'samples/s spread [0-9.inf]+% \((within|above) 5%\) over 3 runs' ||
  fail "the 5% rule in the verdict: $out"
out=$("$LUABENCH" --quiet scripts/mlperf.lua workload=unet3d accelerator=a100 scaled=1 files=14 \
      sample_size=4k compute_time=0 epochs=1 runs=1 warmup=0 dir="$tmp/ds1") || fail "warmup=0 exit"
case $out in *"(not counted)"*) fail "warmup=0 still ran a warm-up: $out" ;; esac
[ -f "$tmp/ds/img_000055.npz" ] || fail "unet3d's dataset is npz: $(ls "$tmp/ds" | tail -1)"
# reader.read_threads, which a CLOSED submission may set: 0 loads on the accelerator's thread
out=$("$LUABENCH" --quiet scripts/mlperf.lua workload=unet3d accelerator=a100 scaled=1 files=14 \
      sample_size=4k compute_time=0 epochs=1 runs=1 warmup=0 read_threads=0 dir="$tmp/ds1") ||
  fail "read_threads=0 exit"
contains "$out" "14 files x 1 samples (npz), batch 7, 0 read threads each" "read_threads=0 header"
expect_exit 2 "parameter 'read_threads' must be at least 0, not -1" "$LUABENCH" --quiet \
  scripts/mlperf.lua read_threads=-1
expect_exit 2 "parameter 'prefetch_size' must be at most 2, not 3" "$LUABENCH" --quiet \
  scripts/mlperf.lua prefetch_size=3
pass
