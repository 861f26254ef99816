#!/usr/bin/env bash
# Description: lb.train and lb.meta draw one live line on stdout, like
# fio's status line and a plain lb.run's -- "Train: 2 accelerators: [epoch
# 1/2][50.0%][r=1.8MiB/s][28.3 samples/s][eta 00m:01s]", "Meta: 2 threads:
# [create][40.0%][w=...][... ops/s][eta ...]" -- redrawn about once a second
# and once more with the whole run's figures at its end: under a
# pseudo-terminal (script -qc) and with --eta=always (--eta-newline ends
# each line); never without a terminal, with --eta=never or --quiet.  A
# script's own progress function is still called.
. "$(dirname "$0")/lib.sh"
command -v script >/dev/null || skip "script (util-linux) is needed for a pseudo-terminal"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"

# two epochs of 4 steps of 300 ms: each epoch lasts more than the second
# between two lines
cat > long.lua <<'LUA'
local calls = 0
local r = lb.train{dir = "ds", files = 32, sample_size = "64k", batch_size = 4, read_threads = 2,
                   epochs = 2, accelerators = 2, compute_time = "300ms",
                   progress = args.own and function(done, total, phase) calls = calls + 1 end or nil}
print("samples=" .. r.samples .. (args.own and (" calls=" .. calls) or ""))
LUA
cat > short.lua <<'LUA'
local r = lb.train{dir = "ds2", files = 8, sample_size = "4k", batch_size = 2, epochs = 1}
local m = lb.meta{dir = "md", files = 200, size = "4k", threads = 2, ops = {"create", "stat", "read", "unlink"}}
print("samples=" .. r.samples .. " files=" .. m.files)
LUA
T='Train: 2 accelerators: \[epoch [12]/2\]\[[0-9.]+%\]\[r=[0-9.]+[KMGT]?i?B/s\]\[[0-9.]+[kMG]? samples/s\]\[eta [0-9]{2}m:[0-9]{2}s\]'
M='Meta: 2 threads: \[create,stat,read,unlink\]\[100\.0%\]\[rw=[0-9.]+[KMGT]?i?B/s\]\[[0-9.]+[kMG]? ops/s\]\[eta 00m:00s\]'
S='Train: 1 accelerator: \[epoch 1/1\]\[100\.0%\]'

# under a terminal: live lines, the last one at 100 %, then the result
script -qec "$LUABENCH long.lua" /dev/null > tty.txt </dev/null || fail "under a terminal: exit $?"
lines=$(tr '\r' '\n' < tty.txt)
[ "$(grep -cE "^$T\$" <<<"$lines")" -ge 2 ] || fail "under a terminal, lines: $(cat -A tty.txt | head -c 600)"
grep -qE "^Train: 2 accelerators: \[epoch 2/2\]\[100\.0%\].*\[eta 00m:00s\]$" <<<"$lines" ||
  fail "no last line at 100%: $(cat -A tty.txt | head -c 600)"
grep -aq "^samples=64" tty.txt || fail "no result after the line: $(cat -A tty.txt)"
script -qec "$LUABENCH short.lua" /dev/null > tty2.txt </dev/null || fail "short runs under a terminal: exit $?"
lines=$(tr '\r' '\n' < tty2.txt)
grep -qE "^$S" <<<"$lines" || fail "a short lb.train drew no line: $(cat -A tty2.txt)"
grep -qE "^$M\$" <<<"$lines" || fail "lb.meta drew no line: $(cat -A tty2.txt)"

# --eta=always without a terminal; --eta-newline=1 ends each line; the
# script's own progress function still called
"$LUABENCH" --eta=always --eta-newline=1 long.lua own=1 > a.txt 2>a.err </dev/null || fail "--eta=always: exit $?"
[ "$(grep -cE "^$T\$" a.txt)" -ge 2 ] || fail "--eta=always --eta-newline=1: $(cat -A a.txt | head -c 600)"
head -1 a.txt | grep -qE "^$T\$" || fail "--eta-newline=1: the first line is not whole: $(cat -A a.txt | head -c 600)"
grep -qE '^samples=64 calls=[1-9]' a.txt || fail "the script's progress function: $(tail -1 a.txt)"
[ ! -s a.err ] || fail "stderr with --eta=always: $(head -c 300 a.err)"
"$LUABENCH" --eta=always short.lua > a2.txt 2>/dev/null </dev/null || fail "--eta=always short: exit $?"
tr '\r' '\n' < a2.txt | grep -qE "^$M\$" || fail "--eta=always: no lb.meta line: $(cat -A a2.txt)"

# nothing without a terminal, with --eta=never, with --quiet
for how in plain never quiet; do
  case $how in
    plain) "$LUABENCH" short.lua > n.txt 2>n.err </dev/null || fail "no terminal: exit $?" ;;
    never) script -qec "$LUABENCH --eta=never short.lua" /dev/null > n.txt 2>n.err </dev/null || fail "--eta=never: exit $?" ;;
    quiet) script -qec "$LUABENCH --quiet short.lua" /dev/null > n.txt 2>n.err </dev/null || fail "--quiet: exit $?" ;;
  esac
  ! grep -aqE 'Train:|Meta:' n.txt n.err || fail "$how: a progress line: $(cat -A n.txt | head -c 300)"
  grep -aq '^samples=8 files=200' n.txt || fail "$how: no result: $(cat -A n.txt)"
done
"$LUABENCH" short.lua > p.txt 2>p.err </dev/null
[ "$(cat p.txt)" = "samples=8 files=200" ] && [ ! -s p.err ] || fail "without a terminal more was printed: $(cat -A p.txt p.err)"
pass
