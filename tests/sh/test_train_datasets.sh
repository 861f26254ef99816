#!/usr/bin/env bash
# Description: lb.train never silently rewrites a dataset laid out with
# other parameters: a changed sample_size or direct (where it rounds sizes)
# is refused with exit 2 naming the parameter and both values, and the
# files' sha256 and mtime stay as they were; so is a file of another size
# in a dataset without luabench's record; relayout=1 rewrites the files and
# says so on stderr.  More files extend a dataset without rewriting it.
# The layout record's name does not end in the files' extension; a record
# under its earlier name is still read and gives way to the new name.
# num_subfolders=3 spreads the files over d0000..d0002 (file f in f % 3).
# dir= a glob or a list reads an existing tree of any names as it is (raw
# sizes from the files, npz through its zip directory), creating nothing
# in it and changing nothing; a glob matching nothing is refused (exit 2).
# DLIO's MB/s of such a dataset counts each sample at its own size (raw:
# the file's size over its samples; npz: x's array; tfrecord: the record),
# also with files of different sizes.
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local t = {dir = args.dir, files = tonumber(args.files or 4), samples_per_file = 2,
           sample_size = args.size or "10k", batch_size = tonumber(args.bs or 2), compute_time = 0,
           format = args.format, relayout = args.relayout == "1", direct = args.direct == "1",
           num_subfolders = tonumber(args.sub), shuffle = "none"}
if args.list then
  t.dir = {}
  for p in args.list:gmatch("[^,]+") do t.dir[#t.dir + 1] = p end
  t.files = nil
end
if args.glob then t.dir, t.files = args.glob, tonumber(args.files) end
local r = lb.train(t)
print(string.format("samples=%d bytes=%d laid=%d rewritten=%d", r.samples, r.bytes,
                    r.layout.files, r.layout.rewritten))
if args.bs then   -- the mean sample size DLIO's MB/s stands on
  assert(r.dlio_samples_per_s > 0, "no DLIO throughput")
  print(string.format("mean=%.3f", r.dlio_mb_per_s * 1048576 / r.dlio_samples_per_s))
end
LUA
lb() { "$LUABENCH" --quiet run.lua "$@"; }
state() { (cd "$1" && find . -type f -printf '%p %T@\n' | sort && find . -type f | sort | xargs sha256sum); }

out=$(lb dir="$tmp/ds") || fail "layout"
contains "$out" "samples=8 bytes=81920 laid=4" "first run lays out 4 files"
before=$(state "$tmp/ds")
sleep 0.05
expect_exit 2 "was laid out with sample_size=10240, this run asks for sample_size=12288: relayout=1 rewrites it" \
  "$LUABENCH" --quiet run.lua dir="$tmp/ds" size=12k
[ "$(state "$tmp/ds")" = "$before" ] || fail "a refused run changed the dataset"
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "refusal not on one line: $(cat "$LB_ERR")"
expect_exit 2 "was laid out with direct=0, this run asks for direct=1" \
  "$LUABENCH" --quiet run.lua dir="$tmp/ds" direct=1
[ "$(state "$tmp/ds")" = "$before" ] || fail "a refused direct run changed the dataset"
out=$(lb dir="$tmp/ds") || fail "same parameters"
contains "$out" "laid=0 rewritten=0" "same parameters reuse"
[ "$(state "$tmp/ds")" = "$before" ] || fail "a reuse changed the dataset"

out=$("$LUABENCH" --quiet run.lua dir="$tmp/ds" size=12k relayout=1 2>err.txt) || fail "relayout"
contains "$out" "samples=8 bytes=98304 laid=4 rewritten=4" "relayout rewrites"
contains "$(cat err.txt)" "relayout=1: rewrote 4 files of $tmp/ds (laid out with sample_size=10240 (this run: 12288))" \
  "relayout said"
[ "$(stat -c %s "$tmp/ds/shard_0003.dat")" -eq 24576 ] || fail "not rewritten"
out=$(lb dir="$tmp/ds" size=12k files=6) || fail "extend"
contains "$out" "laid=2 rewritten=0" "more files: two laid out, none rewritten"
out=$(lb dir="$tmp/ds" size=12k files=3) || fail "fewer files"
contains "$out" "laid=0" "fewer files reuse"

# the record's name does not end in the files' extension (DLIO lists a
# folder by it); a record under its earlier name (.luabench-shard.dat) is
# still read, refuses as the record does, and gives way to the new name
[ "$(cd "$tmp/ds" && ls -A | grep -v '^shard_' | tr '\n' ' ')" = ".luabench-shard.dat.layout " ] ||
  fail "the dataset's own names: $(ls -A "$tmp/ds")"
mv "$tmp/ds/.luabench-shard.dat.layout" "$tmp/ds/.luabench-shard.dat"
expect_exit 2 "was laid out with sample_size=12288, this run asks for sample_size=10240" \
  "$LUABENCH" --quiet run.lua dir="$tmp/ds"
out=$(lb dir="$tmp/ds" size=12k files=7) || fail "extend under an earlier record"
contains "$out" "laid=1 rewritten=0" "an earlier record: one more file, none rewritten"
[ -f "$tmp/ds/.luabench-shard.dat.layout" ] && [ ! -e "$tmp/ds/.luabench-shard.dat" ] ||
  fail "the earlier record was not replaced: $(ls -A "$tmp/ds")"

# a dataset without the record: a file of another size is refused too
rm "$tmp/ds/.luabench-shard.dat.layout"
before=$(state "$tmp/ds")
expect_exit 2 "shard_0000.dat is 24576 bytes, not the 20480 this layout gives: laid out with other parameters" \
  "$LUABENCH" --quiet run.lua dir="$tmp/ds"
[ "$(state "$tmp/ds")" = "$before" ] || fail "a refused run changed the dataset without a record"

# num_subfolders
out=$(lb dir="$tmp/sub" sub=3 files=7) || fail "num_subfolders"
[ "$(cd "$tmp/sub" && find . -name 'shard_*' | sort | tr '\n' ' ')" = \
  "./d0000/shard_0000.dat ./d0000/shard_0003.dat ./d0000/shard_0006.dat ./d0001/shard_0001.dat ./d0001/shard_0004.dat ./d0002/shard_0002.dat ./d0002/shard_0005.dat " ] ||
  fail "num_subfolders=3 layout: $(cd "$tmp/sub" && find . -name 'shard_*' | sort)"
expect_exit 2 "was laid out with num_subfolders=3, this run asks for num_subfolders=1" \
  "$LUABENCH" --quiet run.lua dir="$tmp/sub" files=7

# an existing tree of other names, read as it is
mkdir -p "$tmp/tree/a/b" "$tmp/tree/c"
head -c 8192 /dev/urandom > "$tmp/tree/a/b/one.bin"
head -c 4096 /dev/urandom > "$tmp/tree/c/two.bin"
head -c 2048 /dev/urandom > "$tmp/tree/c/three.bin"
lb dir="$tmp/npz" format=npz > /dev/null || fail "npz layout"
cp "$tmp/npz/shard_0001.npz" "$tmp/tree/c/sample.npz"
chmod -R a-w "$tmp/tree"
before=$(state "$tmp/tree")
out=$(lb glob="$tmp/tree/*/*.bin" files=2) || fail "glob of 2 files"
contains "$out" "samples=4 bytes=6144" "the glob's 2 files (c/three.bin, c/two.bin; a/b/one.bin is deeper)"
out=$(lb list="$tmp/tree/a/b/one.bin,$tmp/tree/c/two.bin") || fail "list"
contains "$out" "samples=4 bytes=12288" "a list of 2 files"
out=$(lb glob="$tmp/tree/c/*.npz" format=npz) || fail "npz glob"
contains "$out" "samples=2 bytes=" "npz through its directory"
[ "$(state "$tmp/tree")" = "$before" ] || fail "reading an existing tree changed it"
# files of different sizes: 8 samples of 4, 8 and 16 KiB, each sample at
# its own size in DLIO's MB/s (not sample_size's 10 KiB)
mkdir "$tmp/sizes"
for k in 4 8 16; do head -c $((k * 2048)) /dev/zero > "$tmp/sizes/f$k.bin"; done
out=$(lb glob="$tmp/sizes/*.bin" bs=1) || fail "raw files of 3 sizes"
contains "$out" "samples=6 bytes=57344" "raw: 6 samples of their files' sizes"
contains "$out" "mean=9557.333" "raw: DLIO's MB/s from the files' sizes, (4 + 8 + 16) / 3 KiB"
for k in 4 12; do
  for f in npz tfrecord; do
    lb dir="$tmp/$f$k" format=$f size=${k}k files=1 > /dev/null || fail "$f $k KiB layout"
    cp "$tmp/$f$k"/shard_0000.* "$tmp/sizes/$f$k.$f"
  done
done
out=$(lb glob="$tmp/sizes/*.npz" format=npz bs=1) || fail "npz of 2 sizes"
contains "$out" "mean=8192.000" "npz: x's array over its samples, (4 + 12) / 2 KiB"
rec() { echo $(( $(stat -c %s "$1") / 2 - 16 )); }   # 2 records of length+crc, data, crc
want=$(( ($(rec "$tmp/sizes/tfrecord4.tfrecord") + $(rec "$tmp/sizes/tfrecord12.tfrecord")) * 1000 / 2 ))
out=$(lb glob="$tmp/sizes/*.tfrecord" format=tfrecord bs=1) || fail "tfrecord of 2 sizes"
contains "$out" "mean=$((want / 1000)).$(printf %03d $((want % 1000)))" "tfrecord: the records' lengths"
expect_exit 2 "field 'dir': no file matches '$tmp/tree/*.none'" "$LUABENCH" --quiet run.lua glob="$tmp/tree/*.none"
expect_exit 2 "field 'files': 5, but dir names 2 files" "$LUABENCH" --quiet run.lua glob="$tmp/tree/*/*.bin" files=5
chmod -R u+w "$tmp/tree"
pass
