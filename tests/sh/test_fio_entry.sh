#!/usr/bin/env bash
# Description: the fio-compatible entry point and fio's per-I/O logs.
# luabench-fio (the binary started by that name) is `luabench fio`; it
# takes fio's --max-jobs and --debug (they tune fio: ignored) and keeps
# stderr empty on a successful run, luabench's notes appearing only with
# --verbose.  Without log_avg_msec the bw/iops/lat/clat logs hold one line
# per I/O ("time, value, ddir, bs[, offset], prio"), named by thread
# (per_job_logs=0: one file), with the offsets log_offset asks for;
# log_store_compressed writes fio's .fz, which --inflate-log reads back
# (and fio reads ours, we read fio's, when fio is installed).  JSON has
# percentiles where clat/lat/slat_percentiles ask (fio's defaults);
# --debug=parse prints the steady-state limit as fio; ss=iops:N is an
# absolute limit, and the JSON has fio's steadystate object;
# unified_rw_reporting reports "mixed"; fsync latencies are reported.
. "$(dirname "$0")/lib.sh"

lbfio="$(dirname "$LUABENCH")/luabench-fio"
[ -x "$lbfio" ] || fail "no luabench-fio beside $LUABENCH"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

[ "$("$lbfio" --version)" = "$("$LUABENCH" fio --version)" ] || fail "luabench-fio --version differs"

# --- quiet stderr, notes with --verbose -----------------------------------------------------
one=(--name=q --ioengine=null --size=1M --bs=4k --rw=read --thread=1 --output-format=json --output=q.json)
"$lbfio" --max-jobs=16 --debug=io,file "${one[@]}" 2>err.txt || fail "luabench-fio run: exit $?: $(cat err.txt)"
[ ! -s err.txt ] || fail "stderr of a successful run: $(cat err.txt)"
[ "$(jget q.json 'j.jobs[1].read.total_ios')" = 256 ] || fail "luabench-fio: not 256 reads"
"$LUABENCH" fio "${one[@]}" --max-jobs=4 --verbose 2>err.txt || fail "--verbose run: exit $?"
contains "$(cat err.txt)" "'thread' only tunes fio's internals: ignored" "--verbose note"
contains "$(cat err.txt)" "'--max-jobs' sizes fio's own tables: ignored" "--verbose note"
expect_exit 2 "bad value '0' for '--max-jobs'" "$lbfio" --max-jobs=0 "${one[@]}"

# --- one line per I/O ------------------------------------------------------------------------
"$lbfio" --name=w --ioengine=null --filesize=1M --bs=128k --rw=write --write_bw_log=t \
  --write_iops_log=t --write_lat_log=t --per_job_logs=0 --log_offset=1 2>err.txt >/dev/null ||
  fail "per-I/O logs: exit $?: $(cat err.txt)"
[ ! -s err.txt ] || fail "per-I/O logs: stderr: $(cat err.txt)"
for k in bw iops lat clat; do
  [ -f "t_$k.log" ] || fail "no t_$k.log: $(ls)"
  [ "$(wc -l < "t_$k.log")" = 8 ] || fail "t_$k.log: not 8 lines: $(cat "t_$k.log")"
  awk -F', ' -v k="$k" 'NF != 6 || $3 != 1 || $4 != 131072 || $5 != (NR - 1) * 131072 || $6 != 0 ||
      (k == "iops" && $2 != 1) { print "line " NR ": " $0; exit 1 }' "t_$k.log" ||
    fail "t_$k.log: columns: $(cat "t_$k.log")"
done
[ ! -s t_slat.log ] || fail "a sync engine's slat log is not empty: $(cat t_slat.log)"
# bw is bs * 10^6 / clat: lines agree with the clat log
paste -d, t_bw.log t_clat.log | awk -F', *' '$2 != int(131072 * 1000000 / $8) { exit 1 }' ||
  fail "bw is not bs*10^6/clat: $(paste t_bw.log t_clat.log | head -3)"

# numbered by thread; no offset column without log_offset; async: slat lines
"$lbfio" --name=a --ioengine=null --size=256k --bs=64k --rw=randread --numjobs=2 --iodepth=4 \
  --write_lat_log=n --name=b --ioengine=null --size=128k --bs=64k --rw=read \
  --write_iops_log=n >/dev/null 2>err.txt || fail "numbered logs: exit $?: $(cat err.txt)"
for f in n_lat.1.log n_lat.2.log n_slat.1.log n_clat.2.log n_iops.3.log; do
  [ -f "$f" ] || fail "no $f: $(ls)"
done
[ "$(wc -l < n_lat.1.log)" = 4 ] && [ "$(wc -l < n_slat.2.log)" = 4 ] &&
  [ "$(wc -l < n_iops.3.log)" = 2 ] || fail "numbered logs: line counts $(wc -l n_*.log)"
awk -F', ' 'NF != 5 { exit 1 }' n_lat.1.log n_iops.3.log || fail "5 columns expected: $(cat n_lat.1.log)"

# --- compressed logs, --inflate-log -------------------------------------------------------------
"$lbfio" --name=z --ioengine=null --filesize=1M --bs=128k --rw=write --write_bw_log=z \
  --per_job_logs=0 --log_offset=1 --log_compression=10K --log_store_compressed=1 >/dev/null 2>err.txt ||
  fail "compressed log: exit $?: $(cat err.txt)"
[ -f z_bw.log.fz ] && [ ! -e z_bw.log ] || fail "compressed log: files $(ls z_*)"
"$lbfio" --inflate-log=z_bw.log.fz > z.txt 2>err.txt || fail "--inflate-log: exit $?: $(cat err.txt)"
[ "$(wc -l < z.txt)" = 8 ] && [ "$(sed -n 8p z.txt | cut -d, -f5)" = " 917504" ] ||
  fail "--inflate-log: $(cat z.txt)"
expect_exit 1 "--inflate-log: nothing.fz" "$lbfio" --inflate-log=nothing.fz
cp z.txt plain.fz
expect_exit 1 "not a compressed fio log" "$lbfio" --inflate-log=plain.fz
if command -v fio >/dev/null; then
  cmp <(fio --inflate-log=z_bw.log.fz) z.txt || fail "fio reads our .fz otherwise"
  mkdir f && (cd f && fio --name=z --ioengine=null --filesize=1M --bs=128k --rw=write \
    --write_bw_log=z --per_job_logs=0 --log_offset=1 --log_store_compressed=1 >/dev/null) ||
    fail "fio's compressed log"
  cmp <(fio --inflate-log=f/z_bw.log.fz) <("$lbfio" --inflate-log=f/z_bw.log.fz) ||
    fail "we read fio's .fz otherwise"
fi
# --- clat/lat/slat_percentiles, --debug=parse, absolute steady-state limits -----------------------
pj() { python3 -c "import json,sys; r=json.load(open(sys.argv[1]))['jobs'][0]['read']; print(' '.join(k for k in ('slat_ns','clat_ns','lat_ns') if 'percentile' in r[k]))" "$1"; }
p=(--name=p --ioengine=null --size=1M --bs=4k --output-format=json --output=p.json)
"$lbfio" "${p[@]}" 2>err.txt || fail "percentiles: exit $?"
[ "$(pj p.json)" = clat_ns ] || fail "by default only clat has percentiles (as fio): $(pj p.json)"
"$lbfio" "${p[@]}" --clat_percentiles=0 2>err.txt || fail "clat_percentiles=0: exit $?"
[ -z "$(pj p.json)" ] || fail "clat_percentiles=0: percentiles in $(pj p.json)"
"$lbfio" "${p[@]}" --lat_percentiles=1 --output-format=json+ 2>err.txt || fail "lat_percentiles=1: exit $?"
[ "$(pj p.json)" = "clat_ns lat_ns" ] || fail "lat_percentiles=1: $(pj p.json)"
out=$("$lbfio" --parse-only --debug=parse --ss_dur=10s --ss=iops:10 --ss_ramp=5) || fail "--debug=parse: exit $?"
contains "$out" "set steady state IOPS threshold to 10.000000" "--debug=parse"
out=$("$lbfio" --parse-only --debug=parse --ss_dur=10s --ss=bw_slope:.1%) || fail "--debug=parse: exit $?"
contains "$out" "set steady state threshold to 0.100000%" "--debug=parse"
ss=(--name=s --ioengine=null --size=1G --rw=read --time_based --runtime=4 --ss_dur=2
    --output-format=json --output=s.json)
"$lbfio" "${ss[@]}" --ss=iops:1000000000 2>err.txt || fail "ss=iops:N: exit $?: $(cat err.txt)"
rt=$(jget s.json 'j.jobs[1].read.runtime')
[ "$rt" -lt 3500 ] || fail "an absolute limit every window meets stops the job: runtime $rt"
[ "$(jget s.json 'j.jobs[1].steadystate.attained')" = 1 ] &&
  [ "$(jget s.json 'j.jobs[1].steadystate.ss')" = "iops:1000000000.000000" ] &&
  [ "$(jget s.json '#j.jobs[1].steadystate.data.iops')" = 2 ] ||
  fail "steadystate JSON of an attained limit: criterion $(jget s.json 'j.jobs[1].steadystate.criterion')"
"$lbfio" "${ss[@]}" --ss=iops:10 2>err.txt || fail "ss=iops:10: exit $?: $(cat err.txt)"
rt=$(jget s.json 'j.jobs[1].read.runtime')
[ "$rt" -ge 3900 ] || fail "an absolute limit no window meets does not stop the job: runtime $rt"
[ "$(jget s.json 'j.jobs[1].steadystate.attained')" = 0 ] || fail "steadystate attained with ss=iops:10"
# --- unified_rw_reporting, job options ----------------------------------------------------------
u=(--name=u --ioengine=null --size=1M --bs=4k --rw=randrw --output-format=json --output=u.json)
"$lbfio" "${u[@]}" --unified_rw_reporting=1 2>err.txt || fail "unified_rw_reporting: exit $?: $(cat err.txt)"
[ "$(jget u.json 'tostring(j.jobs[1].read == nil and j.jobs[1].write == nil)')" = true ] ||
  fail "unified_rw_reporting=1: read/write reported"
[ "$(jget u.json 'j.jobs[1].mixed.total_ios')" = 256 ] || fail "mixed: not 256 I/Os"
[ "$(jget u.json 'j.jobs[1]["job options"].name')" = u ] || fail "job options without the name"
"$lbfio" "${u[@]}" --unified_rw_reporting=both 2>err.txt || fail "unified_rw_reporting=both: exit $?"
[ "$(jget u.json 'j.jobs[1].read.total_ios + j.jobs[1].write.total_ios')" = 256 ] &&
  [ "$(jget u.json 'j.jobs[1].mixed.total_ios')" = 256 ] || fail "unified_rw_reporting=both"
# fsync latencies: sync.lat_ns counts every fsync, with percentiles (json+: bins)
"$lbfio" --name=y --ioengine=null --size=1M --rw=randwrite --fsync=8 --filename=y.dat \
  --output-format=json+ --output=y.json 2>err.txt || fail "fsync: exit $?: $(cat err.txt)"
n=$(jget y.json 'j.jobs[1].sync.total_ios')
[ "$n" -gt 0 ] && [ "$(jget y.json 'j.jobs[1].sync.lat_ns.N')" = "$n" ] &&
  [ "$(jget y.json 'tostring(j.jobs[1].sync.lat_ns.percentile ~= nil and j.jobs[1].sync.lat_ns.bins ~= nil)')" = true ] ||
  fail "sync latencies: $n fsyncs, N $(jget y.json 'j.jobs[1].sync.lat_ns.N')"
pass
