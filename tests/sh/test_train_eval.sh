#!/usr/bin/env bash
# Description: lb.train do_eval=true runs DLIO's evaluation phase.  Its
# dataset is laid out with the training one: names="dlio" in dir/valid/ as
# DLIO's generator names it (img_F_of_N, N = num_files_eval; over
# num_subfolders_eval=S > 1 in valid/(F % S)/), with a layout record of its
# own in dir; luabench's names in dir/valid/ with its record there.  Every
# evaluation reads floor(num_files_eval / batch_size_eval / accelerators)
# batches per accelerator, counted as the readers open the valid files
# (strace), after the epochs DLIO's schedule names (eval_after_epoch, then
# every epochs_between_evals); the result's evals list them (epoch, steps,
# samples, bytes, AU, throughput) and the training's counts hold only the
# training's samples.  Another num_files_eval on DLIO's names, or another
# sample_size on the valid set's record, is refused (exit 2) before any
# file is written, and relayout=1 rewrites both sets; bad eval values exit 2 naming the field; lb.train_remove
# with do_eval removes both sets.  ai_training.lua prints the evaluations,
# mlperf.lua an eval row after each run.
# lb-test: labels noleak (LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local s = {dir = args.dir, names = args.names, files = 12, sample_size = args.size or "4k",
           batch_size = 2, epochs = 4, compute_time = 0, accelerators = 2, seed = 3,
           do_eval = true, num_files_eval = tonumber(args.nev or 10), batch_size_eval = 2,
           eval_time = "1ms", eval_after_epoch = 1, epochs_between_evals = 2,
           num_subfolders_eval = tonumber(args.sub or 0), relayout = args.relayout == "1"}
local r = lb.train(s)
print(("laid %d samples %d steps %d evals %d"):format(r.layout.files, r.samples, r.steps, #r.evals))
for _, e in ipairs(r.evals) do
  assert(e.au > 0 and e.au <= 1 and e.dlio_samples_per_s > 0 and e.time_s > 0, "eval figures")
  print(("eval after %d: steps %d samples %d bytes %d"):format(e.epoch, e.steps, e.samples, e.bytes))
end
assert(r.eval_au > 0 and r.eval_dlio_samples_per_s > 0, "eval means")
if args.remove then print("removed " .. lb.train_remove(s)) end
LUA

# 12 training files (3 steps of 2 x 2 an epoch, 4 epochs), 10 valid files:
# floor(10 / 2 / 2) = 2 steps per accelerator, after epochs 1 and 3
want="laid 22 samples 48 steps 24 evals 2
eval after 1: steps 4 samples 8 bytes 32768
eval after 3: steps 4 samples 8 bytes 32768"
out=$("$LUABENCH" -q run.lua dir="$tmp/dl" names=dlio) || fail "names=dlio: $out"
[ "$out" = "$want" ] || fail "names=dlio: got '$out', want '$want'"
got=$(cd dl && find . | sort | tr '\n' ' ')
w=". ./.luabench-dlio-img.dat.layout ./.luabench-dlio-valid-img.dat.layout ./train"
for i in 00 01 02 03 04 05 06 07 08 09 10 11; do w="$w ./train/img_${i}_of_12.dat"; done
w="$w ./valid"
for i in 00 01 02 03 04 05 06 07 08 09; do w="$w ./valid/img_${i}_of_10.dat"; done
[ "$got" = "$w " ] || fail "DLIO's valid/ names: got '$got', want '$w '"
grep -qx "files 10" dl/.luabench-dlio-valid-img.dat.layout || fail "valid record: $(cat dl/.luabench-dlio-valid-img.dat.layout)"
sum=$(cat dl/train/* dl/valid/* | sha256sum)
expect_exit 2 "valid holds DLIO's names for a set of 10 files (img_N_of_10), this run asks for num_files_eval=11" \
  "$LUABENCH" -q run.lua dir="$tmp/dl" names=dlio nev=11
[ "$(cat dl/train/* dl/valid/* | sha256sum)" = "$sum" ] && [ ! -e dl/valid/img_00_of_11.dat ] ||
  fail "the refused run changed the files"

# the files read: one open per sample (one sample per file), 8 valid files
# an evaluation, two evaluations; the training's 48 samples of train/
if command -v strace >/dev/null && strace -f -e trace=openat -o /dev/null true 2>/dev/null; then
  strace -f -e trace=openat -o st.txt "$LUABENCH" -q run.lua dir="$tmp/dl" names=dlio >/dev/null ||
    fail "traced run"
  nv=$(grep -c '/valid/img_.*O_RDONLY' st.txt)
  nt=$(grep -c '/train/img_.*O_RDONLY' st.txt)
  [ "$nv" = 16 ] && [ "$nt" = 48 ] || fail "opens: $nv of valid/ (want 16), $nt of train/ (want 48)"
fi

# luabench's names: valid/ under dir, its own record; the subfolders of
# DLIO's names for the valid set
out=$("$LUABENCH" -q run.lua dir="$tmp/lb") || fail "luabench names: $out"
[ "$out" = "$want" ] || fail "luabench names: got '$out'"
[ -f lb/valid/.luabench-img.dat.layout ] && [ -f lb/valid/img_000009.dat ] && [ -f lb/img_000011.dat ] &&
  [ ! -e lb/valid/img_000010.dat ] || fail "luabench's valid set: $(cd lb && find . | sort | tr '\n' ' ')"
sum=$(cat lb/img_* lb/valid/img_* | sha256sum)
expect_exit 2 "valid was laid out with sample_size=4096, this run asks for sample_size=8192" \
  "$LUABENCH" -q run.lua dir="$tmp/lb" size=8k
[ "$(cat lb/img_* lb/valid/img_* | sha256sum)" = "$sum" ] || fail "the refused run changed the files"
out=$("$LUABENCH" -q run.lua dir="$tmp/lb" size=8k relayout=1 2>&1) || fail "relayout: $out"
contains "$out" "rewrote 22 files" "relayout=1 rewrites both sets and says so"
[ "$(stat -c %s lb/valid/img_000009.dat)" = 8192 ] || fail "valid set not rewritten"
grep -qx "sample_size 8192" lb/valid/.luabench-img.dat.layout || fail "valid record not rewritten"
out=$("$LUABENCH" -q run.lua dir="$tmp/lb" size=8k remove=1) || fail "remove: $out"
contains "$out" "removed 22" "lb.train_remove removes both sets"
[ "$(cd lb && find . | tr '\n' ' ')" = ". " ] || fail "left after remove: $(cd lb && find .)"
out=$("$LUABENCH" -q run.lua dir="$tmp/sub" names=dlio sub=3) || fail "subfolders: $out"
got=$(cd sub/valid && find . -name '*.dat' | sort | tr '\n' ' ')
[ "$got" = "./0/img_00_of_10.dat ./0/img_03_of_10.dat ./0/img_06_of_10.dat ./0/img_09_of_10.dat \
./1/img_01_of_10.dat ./1/img_04_of_10.dat ./1/img_07_of_10.dat ./2/img_02_of_10.dat \
./2/img_05_of_10.dat ./2/img_08_of_10.dat " ] || fail "valid subfolders: $got"

# bad values: exit 2, one line naming the field
bad() { # needle lua-fields
  printf 'lb.train{dir = args.dir, files = 8, batch_size = 2, compute_time = 0, %s}\n' "$2" > bad.lua
  expect_exit 2 "$1" "$LUABENCH" -q bad.lua dir="$tmp/bad"
  [ "$(wc -l < "$LB_ERR")" -le 1 ] || fail "$2: more than one line: $(cat "$LB_ERR")"
}
bad "field 'eval_time'" 'do_eval = true, num_files_eval = 8, eval_time = -1'
bad "field 'eval_time'" 'do_eval = true, num_files_eval = 8, eval_time = "5q"'
bad "field 'eval_time'" \
  'do_eval = true, num_files_eval = 8, eval_time = {dist = "uniform", min = "2ms", max = "1ms"}'
bad "field 'eval_time_stdev'" 'do_eval = true, num_files_eval = 8, eval_time_stdev = "x"'
bad "num_files_eval: an evaluation has no step" \
  'do_eval = true, num_files_eval = 3, batch_size_eval = 4'
bad "field 'num_files_eval'" 'do_eval = true'
bad "field 'num_files_eval' must be a positive integer" 'do_eval = true, num_files_eval = 0'
bad "field 'batch_size_eval' must be a positive integer" 'do_eval = true, num_files_eval = 8, batch_size_eval = 0'
bad "field 'epochs_between_evals' must be a positive integer" \
  'do_eval = true, num_files_eval = 8, epochs_between_evals = 0'
bad "field 'eval_after_epoch'" 'do_eval = true, num_files_eval = 8, eval_after_epoch = -1'
bad "field 'num_files_eval' needs do_eval=true" 'num_files_eval = 8'
bad "field 'do_eval' must be a boolean" 'do_eval = 1, num_files_eval = 8'
[ ! -e "$tmp/bad" ] || fail "a refused run wrote $tmp/bad"

# ai_training.lua: a line per evaluation and DLIO's eval figures
out=$(cd "$LB_SRC" && "$LUABENCH" -q scripts/ai_training.lua dir="$tmp/ai" files=4 samples_per_file=8 \
      sample_size=4k compute_time=0 epochs=2 do_eval=1 num_files_eval=4 eval_time=1ms 2>&1) ||
  fail "ai_training.lua do_eval=1: $out"
contains "$out" "eval after epoch 1:" "ai_training.lua prints each evaluation"
contains "$out" "eval after epoch 2:" "ai_training.lua prints each evaluation"
contains "$out" "Eval AU" "ai_training.lua prints DLIO's eval figures"
# mlperf.lua: an eval row after each run, outside the verdict
out=$(cd "$LB_SRC" && "$LUABENCH" -q scripts/mlperf.lua workload=unet3d scaled=1 files=8 sample_size=4k \
      compute_time=0 epochs=2 runs=1 warmup=0 do_eval=1 num_files_eval=4 eval_time=0.001 \
      dir="$tmp/ml" 2>&1) || fail "mlperf.lua do_eval=1: $out"
[ "$(printf '%s\n' "$out" | grep -cE '^eval +[0-9.]+% .*\(2 evaluations, not judged\)$')" -eq 1 ] ||
  fail "mlperf.lua eval row: $out"
[ -f "$tmp/ml/valid/img_000003.npz" ] || fail "mlperf.lua's valid set: $(cd "$tmp/ml" && find .)"
pass
