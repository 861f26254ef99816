#!/usr/bin/env bash
# Description: the posixaio engine's depth maps are fio's: fio's posixaio
# has no commit hook, so each queued I/O counts as a submission and a
# completion of one, and a reap takes every I/O found complete; at
# iodepth=8 on a real file, waiting for 8 completions at a time, the
# iodepth_level, iodepth_submit and iodepth_complete maps are fio's exact
# figures (and fio's own on the same job when fio is installed).
. "$(dirname "$0")/fio_lib.sh"

"$LUABENCH" --list-engines 2>/dev/null | grep -q '^posixaio  *supported' || skip "no posixaio here"
head -c 8388608 /dev/urandom > data.bin
maps='[{k: round(v, 3) for k, v in j["jobs"][0][m].items() if v} for m in ("iodepth_level", "iodepth_submit", "iodepth_complete")]'
run() {   # run OUT EXE... -- the job at depth 8, reaping 8 at a time
  local out=$1; shift
  "$@" --name=pa --filename=data.bin --ioengine=posixaio --iodepth=8 --iodepth_batch_complete_min=8 \
    --rw=randread --bs=4k --size=8m --output-format=json --output="$out" "${extra[@]}" 2>"$out.err" ||
    fail "$*: $(cat "$out.err")"
  [ "$(json_get "$out" 'j["jobs"][0]["read"]["total_ios"]')" = 2048 ] || fail "$out: not 2048 reads"
}
# one I/O submitted at a time: the queue refills from 0 to 8 after each reap
extra=()
run one.json "$LUABENCH" fio --allow-overwrite
want="[{'1': 12.5, '2': 25.0, '4': 50.0, '8': 12.5}, {'4': 100.0}, {'4': 88.889, '8': 11.111}]"
[ "$(json_get one.json "$maps")" = "$want" ] || fail "depth maps: $(json_get one.json "$maps"), fio's: $want"
# eight submitted at a time: every batch goes in at depth 8, still counted one by one
extra=(--iodepth_batch_submit=8)
run eight.json "$LUABENCH" fio --allow-overwrite
want8="[{'8': 100.0}, {'4': 100.0}, {'4': 88.889, '8': 11.111}]"
[ "$(json_get eight.json "$maps")" = "$want8" ] || fail "batch 8: $(json_get eight.json "$maps"), fio's: $want8"
if command -v fio >/dev/null; then
  extra=()
  run fio_one.json fio
  [ "$(json_get fio_one.json "$maps")" = "$want" ] || fail "fio 3.33 now says $(json_get fio_one.json "$maps")"
  extra=(--iodepth_batch_submit=8)
  run fio_eight.json fio
  [ "$(json_get fio_eight.json "$maps")" = "$want8" ] || fail "fio 3.33 now says $(json_get fio_eight.json "$maps")"
fi
pass
