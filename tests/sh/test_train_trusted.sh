#!/usr/bin/env bash
# Description: a dataset laid out earlier with the parameters its layout
# record holds is taken on the record's word (no file is looked at before
# the reads), and a file that turns out missing or short when it is read
# fails the run with exit 1 naming the file (one sample per file, packed,
# tfrecord cut at a record's end), the other files left as they were;
# relayout=1 checks every file and lays out again only the missing one;
# a record of other parameters is still refused (exit 2).  A list of
# existing files is sized as each is opened: a missing file, a directory,
# a FIFO or a file smaller than its samples fail the run naming it.
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local spf = tonumber(args.spf or 1)
local t = {dir = args.dir, files = tonumber(args.files or 6), samples_per_file = spf,
           sample_size = args.size or "4k", batch_size = 1, compute_time = 0,
           format = args.format, relayout = args.relayout == "1", shuffle = "none",
           epochs = 2}
if args.list then
  t.dir = {}
  for p in args.list:gmatch("[^,]+") do t.dir[#t.dir + 1] = p end
  t.files = nil
end
local r = lb.train(t)
print(string.format("samples=%d bytes=%d laid=%d rewritten=%d", r.samples, r.bytes,
                    r.layout.files, r.layout.rewritten))
LUA
lb() { "$LUABENCH" --quiet run.lua "$@"; }
state() { (cd "$1" && find . -type f -printf '%p %s %T@\n' | sort); }

# one sample per file: a removed file
out=$(lb dir="$tmp/one") || fail "layout"
contains "$out" "samples=12 bytes=49152 laid=6" "first run lays out 6 files"
rm "$tmp/one/img_000004.dat"
before=$(state "$tmp/one")
expect_exit 1 "read $tmp/one/img_000004.dat: No such file or directory" lb dir="$tmp/one"
grep -qF "relayout=1 checks every file" "$LB_ERR" || fail "no way out said: $(cat "$LB_ERR")"
[ "$(state "$tmp/one")" = "$before" ] || fail "a failed run changed the dataset"
# relayout=1 finds it missing and lays out that one alone
out=$(lb dir="$tmp/one" relayout=1) || fail "relayout of a missing file"
contains "$out" "samples=12 bytes=49152 laid=1 rewritten=0" "relayout lays out the missing file"
[ "$(stat -c %s "$tmp/one/img_000004.dat")" -eq 4096 ] || fail "missing file not laid out"
# a truncated file
truncate -s 1000 "$tmp/one/img_000002.dat"
expect_exit 1 "read $tmp/one/img_000002.dat: the file ends before byte 4096" lb dir="$tmp/one"
[ "$(stat -c %s "$tmp/one/img_000002.dat")" -eq 1000 ] || fail "a failed run rewrote the file"
out=$(lb dir="$tmp/one" relayout=1) || fail "relayout of a short file"
contains "$out" "laid=1 rewritten=1" "relayout rewrites the short file"
out=$(lb dir="$tmp/one") || fail "reuse"
contains "$out" "samples=12 bytes=49152 laid=0" "reused as recorded"
# a record of other parameters: refused as before, nothing changed
before=$(state "$tmp/one")
expect_exit 2 "was laid out with sample_size=4096, this run asks for sample_size=8192" \
  lb dir="$tmp/one" size=8k
[ "$(state "$tmp/one")" = "$before" ] || fail "a refused run changed the dataset"

# packed: the last sample lies past the end of a cut file
lb dir="$tmp/packed" spf=4 files=3 > /dev/null || fail "packed layout"
truncate -s 10000 "$tmp/packed/shard_0001.dat"
expect_exit 1 "read $tmp/packed/shard_0001.dat: the file ends before byte 12288" \
  lb dir="$tmp/packed" spf=4 files=3

# tfrecord cut after its first record: fewer records than laid out
lb dir="$tmp/tf" format=tfrecord spf=2 files=2 > /dev/null || fail "tfrecord layout"
half=$(( $(stat -c %s "$tmp/tf/shard_0001.tfrecord") / 2 ))
truncate -s "$half" "$tmp/tf/shard_0001.tfrecord"
expect_exit 1 "read $tmp/tf/shard_0001.tfrecord: 1 records, laid out with 2" \
  lb dir="$tmp/tf" format=tfrecord spf=2 files=2

# npz: a removed file
lb dir="$tmp/npz" format=npz files=2 > /dev/null || fail "npz layout"
rm "$tmp/npz/img_000001.npz"
expect_exit 1 "read $tmp/npz/img_000001.npz: No such file or directory" \
  lb dir="$tmp/npz" format=npz files=2

# a list of existing files, sized as they are opened
mkdir "$tmp/list" "$tmp/list/sub"
head -c 8192 /dev/zero > "$tmp/list/a"
head -c 4096 /dev/zero > "$tmp/list/b"
out=$(lb list="$tmp/list/a,$tmp/list/b") || fail "list"
contains "$out" "samples=4 bytes=24576" "each file read at its own size, both epochs"
expect_exit 1 "read $tmp/list/none: No such file or directory" lb list="$tmp/list/a,$tmp/list/none"
expect_exit 1 "read $tmp/list/sub: not a regular file" lb list="$tmp/list/a,$tmp/list/sub"
mkfifo "$tmp/list/fifo" || skip "no mkfifo"
expect_exit 1 "read $tmp/list/fifo: not a regular file" timeout 20 "$LUABENCH" --quiet run.lua \
  list="$tmp/list/fifo,$tmp/list/a"
: > "$tmp/list/empty"
expect_exit 1 "read $tmp/list/empty: 0 bytes hold fewer than samples_per_file = 1 samples" \
  lb list="$tmp/list/a,$tmp/list/empty"
pass
