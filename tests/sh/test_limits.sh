#!/usr/bin/env bash
# Description: the process limits a user may hit: more files than the
# descriptor limit, thousands of threads, a thread limit, buffers larger
# than the memory limit.  Each run works, or fails with exit 1 and one
# line that says what ran out, prints no half report, crashes nowhere and
# leaves only files luabench created (and can remove).
. "$(dirname "$0")/lib.sh"

"$LUABENCH" --list-engines 2>/dev/null | grep -q '^null  *supported' || skip "no null engine"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
jget() {
  printf 'local f = assert(io.open(args.file)); j = lb.json_decode(f:read("a")); f:close()\nio.write(tostring(%s))\n' \
    "$2" > "$d/jget.lua"
  "$LUABENCH" "$d/jget.lua" file="$1"
}
no_crash() {
  ! grep -qE 'AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error:|Segmentation fault' "$1" ||
    fail "$2: sanitizer report or crash: $(head -c 400 "$1")"
}
# works_or_says NAME RC EXPECTED_IOS NEEDLE: exit 0 with every I/O done, or
# exit 1 with one line holding NEEDLE and no report on stdout
works_or_says() {
  local what=$1 rc=$2 ios=$3 needle=$4
  no_crash err "$what"
  if [ "$rc" -eq 0 ]; then
    [ "$(jget out 'j.jobs[1].read.total_ios + j.jobs[1].write.total_ios')" = "$ios" ] ||
      fail "$what: exit 0 but not every I/O was done"
    echo "$what: works"
  elif [ "$rc" -eq 1 ]; then
    [ "$(wc -l < err)" -eq 1 ] || fail "$what: more than one line: $(head -c 600 err)"
    grep -qF -- "$needle" err || fail "$what: the message does not say '$needle': $(cat err)"
    [ ! -s out ] || fail "$what: a report was printed for a run that failed to start"
    echo "$what: refused: $(cat err)"
  else
    fail "$what: exit $rc: $(head -c 600 err)"
  fi
}

# --- more files than descriptors -------------------------------------------------
mkdir files
for open in 0 32; do
  rc=0
  (ulimit -n 64 && exec "$LUABENCH" fio --name=f --ioengine=psync --directory=files --nrfiles=200 \
     --openfiles=$open --filesize=4k --bs=4k --rw=randwrite --output-format=json) >out 2>err || rc=$?
  works_or_says "nrfiles=200 openfiles=$open under ulimit -n 64" "$rc" 200 "Too many open files"
  # working around the limit on its own is fine, silently is not
  if [ "$rc" -eq 0 ] && [ "$open" -eq 0 ]; then
    grep -qi "descriptor" err || fail "nrfiles=200 under ulimit -n 64 ran without a word about the limit"
  fi
  # whatever it did, the files are luabench's own and go with lb.remove
  printf 'for n in io.popen("ls files"):lines() do assert(lb.remove("files/" .. n), n) end\n' > rm.lua
  "$LUABENCH" rm.lua || fail "the files of the run are not luabench's"
  [ -z "$(ls files)" ] || fail "files left: $(ls files | head -3)"
done

# --- thousands of threads ----------------------------------------------------------
rc=0
"$LUABENCH" fio --name=t --ioengine=null --numjobs=2000 --size=16k --bs=4k --group_reporting \
  --output-format=json >out 2>err || rc=$?
works_or_says "numjobs=2000" "$rc" 8000 "thread"

# --- a thread limit: RLIMIT_NPROC 100 for a user of its own (root is not
# limited).  The limit counts every process and thread of the user on the
# machine: nobody's may be taken by other runs (another copy of this test
# holds 99), and then even the exec of luabench fails.  A uid made of this
# shell's pid is used by nothing else.
uid=$((1000000 + $$))
as_uid=(setpriv --reuid=$uid --regid=$uid --clear-groups)
if [ "$(id -u)" -eq 0 ] && command -v prlimit >/dev/null && command -v setpriv >/dev/null &&
   "${as_uid[@]}" "$LUABENCH" --version >/dev/null 2>&1 &&
   "${as_uid[@]}" test -r "$LB_SRC/stdlib/luabench/fio/init.lua"; then
  rc=0
  prlimit --nproc=100 "${as_uid[@]}" \
    "$LUABENCH" fio --name=t --ioengine=null --numjobs=500 --size=16k --bs=4k --group_reporting \
    --output-format=json >out 2>err </dev/null || rc=$?
  [ "$rc" -eq 1 ] || fail "numjobs=500 under RLIMIT_NPROC=100: exit $rc, expected 1: $(head -c 300 err)"
  works_or_says "numjobs=500 under RLIMIT_NPROC=100" "$rc" 2000 "cannot start thread"
else
  echo "note: cannot run as uid $uid: the thread limit check was skipped"
fi

# --- buffers beyond the address-space limit (not under sanitizers, which
# reserve more address space than any such limit) ---------------------------------------
if ! { nm "$LUABENCH"; nm -D "$LUABENCH"; ldd "$LUABENCH"; } 2>/dev/null | grep -qE '__(asan|tsan|msan)_init|lib(asan|tsan)'; then
  rc=0
  (ulimit -v 2000000 && exec "$LUABENCH" fio --name=b --ioengine=libaio --iodepth=64 --bs=64m \
     --filename=big.dat --size=128m --rw=read --output-format=json) >out 2>err || rc=$?
  works_or_says "iodepth=64 bs=64m under ulimit -v 2 GB" "$rc" 2 "cannot allocate"
  printf 'assert(lb.remove("big.dat"))\n' > rm.lua
  "$LUABENCH" rm.lua || fail "big.dat is not luabench's"
fi
pass
