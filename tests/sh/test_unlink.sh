#!/usr/bin/env bash
# Description: unlink=1 removes the job's files once the run is over, as
# fio's does, but only the files luabench created: a user's file read with
# unlink=1 stays byte for byte and a note says it was kept; without unlink
# the files stay.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

"$LUABENCH" fio --name=j --rw=write --bs=4k --size=16k --nrfiles=2 --output=/dev/null 2>err ||
  fail "plain: exit $?: $(cat err)"
[ -f j.0.0 ] && [ -f j.0.1 ] || fail "without unlink the files are gone: $(ls)"
rm -f j.0.*
"$LUABENCH" fio --name=j --rw=write --bs=4k --size=16k --nrfiles=2 --numjobs=2 --unlink=1 \
  --output=/dev/null 2>err || fail "unlink=1: exit $?: $(cat err)"
left=$(ls j.* 2>/dev/null)
[ -z "$left" ] || fail "unlink=1 left $left"

printf 'a file of the user\n' > user.dat
cp user.dat want.dat
"$LUABENCH" fio --name=j --filename=user.dat --rw=read --bs=1 --size=8 --unlink=1 \
  --output=/dev/null 2>err || fail "unlink of a user's file: exit $?: $(cat err)"
cmp -s user.dat want.dat || fail "unlink=1 removed or changed a file luabench did not create"
grep -qx "luabench: note: unlink: user.dat was kept: luabench did not create it" err ||
  fail "the user is not told that user.dat was kept: $(cat err)"
"$LUABENCH" fio --name=j --filename=user.dat --rw=read --bs=1 --size=8 --output=/dev/null 2>err ||
  fail "read without unlink: exit $?: $(cat err)"
[ ! -s err ] || fail "a note without unlink=1: $(cat err)"
pass
