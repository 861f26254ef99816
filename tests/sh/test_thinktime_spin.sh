#!/usr/bin/env bash
# Description: thinktime_spin as fio's: of each thinktime pause that much
# is spent busy on the CPU, the rest asleep; the I/O count is the pause's
# alone (about 100 I/Os a second at thinktime=10ms either way), and the
# job's CPU time grows with the spin (a job that only sleeps uses next to
# none).
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
cpu() { jget "$1" 'string.format("%d %d", j.jobs[1].read.total_ios, math.floor(j.jobs[1].usr_cpu + j.jobs[1].sys_cpu))'; }
"$LUABENCH" fio --name=j --ioengine=null --size=1g --thinktime=10ms --time_based --runtime=1 \
  --output-format=json --output=a.json 2>err || fail "sleeping: exit $?: $(cat err)"
"$LUABENCH" fio --name=j --ioengine=null --size=1g --thinktime=10ms --thinktime_spin=10ms \
  --time_based --runtime=1 --output-format=json --output=b.json 2>err || fail "spinning: exit $?: $(cat err)"
read -r ios_a cpu_a <<< "$(cpu a.json)"
read -r ios_b cpu_b <<< "$(cpu b.json)"
[ "$ios_b" -le 101 ] && [ "$ios_b" -ge 20 ] || fail "spinning: $ios_b I/Os in 1 s at thinktime=10ms"
[ "$cpu_b" -gt "$cpu_a" ] && [ "$cpu_b" -ge 5 ] ||
  fail "thinktime_spin=10ms used ${cpu_b}% CPU, sleeping ${cpu_a}%"
pass
