#!/usr/bin/env bash
# Description: under a pseudo-terminal (script -qc) a ready script's
# progress line numbers the points of the whole plan (both modes: point
# 3/4 is the independent mode's first), its elapsed time counts from the
# start of the script and it carries an ETA; without a terminal, or with
# --quiet, stderr holds no progress line.  luabench fio draws fio's status
# line (Jobs: 1 (f=1): [R(1)][50.0%][r=...][r=... IOPS][eta 00m:01s]) on
# stdout under a terminal or with --eta=always, never with --eta=never or
# without a terminal; --eta-newline ends each line; a bad --eta exits 2.
# A script's plain lb.run draws the same line, and none inside a sweep.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "script (util-linux) is needed for a pseudo-terminal"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
S="$LB_SRC/scripts/scaleout.lua"
args="files=2 file_size=1m runtime=0.3s numjobs_shared=1,2 numjobs_independent=1,2 cache=none engine=psync"
COLUMNS=200 script -qec "$LUABENCH $S $args" /dev/null > tty.txt </dev/null || fail "under a terminal: exit $?"
lines=$(tr '\r' '\n' < tty.txt | sed 's/\x1b\[K//g')
for n in 1 2 3 4; do
  grep -qE "^\[[0-9.]+(ms|s) ETA [0-9.]+(ms|s)\] point $n/4 numjobs=" <<<"$lines" ||
    fail "no progress line for point $n/4: $(grep -a point <<<"$lines" | head -5)"
done
first3=$(grep -m1 "point 3/4" <<<"$lines")
case "$first3" in "[0ms"*) fail "the elapsed time restarted at point 3: $first3" ;; esac
grep -q "headline: " <<<"$lines" || fail "no report under a terminal"

"$LUABENCH" "$S" $args >out 2>err </dev/null || fail "without a terminal: exit $?"
! grep -q $'\r' err || fail "a progress line on stderr without a terminal: $(head -c 300 err)"
! grep -q "point 1/4" err || fail "progress text without a terminal"
COLUMNS=200 script -qec "$LUABENCH --quiet $S $args" /dev/null > q.txt </dev/null || fail "--quiet: exit $?"
! grep -q "point 1/4" q.txt || fail "a progress line with --quiet"

F="--name=x --ioengine=null --size=1g --runtime=2 --time_based"
re='Jobs: 1 \(f=1\): \[R\(1\)\]\[[0-9]+\.[0-9]%\]\[r=[0-9.]+[KMGT]?i?B/s\]\[r=[0-9.]+[kMG]? IOPS\]\[eta [0-9]{2}m:[0-9]{2}s\]'
script -qec "$LUABENCH fio $F" /dev/null > f.txt </dev/null || fail "fio under a terminal: exit $?"
tr '\r' '\n' < f.txt | grep -aqE "^$re" || fail "no status line under a terminal: $(head -c 400 f.txt)"
grep -aq "read: IOPS=" f.txt || fail "no report after the status line"
"$LUABENCH" fio $F >f2.txt 2>&1 </dev/null || fail "fio without a terminal: exit $?"
! grep -q "Jobs:" f2.txt || fail "a status line without a terminal: $(grep Jobs: f2.txt | head -c 200)"
"$LUABENCH" fio $F --eta=always --eta-newline=1 >f3.txt 2>&1 </dev/null || fail "--eta=always: exit $?"
grep -qE "^$re\$" f3.txt || fail "--eta=always --eta-newline=1: $(head -c 400 f3.txt | cat -A)"
script -qec "$LUABENCH fio $F --eta=never" /dev/null > f4.txt </dev/null || fail "--eta=never: exit $?"
! grep -aq "Jobs:" f4.txt || fail "a status line with --eta=never"
expect_exit 2 "--eta must be auto, always or never, not 'sometimes'" "$LUABENCH" fio $F --eta=sometimes

printf 'local r = lb.run{ioengine = "null", size = "1g", runtime = "2s", time_based = true}\nprint("ios=" .. r.read.total_ios)\n' > plain.lua
script -qec "$LUABENCH plain.lua" /dev/null > p.txt </dev/null || fail "plain lb.run under a terminal: exit $?"
tr '\r' '\n' < p.txt | grep -aqE "^$re" || fail "plain lb.run: no status line: $(head -c 300 p.txt)"
grep -aq "^ios=[1-9]" p.txt || fail "plain lb.run: no result printed"
"$LUABENCH" --eta=always --eta-newline=1s plain.lua > p2.txt 2>&1 </dev/null || fail "--eta=always: exit $?"
grep -qE "^$re\$" p2.txt || fail "plain lb.run --eta=always: $(head -c 300 p2.txt)"
"$LUABENCH" plain.lua > p3.txt 2>&1 </dev/null || fail "plain lb.run: exit $?"
[ "$(cat p3.txt)" = "$(grep ios= p3.txt)" ] || fail "plain lb.run without a terminal printed more: $(cat p3.txt)"
! grep -aq "Jobs:" tty.txt || fail "a sweep under a terminal drew fio's line too"
expect_exit 2 "--eta must be auto, always or never, not 'x'" "$LUABENCH" --eta=x plain.lua
pass
