#!/usr/bin/env bash
# Description: fio's I/O priority options: cmdprio_percentage gives about
# that share of a libaio or io_uring job's I/Os their own priority (class
# and level from cmdprio_class/cmdprio), cmdprio_bssplit by block size, and
# the JSON has fio's "prios" array (prioclass, prio, clat_ns or lat_ns with
# percentiles and json+ bins) whose counts add up to the direction's, and
# the latency logs' prio column marks the realtime ones;
# prio/prioclass name the clones' own priority; bad values and an engine
# without per-I/O priorities are refused with one line and exit 2.
. "$(dirname "$0")/fio_lib.sh"

"$LUABENCH" --list-engines 2>/dev/null | grep -q '^libaio  *supported' || skip "no libaio here"
head -c 4194304 /dev/urandom > data.bin   # a real file, not laid out by luabench
common=(--filename=data.bin --allow-overwrite --ioengine=libaio --iodepth=4 --bs=4k --size=4m)

# --- cmdprio_percentage=50: about half the reads at best effort level 3 --------
# (best effort needs no privilege; fio's default class is realtime)
"$LUABENCH" fio --name=half "${common[@]}" --rw=randread --cmdprio_percentage=50 \
  --cmdprio_class=2 --cmdprio=3 --output-format=json+ --output=half.json 2>half.err ||
  fail "cmdprio_percentage run: $(cat half.err)"
[ ! -s half.err ] || fail "stderr on a good run: $(cat half.err)"
r='j["jobs"][0]["read"]'
[ "$(json_get half.json "[(p['prioclass'], p['prio']) for p in $r['prios']]")" = "[(0, 0), (2, 3)]" ] ||
  fail "prios: $(json_get half.json "$r.get('prios')")"
[ "$(json_get half.json "sum(p['clat_ns']['N'] for p in $r['prios']) == $r['clat_ns']['N'] == 1024")" = True ] ||
  fail "per-priority counts do not add up to 1024 reads"
high=$(json_get half.json "$r['prios'][1]['clat_ns']['N']")
[ "$high" -ge 410 ] && [ "$high" -le 614 ] || fail "cmdprio_percentage=50 gave $high of 1024 reads"
[ "$(json_get half.json "sorted(set(b for p in $r['prios'] for b in p['clat_ns']['bins'])) == sorted($r['clat_ns']['bins'])")" = True ] ||
  fail "the per-priority bins are not the direction's"
[ "$(json_get half.json "'50.000000' in $r['prios'][0]['clat_ns']['percentile'] and 'prios' not in j['jobs'][0]['write']")" = True ] ||
  fail "percentiles missing, or prios for writes that did not happen"

# lat_percentiles=1: the split is of the total latency, under "lat_ns", as fio's
"$LUABENCH" fio --name=lat "${common[@]}" --rw=randwrite --cmdprio_percentage=0,50 \
  --cmdprio_class=2 --lat_percentiles=1 --output-format=json --output=lat.json ||
  fail "lat_percentiles run"
[ "$(json_get lat.json "[sorted(p) for p in j['jobs'][0]['write']['prios']]")" = \
  "[['lat_ns', 'prio', 'prioclass'], ['lat_ns', 'prio', 'prioclass']]" ] ||
  fail "lat_percentiles prios: $(json_get lat.json "j['jobs'][0]['write'].get('prios')")"
[ "$(json_get lat.json "sum(p['lat_ns']['N'] for p in j['jobs'][0]['write']['prios'])")" = 1024 ] ||
  fail "lat prios do not add up"

# --- cmdprio_bssplit: every 4k I/O at 2/5, the 8k ones at the clones' own 2/1 ----
"$LUABENCH" fio --name=split "${common[@]}" --rw=randread --bssplit=4k/50:8k/50 \
  --cmdprio_bssplit=4k/100/2/5:8k/0 --prioclass=2 --prio=1 --output-format=json --output=split.json ||
  fail "cmdprio_bssplit run"
n4=$(json_get split.json "2 * $r['total_ios'] - $r['io_bytes'] // 4096")
[ "$(json_get split.json "[(p['prioclass'], p['prio'], p['clat_ns']['N']) for p in $r['prios']]")" = \
  "[(2, 1, $(json_get split.json "$r['total_ios'] - $n4")), (2, 5, $n4)]" ] ||
  fail "cmdprio_bssplit: $(json_get split.json "[(p['prioclass'], p['prio'], p['clat_ns']['N']) for p in $r['prios']]"), $n4 4k reads"

# fio's default class is realtime (root only): the logs' prio column is 1 for those I/Os
if [ "$(id -u)" = 0 ]; then
  "$LUABENCH" fio --name=rt "${common[@]}" --rw=randread --cmdprio_percentage=30 \
    --write_lat_log=rt --output-format=json --output=rt.json 2>rt.err || fail "realtime run: $(cat rt.err)"
  rt=$(json_get rt.json "[p['clat_ns']['N'] for p in $r['prios'] if (p['prioclass'], p['prio']) == (1, 0)][0]")
  [ "$(awk -F', ' '$5 == 1' rt_lat.1.log | wc -l)" = "$rt" ] ||
    fail "lat log: $(awk -F', ' '$5 == 1' rt_lat.1.log | wc -l) lines of prio 1, $rt realtime reads"
fi

# the normal output's per-priority lines
out=$("$LUABENCH" fio --name=txt "${common[@]}" --rw=randread --cmdprio_percentage=50 --cmdprio_class=2 --cmdprio=3) ||
  fail "normal output run"
contains "$out" "    clat prio 2/3 (" "the per-priority latency line"
echo "$out" | grep -q '^    clat prio 0/0 ([0-9.]*% of IOs) percentiles (' || fail "no per-priority percentiles: $out"

# fio itself, on the same job, names the same priorities
if command -v fio >/dev/null; then
  fio --name=half --filename=data.bin --ioengine=libaio --iodepth=4 --bs=4k --size=4m --rw=randread \
    --cmdprio_percentage=50 --cmdprio_class=2 --cmdprio=3 --output-format=json --output=fio.json ||
    fail "fio's run"
  [ "$(json_get fio.json "[(p['prioclass'], p['prio'], sorted(p)) for p in $r['prios']]")" = \
    "$(json_get half.json "[(p['prioclass'], p['prio'], sorted(p)) for p in $r['prios']]")" ] ||
    fail "fio's prios differ: $(json_get fio.json "$r['prios']")"
fi

# --- bad input: one line, exit 2 ------------------------------------------
bad() { expect_exit 2 "$1" "$LUABENCH" fio --name=b "${common[@]}" --rw=read "${@:2}"
        [ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "more than one line: $(cat "$LB_ERR")"; }
bad "bad value '101' for 'cmdprio_percentage': must be from 0 to 100" --cmdprio_percentage=101
bad "bad value '4' for 'cmdprio_class': must be from 1 to 3" --cmdprio_class=4
bad "bad value '8' for 'prio': must be from 0 to 7" --prio=8
bad "'64k/25/1': use bs/percent or bs/percent/class/level" --cmdprio_bssplit=64k/25/1
bad "the percentages of bs 4096 add up to 120" --cmdprio_bssplit=4k/60/1/1:4k/60/2/2
bad "cmdprio_percentage and cmdprio_bssplit are mutually exclusive" --cmdprio_percentage=10 \
  --cmdprio_bssplit=4k/10
expect_exit 2 "need an engine that sets a priority per I/O (libaio, io_uring), not 'psync'" \
  "$LUABENCH" fio --name=p --filename=data.bin --allow-overwrite --size=1m --cmdprio_percentage=50
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "engine refusal: more than one line: $(cat "$LB_ERR")"
pass
