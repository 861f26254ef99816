#!/usr/bin/env bash
# Description: a signal during scripts/scaleout.lua's second mode (the
# shared mode finished, the independent one running) ends it with 130 (143
# for SIGTERM) and out= still writes every format -- JSON, Markdown, CSV,
# SVG, HTML -- each marked partial and holding exactly the finished points:
# the shared mode's two and the independent points before the signal, never
# the one it stopped.  The signal is sent by the cache hook of a chosen
# point (before its run), or by a child that hook starts, once the point's
# worker threads exist (during its run).
# lb-test: serial
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is needed to read the JSON, SVG and HTML"
S="$LB_SRC/scripts/scaleout.lua"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

# The load hook of point $AT (shared 1,2 are points 1,2; independent 1,2
# are 3,4) sends $SIG to luabench (the parent of the shell that runs it):
# at once with WHEN=hook, with WHEN=run from a child that waits until
# luabench has more threads than it has now (the point's workers).
cat > hook.sh <<'EOF'
#!/bin/sh
n=$(cat count 2>/dev/null || echo 0); n=$((n + 1)); echo $n > count
[ "$n" = "$AT" ] || exit 0
lb=$(awk '{print $4}' /proc/$PPID/stat)
if [ "$WHEN" = hook ]; then kill -$SIG "$lb"; exit 0; fi
base=$(ls /proc/$lb/task | wc -l)
(
  while [ -d /proc/$lb ]; do
    [ "$(ls /proc/$lb/task 2>/dev/null | wc -l)" -gt "$base" ] && { echo sent > sent; kill -$SIG "$lb"; exit 0; }
    sleep 0.01
  done
) </dev/null >/dev/null 2>&1 &
exit 0
EOF
chmod +x hook.sh

# sc OUT RUNTIME: runs scaleout with out=OUT; rc, out, err
sc() {
  rm -f count sent "$1".*
  rc=0
  "$LUABENCH" --quiet "$S" engine=psync files=2 file_size=1m runtime="$2" numjobs_shared=1,2 \
    numjobs_independent=1,2 drop=files cache=hot load_cmd=./hook.sh out="$1" \
    >out 2>err </dev/null || rc=$?
}

# check OUT SIG INDEPENDENT: every format of out=OUT is there, marked
# "interrupted by SIG", with shared 1,2 and the independent numjobs given
check() {
  local o=$1 sig=$2 indep=$3 f
  for f in json md csv svg html; do [ -s "$o.$f" ] || fail "$o: out= did not write $o.$f"; done
  [ "$(grep -c '"type":"point"' "$o.journal.jsonl")" -eq $((2 + $(wc -w <<<"$indep"))) ] ||
    fail "$o: the journal holds $(grep -c '"type":"point"' "$o.journal.jsonl") points"
  contains "$(cat out)" "partial results: interrupted by SIG$sig" "$o: text"
  python3 - "$o" "SIG$sig" $indep <<'PY' || fail "$o: the files do not hold exactly the finished points"
import csv, json, re, sys, xml.dom.minidom
o, sig, indep = sys.argv[1], sys.argv[2], [int(x) for x in sys.argv[3:]]
reason = "interrupted by " + sig
d = json.load(open(o + ".json"))
assert d["partial"] is True and d["reason"] == reason, (d.get("partial"), d.get("reason"))
got = {m: [p["numjobs"] for p in v["points"]] for m, v in d["modes"].items()}
want = {"shared": [1, 2]}
if indep:
    want["independent"] = indep
assert got == want, got
for m in d["modes"].values():
    for p in m["points"]:
        assert p["bw_bytes"] > 0 and p["lat_p99_ns"] > 0, p
rows = list(csv.DictReader(open(o + ".csv")))
assert [(r["mode"], int(r["numjobs"])) for r in rows] == \
    [("shared", 1), ("shared", 2)] + [("independent", n) for n in indep], rows
assert all(r["partial"] == reason for r in rows), rows
md = open(o + ".md").read()
assert "**partial results: " + reason + "**" in md, md[:300]
for mode, title in (("shared", "Shared-file mode"), ("independent", "Independent-file mode")):
    sec = re.search(r"## " + title + r".*?\n\n(.*?)\n\n", md, re.S)
    n = [int(l.split("|")[1]) for l in sec.group(1).splitlines()[2:]] if sec else []
    assert n == want.get(mode, []), (mode, n)
svg = xml.dom.minidom.parse(o + ".svg").documentElement
assert svg.tagName == "svg"
texts = " ".join(t.firstChild.data for t in svg.getElementsByTagName("text") if t.firstChild)
assert "partial results: " + reason in texts, texts[:300]
html = open(o + ".html").read()
assert "<strong>partial results: " + reason + "</strong>" in html and "<svg" in html
cells = re.findall(r"<tr><td>(shared|independent)</td><td>[a-z]*</td><td>(\d+)</td>", html)
assert [(m, int(n)) for m, n in cells] == [(m, int(n)) for m, n in
    [("shared", 1), ("shared", 2)] + [("independent", n) for n in indep]], cells
PY
}

# The hook of the first independent point: the mode has no point yet.
AT=3 SIG=INT WHEN=hook sc a 0.1s
[ "$rc" -eq 130 ] || fail "SIGINT at the first independent point: exit $rc: $(cat err)"
check a INT ""

# The hook of the second independent point: the first one is kept.
AT=4 SIG=TERM WHEN=hook sc b 0.1s
[ "$rc" -eq 143 ] || fail "SIGTERM at the second independent point: exit $rc: $(cat err)"
check b TERM "1"

# During the second independent point's run (its workers running).
AT=4 SIG=INT WHEN=run sc c 2s
[ -e sent ] || fail "the signal was not sent during the run (the run ended first): exit $rc"
[ "$rc" -eq 130 ] || fail "SIGINT during the second independent run: exit $rc: $(cat err)"
check c INT "1"
pass
