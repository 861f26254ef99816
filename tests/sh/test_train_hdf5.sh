#!/usr/bin/env bash
# Description: lb.train format=hdf5 lays out real HDF5 files (h5py opens
# them: records_0 uint8 (samples, sample bytes) holding the bytes written,
# labels int64 zeros; contiguous, chunked over a Fixed Array, paged, or one
# chunk) and reads them with libhdf5 1.10's syscalls per sample (open,
# fstat, flock, 3 superblock reads, lstat, 2 header reads, then the sieve
# buffer or the chunk index and chunks), counted with strace and, where
# h5py is there, compared read for read with h5py's own; h5py's files are
# read too; a bad checksum or a cut file fails naming it (exit 1), a data
# set of the earlier HDF5-like layout is refused (exit 2) or laid out again
# with relayout=1, and chunk counts past the writer's are refused (exit 2).
# num_dset_per_record=N lays out records_0 .. records_{N-1}, each (samples,
# sample bytes / N), and reads sample i of each as DLIO's reader does
# (f['records_k'][i] for each k), call for call as h5py reads its own such
# files (whose root group spills into continuation chunks) and luabench's;
# a count not dividing the sample, past 7, for another format, or other
# than the record's is refused (exit 2).
# compression="gzip" (compression_level, 4 by default) deflates the chunks
# as h5py's compression='gzip' does: its guessed chunk shape without
# chunk_size, each chunk the zlib stream compress2 makes at the level (kept
# when larger, as DLIO's random bytes make it), a filtered Fixed Array or
# single chunk; h5py reads the bytes and h5dump names the filter, and the
# files, luabench's and h5py's (one chunk, paged, above the 1 MiB chunk
# cache, level 0, compressible), are read call for call as h5py reads them
# (each chunk touched whole at its stored size, then inflated); gzip for
# another format, a level past 9 or other than the record's is refused
# (exit 2), a broken stream or a cut file fails naming it (exit 1).
# lb-test: labels noleak (LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
PY=
for p in python3 /usr/bin/python3; do
  "$p" -c 'import h5py' 2>/dev/null && PY=$p && break
done
[ -n "$PY" ] || echo "h5py is not installed: the files are not opened with h5py"
tracing=1
command -v strace >/dev/null || tracing=0
[ $tracing = 1 ] && { strace -f -e trace=pread64 -o /dev/null true 2>/dev/null || tracing=0; }
[ $tracing = 1 ] || echo "strace cannot trace here: the syscalls are not counted"

cat > run.lua <<'LUA'
local t = {dir = args.dir, files = 2, samples_per_file = tonumber(args.spf or 4),
           sample_size = args.size or "10k", batch_size = args.list and 1 or 2, read_threads = 1,
           compute_time = 0, shuffle = "none", format = "hdf5"}
if args.chunk then t.chunk_size = args.chunk end
if args.n then t.num_dset_per_record = tonumber(args.n) end
if args.fmt then t.format = args.fmt end
if args.relayout then t.relayout = true end
if args.gzip then t.compression = "gzip" end
if args.level then t.compression_level = tonumber(args.level) end
if args.list then t.dir = {args.dir}; t.files = 1 end
local r = lb.train(t)
print(string.format("samples=%d bytes=%d laid=%d", r.samples, r.bytes, r.layout.files))
LUA

# check.py FILE SPF SIZE [N [LEVEL [guess]]]: h5py's view of a file lb
# laid out (N datasets of SIZE / N bytes a sample), its bytes those on disk
# where the layout says they are; with LEVEL deflated, each chunk the
# stream zlib makes at LEVEL and, with guess, chunked as h5py guesses.
cat > check.py <<'PY'
import sys, zlib, h5py, numpy as np
from h5py._hl.filters import guess_chunk
path, spf, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
n = int(sys.argv[4]) if len(sys.argv) > 4 else 1
level = int(sys.argv[5]) if len(sys.argv) > 5 else None
raw = open(path, "rb").read()
def inflated(d, i, r, c):
    ci = d.id.get_chunk_info(i)
    z = raw[ci.byte_offset:ci.byte_offset + ci.size]
    u = zlib.decompress(z)
    assert ci.filter_mask == 0 and len(u) == r * c, ("chunk", i, ci)
    assert zlib.compress(u, level) == z, ("not zlib's stream at the level", i)
    return ci, np.frombuffer(u, np.uint8).reshape(r, c)
def check(d, size, first):
    assert d.shape == (spf, size) and d.dtype == np.uint8, (d.shape, d.dtype)
    a = d[:]
    if level is not None:
        assert d.compression == "gzip" and d.compression_opts == level, d.compression
        if "guess" in sys.argv[6:]:
            assert d.chunks == guess_chunk(d.shape, None, 1), d.chunks
        r, c = d.chunks
        for i in range(d.id.get_num_chunks()):
            ci, blk = inflated(d, i, r, c)
            y, x = ci.chunk_offset
            h, w = min(r, spf - y), min(c, size - x)
            assert (blk[:h, :w] == a[y:y + h, x:x + w]).all(), ("chunk", i)
        ci, blk = inflated(d, 0, r, c)
        stamp = np.frombuffer(blk.tobytes()[:16], np.uint64)   # stamped unfiltered
        assert not first or (ci.byte_offset % 4096 == 0 and stamp[1] == ci.byte_offset), stamp
        return d.chunks
    assert d.compression is None, d.compression
    if d.chunks is None:
        at = d.id.get_offset()
        assert (np.frombuffer(raw, np.uint8, spf * size, at).reshape(spf, size) == a).all()
    else:
        r, c = d.chunks
        for i in range(d.id.get_num_chunks()):
            ci = d.id.get_chunk_info(i)
            y, x = ci.chunk_offset
            blk = np.frombuffer(raw, np.uint8, r * c, ci.byte_offset).reshape(r, c)
            h, w = min(r, spf - y), min(c, size - x)
            assert (blk[:h, :w] == a[y:y + h, x:x + w]).all(), ("chunk", i)
    at = d.id.get_offset() if d.chunks is None else d.id.get_chunk_info(0).byte_offset
    stamp = np.frombuffer(raw[at:at + 16], np.uint64)   # luabench's stamp on the data
    assert (not first and at % 4096) or (at % 4096 == 0 and stamp[1] == at), (at, stamp)
    return d.chunks
with h5py.File(path, "r") as f:
    names = sorted(["labels"] + [f"records_{k}" for k in range(n)])
    assert sorted(f.keys()) == names, list(f.keys())
    l = f["labels"]
    assert l.shape == (spf,) and l.dtype == np.int64 and not l[:].any()
    for k in range(n):
        chunks = check(f[f"records_{k}"], size // n, k == 0)
    print("chunks", chunks)
PY

# lay NAME SPF SIZE [k=v...]: lays out dir NAME, checks its files with h5py.
lay() {
  local name=$1 spf=$2 size=$3; shift 3
  "$LUABENCH" --quiet run.lua dir="$tmp/$name" spf="$spf" size="$size" "$@" > out.txt ||
    fail "$name: the run failed"
  contains "$(cat out.txt)" "samples=$((2 * spf))" "$name: samples"
  [ -z "$PY" ] && return
  local bytes n=1 a level="" guess=guess
  bytes=$(numfmt --from=iec "${size^^}")
  for a in "$@"; do
    case $a in n=*) n=${a#n=} ;; gzip=*) level=${level:-4} ;; level=*) level=${a#level=} ;;
      chunk=*) guess= ;; esac
  done
  for f in "$tmp/$name"/shard_*.hdf5; do
    "$PY" check.py "$f" "$spf" "$bytes" "$n" $level ${level:+$guess} > py.txt 2>&1 ||
      fail "$name: h5py: $(tail -3 py.txt)"
  done
}
lay contig 4 10k
grep -q 'chunks None' py.txt 2>/dev/null || [ -z "$PY" ] || fail "contig: not contiguous"
lay chunk4k 4 10k chunk=4k
lay chunk2 4 10k chunk=20k
lay single 4 10k chunk=40k
lay paged 4 2k chunk=4
[ -z "$PY" ] || contains "$(cat py.txt)" "(1, 4)" "paged: chunks of 4 bytes"
lay multi 4 12k n=3
lay multik 4 12k n=3 chunk=2k
[ -z "$PY" ] || contains "$(cat py.txt)" "(1, 2048)" "multik: chunks of 2 KiB"
grep -qx 'num_dset_per_record 3' "$tmp/multi/.luabench-shard.hdf5.layout" ||
  fail "the record does not hold num_dset_per_record"
lay gz 4 10k gzip=1                     # h5py's chunks: (2, 5120)
[ -z "$PY" ] || contains "$(cat py.txt)" "(2, 5120)" "gz: h5py's guessed chunks"
lay gzk 4 10k chunk=4k gzip=1 level=9
lay gz0 4 10k gzip=1 level=0
lay gzone 2 1000 chunk=4000 gzip=1      # one chunk: its size in the layout
lay gzbig 2 3m chunk=3m gzip=1          # chunks above the chunk cache
lay gzpaged 1500 16 chunk=16 gzip=1     # a paged Fixed Array of filtered entries
lay gzmulti 4 12k n=3 gzip=1
grep -qx 'compression gzip (level 9)' "$tmp/gzk/.luabench-shard.hdf5.layout" ||
  fail "the record does not hold the gzip level"
if command -v h5dump >/dev/null; then
  h=$(h5dump -H "$tmp/chunk4k/shard_0000.hdf5")
  contains "$h" 'DATASPACE  SIMPLE { ( 4, 10240 ) / ( 4, 10240 ) }' "h5dump: records_0's shape"
  contains "$h" 'H5T_STD_U8LE' "h5dump: uint8"
  contains "$h" 'H5T_STD_I64LE' "h5dump: labels int64"
  h=$(h5dump -H -p "$tmp/gzk/shard_0001.hdf5")
  contains "$h" 'COMPRESSION DEFLATE { LEVEL 9 }' "h5dump: the deflate filter"
  contains "$h" 'CHUNKED ( 1, 4096 )' "h5dump: gzk's chunks"
  h5dump -d records_0 "$tmp/gzone/shard_0000.hdf5" > /dev/null ||
    fail "h5dump could not read the single deflated chunk"
  h5dump -d records_0 "$tmp/gzpaged/shard_0000.hdf5" > /dev/null ||
    fail "h5dump could not read the paged deflated chunks"
fi

# syscalls per sample: 8 samples of 10 KiB, 2 files of 4
# trace DIR ARGS...: the traced run's calls on the data set's files
trace() {
  local d=$1; shift
  strace -f -y -e trace=openat,pread64,newfstatat,flock -o st.txt \
    "$LUABENCH" --quiet run.lua dir="$d" "$@" > out.txt || fail "$d: traced run failed"
  grep -F "$d/shard_" st.txt | sed -E 's/^[0-9]+ +//; s/\(.*//' | grep -v '^<'
}
count() { printf '%s\n' "$1" | grep -cx "$2"; }
expect() { [ "$2" -eq "$3" ] || fail "$1: $2, expected $3"; }
if [ $tracing = 1 ]; then
  s=$(trace "$tmp/contig")
  expect "contiguous opens (one a sample)" "$(count "$s" openat)" 8
  expect "contiguous fstat and lstat" "$(count "$s" newfstatat)" 16
  expect "contiguous flock" "$(count "$s" flock)" 8
  expect "contiguous preads (3 superblock, 2 headers, the sieve)" "$(count "$s" pread64)" 48
  grep -F "$tmp/contig/shard_0000" st.txt | grep -q 'pread64(.*, 40960, 4096)' ||
    fail "contiguous: sample 0 not read through the sieve (40960 bytes at 4096)"
  grep -F "$tmp/contig/shard_0000" st.txt | grep -q 'pread64(.*, 512, 48)' ||
    fail "contiguous: no speculative 512-byte read of the root group's header"
  s=$(trace "$tmp/chunk4k" chunk=4k)
  expect "chunked preads (5, FAHD, FADB, 3 chunks)" "$(count "$s" pread64)" 80
  s=$(trace "$tmp/single" chunk=40k)
  expect "single chunk preads (5, the chunk)" "$(count "$s" pread64)" 48
  s=$(trace "$tmp/gz" gzip=1)
  expect "deflated preads (5, FAHD, FADB, 2 chunks)" "$(count "$s" pread64)" 72
  grep -F "$tmp/gz/shard_0000" st.txt | grep -q 'pread64(.*, 10251, 4096)' ||
    fail "deflated: chunk 0 not read whole at its stored size (10251 bytes at 4096)"
fi

if [ -n "$PY" ]; then
  # h5py's files: contiguous, chunked, two rows a chunk, paged, edge chunks
  "$PY" - "$tmp" <<'PY' || fail "h5py could not write its files"
import sys, h5py, numpy as np
for name, shape, chunks in (("c", (8, 4096), None), ("k", (8, 4096), (1, 4096)),
                            ("k2", (8, 4096), (2, 4096)), ("p", (1500, 512), (1, 512)),
                            ("e", (5, 3000), (2, 1000)), ("b", (4, 96000), None)):
    with h5py.File(f"{sys.argv[1]}/{name}.h5", "w", libver="latest") as f:
        data = np.arange(np.prod(shape), dtype=np.uint64).astype(np.uint8).reshape(shape)
        f.create_dataset("records_0", shape, dtype=np.uint8, data=data, chunks=chunks)
        f.create_dataset("labels", data=[0] * shape[0])
PY
  # and with num_dset_per_record's datasets (root groups of 3 and more
  # links continue in OCHK chunks, of 4 in two)
  "$PY" - "$tmp" <<'PY' || fail "h5py could not write its files of many datasets"
import sys, h5py, numpy as np
for name, n, shape, chunks in (("m2", 2, (8, 2048), None), ("m3", 3, (8, 2048), None),
                               ("m3k", 3, (8, 2048), (1, 1024)), ("m4", 4, (6, 1000), (2, 500)),
                               ("m7", 7, (4, 512), None)):
    with h5py.File(f"{sys.argv[1]}/{name}.h5", "w", libver="latest") as f:
        data = np.arange(np.prod(shape), dtype=np.uint64).astype(np.uint8).reshape(shape)
        for k in range(n):
            f.create_dataset(f"records_{k}", shape, dtype=np.uint8, data=data, chunks=chunks)
        f.create_dataset("labels", data=[0] * shape[0])
PY
  # and deflated: random bytes (stored larger), zeros, one chunk, a chunk
  # above the chunk cache, paged, level 0, edge chunks of a compressible array
  "$PY" - "$tmp" <<'PY' || fail "h5py could not write its deflated files"
import sys, h5py, numpy as np
rng = np.random.default_rng(7)
for name, shape, chunks, level, kind in (
        ("gr", (8, 4096), None, 4, "random"), ("gz", (8, 4096), None, 4, "zeros"),
        ("g1", (2, 1000), (2, 1000), 4, "random"), ("gb", (2, 3 << 20), (1, 3 << 20), 4, "random"),
        ("gp", (1500, 16), (1, 16), 6, "random"), ("g0", (4, 10240), None, 0, "random"),
        ("ge", (5, 3000), (2, 1000), 9, "arange")):
    if kind == "random":
        data = rng.integers(0, 256, shape, dtype=np.uint8)
    elif kind == "zeros":
        data = np.zeros(shape, np.uint8)
    else:
        data = np.arange(np.prod(shape), dtype=np.uint64).astype(np.uint8).reshape(shape)
    with h5py.File(f"{sys.argv[1]}/{name}.h5", "w", libver="latest") as f:
        f.create_dataset("records_0", shape, compression="gzip", compression_opts=level,
                         dtype=np.uint8, data=data, chunks=chunks)
        f.create_dataset("labels", data=[0] * shape[0])
PY
  # rd.py FILE SAMPLES [N]: DLIO's reads, each sample of each records_k
  cat > rd.py <<'PY'
import sys, h5py
n = int(sys.argv[3]) if len(sys.argv) > 3 else 1
for i in range(int(sys.argv[2])):
    f = h5py.File(sys.argv[1], "r")
    for k in range(n):
        f[f"records_{k}"][i]
    f.close()
PY
  calls() { grep -F "$f" "$1" | sed -E 's/^[0-9]+ +//' |
    sed -E 's/^pread64\(.*, ([0-9]+), ([0-9]+)\).*/pread64 \1 \2/' |
    sed -E 's/^(openat|newfstatat|flock)\(.*/\1/'; }
  # same F SAMPLES N: luabench reads F call for call as h5py does
  same() {
    strace -f -y -e trace=openat,pread64,newfstatat,flock -o h5py.st "$PY" rd.py "$f" "$2" "$3" ||
      fail "h5py could not read $f"
    strace -f -y -e trace=openat,pread64,newfstatat,flock -o lb.st \
      "$LUABENCH" --quiet run.lua dir="$f" list=1 spf="$2" n="$3" > /dev/null || fail "$f: traced"
    calls h5py.st > h5py.seq
    calls lb.st > lb.seq
    diff h5py.seq lb.seq > diff.txt || fail "$f: reads other than h5py's: $(head -8 diff.txt)"
  }
  for x in c:8:1 k:8:1 k2:8:1 p:1500:1 e:5:1 b:4:1 m2:8:2 m3:8:3 m3k:8:3 m4:6:4 m7:4:7 \
           gr:8:1 gz:8:1 g1:2:1 gb:2:1 gp:1500:1 g0:4:1 ge:5:1; do
    IFS=: read -r name n N <<< "$x"; f="$tmp/$name.h5"
    out=$("$LUABENCH" --quiet run.lua dir="$f" list=1 spf="$n" n="$N") || fail "$f: exit $?"
    contains "$out" "samples=$n " "h5py's $name.h5 read"
    [ $tracing = 1 ] || continue
    same "$f" "$n" "$N"
    [ "$N" -lt 3 ] || grep -q 'OCHK' h5py.st || fail "$name.h5: no continuation read by h5py"
  done
  for f in "$tmp"/multi/shard_0000.hdf5 "$tmp"/multik/shard_0001.hdf5 \
           "$tmp"/gzmulti/shard_0001.hdf5; do
    [ $tracing = 1 ] && same "$f" 4 3   # h5py's reads of luabench's files
  done
  for x in gz:4 gzk:4 gz0:4 gzone:2 gzbig:2 gzpaged:1500; do
    f="$tmp/${x%:*}/shard_0000.hdf5"
    [ $tracing = 1 ] && same "$f" "${x#*:}" 1
  done
  expect_exit 1 "no dataset records_2 in the root group" \
    "$LUABENCH" --quiet run.lua dir="$tmp/m2.h5" list=1 spf=8 n=3
fi

# num_dset_per_record that does not fit
expect_exit 2 "num_dset_per_record must divide sample_size" \
  "$LUABENCH" --quiet run.lua dir="$tmp/odd" size=10000 n=3
expect_exit 2 "num_dset_per_record: at most 7" \
  "$LUABENCH" --quiet run.lua dir="$tmp/odd" size=16k n=8
expect_exit 2 "num_dset_per_record is for format=hdf5" \
  "$LUABENCH" --quiet run.lua dir="$tmp/odd" n=2 fmt=npz
expect_exit 2 "laid out with num_dset_per_record=3, this run asks for num_dset_per_record=2" \
  "$LUABENCH" --quiet run.lua dir="$tmp/multi" spf=4 size=12k n=2
[ ! -e "$tmp/odd" ] || fail "a refused num_dset_per_record laid out files"

# compression="gzip" that does not fit
expect_exit 2 'compression="gzip" is for format=hdf5' \
  "$LUABENCH" --quiet run.lua dir="$tmp/odd" gzip=1 fmt=npz
expect_exit 2 "field 'compression_level' must be an integer from 0 to 9" \
  "$LUABENCH" --quiet run.lua dir="$tmp/odd" gzip=1 level=10
expect_exit 2 "laid out with compression=gzip (level 4), this run asks for compression=gzip (level 6)" \
  "$LUABENCH" --quiet run.lua dir="$tmp/gz" gzip=1 level=6
[ ! -e "$tmp/odd" ] || fail "a refused compression laid out files"
# a deflated chunk broken (its Adler-32 no longer agrees), a file cut in its chunks
cp "$tmp/gz/shard_0000.hdf5" "$tmp/zs.hdf5"
printf '\x01' | dd of="$tmp/zs.hdf5" bs=1 seek=$((4096 + 100)) conv=notrunc status=none
expect_exit 1 "zs.hdf5: records_0: a deflated chunk that does not inflate to its bytes" \
  "$LUABENCH" --quiet run.lua dir="$tmp/zs.hdf5" list=1
head -c 30000 "$tmp/gz/shard_0000.hdf5" > "$tmp/zc.hdf5"
expect_exit 1 "zc.hdf5: records_0: a chunk past the end of the file" \
  "$LUABENCH" --quiet run.lua dir="$tmp/zc.hdf5" list=1

# broken files: a superblock byte, a header byte, a file cut short
cp "$tmp/contig/shard_0000.hdf5" "$tmp/sb.hdf5"
printf '\x01' | dd of="$tmp/sb.hdf5" bs=1 seek=30 conv=notrunc status=none
expect_exit 1 "sb.hdf5: bad checksum in the HDF5 superblock" \
  "$LUABENCH" --quiet run.lua dir="$tmp/sb.hdf5" list=1
cp "$tmp/contig/shard_0000.hdf5" "$tmp/oh.hdf5"
printf '\x07' | dd of="$tmp/oh.hdf5" bs=1 seek=$((48 + 87 + 20)) conv=notrunc status=none
expect_exit 1 "oh.hdf5: bad checksum in the object header of records_0" \
  "$LUABENCH" --quiet run.lua dir="$tmp/oh.hdf5" list=1
head -c 20000 "$tmp/contig/shard_0001.hdf5" > "$tmp/cut.hdf5"
expect_exit 1 "cut.hdf5: HDF5 file cut short" "$LUABENCH" --quiet run.lua dir="$tmp/cut.hdf5" list=1
printf 'not hdf5' > "$tmp/foreign.hdf5"
expect_exit 1 "foreign.hdf5: not an HDF5 file" \
  "$LUABENCH" --quiet run.lua dir="$tmp/foreign.hdf5" list=1
printf '\x01' | dd of="$tmp/contig/shard_0001.hdf5" bs=1 seek=30 conv=notrunc status=none
expect_exit 1 "shard_0001.hdf5: bad checksum in the HDF5 superblock" \
  "$LUABENCH" --quiet run.lua dir="$tmp/contig"

# a data set of the earlier HDF5-like layout, as its record says
rec="$tmp/contig/.luabench-shard.hdf5.layout"
old=$(sed 's/^format .*/format hdf5/' "$rec")
printf '%s\n' "$old" > "$rec"          # in place: the file stays luabench's
expect_exit 2 "holds the HDF5-like files of an earlier luabench" \
  "$LUABENCH" --quiet run.lua dir="$tmp/contig"
out=$("$LUABENCH" --quiet run.lua dir="$tmp/contig" relayout=1 2>/dev/null) ||
  fail "relayout=1 of the HDF5-like set: exit $?"
contains "$out" "samples=8 " "relaid set read"
grep -qx 'format hdf5 libver=latest' "$rec" ||
  fail "the record does not say the files are HDF5 now"
[ -z "$PY" ] || "$PY" check.py "$tmp/contig/shard_0001.hdf5" 4 10240 > /dev/null ||
  fail "the relaid file is not HDF5 to h5py"

# chunks past what is written
expect_exit 2 "format=hdf5: chunk_size makes chunks of 4 GiB or more" \
  "$LUABENCH" --quiet run.lua dir="$tmp/many" size=8m chunk=1
expect_exit 2 "more than 2^24 chunks in a file" \
  "$LUABENCH" --quiet run.lua dir="$tmp/many" size=10m chunk=2 n=5   # 4M chunks, 5 datasets
pass
