#!/usr/bin/env bash
# Description: scripts/cern.lua runs the CERN procurement job (randrw 4k,
# iodepth 24) runs=3 times and prints, like the procedure, the iops= line
# of every job and direction, each run's sum and
# "IOPS := (a + b + c)/3 = N, sd S (P%), 95% confidence interval L to H"
# where N is the mean of the three sums, S their standard deviation and
# L..H Student's t interval of the mean; out= writes json, md, csv, svg and
# html with those numbers; the job files go in a temporary directory removed afterwards; test=random
# runs the document's simple [random] IOPS test; help=1 and an unknown
# parameter behave like every script's.
. "$(dirname "$0")/lib.sh"
S="$LB_SRC/scripts/cern.lua"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"

out=$("$LUABENCH" --quiet "$S" runs=3 pause=0 size=1m timeout=2s numjobs=2 out="$tmp/c") ||
  fail "cern exit $?"
contains "$out" "rw=randrw bsrange=4k-4k numjobs=2 iodepth=24" "job line"
[ "$(grep -c 'read : io=.*iops=' <<<"$out")" -eq 6 ] || fail "3 runs x 2 jobs of read lines: $out"
[ "$(grep -c 'write: io=.*iops=' <<<"$out")" -eq 6 ] || fail "3 runs x 2 jobs of write lines: $out"
line=$(grep '^IOPS := ' <<<"$out") || fail "no IOPS := line: $out"
[[ $line =~ ^IOPS\ :=\ \(([0-9]+)\ \+\ ([0-9]+)\ \+\ ([0-9]+)\)/3\ =\ ([0-9]+),\ sd\ ([0-9]+)\ \([0-9.]+%\),\ 95%\ confidence\ interval\ (-?[0-9]+)\ to\ ([0-9]+)$ ]] ||
  fail "IOPS line: $line"
a=${BASH_REMATCH[1]} b=${BASH_REMATCH[2]} c=${BASH_REMATCH[3]} n=${BASH_REMATCH[4]}
sd=${BASH_REMATCH[5]} lo=${BASH_REMATCH[6]} hi=${BASH_REMATCH[7]}
# (a + b + c)/3 equals N within rounding: |a + b + c - 3N| <= 1.5
d=$(( a + b + c - 3 * n )); d=${d#-}
[ $(( 2 * d )) -le 3 ] || fail "average: ($a + $b + $c)/3 is not $n"
# each run's sum is the sum of its printed iops= values, as the procedure's awk
sums=$(awk '/^run /{if (r) print s; r=1; s=0} /iops=/{split($0, x, "iops="); s += x[2] + 0}
            END {print s}' <<<"$out" | tr '\n' ' ')
[ "$sums" = "$a $b $c " ] || fail "per-run sums '$sums' are not '$a $b $c'"
[ -z "$(ls -d "$tmp"/luabench-cern.* 2>/dev/null)" ] || fail "temporary directory left behind"
for f in json md csv svg html; do [ -s "$tmp/c.$f" ] || fail "out= did not write c.$f"; done
python3 - "$tmp/c" "$a" "$b" "$c" "$sd" "$lo" "$hi" <<'PY' || fail "out= files or the spread"
import csv, json, math, statistics, sys, xml.dom.minidom
o = sys.argv[1]
sums = [int(x) for x in sys.argv[2:5]]
sd, lo, hi = (int(x) for x in sys.argv[5:8])
d = json.load(open(o + ".json"))["cern"]
assert d["sums"] == sums and abs(d["iops"] - statistics.mean(sums)) < 1e-9, d
s = statistics.stdev(sums)
assert abs(d["sd"] - s) < 1e-6 and abs(sd - s) <= 0.5, (d["sd"], sd, s)
h = 4.302653 * s / math.sqrt(3)           # t(0.975, 2)
assert abs(d["ci"][0] - (d["iops"] - h)) < 1e-5 * h and abs(d["ci"][1] - (d["iops"] + h)) < 1e-5 * h, d["ci"]
assert abs(lo - d["ci"][0]) <= 0.5 and abs(hi - d["ci"][1]) <= 0.5, (lo, hi, d["ci"])
rows = list(csv.DictReader(open(o + ".csv")))
assert [int(r["iops"]) for r in rows if r["test"] == "cern"] == sums, rows
assert "IOPS := (%d + %d + %d)/3" % tuple(sums) in open(o + ".md").read()
svg = xml.dom.minidom.parse(o + ".svg").documentElement
assert svg.tagName == "svg"
assert "<svg" in open(o + ".html").read()
PY

# The [random] test, scaled down; dir= keeps its files unless keep=0.
out=$("$LUABENCH" --quiet "$S" test=random dir="$tmp/d" random_size=256k random_numjobs=2) ||
  fail "random exit"
contains "$out" "random: rw=randread size=256k iodepth=32 blocksize=4k numjobs=2 nrfiles=1 ioengine=sync loops=1" "random line"
contains "$out" "read: IOPS=" "random result"
[ -f "$tmp/d/random.1.0" ] || fail "dir= files not kept"
"$LUABENCH" --quiet "$S" test=random dir="$tmp/d" random_size=256k random_numjobs=2 keep=0 >/dev/null ||
  fail "keep=0 run"
[ -z "$(ls -A "$tmp/d")" ] || fail "keep=0 left files: $(ls "$tmp/d")"

out=$("$LUABENCH" --quiet "$S" help=1) || fail "help=1"
for w in size timeout runs pause numjobs engine direct test; do contains "$out" "$w" "help lists $w"; done
expect_exit 2 "unknown parameter 'run' (known: test, dir" "$LUABENCH" --quiet "$S" run=3
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for an unknown parameter"
expect_exit 2 "parameter 'test' must be one of cern, random, both" "$LUABENCH" --quiet "$S" test=all
pass
