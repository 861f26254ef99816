#!/usr/bin/env bash
# Description: scripts/cern.lua keeps a journal like the other scripts: its
# first line names it, each finished run is appended; SIGINT, SIGTERM or
# SIGHUP (sent once the journal holds a chosen number of runs, during the
# procedure's pause) end it with 130/143/129, the runs finished printed
# and written in every out= format (json, md, csv, svg, html) marked
# partial; resume=JOURNAL runs only the missing runs and reports what an
# uninterrupted run would (the same sums, the same average); a changed
# parameter is refused (exit 2, its name and both values); the pause may
# change.
# lb-test: serial
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is needed to read the JSON"
S="$LB_SRC/scripts/cern.lua"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

points() { grep -c '"type":"point"' "$1" 2>/dev/null; }
# cern OUT JOURNAL N SIG ARGS...: runs cern.lua with out=OUT; once JOURNAL
# holds N runs (the script then pauses 120 s), sends SIG.  Sets rc.  The
# pause and the wait for the journal are long so that a loaded machine
# cannot end the pause before the signal comes; the signal ends it at once.
cern() {
  local o=$1 j=$2 n=$3 sig=$4 until=$((SECONDS + 120))
  shift 4
  rm -f out err
  "$LUABENCH" --quiet "$S" runs=3 pause=120 size=256k timeout=2s numjobs=2 out="$o" "$@" \
    >out 2>err </dev/null &
  local pid=$!
  while [ "$SECONDS" -lt "$until" ]; do
    [ "$(points "$j")" = "$n" ] && break
    kill -0 $pid 2>/dev/null || break
    sleep 0.05
  done
  kill -"$sig" $pid 2>/dev/null
  rc=0
  wait $pid || rc=$?
}
# check OUT JOURNAL N SIG: exit status, journal and every file of out=OUT
# after SIG with N runs finished
check() {
  local o=$1 j=$2 n=$3 sig=$4 f
  local want=$((128 + $(kill -l "$sig")))
  [ "$rc" -eq "$want" ] || fail "SIG$sig after $n runs: exit $rc, want $want: $(cat err)"
  [ "$(points "$j")" -eq "$n" ] || fail "SIG$sig: the journal holds $(points "$j") runs, want $n"
  contains "$(cat out)" "partial results: interrupted by SIG$sig" "SIG$sig text"
  for f in json md csv svg html; do
    [ -s "$o.$f" ] || fail "SIG$sig after $n runs: no $o.$f"
    grep -q "interrupted by SIG$sig" "$o.$f" || fail "$o.$f is not marked partial"
  done
  [ "$(grep -c '^cern,' "$o.csv")" -eq "$n" ] || fail "$o.csv: $(cat "$o.csv")"
  python3 - "$o.json" "$n" <<'PY' || fail "SIG$sig after $n runs: JSON"
import json, sys
d = json.load(open(sys.argv[1]))
n = int(sys.argv[2])
assert d["partial"] is True and d["cern"]["partial"] is True, d.get("reason")
assert [r["run"] for r in d["cern"]["runs"]] == list(range(1, n + 1)), d["cern"]["runs"]
assert len(d["cern"]["sums"]) == n and abs(d["cern"]["iops"] - sum(d["cern"]["sums"]) / n) < 1e-6
PY
}

# After the first run (in its pause), then resumed and stopped after the
# second: the resumed process runs run 2 at once and pauses before run 3.
for sig in INT TERM HUP; do
  cern a$sig a$sig.journal.jsonl 1 $sig
  [ "$(head -1 out)" = "journal: a$sig.journal.jsonl" ] || fail "first line: $(head -1 out)"
  check a$sig a$sig.journal.jsonl 1 $sig
  cern b$sig a$sig.journal.jsonl 2 $sig resume=a$sig.journal.jsonl
  check b$sig a$sig.journal.jsonl 2 $sig
done
cp aINT.journal.jsonl p2.journal.jsonl
cp bINT.json p2.json

# p2 stopped after 2 runs: resume runs only the third, with no pause
cp p2.journal.jsonl keep.jsonl
rc=0
"$LUABENCH" --quiet "$S" runs=3 pause=0 size=256k timeout=2s numjobs=2 out=r resume=p2.journal.jsonl \
  >out 2>err </dev/null || rc=$?
[ "$rc" -eq 0 ] || fail "resume: exit $rc: $(cat err)"
[ "$(head -1 out)" = "journal: p2.journal.jsonl (resumed: 2 points kept)" ] || fail "resume's first line: $(head -1 out)"
[ "$(points p2.journal.jsonl)" -eq 3 ] || fail "resume ran $(( $(points p2.journal.jsonl) - 2 )) runs, want 1"
head -c "$(stat -c %s keep.jsonl)" p2.journal.jsonl | cmp -s - keep.jsonl || fail "resume changed the journal's old lines"
[ "$(grep -c '^run [12]: (from the journal)$' out)" -eq 2 ] && grep -q '^run 3:$' out || fail "resume's runs: $(grep '^run' out)"
grep -q partial r.csv r.md && fail "a finished resume is marked partial"
python3 - p2.json r.json <<'PY' || fail "the resumed report"
import json, statistics, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert "partial" not in b and len(b["cern"]["sums"]) == 3, b.get("reason")
assert b["cern"]["sums"][:2] == a["cern"]["sums"], (a["cern"]["sums"], b["cern"]["sums"])
assert abs(b["cern"]["iops"] - statistics.mean(b["cern"]["sums"])) < 1e-6
assert abs(b["cern"]["sd"] - statistics.stdev(b["cern"]["sums"])) < 1e-6
PY
# the complete journal again: nothing runs, the same report
rc=0
"$LUABENCH" --quiet "$S" runs=3 size=256k timeout=2s numjobs=2 out=s resume=p2.journal.jsonl \
  >out2 2>err </dev/null || rc=$?
[ "$rc" -eq 0 ] && [ "$(points p2.journal.jsonl)" -eq 3 ] || fail "a complete journal resumed: exit $rc, $(points p2.journal.jsonl) runs"
[ "$(grep '^IOPS := ' out)" = "$(grep '^IOPS := ' out2)" ] || fail "resumed twice: $(grep '^IOPS' out) vs $(grep '^IOPS' out2)"
cmp -s r.csv s.csv || fail "a complete journal resumed writes another CSV"

expect_exit 2 "resume: parameter 'size' was 256k in p2.journal.jsonl, now 512k" \
  "$LUABENCH" --quiet "$S" runs=3 size=512k timeout=2s numjobs=2 resume=p2.journal.jsonl
pass
