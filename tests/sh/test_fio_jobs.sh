#!/usr/bin/env bash
# Description: the fio options that fio's own job tests (t/jobs/t00NN)
# exercise mean what they mean in fio: the bytes and offsets a job touches,
# the numbers in its JSON, and nothing on stderr when fio prints nothing.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get, quiet_run

# --- --max-jobs: accepted silently, as fio does; a bad value is bad input -------
quiet_run maxjobs --max-jobs=4 --name=m --ioengine=null --rw=read --size=1m
[ "$(json_get maxjobs.json 'j["jobs"][0]["read"]["io_bytes"]')" = 1048576 ] || fail "--max-jobs run: read bytes"
quiet_run maxjobs2 --name=m --ioengine=null --rw=read --size=1m --max-jobs 4
expect_exit 2 "bad value 'x' for '--max-jobs'" "$LUABENCH" fio --max-jobs=x --name=m --ioengine=null

# --- verify phases: do_verify, verify_backlog, verify_interval, experimental_verify ---
kb() { json_get "$1.json" "(j['jobs'][0]['read']['io_kbytes'], j['jobs'][0]['write']['io_kbytes'])"; }
V="--ioengine=psync --bs=4k --size=1m --verify=md5"
quiet_run backlog --name=b --filename="$d/v.dat" --rw=write $V --verify_backlog=32
[ "$(kb backlog)" = "(1024, 1024)" ] || fail "verify_backlog=32: read, written KiB $(kb backlog), expected (1024, 1024)"
quiet_run backlog2 --name=b --filename="$d/v.dat" --rw=randwrite $V --verify_backlog=5 --allow_overwrite=1
[ "$(kb backlog2)" = "(1024, 1024)" ] || fail "verify_backlog=5 randwrite: $(kb backlog2)"
quiet_run nov --name=n --filename="$d/n.dat" --rw=write $V --do_verify=0
[ "$(kb nov)" = "(0, 1024)" ] || fail "do_verify=0 read back: $(kb nov)"
# the headers are on disk: a read job with verify checks them, as in fio
quiet_run readv --name=n --filename="$d/n.dat" --rw=read $V
[ "$(kb readv)" = "(1024, 0)" ] || fail "read with verify: $(kb readv)"
quiet_run expv --name=e --filename="$d/e.dat" --rw=write $V --experimental_verify=1
[ "$(kb expv)" = "(1024, 1024)" ] || fail "experimental_verify=1: $(kb expv)"
# verify_interval=512: one header per 512 bytes, a damaged byte is found in its 512
quiet_run vint --name=i --filename="$d/i.dat" --rw=write $V --verify_interval=512 --do_verify=0
printf 'X' | dd of="$d/i.dat" bs=1 seek=$((8192 + 1024 + 100)) conv=notrunc status=none
expect_exit 1 "offset 9216" "$LUABENCH" fio --name=i --filename="$d/i.dat" --rw=read $V --verify_interval=512
printf 'X' | dd of="$d/n.dat" bs=1 seek=$((8192 + 1024 + 100)) conv=notrunc status=none
expect_exit 1 "offset 8192" "$LUABENCH" fio --name=n --filename="$d/n.dat" --rw=read $V
# verify=meta checks the header alone: a damaged payload passes, a damaged header not
M="--ioengine=psync --bs=4k --size=64k --verify=meta"
quiet_run meta --name=m --filename="$d/m.dat" --rw=randrw $M --verify_backlog=4
[ "$(json_get meta.json "j['jobs'][0]['error']")" = 0 ] || fail "verify=meta run failed"
quiet_run metaw --name=m --filename="$d/m.dat" --rw=write $M --do_verify=0 --allow_overwrite=1
printf 'X' | dd of="$d/m.dat" bs=1 seek=$((4096 + 1000)) conv=notrunc status=none
quiet_run metar --name=m --filename="$d/m.dat" --rw=read $M
printf 'X' | dd of="$d/m.dat" bs=1 seek=$((8192 + 8)) conv=notrunc status=none
expect_exit 1 "offset 8192" "$LUABENCH" fio --name=m --filename="$d/m.dat" --rw=read $M
# --- posixaio (fio's t0017): the bytes written are on disk, lat = slat + clat, depth held ---
"$LUABENCH" --list-engines | grep -q '^posixaio  *supported' || fail "posixaio not listed as supported"
quiet_run pa --name=pa --ioengine=posixaio --iodepth=16 --rw=write --bs=4k --size=1m \
  --filename="$d/pa.dat" --verify=md5
[ "$(kb pa)" = "(1024, 1024)" ] || fail "posixaio write+verify KiB: $(kb pa)"
[ "$(stat -c %s "$d/pa.dat")" = 1048576 ] || fail "posixaio file size"
python3 - pa.json <<'PY' || fail "posixaio latencies or depth"
import json, sys
w = json.load(open(sys.argv[1]))["jobs"][0]
lat = w["write"]
assert abs(lat["slat_ns"]["mean"] + lat["clat_ns"]["mean"] - lat["lat_ns"]["mean"]) <= 1e-6 * lat["lat_ns"]["mean"] + 1
assert w["iodepth_level"]["16"] > 0, w["iodepth_level"]
PY

# --- flows: jobs of one flow_id share the I/Os by their flow weights ----------------
quiet_run flows --ioengine=null --size=100g --runtime=2 --flow_id=1 \
  --name=one --flow=1 --rate_iops=200 --name=three --flow=3
r=$(json_get flows.json "round(j['jobs'][1]['read']['total_ios'] / j['jobs'][0]['read']['total_ios'], 1)")
awk -v r="$r" 'BEGIN { exit !(r >= 2.7 && r <= 3.3) }' || fail "flow=3 against flow=1: $r times the I/Os, expected 3"
# each job's windowed iops log holds its own I/Os, not the run's (fio's t0012/t0014 read them)
quiet_run flowlog --ioengine=null --size=100g --runtime=2 --flow_id=3 --log_avg_msec=500 \
  --write_iops_log=fl --name=one --flow=1 --rate_iops=200 --name=three --flow=3
r=$(python3 -c "import sys
s = [sum(float(l.split(',')[1]) for l in open(f)) for f in sys.argv[1:]]
print(round(s[1] / s[0], 1))" fl_iops.1.log fl_iops.2.log)
awk -v r="$r" 'BEGIN { exit !(r >= 2.7 && r <= 3.3) }' || fail "iops logs of flow=3 against flow=1: $r, expected 3"
# a flow's job that ends leaves the others the whole flow
quiet_run flowend --ioengine=null --flow_id=2 --name=short --flow=1 --size=4k --name=long --flow=1 --size=1m
[ "$(json_get flowend.json "j['jobs'][1]['read']['io_bytes']")" = 1048576 ] || fail "flow after its partner ended"

pass
