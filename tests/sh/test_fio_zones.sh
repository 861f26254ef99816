#!/usr/bin/env bash
# Description: zonemode=strided as fio 3.33's: after zonesize bytes of I/O in
# a zone the next zone begins zonerange + zoneskip further on, back at the
# start past the end; sequential I/O restarts at the zone's start at the end
# of its zonerange; random offsets stay in the zone's zonerange, each block
# once per zonerange bytes with the random map.  The expected offsets are
# those fio 3.33 logged for the same jobs (null engine, 128 KiB, bs=4k).
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get

# blocks NAME ARGS...: the offsets, in 4 KiB blocks, of the I/Os of a strided job
blocks() {
  local n=$1; shift
  rm -f "${n}"_iops*.log
  "$LUABENCH" fio --name="$n" --ioengine=null --size=128k --bs=4k --zonemode=strided \
    --log_offset=1 --write_iops_log="$n" --output="$n.out" "$@" 2>"$n.err" >/dev/null ||
    fail "$n: exit $?: $(head -c 600 "$n.err")"
  awk -F, '{ printf "%s%d", (NR > 1 ? " " : ""), $5 / 4096 } END { print "" }' "${n}"_iops*.log
}
# same NAME GOT WANT
same() { [ "$2" = "$3" ] || fail "$1: offsets $2, fio 3.33's: $3"; }

r4="0 1 8 9 16 17 24 25"
same "seq, zonerange 4x zonesize" "$(blocks s1 --rw=read --zonesize=8k --zonerange=32k)" \
  "$r4 $r4 $r4 $r4"
r3="0 1 12 13 24 25"
same "seq, zoneskip" "$(blocks s2 --rw=read --zonesize=8k --zonerange=32k --zoneskip=16k)" \
  "$r3 $r3 $r3 $r3 $r3 0 1"
same "seq, zonesize 2x zonerange" "$(blocks s3 --rw=read --zonesize=16k --zonerange=8k)" \
  "0 1 0 1 2 3 2 3 4 5 4 5 6 7 6 7 8 9 8 9 10 11 10 11 12 13 12 13 14 15 14 15"
h="0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30"
same "seq read:4k skips" "$(blocks s4 --rw=read:4k --zonesize=16k --zonerange=32k)" "$h $h"
same "zonerange defaults to zonesize" "$(blocks s5 --rw=read --zonesize=8k)" \
  "$(seq -s ' ' 0 31)"

# random: fio's offsets differ (its generator), the zones they fall in do not.
# check GOT ZONESIZE ZONERANGE MAP: every I/O in its zone; with the map, no
# block twice within zonerange bytes
check() {
  python3 - "$@" <<'PY'
import sys
got = [int(x) for x in sys.argv[1].split()]
zs, zr, m = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1"
assert len(got) == 32, len(got)
start = 0
for i in range(0, 32, zs):
    zone = got[i:i + zs]
    assert all(start <= b < start + zr for b in zone), (start, zone)
    for k in range(0, zs, zr):
        part = zone[k:k + zr]
        assert not m or len(set(part)) == len(part), (start, part)
    start = start + zr if start + zr < 32 else 0
PY
}
for spec in "8k 32k 2 8 1" "16k 8k 4 2 1" "32k 32k 8 8 1"; do
  set -- $spec
  g=$(blocks r --rw=randread --zonesize="$1" --zonerange="$2")
  check "$g" "$3" "$4" "$5" || fail "randread zonesize=$1 zonerange=$2: $g"
done
g=$(blocks n --rw=randread --norandommap --zonesize=8k --zonerange=32k)
check "$g" 2 8 0 || fail "randread norandommap: $g"
# a zone over the whole range with the map: every block of each zone once
g=$(blocks m --rw=randread --zonesize=32k --zonerange=32k)
[ "$(echo "$g" | tr ' ' '\n' | sort -n | uniq -c | awk '$1 != 1' | wc -l)" = 0 ] ||
  fail "randread, one pass of zones: a block twice: $g"

# bad input, as fio 3.33 refuses it
expect_exit 2 "need zonemode=strided" "$LUABENCH" fio --name=b --ioengine=null --size=128k \
  --zonesize=8k
expect_exit 2 "zonemode=strided needs a zonesize" "$LUABENCH" fio --name=b --ioengine=null \
  --size=128k --zonemode=strided
pass
