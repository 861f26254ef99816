#!/usr/bin/env bash
# Description: the bw and iops sample lines (min, max, per, avg, stdev,
# samples) as fio 3.33's: one sample per bwavgtime (iopsavgtime) ms of
# each thread, none at the end of its run, whole KiB/s and IOPS; every
# clone has its own lines; group_reporting sums the clones' figures as
# fio does (min and max added too); per= is the mean sample over the
# group's bandwidth.  fio gives the same sample counts on the same jobs.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

# samples OUT OPTIONS...: bw and iops samples of the first job (json)
job=(--name=j --ioengine=null --size=1g --bs=4k --rw=read --time_based --runtime=3
     --rate_iops=1000)
samples() {
  local out=$1; shift
  "$LUABENCH" fio "${job[@]}" "$@" --output-format=json --output="$out" >/dev/null 2>err ||
    fail "$*: exit $?: $(cat err)"
  jget "$out" 'j.jobs[1].read.bw_samples .. " " .. j.jobs[1].read.iops_samples'
}
got=$(samples a.json) || fail "reading a.json"
[ "$got" = "5 5" ] || fail "3 s at the default 500 ms: $got samples (bw iops), expected 5 5"
got=$(samples b.json --bwavgtime=1000 --iopsavgtime=1250) || fail "reading b.json"
[ "$got" = "2 2" ] || fail "bwavgtime=1000 iopsavgtime=1250: $got samples, expected 2 2"
# 1000 IOPS of 4 KiB: every sample near 1000 IOPS and 4000 KiB/s, whole numbers
near=$(jget b.json 'string.format("%s %s %s %s %s", j.jobs[1].read.iops_min, j.jobs[1].read.iops_max,
  j.jobs[1].read.bw_min, j.jobs[1].read.bw_max, j.jobs[1].read.bw_agg)') || fail "reading b.json"
read -r imin imax bmin bmax agg <<<"$near"
[ "$imin" -ge 980 ] && [ "$imax" -le 1020 ] && [ "$bmin" -ge 3900 ] && [ "$bmax" -le 4100 ] ||
  fail "samples of a 1000 IOPS job: iops $imin-$imax, KiB/s $bmin-$bmax"
awk -v a="$agg" 'BEGIN { exit !(a > 95 && a <= 100) }' || fail "per= of the only job: $agg"

# each clone its own lines; group_reporting adds the clones' figures up
"$LUABENCH" fio "${job[@]}" --numjobs=2 --bwavgtime=1000 --output=c.txt 2>err ||
  fail "numjobs=2: exit $?: $(cat err)"
[ "$(grep -c 'bw (  KiB/s):.*samples=2$' c.txt)" -eq 2 ] &&
  [ "$(grep -c 'iops        :.*samples=5$' c.txt)" -eq 2 ] || fail "per-clone lines: $(cat c.txt)"
per=$(grep -o 'per=[0-9.]*' c.txt | tr '\n' ' ')
case "$per" in "per=4"[5-9]*" per=4"[5-9]*|"per=4"[5-9]*" per=50"*|"per=50"*) ;;
  *) fail "per= of two equal clones: $per" ;; esac
"$LUABENCH" fio "${job[@]}" --numjobs=2 --group_reporting --bwavgtime=1000 \
  --output-format=json --output=g.json >/dev/null 2>err || fail "group_reporting: exit $?: $(cat err)"
got=$(jget g.json 'string.format("%d %d %d", j.jobs[1].read.bw_samples, j.jobs[1].read.iops_samples,
  j.jobs[1].read.iops_min)') || fail "reading g.json"
read -r bn in imin <<<"$got"
[ "$bn $in" = "4 10" ] || fail "group_reporting: $bn $in samples, expected 4 10"
[ "$imin" -ge 1960 ] && [ "$imin" -le 2040 ] || fail "group_reporting iops_min $imin: fio adds the clones' minimums"

expect_exit 2 "bwavgtime" "$LUABENCH" fio --name=j --ioengine=null --size=1m --bwavgtime=0

if command -v fio >/dev/null; then
  fio "${job[@]}" --output-format=json --output=f.json >/dev/null 2>&1 || fail "fio: exit $?"
  want=$(jget f.json 'j.jobs[1].read.bw_samples .. " " .. j.jobs[1].read.iops_samples')
  [ "$want" = "5 5" ] || fail "fio 3.33 gave $want samples for the job luabench samples 5 5 times"
fi
pass
