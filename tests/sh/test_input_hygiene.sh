#!/usr/bin/env bash
# Description: hostile input gets one short, printable line and exit 2:
# an unknown option name of 100 KB (command line) or 1 MB (Lua spec) is
# refused without a "did you mean" (none is sought past 64 bytes) and its
# message is cut; control bytes and invalid UTF-8 in a name come back as
# \xNN; nothing is created.  A script's dir= whose parent is missing is
# refused (a mistyped mount point) unless mkdir=1.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
long=$(head -c 100000 /dev/zero | tr '\0' b)
expect_exit 2 "unknown option '--bbbb" timeout 20 "$LUABENCH" fio --name=x --ioengine=null "--$long=1"
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "not one line: $(head -c 300 "$LB_ERR")"
[ "$(wc -c < "$LB_ERR")" -lt 5000 ] || fail "the message echoes the whole name: $(wc -c < "$LB_ERR") bytes"
grep -q "did you mean" "$LB_ERR" && fail "a suggestion for a 100 KB name: $(head -c 300 "$LB_ERR")"
printf 'lb.run{ioengine="null", size="1m", [string.rep("c", 1000000)] = 1}\n' > big.lua
expect_exit 2 "unknown option 'cccc" timeout 20 "$LUABENCH" big.lua
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "not one line: $(head -c 300 "$LB_ERR")"
[ "$(wc -c < "$LB_ERR")" -lt 5000 ] || fail "a 1 MB name is printed whole: $(wc -c < "$LB_ERR") bytes"
# a near miss still gets its suggestion
expect_exit 2 "did you mean '--blocksize'" "$LUABENCH" fio --name=x --ioengine=null --blocksze=4k
expect_exit 2 'unknown option '"'"'--bl\x01ock\xff\xfe'"'" "$LUABENCH" fio --name=x --ioengine=null $'--bl\x01ock\xff\xfe=1'
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "not one line: $(cat -v "$LB_ERR")"
if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f-\xff]' "$LB_ERR"; then fail "raw bytes in: $(cat -v "$LB_ERR")"; fi
rm -f big.lua
# a mistyped data directory: refused, unless mkdir=1 asks for it
expect_exit 2 "nor does its parent $d/mnt" "$LUABENCH" --quiet "$LB_SRC/scripts/cern.lua" \
  dir="$d/mnt/data" test=random random_size=64k random_numjobs=1
[ ! -e "$d/mnt" ] || fail "the mistyped directory was created"
expect_exit 0 "" "$LUABENCH" --quiet "$LB_SRC/scripts/cern.lua" dir="$d/mnt/data" mkdir=1 \
  test=random random_size=64k random_numjobs=1 keep=0
[ -d "$d/mnt/data" ] || fail "mkdir=1 did not create the directory"
rm -rf "$d/mnt"
# the run that went ahead keeps its journal in the working directory, as every script's
[ -s cern.journal.jsonl ] || fail "the cern run kept no journal"
rm -f cern.journal.jsonl
[ -z "$(ls -A)" ] || fail "files were created: $(ls -A)"
pass
