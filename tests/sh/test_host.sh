#!/usr/bin/env bash
# Description: the host's command line: help, version, engines, exit statuses
# and one-line messages for bad input, tracebacks for script errors.
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)

out=$("$LUABENCH" --help) || fail "--help exit"
contains "$out" "usage: luabench" "--help usage"
contains "$out" "blocksize" "--help lists options from the table"
contains "$out" "iodepth" "--help lists iodepth"
"$LUABENCH" --version | grep -q '^luabench [0-9]' || fail "--version"
# the commit of the build: one of the source's (a later commit needs no rebuild to pass)
v=$("$LUABENCH" --version)
c=$(echo "$v" | sed -n 's/.*(commit \([0-9a-f]\{12\}\)\(-dirty\)\{0,1\})$/\1/p')
if git -C "$LB_SRC" rev-parse HEAD >/dev/null 2>&1; then
  [ -n "$c" ] || fail "--version names no commit: $v"
  git -C "$LB_SRC" merge-base --is-ancestor "$c" HEAD || fail "--version: $c is not a commit of the source"
fi
out=$("$LUABENCH" --list-engines) || fail "--list-engines exit"
for e in null sync psync pvsync2 libaio posixaio io_uring mmap; do
  contains "$out" "$e" "--list-engines names $e"
done

expect_exit 2 "unknown option '--bogus'" "$LUABENCH" --bogus
expect_exit 2 "cannot open script" "$LUABENCH" "$tmp/missing.lua"
expect_exit 2 "usage:" "$LUABENCH"

printf 'local x = = 1\n' > "$tmp/syntax.lua"
expect_exit 2 "syntax.lua:1:" "$LUABENCH" "$tmp/syntax.lua"

printf 'lb.run{ioengine="null", size="1m", blocksze="4k"}\n' > "$tmp/typo.lua"
expect_exit 2 "unknown option 'blocksze' (did you mean 'blocksize'?)" "$LUABENCH" "$tmp/typo.lua"
lines=$(wc -l < "$LB_ERR")
[ "$lines" -eq 1 ] || fail "bad option gives one line, got $lines"
contains "$(cat "$LB_ERR")" "typo.lua:1:" "message names the script line"

printf 'lb.run{ioengine="null", size="1m", bs=0}\n' > "$tmp/bs0.lua"
expect_exit 2 "'bs'" "$LUABENCH" "$tmp/bs0.lua"

printf 'lb.run{ioengine="nosuch", size="1m"}\n' > "$tmp/eng.lua"
expect_exit 2 "unknown engine 'nosuch'" "$LUABENCH" "$tmp/eng.lua"

printf 'local function f() error("boom") end\nf()\n' > "$tmp/rt.lua"
expect_exit 1 "rt.lua:1: boom" "$LUABENCH" "$tmp/rt.lua"
contains "$(cat "$LB_ERR")" "stack traceback" "runtime errors carry a traceback"

# a run that fails (not the script's own error) is one line and exit 1
printf 'lb.run{ioengine="psync", filename="%s/no/such/dir/f", size="64k", rw="read"}\n' "$tmp" > "$tmp/fail.lua"
expect_exit 1 "fail.lua:1: cannot create $tmp/no/such/dir/f: No such file or directory" "$LUABENCH" "$tmp/fail.lua"
lines=$(wc -l < "$LB_ERR")
[ "$lines" -eq 1 ] || fail "a failed run gives one line, got $lines: $(cat "$LB_ERR")"
[ ! -e "$tmp/no" ] || fail "a failed run made $tmp/no"
mkdir "$tmp/ds"
printf 'lb.train{dir="%s/ds", files=2, sample_size=4096, format="npz", epochs=1, batch_size=1, compute_time=0}\n' "$tmp" > "$tmp/train.lua"
"$LUABENCH" "$tmp/train.lua" > /dev/null || fail "lb.train lays out and reads 2 files"
printf 'cut' > "$tmp/ds/img_000001.npz"
expect_exit 1 "train.lua:1: lb.train: read $tmp/ds/img_000001.npz: not a zip file (too short)" "$LUABENCH" "$tmp/train.lua"
lines=$(wc -l < "$LB_ERR")
[ "$lines" -eq 1 ] || fail "a failed training run gives one line, got $lines: $(cat "$LB_ERR")"

printf 'print(args.size, args.mode, #arg)\n' > "$tmp/args.lua"
out=$("$LUABENCH" "$tmp/args.lua" size=4k mode=fast) || fail "args script"
[ "$out" = "$(printf '4k\tfast\t2')" ] || fail "args table: $out"

printf 'return 3\n' > "$tmp/ret.lua"
expect_exit 3 "" "$LUABENCH" "$tmp/ret.lua"
pass
