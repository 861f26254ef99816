#!/usr/bin/env bash
# Description: scripts/single_node.lua prints the storage guide's two
# single-node tables -- Throughput (bandwidth by pattern and threads) and
# IOPS (4k) -- with its rows (Sequential Read, Random Read) and columns
# (Single Thread, N Threads); out= writes them as Markdown, the points as
# JSON and CSV (units in the header), a chart (SVG) and an HTML page; it warns when the client page cache could not be dropped (tmpfs
# keeps its pages); filename= is read as it is and kept; help=1 and an
# unknown parameter behave like every script's.
. "$(dirname "$0")/lib.sh"
S="$LB_SRC/scripts/single_node.lua"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"

out=$("$LUABENCH" --quiet "$S" size=2m runtime=0.3s numjobs=1,2 bs=256k,4k drop=files \
      out="$tmp/sn" 2>"$tmp/err") || fail "single_node exit: $(cat "$tmp/err")"
for w in "### Throughput (256k block size)" "| Bandwidth/Threads | Single Thread | 2 Threads |" \
         "### IOPS (4k block size)" "| IOPS/Threads | Single Thread | 2 Threads |"; do
  contains "$out" "$w" "single_node tables"
done
grep -qE '^\| Sequential Read \| [0-9.]+ MiB/s \| [0-9.]+ MiB/s \|$' <<<"$out" || fail "throughput row: $out"
grep -qE '^\| Random Read \| [0-9.]+ MiB/s \| [0-9.]+ MiB/s \|$' <<<"$out" || fail "random throughput row: $out"
grep -qE '^\| Sequential Read \| [0-9.]+[kM]? \| [0-9.]+[kM]? \|$' <<<"$out" || fail "IOPS row: $out"
grep -qE '^\| Random Read \| [0-9.]+[kM]? \| [0-9.]+[kM]? \|$' <<<"$out" || fail "random IOPS row: $out"
contains "$(cat "$tmp/err")" "warning: the client page cache could not be dropped" "drop warning"
[ -z "$(ls -d "$tmp"/luabench-single-node.* 2>/dev/null)" ] || fail "temporary directory left behind"
contains "$(cat "$tmp/sn.md")" "| IOPS/Threads | Single Thread | 2 Threads |" "markdown file"
if command -v python3 >/dev/null; then
  python3 - "$tmp/sn.json" <<'PY' || fail "JSON points"
import json, sys
d = json.load(open(sys.argv[1]))
pts = d["points"]
assert len(pts) == 8, len(pts)   # 2 bs x 2 rw x 2 numjobs
assert {(p["bs"], p["rw"], p["numjobs"]) for p in pts} == {(b, r, n) for b in ("256k", "4k") for r in ("read", "randread") for n in (1, 2)}
assert all(p["iops"] > 0 and p["bw_bytes"] > 0 and p["lat_p99_ns"] > 0 and p["latency"] == "lat" for p in pts)
PY
fi
# every format: CSV with units, the chart, the page
for f in sn.json sn.md sn.csv sn.svg sn.html; do [ -s "$tmp/$f" ] || fail "out= did not write $f"; done
contains "$out" "wrote $tmp/sn.json, $tmp/sn.md, $tmp/sn.csv, $tmp/sn.svg and $tmp/sn.html" "the files it names"
[ "$(head -1 "$tmp/sn.csv" | tr -d '\r')" = "cache,bs,rw,numjobs,iops,bw_MiBps,p50_us,p99_us" ] ||
  fail "CSV header: $(head -1 "$tmp/sn.csv")"
[ "$(tr -d '\r' < "$tmp/sn.csv" | grep -cE '^hot,(256k|4k),(read|randread),[12],[0-9.]+,[0-9.]+,[0-9.]+,[0-9.]+$')" -eq 8 ] ||
  fail "CSV rows: $(cat "$tmp/sn.csv")"
[ "$(grep -c '<polyline' "$tmp/sn.svg")" -eq 8 ] || fail "the chart has a bandwidth and a p99 line per bs and rw"
grep -q 'class="subtitle"[^>]*>ioengine=[a-z_]*, iodepth=1, direct=0, runtime=0.3s' "$tmp/sn.svg" ||
  fail "the chart's subtitle: $(grep -o 'class="subtitle"[^<]*' "$tmp/sn.svg")"
grep -q '<table>' "$tmp/sn.html" && grep -q '<svg' "$tmp/sn.html" || fail "the page has no table or no chart"
grep -q '<td>4k</td><td>randread</td><td>2</td>' "$tmp/sn.html" || fail "the page's table lacks a point"
if command -v python3 >/dev/null; then
  python3 -c 'import sys, xml.dom.minidom as m; assert m.parse(sys.argv[1]).documentElement.tagName == "svg"' \
    "$tmp/sn.svg" || fail "the SVG is not well-formed"
fi

# filename= of an existing file: read at its size, kept afterwards.
head -c 1048576 /dev/zero > "$tmp/given"
out=$("$LUABENCH" --quiet "$S" filename="$tmp/given" runtime=0.2s numjobs=1 bs=4k rw=randread \
      cache=none) || fail "filename= run"
contains "$out" "| IOPS/Threads | Single Thread |" "one-column table"
contains "$out" "size 1MiB" "the file's own size"
case "$out" in *"Sequential Read"*) fail "rw=randread printed a Sequential Read row" ;; esac
[ -f "$tmp/given" ] || fail "filename= was removed"

out=$("$LUABENCH" --quiet "$S" help=1) || fail "help=1"
for w in filename numjobs bs load_cmd free_cmd cache; do contains "$out" "$w" "help lists $w"; done
expect_exit 2 "unknown parameter 'thread' (known: filename, dir" "$LUABENCH" --quiet "$S" thread=1
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for an unknown parameter"
expect_exit 2 "parameter 'numjobs' must be an integer" "$LUABENCH" --quiet "$S" numjobs=1,x
pass
