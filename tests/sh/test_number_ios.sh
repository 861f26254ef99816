#!/usr/bin/env bash
# Description: number_ios as fio 3.33's: each loop stops after that many
# I/Os unless its size ends it first, per clone, at any depth, a verify
# pass reading back what was written; a time_based job ignores it.  The
# counts are those fio reports for the same jobs.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

ios() { # expected-reads expected-writes OPTIONS...
  local r=$1 w=$2; shift 2
  rm -f n.json
  "$LUABENCH" fio --name=j --filename="$d/nio" --size=16k --bs=4k "$@" --output-format=json \
    --output=n.json >/dev/null 2>err || fail "$*: exit $?: $(cat err)"
  got=$(jget n.json 'j.jobs[1].read.total_ios .. " " .. j.jobs[1].write.total_ios') ||
    fail "$*: reading n.json"
  [ "$got" = "$r $w" ] || fail "$*: $got I/Os (read write), expected $r $w"
}
ios 2 0 --number_ios=2
ios 6 0 --number_ios=2 --loops=3
ios 12 0 --number_ios=6 --loops=3
ios 4 0 --number_ios=10
ios 6 0 --number_ios=3 --numjobs=2 --group_reporting
ios 0 3 --number_ios=3 --rw=randwrite
ios 3 0 --number_ios=3 --iodepth=8 --ioengine=libaio
ios 3 3 --number_ios=3 --rw=write --verify=crc32c
ios 3 0 --number_ios=3 --bsrange=1k-8k
"$LUABENCH" fio --name=j --filename="$d/nio" --ioengine=null --size=16k --number_ios=5 \
  --time_based --runtime=0.3 --output-format=json --output=t.json >/dev/null 2>err ||
  fail "time_based: exit $?: $(cat err)"
[ "$(jget t.json 'j.jobs[1].read.total_ios')" -gt 5 ] || fail "time_based stopped at number_ios"
pass
