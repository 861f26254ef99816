#!/usr/bin/env bash
# Description: exitall and exitall_on_error as fio 3.33's: with exitall
# set on any job, the first job to end ends the others (a time_based job
# of 20 s ends within the run of a 4k one, exit 0); with exitall_on_error,
# a job that fails ends the others (exit 1, the failure reported); without
# either, each job runs its course.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

jobs() { # SHORT-OPTION LONG-RUNTIME LONG-OPTION
  printf '[short]\nioengine=null\nsize=4k\n%s\n[long]\nioengine=null\nsize=1g\ntime_based\nruntime=%s\n%s\n' \
    "$1" "$2" "$3" > j.fio
}
runtime_of() { jget out.json "(function() for _, x in ipairs(j.jobs) do if x.jobname == '$1' then return x.read.runtime end end end)()"; }

jobs "" 20 "exitall=1"
"$LUABENCH" fio j.fio --output-format=json --output=out.json 2>err || fail "exitall: exit $?: $(cat err)"
[ "$(runtime_of long)" -lt 10000 ] || fail "exitall on [long]: it ran $(runtime_of long) ms of 20 s"
rm -f out.json
jobs "exitall" 20 ""
"$LUABENCH" fio j.fio --output-format=json --output=out.json 2>err || fail "exitall: exit $?: $(cat err)"
[ "$(runtime_of long)" -lt 10000 ] || fail "exitall on [short]: [long] ran $(runtime_of long) ms of 20 s"
rm -f out.json

printf '[bad]\nioengine=fault\nfault_engine=null\nfault_eio=1\nsize=64k\nexitall_on_error=1\n[long]\nioengine=null\nsize=1g\ntime_based\nruntime=20\n' > e.fio
rc=0
"$LUABENCH" fio e.fio --output-format=json --output=out.json 2>err || rc=$?
[ "$rc" -eq 1 ] || fail "exitall_on_error: exit $rc, expected 1: $(cat err)"
grep -q "job 'bad'" err || fail "exitall_on_error: the failure is not reported: $(cat err)"
[ "$(runtime_of long)" -lt 10000 ] || fail "exitall_on_error: [long] ran $(runtime_of long) ms of 20 s"
rm -f out.json

jobs "" 0.5 ""
"$LUABENCH" fio j.fio --output-format=json --output=out.json 2>err || fail "plain: exit $?: $(cat err)"
[ "$(runtime_of long)" -ge 450 ] || fail "without exitall [long] ran $(runtime_of long) ms of 500"
pass
