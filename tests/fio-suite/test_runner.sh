#!/usr/bin/env bash
# Description: tests/fio-suite/run.py itself, on two quick tests of fio's
# suite (t0001, log_compression.py): it skips (77, one line) without the
# suite or without fio; with fio as the candidate --strict passes; with a
# candidate that fails, --strict exits 1 naming the tests, report mode
# exits 0, and the not-applicable list excuses what it names (a malformed
# entry is refused, exit 2); a candidate that hangs is killed at its time
# limit with nothing left running; the default candidate is luabench-fio.
. "$(dirname "$0")/../sh/lib.sh"   # fail/skip/pass, lb_tmpdir, expect_exit

command -v python3 >/dev/null || skip "python3 missing"
runner="$LB_SRC/tests/fio-suite/run.py"
t=$(lb_tmpdir)

# --- nothing to compare: exit 77 with one line ----------------------------------
out=$(python3 "$runner" --fio-tests "$t/none" 2>&1) && fail "missing suite: exit 0"
[ $? -eq 77 ] || fail "missing suite: expected exit 77: $out"
[ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "missing suite: one line expected: $out"
contains "$out" "$t/none has no t/run-fio-tests.py" "missing suite"

suite=${LB_FIO_TESTS:-$LB_SRC/../shared/fio-tests}
[ -f "$suite/t/run-fio-tests.py" ] || skip "fio's test suite absent ($suite)"
command -v fio >/dev/null || skip "fio is not installed"
out=$(python3 "$runner" --fio "$t/no-such-fio" --fio-tests "$suite" 2>&1) && fail "missing fio: exit 0"
[ $? -eq 77 ] || fail "missing fio: expected exit 77: $out"
contains "$out" "SKIP: fio is not installed" "missing fio"

quick=(--fio-tests "$suite" --only t0001,log_compression.py --work "$t/w")

# --- fio against itself: strict passes ---------------------------------------------
rm -rf "$t/w"
out=$(python3 "$runner" "${quick[@]}" --candidate "$(command -v fio)" --strict --json "$t/r.json") ||
  fail "fio as candidate, --strict: exit $?: $out"
contains "$out" "strict: fio passes every test fio passes" "fio vs fio"
python3 - "$t/r.json" <<'EOF' || fail "JSON of fio vs fio"
import json, sys
d = json.load(open(sys.argv[1]))
for n in ("t0001", "log_compression.py"):
    for side in ("fio", "candidate"):
        assert d["tests"][n][side]["verdict"] == "pass", (n, side, d["tests"][n][side])
assert d["tests"]["log_compression.py"]["candidate"]["checks"] == \
    {"log_store_compressed=False": "PASSED", "log_store_compressed=True": "PASSED"}
EOF

# --- a candidate that fails ----------------------------------------------------------
cat > "$t/bad-fio" <<'EOF'
#!/bin/sh
echo "bad-fio: no such option" >&2
exit 1
EOF
chmod +x "$t/bad-fio"
one=(--fio-tests "$suite" --only t0001 --work "$t/w" --candidate "$t/bad-fio")
rm -rf "$t/w"
out=$(python3 "$runner" "${one[@]}" --strict) && fail "bad candidate: strict exit 0"
[ $? -eq 1 ] || fail "bad candidate, --strict: expected exit 1: $out"
contains "$out" "strict: 1 test(s) fio passes and bad-fio does not" "bad candidate"
contains "$out" "t0001: fail: exit 1; stderr: bad-fio: no such option" "bad candidate t0001"
rm -rf "$t/w"
out=$(python3 "$runner" "${one[@]}") || fail "report mode: exit $?: $out"
contains "$out" "bad-fio: job tests 0 passed of 1 run (0 skipped)" "report summary"

# the list excuses a test, or one check of a script, and nothing else
printf '# excused\nt0001 reason one\nlog_compression.py:log_store_compressed=False reason two\n' > "$t/na"
rm -rf "$t/w"
out=$(python3 "$runner" "${quick[@]}" --candidate "$t/bad-fio" --strict --not-applicable "$t/na") &&
  fail "a script check left unexcused: strict exit 0"
contains "$out" "strict: 1 test(s) fio passes and bad-fio does not" "partly excused"
contains "$out" "log_compression.py:log_store_compressed=True: fio passes this check" "the check left"
contains "$out" "fail 0/2: exit 1; stderr: bad-fio: no such option" "script row"
contains "$out" "[not applicable: reason one]" "excused row"
printf 't0001\n' > "$t/na"
expect_exit 2 "$t/na:1: expected 'TEST reason'" python3 "$runner" --fio-tests "$suite" --not-applicable "$t/na"
printf 't0099 no such test\n' > "$t/na"
expect_exit 2 "$t/na:1: expected 'TEST reason'" python3 "$runner" --fio-tests "$suite" --not-applicable "$t/na"

# --- a candidate that hangs, with a child in its own session: all killed at the limit ---
cat > "$t/hung-fio" <<EOF
#!/bin/sh
setsid sleep 300 </dev/null >/dev/null 2>&1 &
echo \$! >> "$t/hung.pids"
echo \$\$ >> "$t/hung.pids"
exec sleep 300
EOF
chmod +x "$t/hung-fio"
rm -rf "$t/w"
out=$(python3 "$runner" --fio-tests "$suite" --only t0001 --work "$t/w" --candidate "$t/hung-fio" \
  --timeout-scale 0.05) || fail "hung candidate: exit $?: $out"
contains "$out" "killed after 3 s (hung)" "hung candidate"
[ -s "$t/hung.pids" ] || fail "the hung candidate never ran"
sleep 0.5
while read -r pid; do   # a zombie waiting for init to reap it is not running
  state=$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null) || continue
  [ -z "$state" ] || [ "$state" = Z ] || { kill "$pid"; fail "process $pid left running ($state)"; }
done < "$t/hung.pids"

# --- the default candidate: luabench fio -------------------------------------------------
rm -rf "$t/w"
out=$(python3 "$runner" --fio-tests "$suite" --only t0001 --work "$t/w" --luabench "$LUABENCH") ||
  fail "luabench candidate: exit $?: $out"
contains "$out" "runs $(dirname "$LUABENCH")/luabench-fio" "luabench candidate"
[ "$("$t/w/candidate-bin/fio" --version)" = "$("$LUABENCH" fio --version)" ] ||
  fail "the wrapper does not run luabench fio: $(cat "$t/w/candidate-bin/fio")"
pass
