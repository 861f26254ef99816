#!/usr/bin/env bash
# Description: offset=N% and offset_increment=N% with offset_align, against
# fio 3.33's I/Os on the same jobs over a file of 1311576 bytes (a size no
# alignment divides): the percentage is of the file's size before the run,
# the start rounds up to offset_align, or to the smallest bs of the three
# directions; an offset in bytes is never rounded; a new file's size is 0,
# the null engine's is size / nrfiles.  Bad values exit 2 with one line.
# Without fio 3.33 the luabench half of each check still runs.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current)

have_fio=0
command -v fio >/dev/null && [ "$(fio --version 2>/dev/null)" = "fio-3.33" ] && have_fio=1
[ "$have_fio" = 1 ] || echo "note: fio 3.33 not installed, its half of each check is left out" >&2

# iolog EXE ARGS...: the job's I/Os as sorted "ddir offset length" lines
# (clones log to one file, interleaved as they ran)
iolog() {
  local exe=$1; shift
  rm -f o.iolog o.json
  if [ "$exe" = fio ]; then
    fio --name=o --write_iolog=o.iolog --output-format=json --output=o.json "$@" 2>o.err ||
      fail "fio $*: $(head -c 600 o.err)"
  else
    "$LUABENCH" fio --name=o --write_iolog=o.iolog --output-format=json --output=o.json \
      "$@" 2>o.err || fail "luabench $*: exit $?: $(head -c 600 o.err)"
  fi
  awk '$3 == "read" || $3 == "write" { print $3, $4, $5 }' o.iolog | sort -k2n
}

# same_as_fio FIRST LAST ARGS...: luabench's I/Os start at FIRST and end at
# LAST (the lowest offset, the highest end), and are fio's
same_as_fio() {
  local first=$1 last=$2; shift 2
  local lb f
  lb=$(iolog luabench --filename=lb.dat "$@")
  [ "$(echo "$lb" | head -1 | awk '{ print $2 }')" = "$first" ] &&
    [ "$(echo "$lb" | awk '{ e = $2 + $3; if (e > m) m = e } END { print m }')" = "$last" ] ||
    fail "$*: luabench's I/Os run from $(echo "$lb" | head -1) to $(echo "$lb" | tail -1), \
expected $first to $last"
  if [ "$have_fio" = 1 ]; then
    f=$(iolog fio --filename=fio.dat "$@")
    [ "$lb" = "$f" ] || fail "$*: luabench's I/Os differ from fio 3.33's:
$(diff <(echo "$lb") <(echo "$f") | head -6)"
  fi
}

head -c 1311576 /dev/zero > lb.dat
cp lb.dat fio.dat
r="--ioengine=psync --rw=read --bs=4k"
# 20% of 1311576 is 262315: up to 512, the rest of the file in whole blocks
same_as_fio 262656 1311232 $r --offset=20% --offset_align=512
same_as_fio 327680 1310720 $r --offset=20% --offset_align=64k
same_as_fio 266240 1310720 $r --offset=20%
same_as_fio 263000 1311576 $r --offset=20% --offset_align=1000
# the smallest bs of the three directions, whatever rw does
same_as_fio 135168 200704 $r --bs=64k,4k --offset=10% --size=64k
# clone N at 10% + N x 10%, each rounded up to 8k
same_as_fio 139264 335872 $r --offset=10% --offset_increment=10% --numjobs=2 \
  --offset_align=8k --size=64k
# a byte offset is not rounded, unless the increment is a percentage
same_as_fio 8192 73728 $r --offset=8k --offset_align=64k --size=64k
same_as_fio 8192 208896 $r --offset=8k --offset_increment=10% --numjobs=2 --size=64k
same_as_fio 0 1310720 $r --offset=0%
# a new file has no size yet: the offset is 0
rm -f lb.dat fio.dat
same_as_fio 0 1048576 $r --offset=20% --size=1m

# the null engine: of size / nrfiles
lb=$(iolog luabench --ioengine=null --rw=read --bs=4k --size=1m --offset=20%)
[ "$(echo "$lb" | head -1)" = "read 212992 4096" ] || fail "null, 20%: $(echo "$lb" | head -1)"
if [ "$have_fio" = 1 ]; then
  f=$(iolog fio --ioengine=null --rw=read --bs=4k --size=1m --offset=20%)
  [ "$lb" = "$f" ] || fail "null, 20%: luabench's I/Os differ from fio 3.33's"
fi

# bad values (fio 3.33 reads 20.5% as 20 bytes, and divides by offset_align=0)
for v in 20.5% 101% -1 4x; do
  expect_exit 2 "bad value '$v' for 'offset'" "$LUABENCH" fio --name=b --ioengine=null \
    --rw=read --size=1m --offset="$v"
  [ "$(wc -l < "$LB_ERR")" = 1 ] || fail "offset=$v: $(cat "$LB_ERR")"
done
expect_exit 2 "bad value '50.5%' for 'offset_increment'" "$LUABENCH" fio --name=b \
  --ioengine=null --rw=read --size=1m --offset_increment=50.5%
expect_exit 2 "bad value 'x' for 'offset_align'" "$LUABENCH" fio --name=b --ioengine=null \
  --rw=read --size=1m --offset=10% --offset_align=x
[ "$(wc -l < "$LB_ERR")" = 1 ] || fail "offset_align=x: $(cat "$LB_ERR")"
pass
