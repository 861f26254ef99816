#!/usr/bin/env bash
# Description: scripts/mlperf.lua lays out each workload's dataset in the
# container its DLIO config names: unet3d one npz per sample that
# numpy.load(path)["x"] reads as DLIO does (uint8, the sample's bytes),
# resnet50 TFRecord files of 1251 records and cosmoflow one record per
# file, each record framed with its length and the masked CRC32C of length
# and data (checked here in Python); format=raw lays out bare samples;
# direct=1 (reader.odirect) reads unet3d's npz files whole with O_DIRECT;
# on the TFRecord workloads without format=raw it is refused in one line
# (exit 2) before a file is written. find_max=1 prints a row per count tried and the verdict:
# with no compute 1 accelerator fails and the search stops there; with
# compute far above the reads every count up to what the dataset feeds
# passes, and the verdict names that bound; without files= each count
# reads the rules' minimum (500 steps of 7 samples for one accelerator);
# files= below the minimum is refused without scaled=1.
. "$(dirname "$0")/lib.sh"
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then py=$p; break; fi
done
[ -n "$py" ] || skip "no python3 with numpy"
cd "$LB_SRC" || fail "cd $LB_SRC"
tmp=$(lb_tmpdir)
mlperf() { "$LUABENCH" --quiet scripts/mlperf.lua scaled=1 compute_time=0 epochs=1 runs=1 warmup=0 "$@"; }

# unet3d: npz, one sample each, as np.load gives it to DLIO's reader
out=$(mlperf workload=unet3d files=14 sample_size=4k dir="$tmp/u") || fail "unet3d exit"
contains "$out" "unet3d on h100 x 1: 14 files x 1 samples (npz), batch 7" "unet3d header"
printf '%s\n' "$out" | grep -qE '^ +1 +0\.[0-9]+% .* fail$' || fail "unet3d run row: $out"
printf '%s\n' "$out" | grep -q "unet3d h100 x 1: FAIL, mean AU 0\.[0-9][0-9]%" || fail "unet3d verdict: $out"
[ "$(ls "$tmp/u" | grep -c '^img_0000[01][0-9]\.npz$')" -eq 14 ] || fail "14 npz files: $(ls "$tmp/u")"
"$py" - "$tmp/u" <<'PY' || fail "numpy refused the unet3d files"
import glob, sys, numpy
paths = sorted(glob.glob(sys.argv[1] + "/img_*.npz"))
assert len(paths) == 14, paths
for p in paths:
    x = numpy.load(p)["x"]
    assert x.dtype == numpy.uint8 and x.shape == (4096, 1), (p, x.dtype, x.shape)
PY

# TFRecord framing: uint64 length, masked crc32c(length), data, masked crc32c(data)
cat > "$tmp/tfr.py" <<'PY'
import struct, sys
T = []
for i in range(256):
    c = i
    for _ in range(8):
        c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    T.append(c)
def masked(b):
    c = 0xFFFFFFFF
    for x in b:
        c = T[(c ^ x) & 0xFF] ^ (c >> 8)
    c ^= 0xFFFFFFFF
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF
want, size = int(sys.argv[1]), int(sys.argv[2])
for path in sys.argv[3:]:
    d = open(path, "rb").read()
    o = n = 0
    while o < len(d):
        head = d[o:o + 8]
        (l,) = struct.unpack("<Q", head)
        assert struct.unpack("<I", d[o + 8:o + 12])[0] == masked(head), (path, n, "length crc")
        data = d[o + 12:o + 12 + l]
        assert len(data) == l and l > size, (path, n, l)
        assert struct.unpack("<I", d[o + 12 + l:o + 16 + l])[0] == masked(data), (path, n, "data crc")
        o += 16 + l
        n += 1
    assert o == len(d) and n == want, (path, o, len(d), n)
PY
out=$(mlperf workload=resnet50 accelerator=a100 files=2 sample_size=256 dir="$tmp/r") || fail "resnet50 exit"
contains "$out" "resnet50 on a100 x 1: 2 files x 1251 samples (tfrecord), batch 400, 8 read threads" \
  "resnet50 header"
contains "$out" "resnet50 a100 x 1: FAIL" "resnet50 verdict"
[ "$(ls "$tmp/r")" = "$(printf 'shard_0000.tfrecord\nshard_0001.tfrecord')" ] ||
  fail "resnet50 files: $(ls "$tmp/r")"
"$py" "$tmp/tfr.py" 1251 256 "$tmp/r/shard_0001.tfrecord" || fail "resnet50 TFRecord framing"
out=$(mlperf workload=cosmoflow files=6 sample_size=2k dir="$tmp/c") || fail "cosmoflow exit"
contains "$out" "cosmoflow on h100 x 1: 6 files x 1 samples (tfrecord), batch 1" "cosmoflow header"
contains "$out" "(threshold 70%)" "cosmoflow threshold"
"$py" "$tmp/tfr.py" 1 2048 "$tmp"/c/img_00000[0-5].tfrecord || fail "cosmoflow TFRecord framing"

# raw on request; direct=1 with npz, refused with TFRecord
out=$(mlperf workload=unet3d files=7 sample_size=4k format=raw dir="$tmp/raw") || fail "raw exit"
contains "$out" "7 files x 1 samples (raw)" "raw header"
[ "$(stat -c %s "$tmp/raw/img_000006.dat")" -eq 4096 ] || fail "raw sample file size"
expect_exit 2 "direct=1 needs format=npz or raw: DLIO has no O_DIRECT reader for tfrecord" \
  mlperf workload=cosmoflow files=6 direct=1 dir="$tmp/d"
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for direct with a container: $(cat "$LB_ERR")"
[ ! -e "$tmp/d" ] || [ -z "$(ls -A "$tmp/d")" ] || fail "a refused run wrote in $tmp/d"

probe=$(mktemp "$tmp/probe.XXXXXX")
if "$py" -c 'import os,sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT))' "$probe" 2>/dev/null; then
  out=$(mlperf workload=unet3d files=7 sample_size=4k direct=1 dir="$tmp/od") || fail "unet3d direct=1 exit"
  contains "$out" "7 files x 1 samples (npz)" "unet3d direct=1 header"
  "$py" - "$tmp/od" <<'PY' || fail "unet3d direct=1: numpy's view of the files"
import glob, sys, numpy as np
fs = sorted(glob.glob(sys.argv[1] + "/*.npz"))
assert len(fs) == 7 and all(np.load(f)["x"].nbytes == 4096 for f in fs), fs
PY
fi

# find_max: no compute, no accelerator passes; the search stops at 1
out=$(mlperf workload=unet3d files=42 sample_size=4k find_max=1 dir="$tmp/f0") || fail "find_max 0 exit"
contains "$out" "find_max up to 2 accelerators per host (files=42 feed at most 2): 42 files (npz)" \
  "find_max header"
printf '%s\n' "$out" | grep -qE '^ +1 +42 +0\.[0-9]+% .* fail$' || fail "find_max row of 1: $out"
[ "$(printf '%s\n' "$out" | grep -cE '^ +[0-9]+ +42 ')" -eq 1 ] || fail "only 1 tried: $out"
# (with no compute the AU is the few ns of the step's bookkeeping: 0.0% or 0.1%)
printf '%s\n' "$out" | grep -qE '^unet3d h100: no accelerator count passes: 1 fails \(AU 0\.[01]% < 90%\) \(scaled\)$' ||
  fail "find_max verdict, none: $out"
# compute 200 ms a step against 4 KiB reads: both counts the files feed pass
out=$(mlperf workload=unet3d files=42 sample_size=4k find_max=1 compute_time=200ms max_accelerators=8 \
      dir="$tmp/f0") || fail "find_max exit"
[ "$(printf '%s\n' "$out" | grep -cE '^ +[12] +42 +9[0-9]\.[0-9]+% .* pass$')" -eq 2 ] ||
  fail "rows of 1 and 2 pass: $out"
printf '%s\n' "$out" | grep -qE '^unet3d h100: 2 accelerators per host pass \(AU 9[0-9]\.[0-9]% >= 90%\), the most tried \(files=42 feed at most 2\) \(scaled\)$' ||
  fail "find_max verdict, bound: $out"
# without files=: the rules' minimum of one accelerator, 500 steps of 7
out=$(mlperf workload=unet3d sample_size=1k find_max=1 client_memory=1m dir="$tmp/f1") ||
  fail "find_max rules exit"
contains "$out" "(max_accelerators=64): files: the rules' minimum of each count (npz)" "find_max sizing"
printf '%s\n' "$out" | grep -qE '^ +1 +3500 ' || fail "3500 files for one accelerator: $out"
[ "$(find "$tmp/f1" -name 'img_*.npz' | wc -l)" -eq 3500 ] || fail "3500 files laid out"
# spread over subfolders for the 224000 files of 64 accelerators, file f in f % 224
[ -f "$tmp/f1/d0223/img_000223.npz" ] && [ -f "$tmp/f1/d0000/img_003360.npz" ] ||
  fail "subfolders of the largest count: $(ls "$tmp/f1" | tail -2)"
expect_exit 2 "files=10 is below the rules' minimum of 3500 for 1 accelerator and 1MiB of client memory" \
  "$LUABENCH" --quiet scripts/mlperf.lua find_max=1 files=10 client_memory=1m
expect_exit 2 "files=20 do not feed one accelerator per rank 3 steps of 7 samples" \
  mlperf find_max=1 files=20 dir="$tmp/few"
[ ! -e "$tmp/few" ] || fail "a refused search wrote $tmp/few"
pass
