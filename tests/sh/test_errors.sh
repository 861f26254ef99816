#!/usr/bin/env bash
# Description: I/O errors from the command line, with the fault engine:
# an EIO ends the job at once (exit 1, errno in the JSON, file and offset
# on stderr); continue_on_error lets the job go on past EIO and counts
# every error (fio's total_err and first_error), for the directions it
# names only, and past ENOSPC only when ignore_error names it;
# io_timeout ends a run stuck in an I/O within a few seconds, naming the
# file and the offset.  The exit status is 1 whenever an I/O failed.
. "$(dirname "$0")/lib.sh"

"$LUABENCH" --list-engines 2>/dev/null | grep -q '^fault  *supported' || skip "no fault engine"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
fault=(--ioengine=fault --fault_engine=null --fault_seed=7 --bs=4k --size=1m)

# --- the first error ends the job ----------------------------------------------
expect_exit 1 "Input/output error" "$LUABENCH" fio --name=e "${fault[@]}" --fault_eio=0.1 --rw=randread \
  --output-format=json --output=e.json
contains "$(cat "$LB_ERR")" "at offset" "the message names the offset"
contains "$(cat "$LB_ERR")" "e.0.0" "the message names the file"
[ "$(jget e.json 'j.jobs[1].error')" = 5 ] || fail "error is not EIO: $(jget e.json 'j.jobs[1].error')"
[ "$(jget e.json 'j.jobs[1].read.total_ios < 256')" = true ] || fail "the job went on after an error"
[ "$(jget e.json 'j.jobs[1].total_err')" = nil ] || fail "total_err without continue_on_error (fio has none)"

# --- continue_on_error: on to the end, every error counted ----------------------
for coe in read io all; do
  expect_exit 1 "errors, the first:" "$LUABENCH" fio --name=c "${fault[@]}" --fault_eio=0.1 --rw=randread \
    --continue_on_error=$coe --output-format=json --output=c.json
  n=$(jget c.json 'j.jobs[1].total_err')
  [ "$n" -gt 5 ] 2>/dev/null || fail "continue_on_error=$coe: total_err is '$n'"
  [ "$(jget c.json 'j.jobs[1].first_error')" = 5 ] || fail "continue_on_error=$coe: first_error is not EIO"
  [ "$(jget c.json 'j.jobs[1].read.total_ios')" = $((256 - n)) ] ||
    fail "continue_on_error=$coe: $(jget c.json 'j.jobs[1].read.total_ios') I/Os and $n errors do not make 256"
  contains "$(cat "$LB_ERR")" "$n errors" "continue_on_error=$coe: stderr counts the errors"
done
# errors of a direction continue_on_error does not name still end the job
expect_exit 1 "" "$LUABENCH" fio --name=w "${fault[@]}" --fault_eio=0.1 --rw=randwrite \
  --continue_on_error=read --output-format=json --output=w.json
[ "$(jget w.json 'j.jobs[1].total_err')" = 0 ] || fail "continue_on_error=read counted a write error (fio counts none)"
[ "$(jget w.json 'j.jobs[1].write.total_ios < 256')" = true ] || fail "continue_on_error=read: the write job went on"
# ENOSPC is counted under its own errno, and ends the job (as fio,
# continue_on_error goes on past EIO and EILSEQ only, unless ignore_error
# names others)
expect_exit 1 "No space left on device" "$LUABENCH" fio --name=s "${fault[@]}" --fault_enospc=0.1 --rw=randwrite \
  --continue_on_error=write --output-format=json --output=s.json
[ "$(jget s.json 'j.jobs[1].first_error')" = 28 ] || fail "ENOSPC: first_error is not 28"
[ "$(jget s.json 'j.jobs[1].total_err')" = 1 ] || fail "continue_on_error=write went on after ENOSPC"
expect_exit 1 "No space left on device" "$LUABENCH" fio --name=s "${fault[@]}" --fault_enospc=0.1 --rw=randwrite \
  --ignore_error=,ENOSPC --output-format=json --output=s2.json
[ "$(jget s2.json 'j.jobs[1].total_err')" -gt 5 ] || fail "ignore_error=,ENOSPC did not go on"
# short I/Os are counted, and are not errors
expect_exit 0 "" "$LUABENCH" fio --name=h "${fault[@]}" --fault_short=0.1 --rw=randread \
  --output-format=json --output=h.json
[ "$(jget h.json 'j.jobs[1].read.short_ios > 0')" = true ] || fail "no short I/O counted"
[ "$(jget h.json 'j.jobs[1].error')" = 0 ] || fail "short I/Os made an error"
# no fault, no error, exit 0
expect_exit 0 "" "$LUABENCH" fio --name=ok "${fault[@]}" --rw=randread --continue_on_error=all \
  --output-format=json --output=ok.json
[ "$(jget ok.json 'j.jobs[1].total_err')" = 0 ] || fail "total_err of a clean run"
[ -z "$(cat "$LB_ERR")" ] || fail "a clean run wrote to stderr: $(cat "$LB_ERR")"

# --- a real device that is full: /dev/full, every engine that runs here ---------------
for eng in psync pvsync2 io_uring; do   # (libaio: a character device takes no AIO)
  "$LUABENCH" --list-engines | grep -q "^$eng  *supported" || continue
  expect_exit 1 "write of /dev/full at offset 0 failed: No space left on device" "$LUABENCH" fio --allow-overwrite \
    --name=full --ioengine=$eng --iodepth=4 --filename=/dev/full --rw=write --bs=4k --size=64k \
    --output-format=json --output=full.json
  [ "$(jget full.json 'j.jobs[1].error')" = 28 ] || fail "/dev/full on $eng: error is not ENOSPC"
done

# --- a file system that fills up while the file is laid out --------------------------
if [ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null && mkdir -p small &&
   unshare -m sh -c 'mount -t tmpfs -o size=256k none small' 2>/dev/null; then
  rc=0
  unshare -m sh -c 'mount -t tmpfs -o size=256k none small && cd small && exec "$0" fio --name=l \
    --rw=read --size=1m --output-format=json' "$LUABENCH" >out 2>err || rc=$?
  [ "$rc" -eq 1 ] || fail "a full file system: exit $rc: $(cat err)"
  [ "$(wc -l < err)" -eq 1 ] && grep -q "cannot lay out l.0.0: No space left on device" err ||
    fail "a full file system: $(cat err)"
  [ ! -s out ] || fail "a full file system: a report for a run that never started"
else
  echo "note: cannot mount a small tmpfs here: the full file system check was skipped"
fi

# --- io_timeout: a stuck I/O ends the run, naming file and offset -----------------
for eng in psync io_uring; do
  "$LUABENCH" --list-engines | grep -q "^$eng  *supported" || continue
  t0=$(date +%s)
  expect_exit 1 "I/O stuck for" timeout -k 2 20 "$LUABENCH" fio --name=t --ioengine=fault --fault_engine=$eng \
    --iodepth=4 --fault_delay=0.05 --fault_delay_us=60s --fault_seed=3 --io_timeout=1s \
    --filename=stuck.dat --size=1m --rw=randread --output-format=json --output=t.json
  [ $(($(date +%s) - t0)) -lt 10 ] || fail "io_timeout on $eng: the run took $(($(date +%s) - t0)) s"
  contains "$(cat "$LB_ERR")" "stuck.dat at offset" "io_timeout on $eng: file and offset"
  [ "$(jget t.json 'j.jobs[1].error')" = 110 ] || fail "io_timeout on $eng: error is not ETIMEDOUT"
done
pass
