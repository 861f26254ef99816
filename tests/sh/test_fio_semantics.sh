#!/usr/bin/env bash
# Description: fio's rules for where and in which direction each I/O goes,
# checked against the numbers fio 3.33 gives for the same jobs: the
# direction of each I/O of a mixed job (rwmix), with the writes of a
# sequential mixed job at their own offsets; random_generator=lfsr (every
# block once, even with norandommap); trimwrite and randtrimwrite (a trim,
# then the write of the same block); the number of syncs of fsync=N and
# fdatasync=N in the sync section (total_ios counts only fsyncs).
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get, quiet_run

# ios NAME [JOB]: "reads writes" of a job of NAME.json
ios() {
  json_get "$1.json" "'%d %d' % (j['jobs'][${2:-0}]['read']['total_ios'], j['jobs'][${2:-0}]['write']['total_ios'])"
}

# --- rwmix: I/Os per direction as fio 3.33 counts them ----------------------------
N="--ioengine=null --bs=4k --size=1m"
quiet_run mix50 --name=m $N --rw=randrw
[ "$(ios mix50)" = "132 124" ] || fail "randrw: reads, writes $(ios mix50), fio: 132 124"
quiet_run mix70 --name=m $N --rw=rw --rwmixread=70
[ "$(ios mix70)" = "184 72" ] || fail "rw rwmixread=70: $(ios mix70), fio: 184 72"
quiet_run mix90 --name=m $N --rw=rw --rwmixwrite=10
[ "$(ios mix90)" = "230 26" ] || fail "rw rwmixwrite=10: $(ios mix90), fio: 230 26"
quiet_run mixseed --name=m $N --rw=randrw --randseed=7
[ "$(ios mixseed)" = "131 125" ] || fail "randseed=7: $(ios mixseed), fio: 131 125"
quiet_run mixloops --name=m $N --rw=randrw --loops=3
[ "$(ios mixloops)" = "396 372" ] || fail "loops=3: $(ios mixloops), fio: 396 372"
quiet_run mixjobs --name=m $N --rw=randrw --numjobs=2
[ "$(ios mixjobs 1)" = "116 140" ] || fail "second clone: $(ios mixjobs 1), fio: 116 140"
# fio's t0008: 32 MiB of readwrite with verify_backlog=1 writes 16568 KiB
quiet_run t0008 --name=foo --filename="$d/t8.dat" --bs=4k --verify=crc32c --rw=readwrite --size=32m \
  --do_verify=1 --verify_backlog=1
kb=$(json_get t0008.json "'%d %d' % (j['jobs'][0]['read']['io_kbytes'], j['jobs'][0]['write']['io_kbytes'])")
[ "$kb" = "32768 16568" ] || fail "t0008: read, written KiB $kb, fio: 32768 16568"

# a sequential mixed job: reads and writes each go through the file from its start
quiet_run mixlog --name=m $N --size=64k --rw=rw --write_iops_log=mx --log_offset=1
got=$(awk -F', ' 'NR <= 10 {printf "%s:%s ", $3, $5}' mx_iops.1.log)
want="0:0 0:4096 0:8192 1:0 0:12288 0:16384 1:4096 1:8192 1:12288 0:20480 "
[ "$got" = "$want" ] || fail "rw offsets (ddir:offset): $got, fio: $want"

# --- random_generator: lfsr touches every block once even with norandommap ---------
R="--ioengine=null --filesize=1m --rw=randread --norandommap=1 --log_offset=1 --per_job_logs=0"
quiet_run lfsr --name=l $R --random_generator=lfsr --write_iops_log=lf
[ "$(awk -F', ' '{print $5}' lf_iops.log | sort -u | wc -l)" = 256 ] || fail "lfsr: not every block once"
[ "$(wc -l < lf_iops.log)" = 256 ] || fail "lfsr: $(wc -l < lf_iops.log) I/Os, expected 256"
quiet_run taus --name=t $R --random_generator=tausworthe64 --write_iops_log=tw64
[ "$(awk -F', ' '{print $5}' tw64_iops.log | sort -u | wc -l)" -lt 256 ] ||
  fail "tausworthe64 with norandommap: no block read twice"
expect_exit 2 "random_generator" "$LUABENCH" fio --name=x --ioengine=null --random_generator=mt

# --- trimwrite, randtrimwrite: bytes per direction as fio 3.33, pairs in the log ---
kbt() { json_get "$1.json" "'%d %d %d %d' % tuple(j['jobs'][0][k][f] for k in ('write', 'trim') for f in ('io_bytes', 'total_ios'))"; }
T="--ioengine=null --size=64k"
quiet_run tw1 --name=t $T --rw=trimwrite --bs=4k,4k,8k
[ "$(kbt tw1)" = "61440 15 65536 8" ] || fail "trimwrite bs=4k,4k,8k: $(kbt tw1), fio: 61440 15 65536 8"
quiet_run tw2 --name=t $T --rw=trimwrite --bs=8k,8k,4k
[ "$(kbt tw2)" = "65536 8 8192 2" ] || fail "trimwrite bs=8k,8k,4k: $(kbt tw2), fio: 65536 8 8192 2"
quiet_run tw3 --name=t $T --rw=trimwrite --bsrange=512-4k
[ "$(json_get tw3.json "j['jobs'][0]['write']['io_bytes'] == j['jobs'][0]['trim']['io_bytes'] == 65536")" = True ] ||
  fail "trimwrite bsrange: $(kbt tw3)"
quiet_run tw4 --name=t $T --rw=randtrimwrite --norandommap=1 --write_iops_log=rtw --log_offset=1 --per_job_logs=0
[ "$(kbt tw4)" = "65536 16 65536 16" ] || fail "randtrimwrite: $(kbt tw4), fio: 65536 16 65536 16"
awk -F', ' 'NR % 2 == 1 { if ($3 != 2) exit 1; off = $5; len = $4 }
            NR % 2 == 0 { if ($3 != 1 || $5 != off || $4 != len) exit 1 }' rtw_iops.log ||
  fail "randtrimwrite: a write not of the block just trimmed: $(head -4 rtw_iops.log)"
# fio's bsrange reads each end as a number and ignores the rest (t0023, t0024)
quiet_run twr --name=t $T --rw=trimwrite --bsrange=512/25:1k:25:2k:25:4k/25 --write_iops_log=twr --log_offset=1 --per_job_logs=0
[ "$(awk -F', ' '{print $4}' twr_iops.log | sort -un | tr '\n' ' ')" = "512 1024 " ] ||
  fail "bsrange=512/25:1k:...: sizes $(awk -F', ' '{print $4}' twr_iops.log | sort -un | tr '\n' ' ')"

# --- fsync=N: before the I/O after every Nth write, none after the last ------------
syncs() { json_get "$1.json" "j['jobs'][0]['sync']['total_ios']"; }
F="--filename=$d/s.dat --bs=4k --size=1m --fsync=8 --allow_overwrite=1"
quiet_run fs1 --name=s $F --rw=write
[ "$(syncs fs1)" = 31 ] || fail "fsync=8 over 256 writes: $(syncs fs1) syncs, fio: 31"
quiet_run fs2 --name=s $F --rw=randrw
[ "$(syncs fs2)" = 27 ] || fail "fsync=8 randrw: $(syncs fs2) syncs, fio: 27"
quiet_run fs3 --name=s $F --rw=write --loops=2
[ "$(syncs fs3)" = 64 ] || fail "fsync=8 loops=2: $(syncs fs3) syncs, fio: 64"
if "$LUABENCH" --list-engines 2>/dev/null | grep -q '^libaio  *supported'; then
  quiet_run fs4 --name=s $F --rw=write --ioengine=libaio --iodepth=4
  [ "$(syncs fs4)" = 31 ] || fail "fsync=8 libaio: $(syncs fs4) syncs, fio: 31"
fi
# fdatasync=N syncs as often; fio 3.33's sync section times every one (lat_ns N) and
# counts only fsyncs in total_ios
synced() { json_get "$1.json" "'%d %d' % (j['jobs'][0]['sync']['total_ios'], j['jobs'][0]['sync']['lat_ns']['N'])"; }
[ "$(synced fs1)" = "31 31" ] || fail "fsync=8: sync total_ios and lat_ns N $(synced fs1), fio: 31 31"
quiet_run fd1 --name=s ${F/--fsync=/--fdatasync=} --rw=write
[ "$(synced fd1)" = "0 31" ] || fail "fdatasync=8: sync total_ios and lat_ns N $(synced fd1), fio: 0 31"

pass
