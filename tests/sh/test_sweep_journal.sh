#!/usr/bin/env bash
# Description: a sweep keeps every finished point.  SIGINT, SIGTERM and
# SIGHUP sent at a point chosen by a hook or by the journal's length, a
# failing hook and a failing run end sweep.run with exactly the points
# finished before (in the journal, in the report, marked partial in text,
# CSV, JSON, Markdown and SVG) and exit 130/143/129/1; on_error=skip goes
# on; resume= reruns only the missing points (a changed parameter is
# refused, exit 2, naming it and both values) and a resumed sweep reports
# what the uninterrupted one did; scaleout.lua interrupted after its shared
# mode prints and writes that mode, and resumes with only the rest.
# lb-test: serial
. "$(dirname "$0")/lib.sh"

"$LUABENCH" --list-engines 2>/dev/null | grep -q '^null  *supported' || skip "no null engine"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

points() { grep -c '"type":"point"' "$1"; }

# A sweep over numjobs 1,2,4,8; the hook of point number $at sends $sig to
# the process (through a child, as a user's hook would), or raises.
cat > sw.lua <<'EOF'
local sweep = require "luabench.sweep"
local report = require "luabench.report"
local pid = io.open("/proc/self/stat"):read("l"):match("^(%d+)")
local at, sig, n = tonumber(args.at or 0), args.sig, 0
local sw = sweep.run{
  base = {name = "s", ioengine = "null", size = "1g", time_based = true,
          runtime = args.runtime or "50ms", null_lat = args.lat},
  vary = {{"numjobs", {1, 2, 4, 8}}},
  journal = args.journal, resume = args.resume, on_error = args.on_error,
  before_each = function(p)
    n = n + 1
    io.open("ran", "a"):write(p.params.numjobs, "\n"):close()
    if n == at and sig == "error" then error("hook broke at point " .. n) end
    if n == at and sig then io.popen("kill -" .. sig .. " " .. pid):close() end
  end,
}
print(string.format("points=%d partial=%s failed=%d resumed=%d", #sw.points, tostring(sw.partial),
                    #sw.failed, sw.resumed))
print(sw.reason or "")
report.write("r.csv", report.csv(sw))
report.write("r.json", report.json(sw))
report.write("r.md", report.markdown(sw))
report.write("r.svg", report.svg(sw))
io.write(report.text(sw), "\n")
EOF

# run ARGS...: the sweep, stdout in out, stderr in err, status in rc
run() {
  rm -f ran
  rc=0
  "$LUABENCH" sw.lua "$@" >out 2>err </dev/null || rc=$?
}

for case in "INT 130 2" "TERM 143 3" "HUP 129 2" "INT 130 1"; do
  set -- $case
  sig=$1 want=$2 at=$3
  rm -f j.jsonl
  run at="$at" sig="$sig" journal=j.jsonl
  [ "$rc" -eq "$want" ] || fail "SIG$sig at point $at: exit $rc, expected $want: $(cat err)"
  kept=$((at - 1))
  [ "$(points j.jsonl)" -eq "$kept" ] || fail "SIG$sig at point $at: journal has $(points j.jsonl) points"
  grep -q "^points=$kept partial=true" out || fail "SIG$sig at point $at: $(head -2 out)"
  grep -q "^interrupted by SIG$sig" out || fail "SIG$sig: reason: $(sed -n 2p out)"
  grep -q "partial results: interrupted by SIG$sig" out || fail "SIG$sig: text report: $(cat out)"
  [ "$(sed 1d r.csv | wc -l)" -eq "$kept" ] || fail "SIG$sig: CSV rows: $(cat r.csv)"
  head -1 r.csv | grep -q ',partial' || fail "SIG$sig: CSV has no partial column"
  grep -q '"partial":true' r.json || fail "SIG$sig: JSON not partial"
  grep -q 'partial results' r.md || fail "SIG$sig: Markdown not partial"
  grep -q 'partial results' r.svg || fail "SIG$sig: SVG not partial"
  # resume: only the missing points run, the finished ones come back as they were
  run resume=j.jsonl
  [ "$rc" -eq 0 ] || fail "resume after SIG$sig: exit $rc: $(cat err)"
  [ "$(tr '\n' ' ' < ran)" = "$(echo 1 2 4 8 | cut -d' ' -f"$at"- | tr '\n' ' ')" ] ||
    fail "resume after SIG$sig at $at ran: $(tr '\n' ' ' < ran)"
  grep -q "^points=4 partial=nil failed=0 resumed=$kept" out || fail "resume after SIG$sig: $(head -1 out)"
  [ "$(points j.jsonl)" -eq 4 ] || fail "resume after SIG$sig: journal has $(points j.jsonl) points"
  ! grep -q partial r.csv || fail "resumed sweep still partial"
done

# A signal while a run goes on (the journal says which points finished).
for sig in INT HUP; do
  rm -f j.jsonl
  "$LUABENCH" sw.lua journal=j.jsonl runtime=30s lat=100us >out 2>err </dev/null &
  pid=$!
  for i in $(seq 300); do [ "$(points j.jsonl 2>/dev/null)" = 1 ] && break; sleep 0.1; done
  [ "$(points j.jsonl)" = 1 ] || fail "SIG$sig mid-run: the first point did not finish"
  kill -$sig $pid
  rc=0; wait $pid || rc=$?
  want=130; [ $sig = HUP ] && want=129
  [ "$rc" -eq $want ] || fail "SIG$sig mid-run: exit $rc: $(cat err)"
  grep -q "^points=1 partial=true" out || fail "SIG$sig mid-run: $(head -2 out)"
  [ "$(points j.jsonl)" = 1 ] || fail "SIG$sig mid-run: the run cut short was journaled"
done

# A failing hook at point 3 keeps points 1 and 2; exit 1.
rm -f j.jsonl
run at=3 sig=error journal=j.jsonl
[ "$rc" -eq 1 ] || fail "failing hook: exit $rc"
grep -q "^points=2 partial=true failed=1" out || fail "failing hook: $(head -2 out)"
grep -q "numjobs=4 failed: hook broke at point 3" out || fail "failing hook reason: $(sed -n 2p out)"
grep -q "numjobs=4 failed: hook broke at point 3" err || fail "failing hook: stderr: $(cat err)"
grep -q '"type":"failed"' j.jsonl || fail "the failure is not journaled"
# ... and with on_error=skip the sweep goes on past it, still exit 1
rm -f j.jsonl
run at=3 sig=error journal=j.jsonl on_error=skip
[ "$rc" -eq 1 ] || fail "on_error=skip: exit $rc"
grep -q "^points=3 partial=nil failed=1" out || fail "on_error=skip: $(head -2 out)"
[ "$(points j.jsonl)" -eq 3 ] || fail "on_error=skip: journal has $(points j.jsonl) points"
expect_exit 2 "on_error must be 'stop' or 'skip'" "$LUABENCH" sw.lua on_error=maybe

# A journal whose last line a crash cut: the whole lines still count.
rm -f j.jsonl
run journal=j.jsonl
[ "$rc" -eq 0 ] || fail "full sweep: exit $rc: $(cat err)"
cp r.csv full.csv
head -c -200 j.jsonl > cut.jsonl
run resume=cut.jsonl
[ "$(tr '\n' ' ' < ran)" = "8 " ] || fail "resume of a cut journal ran: $(tr '\n' ' ' < ran)"
# A complete journal resumed runs nothing and reports the same numbers.
run resume=j.jsonl
[ ! -s ran ] || fail "resume of a complete journal ran: $(cat ran)"
cmp -s r.csv full.csv || fail "resumed report differs: $(diff full.csv r.csv)"
# A changed parameter is refused with its name and both values.
sed -i 's/runtime = args.runtime or "50ms"/runtime = args.runtime or "60ms"/' sw.lua
expect_exit 2 "resume: parameter 'base.runtime' was 50ms in j.jsonl, now 60ms" "$LUABENCH" sw.lua resume=j.jsonl
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "a refused resume prints one line: $(cat "$LB_ERR")"
expect_exit 2 "resume: none.jsonl" "$LUABENCH" sw.lua resume=none.jsonl
expect_exit 2 "is not a luabench journal" "$LUABENCH" sw.lua resume=full.csv
# A journal is never overwritten.
sed -i 's/"60ms"/"50ms"/' sw.lua
run journal=j.jsonl
[ -s j.1.jsonl ] && [ "$(points j.jsonl)" -eq 4 ] || fail "an existing journal was not left alone"

# --- scaleout.lua: SIGINT after the shared mode ----------------------------
command -v python3 >/dev/null || { pass; }
cat > hook.sh <<'EOF'
#!/bin/sh
# counts the points; at point $AT sends $SIG to luabench (our shell's parent)
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > count
[ "$n" = "$AT" ] && kill -$SIG "$(awk '{print $4}' /proc/$PPID/stat)"
exit 0
EOF
chmod +x hook.sh
S="$LB_SRC/scripts/scaleout.lua"
sc() {
  rm -f count
  rc=0
  "$LUABENCH" --quiet "$S" engine=psync files=2 file_size=1m runtime=0.1s numjobs_shared=1,2 \
    numjobs_independent=1,2 drop=files cache=hot load_cmd=./hook.sh "$@" >out 2>err </dev/null || rc=$?
}
AT=3 SIG=INT sc out=s
[ "$rc" -eq 130 ] || fail "scaleout SIGINT: exit $rc: $(cat err)"
[ "$(head -1 out)" = "journal: s.journal.jsonl" ] || fail "scaleout's first line: $(head -1 out)"
contains "$(cat out)" "partial results: interrupted by SIGINT" "scaleout text"
contains "$(cat out)" "Shared-file mode" "scaleout text keeps the shared mode"
python3 - s.json <<'PY' || fail "scaleout partial JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["partial"] is True and d["reason"] == "interrupted by SIGINT", d.get("reason")
assert [p["numjobs"] for p in d["modes"]["shared"]["points"]] == [1, 2], d["modes"]
assert "independent" not in d["modes"], d["modes"].keys()
PY
grep -q 'partial results' s.md && grep -q 'partial results' s.svg || fail "scaleout md/svg not partial"
AT=0 SIG=INT sc out=t resume=s.journal.jsonl
[ "$rc" -eq 0 ] || fail "scaleout resume: exit $rc: $(cat err)"
[ "$(cat count)" = 2 ] || fail "scaleout resume ran $(cat count) points, expected the 2 independent ones"
contains "$(head -1 out)" "(resumed: 2 points kept)" "scaleout resume's first line"
python3 - s.json t.json <<'PY' || fail "scaleout resumed JSON"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert "partial" not in b, b.get("reason")
assert b["modes"]["shared"]["points"] == a["modes"]["shared"]["points"], "shared points changed"
assert [p["numjobs"] for p in b["modes"]["independent"]["points"]] == [1, 2]
PY
AT=1 SIG=TERM sc out=u resume=s.journal.jsonl
[ "$rc" -eq 0 ] && [ ! -e count ] || fail "scaleout resume of a complete journal ran points: rc $rc"
python3 - t.json u.json <<'PY' || fail "scaleout: a complete journal resumed reports differently"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("time", "params", "journal"):
    a.pop(k, None); b.pop(k, None)
assert a == b, (a, b)
PY
expect_exit 2 "resume: parameter 'runtime' was 0.1s in s.journal.jsonl, now 0.2s" \
  "$LUABENCH" --quiet "$S" files=2 file_size=1m runtime=0.2s numjobs_shared=1,2 \
  numjobs_independent=1,2 drop=files cache=hot load_cmd=./hook.sh engine=psync resume=s.journal.jsonl
pass
