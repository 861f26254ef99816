#!/usr/bin/env bash
# Description: at compute_time 0 an accelerator that is alone (one
# accelerator, or barrier=0 with a loader each) has its steps taken by the
# readers while it sleeps for a batch: the run reads and steps as before
# (128 steps of 4, 512 samples), with no futex wake and wait a batch
# (prefetch=256: the readers may read the whole epoch ahead, so they never
# wait for each other's batches to be taken in order).  Counted with
# strace -f: under 64 futex calls for 128 batches at compute 0 (the
# readers' and accelerator's per-run and per-epoch sleeps only), where a
# compute of 1 ns a step (the accelerator steps itself and waits for its
# batches), or two accelerators meeting at the barrier, make 96 or more.
# lb-test: labels noleak (LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null && strace -f -e trace=futex -o /dev/null true 2>/dev/null ||
  skip "no strace that can trace here"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local r = lb.train{dir = args.dir, files = 512, sample_size = "4k", batch_size = 4, epochs = 1,
                   compute_time = args.compute or 0, read_threads = 2, seed = 1, prefetch = 256,
                   accelerators = tonumber(args.acc or 1), barrier = args.barrier ~= "0"}
print(("steps %d samples %d"):format(r.steps, r.samples))
LUA
"$LUABENCH" -q run.lua dir="$tmp/d" >/dev/null || fail "lay out"
futexes() { # what args...
  local out
  out=$(strace -f -e trace=futex -o st.txt "$LUABENCH" -q run.lua dir="$tmp/d" "${@:2}") ||
    fail "$1: exit"
  [ "$out" = "steps 128 samples 512" ] || fail "$1: '$out'"
  grep -c 'futex(' st.txt
}
n=$(futexes "compute 0")
[ "$n" -lt 64 ] || fail "compute 0, one accelerator: $n futex calls for 128 batches"
n=$(futexes "barrier=0" acc=2 barrier=0)
[ "$n" -lt 64 ] || fail "two accelerators, barrier=0: $n futex calls for 128 batches"
n=$(futexes "compute 1ns" compute=1ns)
[ "$n" -ge 96 ] || fail "compute 1ns: $n futex calls for 128 batches (the accelerator steps itself)"
n=$(futexes "barrier" acc=2)
[ "$n" -ge 96 ] || fail "two accelerators at the barrier: $n futex calls for 128 batches"
pass
