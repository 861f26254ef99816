#!/usr/bin/env bash
# Description: lb.train format=npz compression="zip" lays out what
# numpy.savez_compressed writes (DLIO's compression: zip): x.npy and y.npy
# deflated, which Python's zipfile checks (testzip) and np.load reads with
# x of shape (sample bytes, samples); each sample is read as np.load reads
# a deflated member (its first 4 KiB, then transfer_size pieces, counted
# with strace), inflated and its CRC checked (a flipped byte fails naming
# the file); the dataset is reused by the next run, a run asking for
# compression="none" is refused (exit 2) and relayout=1 rewrites it
# stored; npz files numpy.savez_compressed made are read through a glob,
# each sample at its own size in DLIO's MB/s; zip with another format, gzip
# (hdf5's) with npz, and an unknown compression are refused.
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local t = {dir = args.dir, files = 4, samples_per_file = 2, sample_size = "10k",
           batch_size = 1, compute_time = 0, shuffle = "none", format = args.format or "npz",
           compression = args.c, relayout = args.re == "1"}
if args.glob then t.dir, t.files = args.glob, nil end
local r = lb.train(t)
print(string.format("samples=%d laid=%d rewritten=%d mean=%.1f", r.samples, r.layout.files,
                    r.layout.rewritten, r.dlio_mb_per_s * 1048576 / r.dlio_samples_per_s))
LUA
lb() { "$LUABENCH" --quiet run.lua "$@"; }
if ! out=$(lb dir="$tmp/z" c=zip 2>&1); then
  case "$out" in *"needs zlib"*) skip "this build has no zlib" ;; esac
  fail "compressed layout: $out"
fi
contains "$out" "samples=8 laid=4 rewritten=0 mean=10240.0" "compressed npz laid out and read"

py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import numpy' 2>/dev/null; then py=$p; break; fi
done
if [ -n "$py" ]; then
  "$py" - "$tmp/z/shard_0001.npz" <<'PY' || fail "numpy refused the compressed npz"
import sys, zipfile, numpy
z = zipfile.ZipFile(sys.argv[1])
assert [i.compress_type for i in z.infolist()] == [zipfile.ZIP_DEFLATED] * 2
assert z.testzip() is None
a = numpy.load(sys.argv[1])
assert a["x"].shape == (10240, 2) and a["x"].dtype == numpy.uint8, a["x"].shape
assert a["y"].shape == (2,) and not a["y"].any()
PY
else
  echo "note: no python3 with numpy: the files are not checked with numpy" >&2
fi

if command -v strace >/dev/null && strace -f -e trace=pread64 -o /dev/null true 2>/dev/null; then
  env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -y -e trace=pread64 -o st.txt "$LUABENCH" --quiet run.lua dir="$tmp/z" c=zip >/dev/null ||
    fail "traced run"
  n=$(grep -cF "$tmp/z/shard_" st.txt)
  [ "$n" -eq 56 ] || fail "preads: $n, expected 8 x (end, locator, directory, local header, name, 2 data)"
  grep -F "$tmp/z/shard_0000.npz" st.txt | sed -n 6p | grep -qE 'pread64\(.*, 4096, [0-9]+\) = 4096' ||
    fail "the member's first read is not zipfile's 4 KiB: $(grep -F shard_0000 st.txt | sed -n 6p)"
fi

out=$(lb dir="$tmp/z" c=zip) || fail "reuse"
contains "$out" "laid=0" "a second run reuses the deflated files"
expect_exit 2 "was laid out with compression=zip, this run asks for compression=none: relayout=1 rewrites it" \
  "$LUABENCH" --quiet run.lua dir="$tmp/z"
out=$(lb dir="$tmp/z" re=1 2>/dev/null) || fail "relayout"
contains "$out" "laid=4 rewritten=4" "relayout rewrites the dataset stored"
[ "$(stat -c %s "$tmp/z/shard_0000.npz")" -gt 20700 ] || fail "not rewritten stored"

out=$(lb dir="$tmp/c" c=zip) || fail "second compressed layout"
printf 'XXXX' | dd of="$tmp/c/shard_0002.npz" bs=1 seek=9000 conv=notrunc status=none
expect_exit 1 "shard_0002.npz: x.npy: bad" "$LUABENCH" --quiet run.lua dir="$tmp/c" c=zip

if [ -n "$py" ]; then
  mkdir "$tmp/np"
  "$py" - "$tmp/np" <<'PY' || fail "numpy.savez_compressed"
import sys, numpy
rng = numpy.random.default_rng(1)
for k in (4096, 12288):
    numpy.savez_compressed("%s/n%d.npz" % (sys.argv[1], k),
                           x=rng.integers(0, 256, (k, 2), dtype=numpy.uint8), y=[0, 0])
PY
  out=$(lb glob="$tmp/np/*.npz") || fail "numpy's compressed npz through a glob"
  contains "$out" "samples=4 laid=0 rewritten=0 mean=8192.0" "numpy's files, each sample at its size"
fi
expect_exit 2 'compression="zip" is for format=npz' "$LUABENCH" --quiet run.lua dir="$tmp/r" c=zip format=raw
expect_exit 2 'compression="gzip" is for format=hdf5' "$LUABENCH" --quiet run.lua dir="$tmp/r" c=gzip
expect_exit 2 "field 'compression'" "$LUABENCH" --quiet run.lua dir="$tmp/r" c=lzf
pass
