#!/usr/bin/env bash
# Description: percentage_random against fio 3.33 on the same jobs.  Which
# I/Os of a random job are sequential (starting where the last I/O of
# their direction ended) comes from fio's own generator and seed, so the
# pattern of sequential and random I/Os, direction by direction, is fio's
# exactly (its random offsets differ: its generator); the file large
# enough that a random offset never lands where the sequential one would.
# Then the rules at the file's end (a real file: a random I/O instead; the
# null engine, with no file end: the job ends), 100 changing nothing, and
# bad values.  Without fio 3.33 the luabench half of each check still runs.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current)

have_fio=0
command -v fio >/dev/null && [ "$(fio --version 2>/dev/null)" = "fio-3.33" ] && have_fio=1
[ "$have_fio" = 1 ] || echo "note: fio 3.33 not installed, its half of each check is left out" >&2

# iolog EXE NAME ARGS...: runs the job with write_iolog=NAME.iolog and
# prints "ddir offset length" per I/O
iolog() {
  local exe=$1 n=$2; shift 2
  rm -f "$n.iolog"
  if [ "$exe" = fio ]; then
    fio --name="$n" --write_iolog="$n.iolog" --output-format=json --output="$n.json" "$@" \
      2>"$n.err" || fail "fio $n $*: $(head -c 600 "$n.err")"
  else
    "$LUABENCH" fio --name="$n" --write_iolog="$n.iolog" --output-format=json \
      --output="$n.json" "$@" 2>"$n.err" || fail "luabench $n $*: exit $?: $(head -c 600 "$n.err")"
  fi
  awk '$3 == "read" || $3 == "write" || $3 == "trim" { print $3, $4, $5 }' "$n.iolog"
}

# pattern: per I/O, S (it starts where the last of its direction ended,
# the first at 0) or R, and the direction's letter
pattern() {
  awk '{ s = ($2 == last[$1] + 0) ? "S" : "R"; printf "%s%s\n", s, substr($1, 1, 1)
         last[$1] = $2 + $3 }'
}

# same_pattern WHAT ARGS...: luabench's pattern, and fio's equal to it
same_pattern() {
  local what=$1; shift
  local lb f
  lb=$(iolog luabench p "$@" | pattern)
  [ "$(echo "$lb" | wc -l)" -gt 100 ] || fail "$what: $(echo "$lb" | wc -l) I/Os"
  if [ "$have_fio" = 1 ]; then
    f=$(iolog fio p "$@" | pattern)
    [ "$lb" = "$f" ] || fail "$what: the sequential I/Os differ from fio 3.33's ($(echo "$lb" |
      grep -c S) and $(echo "$f" | grep -c S) of $(echo "$lb" | wc -l) and $(echo "$f" | wc -l)):
$(diff <(echo "$lb") <(echo "$f") | head -6)"
  fi
  echo "$lb"
}

big="--ioengine=null --filesize=64m --io_size=8m --bs=4k"
log=$(same_pattern "randread 50" $big --rw=randread --percentage_random=50)
n=$(echo "$log" | grep -c '^S')
[ "$n" -gt 900 ] && [ "$n" -lt 1150 ] || fail "randread 50: $n of 2048 I/Os sequential"
same_pattern "randrw 30,70" $big --rw=randrw --percentage_random=30,70 >/dev/null
same_pattern "randrw 50, rwmixread 70, norandommap" $big --rw=randrw --percentage_random=50 \
  --rwmixread=70 --norandommap >/dev/null
same_pattern "randwrite 20, randseed 7" $big --rw=randwrite --percentage_random=20 \
  --randseed=7 >/dev/null
same_pattern "randtrim ,,60" $big --rw=randtrim --percentage_random=,,60 >/dev/null
same_pattern "randread 50, allrandrepeat" $big --rw=randread --percentage_random=50 \
  --allrandrepeat=1 >/dev/null
same_pattern "randread 50, zipf" $big --rw=randread --percentage_random=50 \
  --random_distribution=zipf:1.2 >/dev/null
log=$(same_pattern "randwrite 0" $big --rw=randwrite --percentage_random=0)
[ "$(echo "$log" | grep -c '^R')" = 0 ] || fail "randwrite 0: random I/Os"

# 100 (the default) is a random job as without the option
a=$(iolog luabench h --ioengine=null --filesize=1m --bs=4k --rw=randrw --percentage_random=100)
b=$(iolog luabench h --ioengine=null --filesize=1m --bs=4k --rw=randrw)
[ "$a" = "$b" ] || fail "percentage_random=100 changed the I/Os"

# A real file: a sequential I/O due at its end is random instead; with
# io_size twice the file, the job goes on to its bytes.
log=$(iolog luabench e --ioengine=psync --filename=e.dat --filesize=1m --io_size=2m --bs=4k \
  --rw=randread --percentage_random=0)
[ "$(echo "$log" | wc -l)" = 512 ] || fail "real file, 0: $(echo "$log" | wc -l) I/Os, not 512"
[ "$(echo "$log" | head -256 | awk '{ printf "%d ", $2 / 4096 }')" = \
  "$(seq 0 255 | tr '\n' ' ')" ] || fail "real file, 0: the first 256 I/Os are not 0..255"
echo "$log" | awk -v end=1048576 '{ if (NR > 1 && $2 != next_off && prev_end != end) bad = NR
  next_off = $2 + $3; prev_end = next_off } END { exit bad ? 1 : 0 }' ||
  fail "real file, 0: a random I/O not after one that reached the file's end"
if [ "$have_fio" = 1 ]; then
  f=$(iolog fio e --ioengine=psync --filename=ef.dat --filesize=1m --io_size=2m --bs=4k \
    --rw=randread --percentage_random=0)
  [ "$(echo "$f" | wc -l)" = 512 ] || fail "fio, real file, 0: $(echo "$f" | wc -l) I/Os"
fi

# The null engine has no file end (fio's real_file_size -1): a sequential
# I/O due at the region's end ends the job, before its size, as fio's.
for exe in luabench fio; do
  [ "$exe" = luabench ] || [ "$have_fio" = 1 ] || continue
  log=$(iolog "$exe" z --ioengine=null --filesize=1m --bs=4k --rw=randread --percentage_random=20)
  n=$(echo "$log" | wc -l)
  [ "$n" -lt 256 ] || fail "$exe, null engine, 20: $n I/Os, the job should end at a sequential end"
  [ "$(echo "$log" | tail -1 | awk '{ print $2 + $3 }')" = 1048576 ] ||
    fail "$exe, null engine, 20: the last I/O does not end at the region's end: $(echo "$log" | tail -1)"
done

# bad values and what luabench does not run
for v in 101 -1 5x 50,50,50,50; do
  expect_exit 2 "bad value '$v' for 'percentage_random'" "$LUABENCH" fio --name=b \
    --ioengine=null --rw=randread --size=1m --percentage_random="$v"
  [ "$(wc -l < "$LB_ERR")" = 1 ] || fail "percentage_random=$v: $(cat "$LB_ERR")"
done
expect_exit 2 "percentage_random below 100 is not supported with loops above 1" "$LUABENCH" \
  fio --name=b --ioengine=null --rw=randread --size=1m --percentage_random=50 --loops=2
expect_exit 2 "percentage_random below 100 is not supported with zonemode=strided" "$LUABENCH" \
  fio --name=b --ioengine=null --rw=randread --size=1m --percentage_random=50 \
  --zonemode=strided --zonesize=64k
# fio 3.33 refuses the deprecated percentage_sequential too
expect_exit 2 "percentage_sequential" "$LUABENCH" fio --name=b --ioengine=null --rw=randread \
  --size=1m --percentage_sequential=50
pass
