#!/usr/bin/env bash
# Description: at compute_time 0 an accelerator that is alone (one
# accelerator, or barrier=0 with a loader each) has its steps taken by the
# readers while it sleeps for a batch: the run reads and steps as before
# (64 steps of 4, 256 samples), with no futex wake and wait a batch.
# Counted with strace -f: under 64 futex calls for 64 batches at compute
# 0 (the readers' and accelerator's per-run and per-epoch sleeps only),
# where a compute of 1 ms a step, or two accelerators meeting at the
# barrier, make one or more a batch.
# lb-test: labels noleak (LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null && strace -f -e trace=futex -o /dev/null true 2>/dev/null ||
  skip "no strace that can trace here"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local r = lb.train{dir = args.dir, files = 256, sample_size = "4k", batch_size = 4, epochs = 1,
                   compute_time = args.compute or 0, read_threads = 2, seed = 1,
                   accelerators = tonumber(args.acc or 1), barrier = args.barrier ~= "0"}
print(("steps %d samples %d"):format(r.steps, r.samples))
LUA
"$LUABENCH" -q run.lua dir="$tmp/d" >/dev/null || fail "lay out"
futexes() { # what args...
  local out
  out=$(strace -f -e trace=futex -o st.txt "$LUABENCH" -q run.lua dir="$tmp/d" "${@:2}") ||
    fail "$1: exit"
  [ "$out" = "steps 64 samples 256" ] || fail "$1: '$out'"
  grep -c 'futex(' st.txt
}
n=$(futexes "compute 0")
[ "$n" -lt 64 ] || fail "compute 0, one accelerator: $n futex calls for 64 batches"
n=$(futexes "barrier=0" acc=2 barrier=0)
[ "$n" -lt 64 ] || fail "two accelerators, barrier=0: $n futex calls for 64 batches"
n=$(futexes "compute 1ms" compute=1ms)
[ "$n" -ge 64 ] || fail "compute 1ms: $n futex calls for 64 batches (the accelerator steps itself)"
n=$(futexes "barrier" acc=2)
[ "$n" -ge 64 ] || fail "two accelerators at the barrier: $n futex calls for 64 batches"
pass
