#!/usr/bin/env bash
# Description: rate_min and rate_iops_min as fio 3.33's: after 2 s of
# settling, a job whose bytes/s (or IOPS) over a ratecycle fall below the
# minimum fails with EIO and stops (exit 1, fio's message on stderr, the
# JSON "error" 5, a runtime of at least 2 s plus one cycle, well short of
# its own); one above its minimum runs out its time; a minimum above its
# cap, or both kinds of minimum, are refused (exit 2).
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

# about 100 IOPS (a 10 ms pause per I/O), 400 KB/s
slow=(fio --name=j --ioengine=null --size=1g --bs=4k --thinktime=10ms --time_based
      --runtime=8 --ratecycle=500 --output-format=json)

rc=0
"$LUABENCH" "${slow[@]}" --rate_iops_min=1000 --output=a.json 2>err || rc=$?
[ "$rc" -eq 1 ] || fail "rate_iops_min not met: exit $rc, expected 1: $(cat err)"
grep -qE "^luabench: job 'j': rate_iops_min=1000 not met, got [0-9]+ IOPS$" err ||
  fail "rate_iops_min: the message: $(cat err)"
want=$(jget a.json 'j.jobs[1].error') || fail "reading a.json"
[ "$want" = 5 ] || fail "rate_iops_min: JSON error $want, expected 5 (EIO)"
ms=$(jget a.json 'j.jobs[1].read.runtime')
[ "$ms" -ge 2500 ] && [ "$ms" -lt 7000 ] ||
  fail "rate_iops_min: stopped after $ms ms: expected the check at 2 s + a 500 ms cycle"

rc=0
"$LUABENCH" "${slow[@]}" --rate_min=100m --output=b.json 2>err || rc=$?
[ "$rc" -eq 1 ] || fail "rate_min not met: exit $rc, expected 1: $(cat err)"
grep -qE "^luabench: job 'j': rate_min=104857600B/s not met, got [0-9]+B/s$" err ||
  fail "rate_min: the message: $(cat err)"

# a write direction's minimum leaves a read job alone (fio checks the
# directions that did I/O)
"$LUABENCH" fio --name=j --ioengine=null --size=1g --thinktime=10ms --time_based --runtime=3 \
  --ratecycle=500 --rate_min=,100m --output=/dev/null 2>err ||
  fail "a write minimum failed a read job: $(cat err)"

# a job well above its minimum: 2 IOPS, checked every 500 ms
"$LUABENCH" fio --name=j --ioengine=null --size=1g --thinktime=1ms --time_based --runtime=3 \
  --ratecycle=500 --rate_iops_min=2 --output-format=json --output=c.json 2>err ||
  fail "rate_iops_min=2 at about 1000 IOPS: exit $?: $(cat err)"
[ "$(jget c.json 'j.jobs[1].error')" = 0 ] || fail "rate_iops_min=2: an error in c.json"

expect_exit 2 "rate_min and rate_iops_min are mutually exclusive" \
  "$LUABENCH" fio --name=j --ioengine=null --size=1m --rate_min=1k --rate_iops_min=1
expect_exit 2 "minimum rate exceeds its rate" \
  "$LUABENCH" fio --name=j --ioengine=null --size=1m --rate_iops=10 --rate_iops_min=20
expect_exit 2 "ratecycle" "$LUABENCH" fio --name=j --ioengine=null --size=1m --ratecycle=0
pass
