#!/usr/bin/env bash
# Description: luabench compare on the command line: two fio JSON outputs
# of the same job (luabench fio and fio itself) give a row per metric with
# a ratio, an interval from fio's per-interval IOPS and bandwidth and a
# verdict, in text, Markdown and JSON; one p99 each is a ratio without a
# verdict ("unknown"); a report
# compared with itself says "no difference"; bad input is one line, exit 2.
. "$(dirname "$0")/lib.sh"

d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
job=(--name=j --ioengine=null --rw=randread --bs=4k --size=1g --time_based --runtime=3 \
     --output-format=json)
"$LUABENCH" fio "${job[@]}" --output=a.json >/dev/null 2>&1 || fail "luabench fio a.json"
"$LUABENCH" fio "${job[@]}" --output=b.json >/dev/null 2>&1 || fail "luabench fio b.json"

out=$("$LUABENCH" compare a.json b.json 2>&1) || fail "compare exited $?: $out"
contains "$out" "A = a.json, B = b.json" "the files named"
for m in IOPS BW; do
  echo "$out" | grep -qE "^(j +| +)$m +.* [0-9]+\.[0-9]{3} +[0-9]+\.[0-9]{3}\.\.[0-9]+\.[0-9]{3} " ||
    fail "no $m row with a ratio and an interval: $out"
done
# fio's output has one p99 per job: a ratio, no interval
echo "$out" | grep -qE "^ +p99 +.* [0-9]+\.[0-9]{3} +- +unknown" || fail "p99 without samples: $out"
echo "$out" | grep -qE "IOPS .*(better|worse|no difference) +intervals" || fail "no IOPS verdict: $out"

md=$("$LUABENCH" compare --format=markdown a.json b.json) || fail "compare --format=markdown"
contains "$md" "| point | metric | A | B | B/A | 95% CI | verdict |" "markdown header"
js=$("$LUABENCH" compare --format=json --confidence=0.9 a.json b.json) || fail "compare --format=json"
echo "$js" > c.json
[ "$(jget c.json 'j.schema')" = luabench.compare/1 ] || fail "json schema: $js"
[ "$(jget c.json 'j.confidence')" = 0.9 ] || fail "json confidence: $js"
[ "$(jget c.json 'j.points[1].metrics[1].metric')" = iops ] || fail "json first metric: $js"

# a report of a repeated sweep against itself
cat > mk.lua <<'LUA'
local report = require "luabench.report"
local sw = require("luabench.sweep").run{
  base = {name = "s", engine = "null", bs = "4k", size = "1g", time_based = true, runtime = "200ms"},
  vary = {{"numjobs", {1, 2}}}, repeat_n = 2, progress = false}
report.write(args.out, report.json(sw))
LUA
"$LUABENCH" -q mk.lua out=r.json || fail "the sweep"
out=$("$LUABENCH" compare --metrics=iops,p99 r.json r.json) || fail "compare r.json r.json"
[ "$(echo "$out" | grep -c 'no difference')" -eq 4 ] || fail "a report against itself: $out"
contains "$out" "numjobs=2" "points by parameter"

# fio's own output of the same job, when fio is there
if command -v fio >/dev/null; then
  fio "${job[@]}" --output=f.json >/dev/null 2>&1 || fail "fio"
  out=$("$LUABENCH" compare f.json a.json) || fail "compare fio's output: $out"
  echo "$out" | grep -qE "IOPS .*(better|worse|no difference)" || fail "fio against luabench: $out"
fi

# bad input
expect_exit 2 "needs two result files" "$LUABENCH" compare a.json
expect_exit 2 "cannot read" "$LUABENCH" compare a.json missing.json
echo '{"x": 1}' > x.json
expect_exit 2 "x.json: not a luabench report or fio JSON output" "$LUABENCH" compare a.json x.json
echo 'not json' > y.json
expect_exit 2 "y.json: not JSON" "$LUABENCH" compare a.json y.json
expect_exit 2 "--confidence must be" "$LUABENCH" compare --confidence=2 a.json b.json
expect_exit 2 "--format must be" "$LUABENCH" compare --format=xml a.json b.json
expect_exit 2 "unknown metric 'p0x'" "$LUABENCH" compare --metrics=p0x a.json b.json
expect_exit 2 "unknown option '--frob'" "$LUABENCH" compare --frob a.json b.json
expect_exit 2 "no point in common" "$LUABENCH" compare --by=numjobs r.json a.json
pass
