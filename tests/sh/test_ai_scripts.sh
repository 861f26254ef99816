#!/usr/bin/env bash
# Description: scripts/ai_training.lua and scripts/small_files.lua run on a
# tiny dataset and print their figures; help=1 lists the parameters; an
# unknown parameter exits 2 with one line naming the known ones, a bad
# integer with one line naming the parameter; the datasets they make are
# gone afterwards, files of others stay.
. "$(dirname "$0")/lib.sh"
cd "$LB_SRC" || fail "cd $LB_SRC"
tmp=$(lb_tmpdir)

# ai_training: a dataset in dir=, reused by a second run
out=$("$LUABENCH" --quiet scripts/ai_training.lua dir="$tmp/ds" files=4 samples_per_file=8 \
      sample_size=4k batch_size=4 epochs=2 compute_time=1ms accelerators=2) || fail "ai_training exit"
for w in "samples/s" "MB/s" "AU" "epoch 1:" "epoch 2:" "batch wait  p50" "sample read p50" "4 files laid out"; do
  contains "$out" "$w" "ai_training output"
done
[ "$(stat -c %s "$tmp/ds/shard_0003.dat")" -eq 32768 ] || fail "shard size"
out=$("$LUABENCH" --quiet scripts/ai_training.lua dir="$tmp/ds" files=4 samples_per_file=8 \
      sample_size=4k batch_size=4 compute_time=1ms find_max=1 max_accelerators=4) || fail "find_max exit"
contains "$out" "at AU >= 90%" "find_max reports"
case "$out" in *"laid out"*) fail "second run laid the dataset out again" ;; esac
# find_max never asks for more accelerators than batches an epoch has
out=$("$LUABENCH" --quiet scripts/ai_training.lua dir="$tmp/ds" files=4 samples_per_file=8 \
      sample_size=4k batch_size=4 compute_time=1ms find_max=1 max_accelerators=64) ||
  fail "find_max above the batches of an epoch"
case "$out" in *"
    16 "*|*"
    64 "*) fail "find_max tried more accelerators than batches: $out" ;; esac

out=$("$LUABENCH" --quiet scripts/ai_training.lua help=1) || fail "ai_training help"
contains "$out" "accelerators" "help lists accelerators"
contains "$out" "find_max" "help lists find_max"
expect_exit 2 "unknown parameter 'acelerators' (known: dir, files" \
  "$LUABENCH" --quiet scripts/ai_training.lua acelerators=2
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for an unknown parameter"
expect_exit 2 "unexpected argument '--readonly' (parameters are key=value" \
  "$LUABENCH" --quiet scripts/ai_training.lua files=2 --readonly
expect_exit 2 "--readonly needs dir=" "$LUABENCH" --quiet --readonly scripts/ai_training.lua
expect_exit 2 "parameter 'files' must be an integer, not 'x'" \
  "$LUABENCH" --quiet scripts/ai_training.lua files=x
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for a bad integer"
expect_exit 2 "field 'shuffle'" "$LUABENCH" --quiet scripts/ai_training.lua dir="$tmp/ds" shuffle=random

# small_files: every phase reported, the tree gone, a foreign file kept
out=$("$LUABENCH" --quiet scripts/small_files.lua dir="$tmp/sf" files=50 fanout=20 threads=2) ||
  fail "small_files exit"
for w in create read stat unlink "ops/s" p99; do contains "$out" "$w" "small_files output"; done
[ -z "$(ls -A "$tmp/sf")" ] || fail "small_files left files in $tmp/sf"
"$LUABENCH" --quiet scripts/small_files.lua dir="$tmp/sf" files=50 fanout=20 ops=create >/dev/null ||
  fail "create alone"
rm "$tmp/sf/d0000/f0000005" && echo keep > "$tmp/sf/d0000/f0000005"
out=$("$LUABENCH" --quiet scripts/small_files.lua dir="$tmp/sf" files=50 fanout=20 ops=stat,unlink) ||
  fail "unlink of a tree with a foreign file"
[ -f "$tmp/sf/d0000/f0000005" ] || fail "a file luabench did not create was deleted"
[ ! -e "$tmp/sf/d0001" ] || fail "emptied directory left behind"
expect_exit 1 "stat $tmp/none/d0000/" "$LUABENCH" --quiet scripts/small_files.lua dir="$tmp/none" \
  files=5 ops=stat

out=$("$LUABENCH" --quiet scripts/small_files.lua help=1) || fail "small_files help"
contains "$out" "files" "help lists files"
expect_exit 2 "unknown parameter 'file' (known: dir, files" \
  "$LUABENCH" --quiet scripts/small_files.lua file=3
expect_exit 2 "field 'size'" "$LUABENCH" --quiet scripts/small_files.lua dir="$tmp/x" size=4q
expect_exit 2 "parameter 'threads' must be an integer, not '2.5'" \
  "$LUABENCH" --quiet scripts/small_files.lua threads=2.5
pass
