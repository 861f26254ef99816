#!/usr/bin/env bash
# Description: when submission does the I/O (libaio on tmpfs copies the
# data inside io_submit), scripts/scaleout.lua says so in exactly one
# line on stderr, "note: slat is N% of lat ...", with one "note: " prefix,
# and its Markdown has the same sentence once behind "Note: ".
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
mkdir data
"$LUABENCH" "$LB_SRC/scripts/scaleout.lua" dir="$d/data" engine=libaio files=2 file_size=1m \
  runtime=0.2s modes=shared numjobs_shared=1 out="$d/r" >out.txt 2>err.txt ||
  fail "scaleout exit $?: $(cat err.txt)"
share=$("$LUABENCH" /dev/stdin file="$d/r.json" <<'LUA'
local f = assert(io.open(args.file)); local j = lb.json_decode(f:read("a")); f:close()
io.write(string.format("%.0f", 100 * (j.modes.shared.points[1].slat_share or 0)))
LUA
) || fail "reading r.json"
[ "$share" -gt 50 ] || skip "slat is only ${share}% of lat for libaio on this tmpfs"
want="note: slat is ${share}% of lat (the I/O is done at submission): clat alone misses it"
[ "$(grep -cxF "$want" err.txt)" -eq 1 ] || fail "stderr lacks the one line '$want': $(cat err.txt)"
grep -q "note: note:" err.txt && fail "a doubled prefix: $(cat err.txt)"
[ "$(grep -cxF "Note: ${want#note: }" r.md)" -eq 1 ] || fail "the Markdown note: $(grep -i note r.md)"
pass
