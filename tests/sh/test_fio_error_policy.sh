#!/usr/bin/env bash
# Description: max_latency, ignore_error and exit_what as fio 3.33's, on
# the same jobs as fio where fio is installed: a write slower than
# max_latency fails the job with ETIMEDOUT (110) and fio's message, after
# one I/O; ignore_error=,110 goes on past it, every I/O counted as an
# error; continue_on_error goes on only past EIO and EILSEQ, so a write to
# /dev/full (ENOSPC) ends the job, unless ignore_error names ENOSPC (or
# 28); a bad list is refused with fio's message; exitall with
# exit_what=all leaves the next stonewall group its files and no I/O,
# group and stonewall let it run.
. "$(dirname "$0")/fio_lib.sh"
have_fio=0
command -v fio >/dev/null && fio --version 2>/dev/null | grep -q '^fio-3' && have_fio=1

# facts TOOL NAME ARGS...: runs TOOL's fio front end on the job, writes
# "exit error total_err first_error write_ios read_ios" into NAME.facts
facts() {
  local tool=$1 n=$2; shift 2
  local rc=0
  rm -f "$n.json" "$n.dat"
  if [ "$tool" = fio ]; then
    fio --name=j "$@" --output-format=json --output="$n.json" >/dev/null 2>"$n.err" || rc=$?
  else
    "$LUABENCH" fio --allow-overwrite --name=j "$@" --output-format=json --output="$n.json" >/dev/null 2>"$n.err" || rc=$?
  fi
  [ -s "$n.json" ] || fail "$tool $*: no output (exit $rc): $(head -c 300 "$n.err")"
  echo "$rc $(jget "$n.json" "(function(x) return x.error .. ' ' .. tostring(x.total_err) .. ' ' .. tostring(x.first_error) .. ' ' .. x.write.total_ios .. ' ' .. x.read.total_ios end)(j.jobs[1])")" > "$n.facts"
}

# same NAME WANT ARGS...: luabench's facts are WANT (exit error total_err
# first_error write_ios; exit and write_ios as luabench counts them), and
# fio's error, total_err and first_error are the same
same() {
  local n=$1 want=$2; shift 2
  facts lb "$n" "$@"
  read -r rc e te fe wios rios < "$n.facts"
  [ "$rc $e $te $fe $wios" = "$want" ] || fail "$n: luabench gave '$rc $e $te $fe $wios', expected '$want': $(head -c 300 "$n.err")"
  if [ $have_fio = 1 ]; then
    facts fio "$n.fio" "$@"
    read -r frc fe2 fte ffe fwios frios < "$n.fio.facts"
    [ "$e $te $fe" = "$fe2 $fte $ffe" ] || fail "$n: error total_err first_error: luabench '$e $te $fe', fio '$fe2 $fte $ffe'"
  fi
}

# --- max_latency: 16 MiB writes take far longer than 1 us -------------------------
same lat "1 110 nil nil 1" --filename=lat.dat --rw=write --bs=16m --size=16m --max_latency=1
contains "$(cat lat.err)" "latency of " "max_latency: the message"
contains "$(cat lat.err)" "nsec exceeds specified max (1000 nsec): lat.dat write 0 16777216" "max_latency: fio's message"
# read,write: only the writes' limit applies to a write job
same latrw "0 0 nil nil 4" --filename=latrw.dat --rw=write --bs=4m --size=16m --max_latency=1,1h
same latig "1 110 4 110 4" --filename=latig.dat --rw=write --bs=4m --size=16m --max_latency=1 \
  --ignore_error=,110
# luabench's exit is 1 when any I/O failed, fio's 0 when every error was let through
[ "$(jget latig.json 'j.jobs[1].write.total_ios')" = 4 ] || fail "ignored ETIMEDOUT: not every write counted"

# --- continue_on_error and ignore_error on /dev/full ------------------------------
if [ -w /dev/full ]; then
  full=(--filename=/dev/full --rw=write --bs=4k --size=64k)
  same coe "1 28 1 28 0" "${full[@]}" --continue_on_error=write
  same ign "1 28 16 28 0" "${full[@]}" --ignore_error=,ENOSPC
  same ignn "1 28 16 28 0" "${full[@]}" --ignore_error=,5:28
  same ignr "1 28 0 0 0" "${full[@]}" --ignore_error=ENOSPC
fi

# --- bad lists ---------------------------------------------------------------------
expect_exit 2 "bad value 'EFOO' for 'ignore_error': unknown error EFOO, please use number value" \
  "$LUABENCH" fio --name=b --ioengine=null --size=4k --ignore_error=EFOO
expect_exit 2 "unknown error x, please use number value" \
  "$LUABENCH" fio --name=b --ioengine=null --size=4k --ignore_error=,x
expect_exit 2 "at most 3 comma-separated lists" \
  "$LUABENCH" fio --name=b --ioengine=null --size=4k --ignore_error=1,2,3,4
expect_exit 2 "bad value '5,zz' for 'max_latency'" \
  "$LUABENCH" fio --name=b --ioengine=null --size=4k --max_latency=5,zz
expect_exit 2 "expected group|stonewall|all" \
  "$LUABENCH" fio --name=b --ioengine=null --size=4k --exit_what=some
if [ $have_fio = 1 ]; then
  fio --name=b --ioengine=null --size=4k --ignore_error=EFOO >/dev/null 2>f.err && fail "fio took EFOO"
  grep -q "Unknown error EFOO, please use number value" f.err || fail "fio's message changed: $(cat f.err)"
fi

# --- exit_what ---------------------------------------------------------------------
of() { # JOB FIELD: a Lua expression, the job's reads' FIELD
  echo "(function() for _, x in ipairs(j.jobs) do if x.jobname == '$1' then return x.read.$2 end end end)()"
}
for w in group stonewall all; do
  printf '[global]\nioengine=null\n[short]\nsize=4k\nexitall=1\nexit_what=%s\n[long]\nsize=1g\ntime_based\nruntime=20\n[next]\nioengine=psync\nstonewall\nfilename=%s\nsize=1m\n' \
    "$w" "$d/next.$w" > "$w.fio"
  rm -f "$w.json"
  "$LUABENCH" fio "$w.fio" --output-format=json --output="$w.json" >/dev/null 2>"$w.err" ||
    fail "exit_what=$w: exit $?: $(cat "$w.err")"
  got=$(jget "$w.json" "$(of next io_bytes)")
  long=$(jget "$w.json" "$(of long runtime)")
  [ "$long" -lt 10000 ] || fail "exit_what=$w: [long] ran $long ms of 20 s"
  want=1048576; [ $w = all ] && want=0
  [ "$got" = $want ] || fail "exit_what=$w: [next] read $got bytes, expected $want"
  [ "$(stat -c %s "$d/next.$w")" = 1048576 ] || fail "exit_what=$w: [next]'s file is not laid out"
  # fio 3.33 itself races on a loaded machine: where [short] exits before
  # [long] has started, exit_what=group now and then ends [next] too (0
  # bytes); up to five of its runs, one of which must agree
  if [ $have_fio = 1 ]; then
    fseen=
    for try in 1 2 3 4 5; do
      rm -f "$d/next.$w"
      fio "$w.fio" --output-format=json --output="f$w.raw" >/dev/null 2>&1 || fail "fio $w.fio failed"
      # fio's exitall may first write "fio: terminating on signal 15" there
      sed -n '/^{/,$p' "f$w.raw" > "f$w.json"
      fgot=$(jget "f$w.json" "$(of next io_bytes)")
      fseen="$fseen $fgot"
      [ "$fgot" != "$got" ] || break
    done
    [ "$fgot" = "$got" ] || fail "exit_what=$w: [next] read $got bytes, fio's runs:$fseen"
  fi
done
pass
