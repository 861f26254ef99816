#!/usr/bin/env bash
# Description: resume= under mpirun -np 3.  The journal lives on rank 0:
# rank 0 reads it and every rank gets the plan from it, so ranks whose
# working directory holds no journal (ranks 1 and 2 run in another one)
# agree on the missing points and run only those; a resumed journal cut
# after the shared mode gives every point, the restored ones exactly as the
# uninterrupted run measured them; a complete journal resumed runs nothing
# and gives the uninterrupted run's report.  A sweep's journal= under MPI
# is written by rank 0 alone, one line per point.
# lb-test: serial (three ranks)
# lb-test: labels noleak (Open MPI's own leaks, or LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
command -v mpirun >/dev/null || skip "mpirun not installed"
command -v python3 >/dev/null || skip "python3 is needed to read the JSON"
"$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
mkdir data r0 rx
points() { grep -c '"type":"point"' "$1"; }
S="$LB_SRC/scripts/scaleout.lua"
A="$S engine=psync files=2 file_size=1m runtime=0.2s numjobs_shared=1,2 numjobs_independent=1,2 cache=none dir=$tmp/data"
mpi() { timeout 120 mpirun --allow-run-as-root --oversubscribe "$@"; }
# resume J OUT: rank 0 in r0 (where J is), ranks 1 and 2 in rx (no journal)
resume() {
  rc=0
  mpi -np 1 --wdir "$tmp/r0" "$LUABENCH" --quiet $A out="$2" resume="$1" : \
      -np 2 --wdir "$tmp/rx" "$LUABENCH" --quiet $A out="$2" resume="$1" >out 2>err </dev/null || rc=$?
}

mpi -np 3 "$LUABENCH" --quiet $A out=full >out 2>err </dev/null || fail "uninterrupted run: exit $?: $(head -c 400 err)"
[ "$(points full.journal.jsonl)" -eq 4 ] || fail "the uninterrupted journal holds $(points full.journal.jsonl) points"

# cut after the shared mode's two points
head -3 full.journal.jsonl > r0/cut.jsonl
cp r0/cut.jsonl cut.orig
resume cut.jsonl res
[ "$rc" -eq 0 ] || fail "resume under mpirun: exit $rc: $(head -c 400 err)"
[ "$(head -1 out)" = "journal: cut.jsonl (resumed: 2 points kept)" ] || fail "first line: $(head -1 out)"
[ "$(points r0/cut.jsonl)" -eq 4 ] || fail "the resumed run added $(( $(points r0/cut.jsonl) - 2 )) points, want 2"
head -3 r0/cut.jsonl | cmp -s - cut.orig || fail "the resume changed the journal's old lines"
[ -z "$(ls rx)" ] || fail "ranks 1 and 2 wrote files: $(ls rx)"
python3 - full.json r0/res.json <<'PY' || fail "the resumed report"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
assert "partial" not in b, b.get("reason")
assert b["clients"] == 3 and b["topology"] == "1W/3C", b["topology"]
assert b["modes"]["shared"] == a["modes"]["shared"], "the restored shared mode differs"
assert [p["numjobs"] for p in b["modes"]["independent"]["points"]] == [1, 2], b["modes"]["independent"]
for p in b["modes"]["independent"]["points"]:
    assert p["bw_bytes"] > 0 and p["lat_p99_ns"] > 0, p
PY

# the complete journal: nothing runs, the uninterrupted run's report
cp full.journal.jsonl r0/whole.jsonl
resume whole.jsonl again
[ "$rc" -eq 0 ] || fail "resume of a complete journal: exit $rc: $(head -c 400 err)"
[ "$(points r0/whole.jsonl)" -eq 4 ] || fail "a complete journal resumed ran points"
python3 - full.json r0/again.json <<'PY' || fail "a complete journal resumed reports differently"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for k in ("time", "params", "journal"):
    a.pop(k, None); b.pop(k, None)
assert a == b, (a, b)
PY

# a changed parameter is refused on every rank: exit 2, one reason
rc=0
mpi -np 1 --wdir "$tmp/r0" "$LUABENCH" --quiet $A runtime=0.3s resume=whole.jsonl : \
    -np 2 --wdir "$tmp/rx" "$LUABENCH" --quiet $A runtime=0.3s resume=whole.jsonl >out 2>err </dev/null || rc=$?
[ "$rc" -eq 2 ] || fail "a changed parameter under mpirun: exit $rc"
grep -q "resume: parameter 'runtime' was 0.2s in whole.jsonl, now 0.3s" err || fail "refusal: $(head -c 400 err)"

# a plain sweep's journal under MPI: rank 0 writes it, once per point
cat > sw.lua <<'LUA'
local sweep = require "luabench.sweep"
local sw = sweep.run{base = {name = "s", ioengine = "null", size = "1m", runtime = "50ms", time_based = true},
                     vary = {{"numjobs", {1, 2, 4}}}, journal = "sw.jsonl", progress = false}
if lb.rank == 0 then print("points=" .. #sw.points) end
LUA
mpi -np 3 "$LUABENCH" --quiet sw.lua >out 2>err </dev/null || fail "sweep under mpirun: exit $?: $(head -c 400 err)"
[ "$(points sw.jsonl)" -eq 3 ] || fail "the sweep's journal holds $(points sw.jsonl) points, want 3"
[ -z "$(ls sw.*.jsonl 2>/dev/null)" ] || fail "other ranks made journals: $(ls sw.*.jsonl)"
pass
