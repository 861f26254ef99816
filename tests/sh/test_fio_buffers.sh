#!/usr/bin/env bash
# Description: what fio's buffer options put on disk, read back from the
# file: zero_buffers writes zeros; scramble_buffers (on by default) makes
# every 4 KiB block of a file written from one buffer differ, each 512-byte
# sector holding its offset, and off writes one block over and over;
# refill_buffers writes fresh random data; buffer_pattern repeats its bytes
# from each block's start; buffer_compress_percentage makes zlib shrink the
# file as much as it shrinks fio 3.33's for the same job (within 3 points);
# dedupe_percentage repeats that share of the blocks; a file laid out for
# reading carries the same contents.  Verify still passes with each option
# set, and bad values exit 2 with one line.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get, quiet_run

python3 -c 'import zlib' 2>/dev/null || skip "python3 without zlib"

# stat FILE: "blocks unique zero ratio" of its 4 KiB blocks and zlib level 6
stat() {
  python3 - "$1" <<'PY'
import sys, zlib
d = open(sys.argv[1], 'rb').read()
b = [d[i:i + 4096] for i in range(0, len(d), 4096)]
print(len(b), len(set(b)), sum(x == bytes(4096) for x in b),
      '%.4f' % (len(zlib.compress(d, 6)) / len(d)))
PY
}
# write NAME ARGS...: a 4 MiB sequential write of 4 KiB blocks to NAME
write() {
  local n=$1; shift
  rm -f "$n"
  quiet_run "$n" --name=b --filename="$n" --rw=write --bs=4k --size=4m "$@"
}
# near GOT WANT WHAT: GOT within 0.03 of WANT
near() {
  python3 -c "import sys; sys.exit(abs($1 - $2) > 0.03)" ||
    fail "$3: zlib ratio $1, fio 3.33 gives $2"
}

write zero --zero_buffers=1
[ "$(stat zero)" = "1024 1 1024 0.0010" ] || fail "zero_buffers: $(stat zero)"

write scr
set -- $(stat scr)
[ "$2" = 1024 ] || fail "scramble_buffers (default): $2 distinct blocks of 1024"
python3 - scr <<'PY' || fail "scramble_buffers: a sector without its offset"
import struct, sys
d = open(sys.argv[1], 'rb').read()
for s in range(0, len(d), 512):
    if not any(struct.unpack_from('<Q', d, s + 64 * k)[0] == s for k in range(8)):
        sys.exit(1)
PY
write noscr --scramble_buffers=0
set -- $(stat noscr)
[ "$2" = 1 ] && [ "$3" = 0 ] || fail "scramble_buffers=0: $(stat noscr), want one random block"
write zscr --zero_buffers=1 --scramble_buffers=1
set -- $(stat zscr)
[ "$2" = 1024 ] || fail "zero_buffers with scramble_buffers=1: $2 distinct blocks"

write refill --refill_buffers=1
set -- $(stat refill)
[ "$2" = 1024 ] || fail "refill_buffers: $2 distinct blocks"
near "$4" 0.9993 "refill_buffers"

# buffer_pattern: the bytes repeated from the start of every block
for p in 0xdeadbeef '"ab"0x01' -12; do
  write pat --buffer_pattern="$p"
  python3 - pat "$p" <<'PY' || fail "buffer_pattern=$p: blocks are not the pattern"
import sys
want = {'0xdeadbeef': b'\xde\xad\xbe\xef', '"ab"0x01': b'ab\x01', '-12': b'\xf4\xff\xff\xff'}
p = want[sys.argv[2]]
blk = (p * 4096)[:4096]
d = open(sys.argv[1], 'rb').read()
sys.exit(any(d[i:i + 4096] != blk for i in range(0, len(d), 4096)))
PY
done

# buffer_compress_percentage: fio 3.33's ratios on the same jobs
write c50 --buffer_compress_percentage=50
near "$(stat c50 | cut -d' ' -f4)" 0.5096 "buffer_compress_percentage=50"
write c25 --buffer_compress_percentage=25 --bs=64k
near "$(stat c25 | cut -d' ' -f4)" 0.7573 "buffer_compress_percentage=25 bs=64k"
write c80 --buffer_compress_percentage=80 --buffer_compress_chunk=4k
near "$(stat c80 | cut -d' ' -f4)" 0.2048 "buffer_compress_percentage=80 chunk=4k"
write c50p --buffer_compress_percentage=50 --buffer_pattern=0xab
near "$(stat c50p | cut -d' ' -f4)" 0.5096 "buffer_compress_percentage=50 with a pattern"
python3 -c "import sys; d=open('c50p','rb').read(); sys.exit(d[256:512] != b'\xab'*256)" ||
  fail "buffer_compress_percentage with buffer_pattern: no pattern in the chunk's second half"
write c100 --buffer_compress_percentage=100
[ "$(stat c100)" = "1024 1 1024 0.0010" ] || fail "buffer_compress_percentage=100: $(stat c100)"

# dedupe_percentage: that share of the blocks repeat others (fio 3.33: 513
# distinct of 1024 at 50, 718 at 30, 1 at 100)
write d50 --dedupe_percentage=50
set -- $(stat d50)
[ "$2" -ge 450 ] && [ "$2" -le 580 ] || fail "dedupe_percentage=50: $2 distinct blocks of 1024"
write d30 --dedupe_percentage=30
set -- $(stat d30)
[ "$2" -ge 660 ] && [ "$2" -le 780 ] || fail "dedupe_percentage=30: $2 distinct blocks of 1024"
write d100 --dedupe_percentage=100
set -- $(stat d100)
[ "$2" = 1 ] || fail "dedupe_percentage=100: $2 distinct blocks"

# a file laid out for reading carries the job's contents, as fio's does
rm -f rz rc
quiet_run rz --name=b --filename=rz --rw=randread --size=4m --zero_buffers=1
[ "$(stat rz)" = "1024 1 1024 0.0010" ] || fail "laid out with zero_buffers: $(stat rz)"
quiet_run rc --name=b --filename=rc --rw=randread --size=4m --buffer_compress_percentage=60
near "$(stat rc | cut -d' ' -f4)" 0.4088 "laid out with buffer_compress_percentage=60"

# verify's headers take the place of the contents, and verify passes
for o in --zero_buffers=1 --buffer_pattern=0xdeadbeef --buffer_compress_percentage=50 \
         --dedupe_percentage=40 --refill_buffers=1 --scramble_buffers=0; do
  rm -f v
  quiet_run v --name=b --filename=v --rw=randwrite --bs=4k --size=1m --verify=crc32c "$o"
  [ "$(json_get v.json "j['jobs'][0]['error']")" = 0 ] || fail "verify with $o: an error"
  [ "$(json_get v.json "j['jobs'][0]['read']['total_ios']")" = 256 ] ||
    fail "verify with $o: not every block read back"
done

# bad values: one line, exit 2
for bad in --buffer_pattern=0xzz --buffer_pattern=%o '--buffer_pattern="ab' \
           --buffer_compress_percentage=101 --dedupe_percentage=-1 \
           --dedupe_mode=working_set --zero_buffers=maybe --buffer_compress_chunk=0; do
  n=${bad#--}
  expect_exit 2 "for '${n%%=*}'" "$LUABENCH" fio --name=b --filename=x --rw=write --size=1m "$bad"
  [ "$(wc -l < "$LB_ERR")" = 1 ] || fail "$bad: $(wc -l < "$LB_ERR") lines on stderr"
done
pass
