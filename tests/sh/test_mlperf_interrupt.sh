#!/usr/bin/env bash
# Description: Ctrl-C (SIGINT) during scripts/mlperf.lua's third of four
# seeded runs ends it with 130: the two finished runs keep their rows, the
# stopped run is shown "(interrupted, not counted)", no fourth run starts,
# and the verdict says "INTERRUPTED after 2 of 4 runs" over the 2 runs,
# never PASS.  The same during find_max's count 2 keeps count 1's row and
# says the search was interrupted.  A watcher sends the signal once the
# second run's row is printed (each run takes about 2 s of compute).
# lb-test: serial
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)

# interrupt WAIT_FOR ARGS...: runs mlperf.lua with dir=$tmp/d, out in out;
# SIGINT to it once a line matching WAIT_FOR is in out
interrupt() {
  local want=$1; shift
  rm -f "$tmp/out"
  ( for _ in $(seq 1 3000); do
      if grep -qE "$want" "$tmp/out" 2>/dev/null; then
        pid=$(pgrep -f "mlperf.lua .*dir=$tmp/d" | head -1)
        [ -n "$pid" ] && kill -INT "$pid"
        exit 0
      fi
      sleep 0.01
    done ) &
  watcher=$!
  rc=0
  "$LUABENCH" --quiet scripts/mlperf.lua workload=unet3d scaled=1 sample_size=64k \
    compute_time=300ms epochs=1 warmup=0 dir="$tmp/d" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
  wait "$watcher"
}
cd "$LB_SRC" || fail "cd $LB_SRC"
out() { cat "$tmp/out"; }
interrupt '^ +2 ' files=42 runs=4
[ "$rc" -eq 130 ] || fail "runs: exit $rc, not 130: $(out) $(cat "$tmp/err")"
[ "$(grep -cE '^ +[12] +[0-9.]+% .* success$' "$tmp/out")" -eq 2 ] || fail "two finished runs: $(out)"
grep -qE '^ +3 .*\(interrupted, not counted\)$' "$tmp/out" || fail "run 3 marked: $(out)"
grep -qE '^ +4 ' "$tmp/out" && fail "a fourth run after the signal: $(out)"
contains "$(out)" "unet3d h100 x 1: INTERRUPTED after 2 of 4 runs" "verdict"
contains "$(out)" "over 2 runs (scaled)" "verdict's runs"
grep -q "PASS" "$tmp/out" && fail "an interrupted run passed: $(out)"
contains "$(cat "$tmp/err")" "interrupted by SIGINT" "the host's line"

interrupt '^ +1 +42 ' files=42 runs=1 find_max=1 max_accelerators=2
[ "$rc" -eq 130 ] || fail "find_max: exit $rc, not 130: $(out)"
grep -qE '^ +1 +42 ' "$tmp/out" || fail "count 1's row: $(out)"
contains "$(out)" "unet3d h100: find_max INTERRUPTED: the counts above are those it finished" \
  "find_max line"
grep -qE '^ +2 +42 ' "$tmp/out" && fail "count 2 judged after the signal: $(out)"
pass
