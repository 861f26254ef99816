#!/usr/bin/env bash
# Description: scripts/scaleout.lua under mpirun -np 3 when a rank stops
# answering in the middle of the sweep (rank 1 frozen with SIGSTOP, as a
# hung or cut-off host looks to the others): the watchdog holds it lost,
# rank 0 prints and writes every out= file with the points finished before
# (the journal's), marked partial with a reason naming the lost rank, the
# job exits non-zero and no rank is left behind.
. "$(dirname "$0")/lib.sh"
# lb-test: serial (three ranks)
command -v mpirun >/dev/null || skip "mpirun not installed"
command -v python3 >/dev/null || skip "python3 is needed to read the JSON"
"$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
tmp=$(lb_tmpdir)
printf 'require("luabench.prep").files{dir = args.dir, count = 3, size = "2m"}\n' > "$tmp/prep.lua"
"$LUABENCH" --quiet "$tmp/prep.lua" dir="$tmp/data" || fail "data"

frozen=
trap '[ -n "$frozen" ] && kill -CONT "$frozen" 2>/dev/null; cleanup_tmps' EXIT
export LUABENCH_MPI_TIMEOUT=3
(cd "$tmp" && exec timeout -k 5 120 mpirun --allow-run-as-root --oversubscribe \
   -x LUABENCH_MPI_TIMEOUT -np 3 "$LUABENCH" --quiet "$LB_SRC/scripts/scaleout.lua" files=3 \
   file_size=2m runtime=1 numjobs_shared=1,2,3,4,5,6 modes=shared drop=files cache=none \
   workers=1 dir="$tmp/data" out="$tmp/o" > "$tmp/out" 2>&1) &
launcher=$!
# rank 1 among the launcher's ranks, once the first point is in the journal
for i in $(seq 1 600); do
  grep -q '"type":"point"' "$tmp/o.journal.jsonl" 2>/dev/null && break
  kill -0 "$launcher" 2>/dev/null || fail "mpirun ended before the first point: $(cat "$tmp/out")"
  sleep 0.1
done
for m in $(pgrep -P "$launcher"); do
  for p in $(pgrep -P "$m"); do
    tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx OMPI_COMM_WORLD_RANK=1 && frozen=$p
  done
done
[ -n "$frozen" ] || fail "rank 1 not found among mpirun's children"
kill -STOP "$frozen"
rc=0
wait "$launcher" || rc=$?
out=$(cat "$tmp/out")
[ "$rc" -ne 0 ] || fail "the job must exit non-zero: $out"
[ "$rc" -ne 124 ] || fail "the job hung: $out"
# the launcher kills it (a zombie until its new parent reaps it counts as gone)
for i in $(seq 1 100); do
  st=$(ps -o stat= -p "$frozen" 2>/dev/null) || break
  case $st in Z*) break ;; esac
  sleep 0.1
done
case $(ps -o stat= -p "$frozen" 2>/dev/null) in ""|Z*) frozen= ;; *) fail "rank 1 left behind" ;; esac
contains "$out" "luabench: rank 0 (" "rank 0 says what it lost"
contains "$out" "lost rank 1 (" "the lost rank is named"
contains "$out" "kept (partial)" "the sweep ends partial"
contains "$out" "wrote $tmp/o.json" "rank 0 writes out= after the loss"
kept=$(grep -c '"type":"point"' "$tmp/o.journal.jsonl")
python3 - "$tmp/o.json" "$kept" <<'EOF2' || fail "the partial JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["partial"] is True and d["reason"].startswith("lost rank 1 ("), d.get("reason")
pts = d["modes"]["shared"]["points"]
assert len(pts) == int(sys.argv[2]) >= 1, (len(pts), sys.argv[2])
assert [p["numjobs"] for p in pts] == list(range(1, len(pts) + 1)), pts
EOF2
grep -q '^\*\*partial results: lost rank 1 (' "$tmp/o.md" || fail "markdown marked partial"
grep -q 'lost rank 1 (' "$tmp/o.html" || fail "HTML marked partial"
grep -q ',lost rank 1 (' "$tmp/o.csv" || fail "CSV rows marked partial"
[ -s "$tmp/o.svg" ] || fail "SVG written"
pass
