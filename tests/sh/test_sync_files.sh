#!/usr/bin/env bash
# Description: a new file and its syncs as fio 3.33 has them, counted in
# system calls (strace) and in the JSON: a job that only writes finds its
# file allocated (fallocate=native by default; posix, keep, truncate,
# none) and writes it itself, nothing is written before it; one that reads,
# or writes with overwrite=1, lays it out first and fsyncs it
# (create_fsync=0: not); end_fsync syncs every file written, reopening
# those closed since, and counts none of it ("sync" total_ios 0);
# fsync_on_close syncs a written file at each close unless the last
# operation was a sync, uncounted too; sync=1|sync|dsync opens the
# files O_SYNC or O_DSYNC; create_only lays out and does no I/O;
# allow_file_create=0 refuses to create a missing file.
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
strace -f -e trace=fsync -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# run CASE OPTIONS...: a job "j" of 12 writes of 4k under strace; sets,
# on its files j.*, pw (pwrites), fa (fallocate calls), tr (ftruncates),
# fs (fsyncs), keep (fallocates with KEEP_SIZE), sy (JSON sync total_ios)
# strace -f starts each line with the pid, padded to 5 columns: "4971  x(" as
# "12345 x(", so the calls are matched after any run of blanks.
run() {
  local what=$1; shift
  rm -f j.* st out.json
  strace -f -qq -y -e trace=pwrite64,fallocate,ftruncate,fsync,fdatasync -o st \
    "$LUABENCH" fio --name=j --rw=write --bs=4k --size=48k --output-format=json \
    --output=out.json "$@" >/dev/null 2>err || fail "$what: exit $?: $(cat err)"
  pw=$(grep -c '^[0-9]* *pwrite64([0-9]*</[^>]*/j\.' st)
  fa=$(grep -c '^[0-9]* *fallocate([0-9]*</[^>]*/j\.' st)
  keep=$(grep -c 'fallocate([0-9]*</[^>]*/j\.[^>]*>, FALLOC_FL_KEEP_SIZE' st)
  tr=$(grep -c '^[0-9]* *ftruncate([0-9]*</[^>]*/j\.' st)
  fs=$(grep -c '^[0-9]* *fsync([0-9]*</[^>]*/j\.' st)
  sy=$(jget out.json 'j.jobs[1].sync.total_ios') || fail "$what: reading out.json"
}
want() { # what got expected
  [ "$2" = "$3" ] || fail "$1: $2, expected $3 (fio 3.33's)"
}

run "write"
want "write: pwrites" "$pw" 12
want "write: fallocate calls" "$fa" 1
want "write: ftruncate calls" "$tr" 0
want "write: fsyncs" "$fs" 0
want "write: size" "$(stat -c %s j.0.0)" 49152

run "overwrite=1" --overwrite=1
[ "$pw" -gt 12 ] || fail "overwrite=1: $pw pwrites: the file was not laid out first"
want "overwrite=1: fsyncs (create_fsync)" "$fs" 1
run "overwrite=1 create_fsync=0" --overwrite=1 --create_fsync=0
want "overwrite=1 create_fsync=0: fsyncs" "$fs" 0
run "rw=read" --rw=read
[ "$pw" -ge 1 ] || fail "rw=read: the new file was not laid out"
want "rw=read: fsyncs" "$fs" 1
want "rw=read: size" "$(stat -c %s j.0.0)" 49152

run "fallocate=none" --fallocate=none
want "fallocate=none: fallocate calls" "$fa" 0
want "fallocate=none: ftruncate calls" "$tr" 0
want "fallocate=none: size" "$(stat -c %s j.0.0)" 49152
run "fallocate=0" --fallocate=0
want "fallocate=0: fallocate calls" "$fa" 0
run "fallocate=truncate" --fallocate=truncate
want "fallocate=truncate: fallocate calls" "$fa" 0
want "fallocate=truncate: ftruncate calls" "$tr" 1
run "fallocate=keep" --fallocate=keep
want "fallocate=keep: KEEP_SIZE fallocates" "$keep" 1
run "fallocate=posix" --fallocate=posix
want "fallocate=posix: pwrites" "$pw" 12

run "end_fsync" --rw=randwrite --nrfiles=8 --filesize=8k --size=64k --openfiles=2 --end_fsync=1
want "end_fsync over 8 files: fsyncs" "$fs" 8
want "end_fsync: sync total_ios" "$sy" 0

run "fsync_on_close" --fsync_on_close=1
want "fsync_on_close: fsyncs" "$fs" 1
want "fsync_on_close: sync total_ios" "$sy" 0
run "fsync_on_close nrfiles=3" --fsync_on_close=1 --nrfiles=3
want "fsync_on_close over 3 files: fsyncs" "$fs" 3
run "fsync_on_close end_fsync" --fsync_on_close=1 --end_fsync=1
want "fsync_on_close after end_fsync: fsyncs" "$fs" 1
run "fsync_on_close fsync=4" --fsync_on_close=1 --fsync=4
want "fsync_on_close with fsync=4: fsyncs" "$fs" 3
want "fsync=4: sync total_ios" "$sy" 2
run "fsync_on_close rw=read" --fsync_on_close=1 --rw=read
want "fsync_on_close of a read job: fsyncs (the layout's alone)" "$fs" 1

# sync=: the job's files opened O_SYNC (sync, 1) or O_DSYNC (dsync)
for v in 1:O_SYNC sync:O_SYNC dsync:O_DSYNC 0:none none:none; do
  rm -f j.*
  strace -f -qq -e trace=openat -o st "$LUABENCH" fio --name=j --rw=write --bs=4k --size=16k \
    --sync="${v%%:*}" --output=/dev/null 2>err || fail "sync=${v%%:*}: exit $?: $(cat err)"
  opens=$(grep '"j\.0\.0", O_RDWR' st) || fail "sync=${v%%:*}: the job never opened j.0.0"
  case "${v#*:}" in
    none) case "$opens" in *SYNC*) fail "sync=${v%%:*}: $opens" ;; esac ;;
    *) contains "$opens" "|${v#*:}|" "sync=${v%%:*}: the open flags" ;;
  esac
done

# create_only: the file is laid out, no I/O is done; allow_file_create=0:
# a missing file fails the job (exit 1) and nothing is created
rm -f c.dat out.json
"$LUABENCH" fio --name=j --filename=c.dat --size=8k --create_only=1 --output-format=json \
  --output=out.json 2>err || fail "create_only: exit $?: $(cat err)"
want "create_only: size" "$(stat -c %s c.dat)" 8192
want "create_only: reads" "$(jget out.json 'j.jobs[1].read.total_ios')" 0
expect_exit 1 "allow_file_create=0" "$LUABENCH" fio --name=j --filename=none.dat --size=4k \
  --allow_file_create=0
[ ! -e none.dat ] || fail "allow_file_create=0 created none.dat"

expect_exit 2 "fallocate" "$LUABENCH" fio --name=j --fallocate=sometimes --size=4k
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "fallocate=sometimes: more than one line: $(cat "$LB_ERR")"
pass
