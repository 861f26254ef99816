#!/usr/bin/env bash
# Description: scripts/scaleout.lua runs the storage guide's scale-out
# procedure on a tiny data set: with out=PREFIX it writes a JSON with both
# file access modes (points, peak, knee) and the higher peak as headline, a
# Markdown peak table with the guide's columns, a CSV with units and
# cold-cache rows, an HTML page and a well-formed SVG; the
# cache hooks run before every point (load, then poll until SUCCEEDED) and a
# baseline gives scaling efficiency; the temporary data directory is gone
# afterwards; help=1 lists the parameters; an unknown one exits 2 with one
# line.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is needed to read the JSON and SVG"
S="$LB_SRC/scripts/scaleout.lua"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"

# The default data directory: a temporary one under the current directory.
out=$("$LUABENCH" --quiet "$S" files=3 file_size=1m runtime=0.3s numjobs_shared=1,2 \
      numjobs_independent=1,2,4 drop=files out="$tmp/r") || fail "scaleout exit $?"
for w in "Shared-file mode" "Independent-file mode" "lat p99" "peak: numjobs=" "knee: numjobs=" \
         "headline: " "| 1W/1C |" "Gbps = bytes/s x 8 / 1e9"; do
  contains "$out" "$w" "scaleout stdout"
done
[ -z "$(ls -d "$tmp"/luabench-scaleout.* 2>/dev/null)" ] || fail "temporary data directory left behind"
for f in r.json r.md r.svg r.csv r.html; do [ -s "$tmp/$f" ] || fail "out= did not write $f"; done
head -1 "$tmp/r.csv" | grep -q '^mode,cache,numjobs,threads,bw_GiBps,gbps,iops,p50_us,p99_us,' ||
  fail "CSV header: $(head -1 "$tmp/r.csv")"
[ "$(grep -c '^independent,' "$tmp/r.csv")" -eq 3 ] || fail "CSV rows of the independent mode"
# every row names its threads: numjobs in shared-file mode, the jobs' threads in independent
# mode (4 on 3 files: 3 jobs of 1 thread)
[ "$(cut -d, -f1,3,4 "$tmp/r.csv" | tail -n +2 | tr '\n' ' ')" = \
  "shared,1,1 shared,2,2 independent,1,1 independent,2,2 independent,4,3 " ] ||
  fail "CSV threads column: $(cat "$tmp/r.csv")"
grep -q '<svg' "$tmp/r.html" || fail "the HTML page has no chart"

# cache=hot,cold: the cold runs are rows of their own
"$LUABENCH" --quiet "$S" files=2 file_size=1m runtime=0.2s numjobs_shared=1 modes=shared \
  cache=hot,cold drop=files out="$tmp/hc" >/dev/null || fail "scaleout cache=hot,cold"
grep -q '^shared,cold,1,1,' "$tmp/hc.csv" || fail "no cold row in the CSV: $(cat "$tmp/hc.csv")"
grep -q '| cold cache |$' "$tmp/hc.md" || fail "no cold row in the Markdown: $(cat "$tmp/hc.md")"

python3 - "$tmp/r.json" <<'PY' || fail "JSON check"
import json, sys
d = json.load(open(sys.argv[1]))
want = {"shared": [1, 2], "independent": [1, 2, 4]}
for mode, njs in want.items():
    m = d["modes"][mode]
    got = [p["numjobs"] for p in m["points"]]
    assert got == njs, (mode, got)
    for p in m["points"]:
        for k in ("bw_bytes", "iops", "lat_p50_ns", "lat_p99_ns"):
            assert isinstance(p[k], (int, float)) and p[k] > 0, (mode, k, p)
    best = max(m["points"], key=lambda p: p["bw_bytes"])
    assert m["peak"] == best["numjobs"], (mode, m["peak"], best)
    assert m["knee"] in njs, (mode, m["knee"])
# 4 threads on 3 files: 3 jobs of 1 thread (the guide's integer division)
assert d["modes"]["independent"]["points"][2]["threads"] == 3, d["modes"]["independent"]["points"][2]
peaks = {k: v["peak_bw_bytes"] for k, v in d["modes"].items()}
h = d["headline"]
assert h["mode"] == max(peaks, key=peaks.get) and h["bw_bytes"] == max(peaks.values()), (h, peaks)
assert abs(h["gbps"] - h["bw_bytes"] * 8 / 1e9) < 1e-6, h
assert d["topology"] == "1W/1C" and d["params"]["bs"] == "256k", d["topology"]
assert any("leaves 1 out" in n for n in d.get("notes", [])), d.get("notes")
PY
md=$(cat "$tmp/r.md")
contains "$md" "| Topology | Shared-file peak (GiB/s / Gbps) | Independent-file peak (GiB/s / Gbps) |" "markdown peak table"
grep -qE '^\| 1W/1C \| [0-9.]+ / [0-9.]+ \| [0-9.]+ / [0-9.]+ \|$' "$tmp/r.md" || fail "markdown peak row: $md"
contains "$md" "| numjobs | threads | GiB/s | Gbps | IOPS | lat p50 | lat p99 |" "markdown sweep table"
python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); assert d.documentElement.tagName == "svg"' \
  "$tmp/r.svg" || fail "SVG is not well-formed"

# Cache hooks and a baseline, in dir= (kept unless keep=0).
cat > "$tmp/progress.sh" <<'SH'
#!/bin/sh
n=$(cat "$(dirname "$0")/count" 2>/dev/null || echo 0); n=$((n + 1)); echo $n > "$(dirname "$0")/count"
if [ $n -ge 2 ]; then echo "Job State: SUCCEEDED"; else echo "Job State: RUNNING"; fi
SH
chmod +x "$tmp/progress.sh"
"$LUABENCH" --quiet "$S" dir="$tmp/data" files=2 file_size=1m runtime=0.3s modes=shared \
  numjobs_shared=2 drop=files cache=hot,cold load_cmd="rm -f $tmp/count; echo load >> $tmp/hooks" \
  progress_cmd="$tmp/progress.sh" every=0.1s free_cmd="echo free >> $tmp/hooks" \
  workers=2 clients=2 baseline="$tmp/r.json" out="$tmp/h" >/dev/null 2>"$LB_ERR" ||
  fail "scaleout with hooks: $(cat "$LB_ERR")"
[ "$(cat "$tmp/hooks" | tr '\n' ' ')" = "load free " ] || fail "hooks ran: $(cat "$tmp/hooks")"
[ -f "$tmp/data/file00" ] && [ -f "$tmp/data/file01" ] || fail "dir= files not kept"
python3 - "$tmp/h.json" <<'PY' || fail "JSON with hooks"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["topology"] == "2W/2C", d["topology"]
hooks = d["modes"]["shared"]["points"][0]["cache"]
kinds = [h["kind"] for h in hooks]
assert kinds == ["drop", "exec", "poll"], kinds
assert hooks[2]["status"] == "done" and hooks[2]["tries"] == 2, hooks[2]
e = d["efficiency"]["shared"]
assert e["points"][0]["numjobs"] == 2 and e["peak"] > 0, e
assert d["hot_vs_cold"]["shared"]["cold_bw_bytes"] > 0, d["hot_vs_cold"]
assert "independent" not in d["modes"]
PY
"$LUABENCH" --quiet "$S" dir="$tmp/data" files=2 file_size=1m runtime=0.2s modes=shared \
  numjobs_shared=1 cache=none keep=0 >/dev/null || fail "keep=0 run"
[ ! -e "$tmp/data/file00" ] || fail "keep=0 left the data files"

# A failing load job stops the run with one line, exit 1.
expect_exit 1 "reported 'FAILED'" "$LUABENCH" --quiet "$S" files=1 file_size=1m runtime=0.2s \
  load_cmd=true progress_cmd="echo Job State: FAILED" every=0.1s drop=files
[ -z "$(ls -d "$tmp"/luabench-scaleout.* 2>/dev/null)" ] || fail "temporary directory left after a failure"

out=$("$LUABENCH" --quiet "$S" help=1) || fail "help=1 exit"
for w in numjobs_shared numjobs_independent load_cmd progress_cmd until free_cmd baseline workers out; do
  contains "$out" "$w" "help lists $w"
done
expect_exit 2 "unknown parameter 'numjob' (known: dir, keep, files" "$LUABENCH" --quiet "$S" numjob=4
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for an unknown parameter: $(cat "$LB_ERR")"
expect_exit 2 "parameter 'modes' must be one of shared, independent" "$LUABENCH" --quiet "$S" modes=both
expect_exit 2 "baseline:" "$LUABENCH" --quiet "$S" baseline="$tmp/none.json"
pass
