#!/usr/bin/env bash
# Description: lb.train format=npz|tfrecord|hdf5|raw lays out files in the
# container's layout (npz: a zip python's zipfile checks, x.npy of shape
# (sample bytes, samples) and y.npy; tfrecord: framed records our reader's
# CRC checks accept, a flipped byte refused naming the file) and reads them
# with the syscalls of the real readers, counted with strace on a tiny data
# set: npz per sample open, lseek, the zip end record, zip64 locator,
# central directory, local header, name, .npy magic and dict, then the data
# in transfer_size reads; tfrecord per file one open and a stream of
# transfer_size reads to the end; hdf5 per sample open, superblock, object
# headers, the sieve buffer or the chunk index and each chunk the sample
# touches.  direct=true npz
# (DLIO's O_DIRECT reader): per sample an O_DIRECT open, fstat and one read
# of the whole file rounded up to 4 KiB, the laid out set reused; numpy's
# own files, stored and deflated, read so too, a broken one refused.
# lb-test: labels noleak (Open MPI's own leaks, or LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
strace -f -e trace=pread64 -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local t = {dir = args.dir, files = 4, samples_per_file = 2, sample_size = "10k",
           batch_size = 2, read_threads = 1, compute_time = 0, shuffle = "none",
           format = args.format}
if args.transfer then t.transfer_size = args.transfer end
if args.direct then t.direct = args.direct == "1" end
if args.chunk then t.chunk_size = args.chunk end
local r = lb.train(t)
print(string.format("samples=%d bytes=%d laid=%d", r.samples, r.bytes, r.layout.files))
LUA

# trace FORMAT [k=v...]: the run's openat/pread64/lseek on the data set's
# files, one syscall name a line.
trace() {
  local f=$1; shift
  "$LUABENCH" --quiet run.lua dir="$tmp/$f" format="$f" "$@" > out.txt || fail "$f: run failed"
  strace -f -y -e trace=openat,pread64,read,lseek,fstat,newfstatat -o st.txt \
    "$LUABENCH" --quiet run.lua dir="$tmp/$f" format="$f" "$@" > out.txt || fail "$f: traced run failed"
  grep -F "$tmp/$f/shard_" st.txt | sed -E 's/^[0-9]+ +//; s/\(.*//' | grep -v '^<'
}
count() { printf '%s\n' "$1" | grep -cx "$2"; }
expect() { # what got want
  [ "$2" -eq "$3" ] || fail "$1: $2, expected $3"
}

# npz: 8 samples; x.npy holds 2 x 10240 bytes, one read at 256 KiB
s=$(trace npz)
contains "$(cat out.txt)" "samples=8" "npz samples"
expect "npz opens (one per sample)" "$(count "$s" openat)" 8
expect "npz lseek to the end" "$(count "$s" lseek)" 8
expect "npz preads (7 + 1 data read per sample)" "$(count "$s" pread64)" 64
s=$(trace npz transfer=4k)
expect "npz preads at 4k (7 + 5 per sample)" "$(count "$s" pread64)" 96
grep -F "$tmp/npz/shard_0000.npz" st.txt | grep -q 'pread64(.*, 4096, ' ||
  fail "npz data not read in 4 KiB pieces"

# npz with direct=true: the files of the run above, each sample's read whole
# with O_DIRECT in one pread of 24576 bytes (20986 rounded up to 4 KiB)
probe=$(mktemp "$tmp/probe.XXXXXX")
if python3 -c 'import os,sys; os.close(os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT))' "$probe" 2>/dev/null; then
  size=$(stat -c %s "$tmp/npz/shard_0000.npz")
  s=$(trace npz direct=1)
  contains "$(cat out.txt)" "samples=8 bytes=$((8 * size)) laid=0" "npz direct: the laid out set read whole"
  expect "npz direct opens (8 and the first file's probe)" \
    "$(grep -F "$tmp/npz/shard_" st.txt | grep -c 'openat(.*O_DIRECT')" 9
  expect "npz direct fstat" "$(count "$s" newfstatat)" 8
  expect "npz direct preads (one a sample)" "$(count "$s" pread64)" 8
  expect "npz direct lseeks" "$(count "$s" lseek)" 0
  grep -F "$tmp/npz/shard_0001.npz" st.txt | grep -q "pread64(.*, 24576, 0) = $size" ||
    fail "npz direct: not one read of 24576 bytes at 0: $(grep -F shard_0001 st.txt | head -3)"
  if python3 -c 'import numpy' 2>/dev/null; then
    mkdir "$tmp/np"
    python3 - "$tmp/np" <<'PY' || fail "numpy could not write the npz files"
import sys, numpy as np
for i in range(3):
    x = np.arange(5000 + 4096 * i, dtype=np.uint8).reshape(-1, 1)
    np.savez(f"{sys.argv[1]}/s_{i}.npz", x=x, y=np.zeros(1))
    np.savez_compressed(f"{sys.argv[1]}/z_{i}.npz", x=x, y=np.zeros(1))
PY
    cat > np.lua <<'LUA'
local r = lb.train{dir = args.dir, format = "npz", batch_size = 1, read_threads = 1,
                   compute_time = 0, direct = true}
print(string.format("samples=%d bytes=%d", r.samples, r.bytes))
LUA
    for k in s z; do
      want=$(cat "$tmp"/np/${k}_*.npz | wc -c)
      out=$("$LUABENCH" --quiet np.lua dir="$tmp/np/${k}_*.npz") || fail "numpy's $k files, direct: exit $?"
      contains "$out" "samples=3 bytes=$want" "numpy's $k files read whole with direct=true"
    done
    printf 'XX' | dd of="$tmp/np/z_1.npz" bs=1 seek=100 conv=notrunc status=none
    expect_exit 1 "z_1.npz: x.npy: " "$LUABENCH" --quiet np.lua dir="$tmp/np/z_*.npz"
    # an npz without x.npy; one cut inside its first member
    python3 -c 'import sys, numpy as np; np.savez(sys.argv[1], y=np.zeros(3))' "$tmp/np/noxa.npz"
    expect_exit 1 "noxa.npz: no member x.npy in the npz file" \
      "$LUABENCH" --quiet np.lua dir="$tmp/np/noxa.npz"
    head -c 2000 "$tmp/np/s_2.npz" > "$tmp/np/cut.npz"
    expect_exit 1 "cut.npz: not a zip file (a member past the end)" \
      "$LUABENCH" --quiet np.lua dir="$tmp/np/cut.npz"
  fi
else
  echo "O_DIRECT is not supported in $tmp: the direct npz reads are not checked"
fi
expect_exit 2 "direct reads need format=raw or npz" \
  "$LUABENCH" --quiet run.lua dir="$tmp/tfrecord" format=tfrecord direct=1

# tfrecord: 4 files streamed once, 20588 bytes each, read to the end of
# file, but the last: its last record completes the epoch's last batch and
# the stream stops there (tf.data's take)
s=$(trace tfrecord)
expect "tfrecord opens (one per file)" "$(count "$s" openat)" 4
expect "tfrecord reads (the file, then end of file)" "$(count "$s" pread64)" 7
s=$(trace tfrecord transfer=4k)
expect "tfrecord reads at 4k (6 + end of file)" "$(count "$s" pread64)" 27
grep -F "$tmp/tfrecord/shard_0000.tfrecord" st.txt | grep -E 'pread64' | head -1 | grep -q ', 4096, 0)' ||
  fail "tfrecord stream does not start with a 4 KiB read at 0"

# hdf5 (test_train_hdf5.sh has more): contiguous, per sample 3 superblock
# reads, 2 object headers, the sieve buffer; 4k chunks: the Fixed Array's
# header and data block, then 3 chunks
s=$(trace hdf5)
expect "hdf5 opens (one per sample)" "$(count "$s" openat)" 8
expect "hdf5 preads (6 per sample)" "$(count "$s" pread64)" 48
rm -rf "$tmp/hdf5"
s=$(trace hdf5 chunk=4k)
expect "hdf5 preads with 4k chunks (7 + 3 chunks per sample)" "$(count "$s" pread64)" 80

# raw: packed files opened once, one pread per sample
s=$(trace raw)
expect "raw preads" "$(count "$s" pread64)" 8

# the bytes on disk
if command -v python3 >/dev/null; then
  python3 - "$tmp/npz/shard_0001.npz" <<'PY' || fail "npz rejected by python's zipfile"
import ast, struct, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
assert z.namelist() == ["x.npy", "y.npy"], z.namelist()
assert z.testzip() is None
for n, shape, data in (("x.npy", (10240, 2), 20480), ("y.npy", (2,), 16)):
    info = z.getinfo(n)
    assert info.compress_type == zipfile.ZIP_STORED
    d = z.read(n)
    assert d[:8] == b"\x93NUMPY\x01\x00", d[:8]
    hl = struct.unpack("<H", d[8:10])[0]
    assert (10 + hl) % 64 == 0
    h = ast.literal_eval(d[10:10 + hl].decode("latin1"))
    assert h["shape"] == shape and not h["fortran_order"], h
    assert len(d) - 10 - hl == data
PY
fi
command -v python3 >/dev/null && { python3 - "$tmp/tfrecord/shard_0002.tfrecord" <<'PY' || fail "tfrecord framing"; }
import struct, sys
d = open(sys.argv[1], "rb").read()
o = n = 0
while o < len(d):
    (l,) = struct.unpack("<Q", d[o:o + 8]); o += 16 + l; n += 1
assert o == len(d) and n == 2
PY
# a flipped byte inside a record's data: the CRC check names the file
f="$tmp/tfrecord/shard_0002.tfrecord"
printf 'X' | dd of="$f" bs=1 seek=5000 conv=notrunc status=none
expect_exit 1 "shard_0002.tfrecord: not a TFRecord file: data CRC mismatch in record 0" \
  "$LUABENCH" --quiet run.lua dir="$tmp/tfrecord" format=tfrecord

# four accelerators over four one-record files: none holds a batch of two
cat > few.lua <<'LUA'
lb.train{dir = args.dir, files = 4, samples_per_file = 1, sample_size = "4k", batch_size = 2,
         accelerators = 4, read_threads = 1, compute_time = 0, format = "tfrecord"}
LUA
expect_exit 2 "every accelerator's files (files / accelerators of all ranks) must hold at least batch_size records" \
  "$LUABENCH" --quiet few.lua dir="$tmp/few"
[ ! -e "$tmp/few" ] || [ -z "$(ls -A "$tmp/few")" ] || fail "a refused run laid out files in $tmp/few"
pass
