#!/usr/bin/env bash
# Description: fio's openfiles and create_on_open from the command line.
# Under a descriptor limit of 256 a job over 1000 files runs, reads every
# block and says on stderr that it opens files lazily, where fio would fail
# (also without --verbose; not with --quiet, not when openfiles is given); create_on_open lays nothing out and leaves
# each file written, whole and luabench's own.
. "$(dirname "$0")/lib.sh"

d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
# low LUABENCH-ARGS...: runs luabench under a descriptor limit of 256
low() { (ulimit -n 256 && exec "$LUABENCH" "$@"); }

mkdir many
common=(--name=sf --ioengine=psync --directory=many --nrfiles=1000 --filesize=4k --bs=4k
        --rw=randread --file_service_type=random --output-format=json --output=out.json)
expect_exit 0 "luabench: note: opening files lazily: 1000 files per clone, at most" low fio "${common[@]}"
grep -qF "(descriptor limit 256)" "$LB_ERR" || fail "the note does not name the limit: $(cat "$LB_ERR")"
[ "$(jget out.json 'j.jobs[1].read.total_ios')" = 1000 ] || fail "not every file was read"
[ "$(jget out.json 'j.jobs[1].error')" = 0 ] || fail "the lazy run has an error"

expect_exit 0 "" low --quiet fio "${common[@]}"
! grep -q "note" "$LB_ERR" || fail "--quiet printed: $(cat "$LB_ERR")"
expect_exit 0 "" low fio "${common[@]}" --openfiles=64
! grep -q "lazily" "$LB_ERR" || fail "a note with openfiles given: $(cat "$LB_ERR")"
[ "$(jget out.json 'j.jobs[1].read.total_ios')" = 1000 ] || fail "openfiles=64: not every file was read"

mkdir coo
expect_exit 0 "" "$LUABENCH" fio --name=c --ioengine=psync --directory=coo --nrfiles=6 --filesize=64k \
  --bs=4k --rw=write --create_on_open=1 --openfiles=2
for i in 0 1 2 3 4 5; do
  [ "$(stat -c %s coo/c.0.$i)" = 65536 ] || fail "coo/c.0.$i is not 64 KiB"
done
printf 'for n in io.popen("ls coo"):lines() do assert(lb.remove("coo/" .. n), n) end\n' > rm.lua
"$LUABENCH" rm.lua || fail "the files created on open are not luabench's"
pass
