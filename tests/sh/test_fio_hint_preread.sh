#!/usr/bin/env bash
# Description: write_hint and pre_read as fio 3.33's: write_hint=long
# leaves the file's inode with the kernel's hint 4 (extreme: 5), read back
# with fcntl F_GET_RW_HINT; with direct=1 the hint goes on the descriptor,
# and where the kernel refuses it the job fails (exit 1, "fcntl write
# hint"), as fio's does; pre_read=1 leaves the whole region in the page
# cache and the job's own reads counted alone (number_ios=1: 4 KiB read,
# 1 MiB cached; without it 4 KiB cached), as in fio, on a disk file
# system whose cache can be dropped.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
have_fio=0
command -v fio >/dev/null && fio --version 2>/dev/null | grep -q '^fio-3' && have_fio=1

# --- write_hint -------------------------------------------------------------------
if command -v python3 >/dev/null; then
  hint_of() {
    python3 -c 'import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(struct.unpack("Q", fcntl.fcntl(fd, 1035, bytes(8)))[0])' "$1" 2>/dev/null || echo none
  }
  "$LUABENCH" fio --name=w --filename=h.dat --rw=write --size=16k --write_hint=long >/dev/null 2>err ||
    fail "write_hint=long: exit $?: $(cat err)"
  got=$(hint_of h.dat)
  if [ "$got" = none ]; then
    echo "note: F_GET_RW_HINT refused here, the hint is not read back" >&2
  else
    [ "$got" = 4 ] || fail "write_hint=long: the inode's hint is $got, expected 4"
    "$LUABENCH" fio --name=w --filename=h.dat --rw=write --size=16k --write_hint=extreme >/dev/null 2>err ||
      fail "write_hint=extreme: exit $?: $(cat err)"
    [ "$(hint_of h.dat)" = 5 ] || fail "write_hint=extreme: the inode's hint is $(hint_of h.dat)"
  fi
fi
rc=0
"$LUABENCH" fio --name=w --filename=hd.dat --rw=write --size=16k --direct=1 --write_hint=short \
  --output-format=json --output=hd.json >/dev/null 2>err || rc=$?
[ "$rc" = 0 ] || [ "$rc" = 1 ] || fail "write_hint with direct=1: exit $rc: $(cat err)"
[ "$rc" = 0 ] || grep -q "fcntl write hint on hd.dat" err || fail "write_hint refused without saying so: $(cat err)"
if [ $have_fio = 1 ] && [ "$rc" = 1 ]; then
  frc=0
  fio --name=w --filename=hdf.dat --rw=write --size=16k --direct=1 --write_hint=short >/dev/null 2>&1 || frc=$?
  [ "$frc" = 1 ] || fail "luabench's direct write_hint failed, fio's exited $frc"
fi
expect_exit 2 "bad value 'forever' for 'write_hint': expected none|short|medium|long|extreme" \
  "$LUABENCH" fio --name=w --ioengine=null --size=4k --write_hint=forever

# --- pre_read -----------------------------------------------------------------------
command -v fincore >/dev/null || skip "fincore missing (the page cache is not read)"
disk=$(mktemp -d "${TMPDIR:-/var/tmp}/lbpre.XXXXXX") || skip "no directory on a disk file system"
echo "$disk" >> "$LB_TMPLIST"
cached() { fincore -b -n -o RES "$1" | tr -d ' '; }
pre() { # TOOL PRE_READ: runs a 1-read randread job, prints "cached read_bytes"
  local f=$disk/$1.dat
  rm -f "$d/p.json"
  if [ "$1" = fio ]; then
    fio --name=p --filename="$f" --rw=randread --size=1m --number_ios=1 --pre_read="$2" \
      --output-format=json --output="$d/p.json" >/dev/null 2>&1 || fail "fio pre_read=$2 failed"
  else
    "$LUABENCH" fio --name=p --filename="$f" --rw=randread --size=1m --number_ios=1 --pre_read="$2" \
      --output-format=json --output="$d/p.json" >/dev/null 2>"$d/p.err" || fail "pre_read=$2: exit $?: $(cat "$d/p.err")"
  fi
  echo "$(cached "$f") $(jget "$d/p.json" 'j.jobs[1].read.io_bytes')"
}
tools=(lb); [ $have_fio = 1 ] && tools+=(fio)
for t in "${tools[@]}"; do
  "$LUABENCH" fio --name=p --filename="$disk/$t.dat" --rw=write --size=1m >/dev/null 2>&1 || fail "layout of $t.dat"
  sync
  got=$(pre "$t" 0)
  [ "$got" = "4096 4096" ] || skip "$t: the cache of $disk is not dropped here ($got)"
  got=$(pre "$t" 1)
  [ "$got" = "1048576 4096" ] || fail "$t: pre_read=1: '$got' (cached, read), expected '1048576 4096'"
done
pass
