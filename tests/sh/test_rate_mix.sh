#!/usr/bin/env bash
# Description: a mixed job under a rate cap chooses its direction as fio
# 3.33 does (io_u.c rate_ddir): the one the mix drew when it is due, else
# the other one when that is due, else the one due first.  The counts below
# are fio's for the same command lines; they follow from the schedules
# alone (the mix only orders I/Os due at the same time), so a loaded machine
# does not change them.  Each direction keeps its own cap (rate_iops=R,W,
# rate=R,W; an empty value leaves a direction free), and an I/O due after
# runtime is not issued.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

# counts NAME WANT_READS WANT_WRITES OPTIONS...
counts() {
  local name=$1 wr=$2 ww=$3; shift 3
  "$LUABENCH" fio --name="$name" --ioengine=null --bs=4k "$@" --output-format=json \
    >"$name.json" 2>"$name.err" || fail "$name: $(cat "$name.err")"
  local got
  got=$(jget "$name.json" 'j.jobs[1].read.total_ios .. " " .. j.jobs[1].write.total_ios')
  echo "$name: $* -> reads writes $got"
  [ "$got" = "$wr $ww" ] || fail "$name: reads and writes $got, fio does $wr $ww"
}

# reads due every 100 ms, writes every 200: 2 reads to a write whatever the
# mix, though it asks for 90% writes (without the switch: about 1 to 8)
counts iops 6 3 --rw=randrw --rwmixread=10 --rate_iops=10,5 --size=36k
counts bytes 6 3 --rw=randrw --rwmixread=10 --rate=40k,20k --size=36k
# the same through the asynchronous loop, 4 in flight
counts async 6 3 --rw=rw --rwmixread=10 --rate_iops=10,5 --size=36k --iodepth=4
# writes capped at 1 a second, reads free: one write, then only reads
counts wcap 2047 1 --rw=randrw --rwmixread=50 --rate_iops=,1 --size=8m
counts rcap 1 2047 --rw=randrw --rwmixread=90 --rate_iops=1, --size=8m --iodepth=8
# rwmixread=100 gives writes no share: never switched to
counts noshare 9 0 --rw=randrw --rwmixread=100 --rate_iops=20,1 --size=36k
# time_based: the I/Os due at 0 and 500 ms, not the one due at the end
counts runtime 2 0 --rw=read --rate_iops=2 --size=1m --time_based --runtime=1
counts runtime_mix 2 1 --rw=randrw --rate_iops=2,1 --size=1m --time_based --runtime=1 --iodepth=4
pass
