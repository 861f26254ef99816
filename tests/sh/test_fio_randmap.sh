#!/usr/bin/env bash
# Description: the I/Os a user sees in write_iolog, against fio 3.33's for
# the same jobs.  Random with a block size that varies (bsrange, bssplit)
# and the random map: every sector of the file done exactly once, the bytes
# equal to the file's size, as fio's (its offsets differ: its generator).
# Sequential with varying sizes: the I/Os run to the file's end.  offset
# with filesize: the region ends at filesize (fio's rule), so the offsets
# of a sequential job, strided zones included, are fio's exactly.  Without
# fio 3.33 installed, the luabench half of each check still runs.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get

have_fio=0
command -v fio >/dev/null && [ "$(fio --version 2>/dev/null)" = "fio-3.33" ] && have_fio=1
[ "$have_fio" = 1 ] || echo "note: fio 3.33 not installed, its half of each check is left out" >&2

# iolog EXE NAME ARGS...: runs a null-engine job writing NAME.iolog and
# NAME.json; prints "ddir offset length" per I/O
iolog() {
  local exe=$1 n=$2; shift 2
  rm -f "$n.iolog"
  if [ "$exe" = fio ]; then
    fio --name="$n" --ioengine=null --write_iolog="$n.iolog" --output-format=json \
      --output="$n.json" "$@" 2>"$n.err" || fail "fio $n: $(head -c 600 "$n.err")"
  else
    "$LUABENCH" fio --name="$n" --ioengine=null --write_iolog="$n.iolog" \
      --output-format=json --output="$n.json" "$@" 2>"$n.err" ||
      fail "luabench $n: exit $?: $(head -c 600 "$n.err")"
  fi
  awk '$3 == "read" || $3 == "write" || $3 == "trim" { print $3, $4, $5 }' "$n.iolog"
}

# cover LOG SIZE DDIRS: each sector (512 bytes) of [0, SIZE) done once by
# the I/Os of DDIRS (comma list); prints the bytes done
cover() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
log, size, dirs = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
seen = [0] * (size // 512)
total = 0
for line in log.splitlines():
    d, off, n = line.split()
    if d not in dirs:
        continue
    off, n = int(off), int(n)
    assert off % 512 == 0 and n % 512 == 0 and off + n <= size, line
    for s in range(off // 512, (off + n) // 512):
        seen[s] += 1
    total += n
bad = [i for i, c in enumerate(seen) if c != 1]
assert not bad, "%d sectors not done once, the first %d (%d times)" % (
    len(bad), bad[0], seen[bad[0]])
print(total)
PY
}

# random with the map: 1 MiB, sizes from 512 to 16k
for spec in "randwrite write --bsrange=512-16k" \
            "randread read --bssplit=512/10:4k/40:16k/50" \
            "randtrimwrite write --bsrange=512-4k" \
            "randtrimwrite trim --bssplit=1k/50:8k/50" \
            "randrw read,write --bsrange=1k-8k" \
            "write write --bssplit=4k/50:60k/50" \
            "read read --bsrange=4k-60k"; do
  set -- $spec
  rw=$1 dirs=$2; shift 2
  for exe in luabench fio; do
    [ "$exe" = luabench ] || [ "$have_fio" = 1 ] || continue
    log=$(iolog "$exe" m --filesize=1m --rw="$rw" "$@")
    got=$(cover "$log" 1048576 "$dirs") || fail "$exe rw=$rw $*: $got"
    [ "$got" = 1048576 ] || fail "$exe rw=$rw $*: $got bytes of $dirs, the file holds 1048576"
  done
done

# offset with filesize: fio's region is [offset, filesize)
# same_as_fio WHAT ARGS...: the I/Os of luabench and fio, compared in order;
# with ORDER=any (clones logging to one file, interleaved as they ran), as sets
same_as_fio() {
  local what=$1; shift
  local sorter=cat
  [ "${ORDER:-}" = any ] && sorter="sort"
  lb=$(iolog luabench s "$@" | $sorter)
  [ -n "$lb" ] || fail "$what: no I/O"
  if [ "$have_fio" = 1 ]; then
    f=$(iolog fio s "$@" | $sorter)
    [ "$lb" = "$f" ] || fail "$what: luabench's I/Os differ from fio 3.33's:
$(diff <(echo "$lb") <(echo "$f") | head -8)"
  fi
  echo "$lb"
}
log=$(same_as_fio "read, offset 32k filesize 64k" --rw=read --bs=4k --offset=32k --filesize=64k)
[ "$(echo "$log" | awk '{ print $2 }' | tr '\n' ' ')" = \
  "32768 36864 40960 45056 49152 53248 57344 61440 " ] || fail "offset 32k, filesize 64k: $log"
same_as_fio "read, offset 32k, size 64k, filesize 64k" --rw=read --bs=4k --offset=32k \
  --size=64k --filesize=64k --io_size=64k >/dev/null
same_as_fio "strided zones from offset 32k to filesize 64k" --rw=read --bs=4k \
  --zonemode=strided --zonesize=4k --zonerange=4k --offset=32k --size=64k --io_size=64k \
  --filesize=64k >/dev/null
same_as_fio "strided, zonerange 8k, from 16k" --rw=read --bs=4k --zonemode=strided \
  --zonesize=4k --zonerange=8k --offset=16k --size=128k --io_size=64k --filesize=128k >/dev/null
ORDER=any same_as_fio "two clones, offset_increment, filesize" --rw=write --bs=8k --filesize=256k \
  --offset=64k --offset_increment=64k --numjobs=2 >/dev/null
log=$(iolog luabench r --rw=randread --bs=4k --offset=32k --filesize=64k)
echo "$log" | awk '$2 < 32768 || $2 >= 65536 { bad = 1 } END { exit bad }' ||
  fail "randread, offset 32k filesize 64k: an I/O outside [32k, 64k): $log"
[ "$(echo "$log" | wc -l)" = 8 ] || fail "randread, offset 32k filesize 64k: $(echo "$log" | wc -l) I/Os"

# bad input
expect_exit 2 "offset 131072 is beyond filesize 65536" "$LUABENCH" fio --name=b \
  --ioengine=null --rw=read --offset=128k --filesize=64k
pass
