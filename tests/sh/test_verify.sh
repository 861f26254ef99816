#!/usr/bin/env bash
# Description: data verification from the command line, as a user checks
# a disk: a file written with verify=crc32c (md5, pattern) verifies clean
# with verify_only; one byte changed with dd makes the verify run exit 1
# (a run with verify errors exits 1), naming the file and the offset of
# the bad block on stderr and in the JSON's error; continue_on_error=verify
# goes on over the whole file and counts every bad block.
. "$(dirname "$0")/lib.sh"

d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

for method in crc32c md5 pattern; do
  common=(--name=v --ioengine=psync --bs=4k --size=256k --filename=data.$method --verify=$method)
  expect_exit 0 "" "$LUABENCH" fio "${common[@]}" --rw=write
  [ "$(stat -c %s data.$method)" = 262144 ] || fail "$method: data.$method is not 256 KiB"
  expect_exit 0 "" "$LUABENCH" fio "${common[@]}" --rw=read --verify_only=1 --output-format=json --output=clean.json
  [ "$(jget clean.json 'j.jobs[1].error')" = 0 ] || fail "$method: a clean file does not verify"
  [ "$(jget clean.json 'j.jobs[1].read.total_ios')" = 64 ] || fail "$method: verify_only did not read every block"

  # one byte of block 2 (offset 8192) changes
  printf '\x5a' | dd of=data.$method bs=1 seek=$((8192 + 100)) conv=notrunc status=none
  cmp -s <(printf '\x5a') <(dd if=data.$method bs=1 skip=$((8192 + 100)) count=1 status=none) ||
    printf '\xa5' | dd of=data.$method bs=1 seek=$((8192 + 100)) conv=notrunc status=none
  expect_exit 1 "offset 8192" "$LUABENCH" fio "${common[@]}" --rw=read --verify_only=1 \
    --output-format=json --output=bad.json
  contains "$(cat "$LB_ERR")" "data.$method" "$method: the message names the file"
  [ "$(jget bad.json 'j.jobs[1].error')" = 84 ] || fail "$method: the JSON error is not EILSEQ (84): $(jget bad.json 'j.jobs[1].error')"
  [ "$(jget bad.json 'j.jobs[1].read.total_ios < 64')" = true ] ||
    fail "$method: the verify run went on after the bad block without continue_on_error"
done

# verify_only never writes: the damaged file stays as it is
sum=$(sha256sum < data.crc32c)
expect_exit 1 "offset 8192" "$LUABENCH" fio --name=v --bs=4k --size=256k --filename=data.crc32c \
  --verify=crc32c --rw=read --verify_only=1
[ "$(sha256sum < data.crc32c)" = "$sum" ] || fail "verify_only changed the file"

# continue_on_error=verify: every block read, both bad ones counted
printf '\x00\x01' | dd of=data.crc32c bs=1 seek=$((65536 * 3 + 7)) conv=notrunc status=none
expect_exit 1 "2 errors" "$LUABENCH" fio --name=v --bs=4k --size=256k --filename=data.crc32c \
  --verify=crc32c --rw=read --verify_only=1 --continue_on_error=verify --output-format=json --output=coe.json
contains "$(cat "$LB_ERR")" "offset 8192" "continue_on_error: the first bad block"
[ "$(jget coe.json 'j.jobs[1].total_err')" = 2 ] || fail "continue_on_error=verify: total_err is $(jget coe.json 'j.jobs[1].total_err'), expected 2"
# a block that fails to verify was still read: it counts among the I/Os
[ "$(jget coe.json 'j.jobs[1].read.total_ios')" = 64 ] ||
  fail "continue_on_error=verify: not every block was read"

# the Lua result says the same
cat > v.lua <<'EOF'
local r = lb.run{name = "v", bs = "4k", size = "256k", filename = "data.crc32c", verify = "crc32c",
                 rw = "read", verify_only = true, continue_on_error = "verify"}
local e = r.errors
assert(r.error == 84 and e.first_error == "EILSEQ", "error " .. tostring(r.error))
assert(e.count == 2 and e.first_offset == 8192 and e.first_file == "data.crc32c",
       ("count %s offset %s file %s"):format(e.count, e.first_offset, e.first_file))
assert(e.message:find("offset 8192", 1, true), e.message)
EOF
expect_exit 0 "" "$LUABENCH" v.lua

# a write job with verify reads back what it wrote, in the same run
expect_exit 0 "" "$LUABENCH" fio --name=w --bs=4k --size=256k --filename=wv.dat --verify=crc32c \
  --rw=randwrite --output-format=json --output=wv.json
[ "$(jget wv.json 'j.jobs[1].error')" = 0 ] || fail "write+verify reports an error"
pass
