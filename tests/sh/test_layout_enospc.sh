#!/usr/bin/env bash
# Description: a layout that runs out of space (a 2 MiB tmpfs, a job of
# 8 MiB) ends with exit 1 and one message naming the file and how many
# bytes did not fit, removes the partial file it created (and its
# manifest line), and leaves the user's file beside it as it was; the
# file system is not left full.  A layout that extends a file of ours
# cuts it back to its former size.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "mounting a small tmpfs needs root"
d=$(lb_tmpdir)
mnt=$d/small
mkdir "$mnt"
mount -t tmpfs -o size=2m lbtest "$mnt" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount "$mnt"; cleanup_tmps' EXIT
cd "$mnt" || fail "cd $mnt"
head -c 65536 /dev/urandom > user.dat
sum=$(sha256sum < user.dat)
free_kb() { df -k --output=avail . | tail -n 1 | tr -d ' '; }
free0=$(free_kb)

printf 'lb.run{filename="big.dat", rw="read", bs="64k", size="8m"}\n' > "$d/big.lua"
expect_exit 1 "cannot lay out big.dat: No space left on device" "$LUABENCH" --quiet "$d/big.lua"
contains "$(cat "$LB_ERR")" "bytes did not fit; the partial file was removed" "the message"
[ ! -e big.dat ] || fail "the partial file big.dat was left behind ($(stat -c %s big.dat) bytes)"
[ "$(sha256sum < user.dat)" = "$sum" ] || fail "user.dat changed"
[ "$(ls -A | tr '\n' ' ')" = "user.dat " ] || fail "files left: $(ls -A | tr '\n' ' ')"
[ "$(free_kb)" -ge "$free0" ] || fail "the file system was left fuller: $(free_kb) KiB free, $free0 before"

# a file of ours that a larger job extends is cut back to its size
printf 'lb.run{filename="ours.dat", rw="read", bs="64k", size="512k"}\n' > "$d/small.lua"
expect_exit 0 "" "$LUABENCH" --quiet "$d/small.lua"
osum=$(sha256sum < ours.dat)
printf 'lb.run{filename="ours.dat", rw="read", bs="64k", size="8m"}\n' > "$d/grow.lua"
expect_exit 1 "the file was cut back to its former size" "$LUABENCH" --quiet "$d/grow.lua"
[ "$(stat -c %s ours.dat)" = 524288 ] || fail "ours.dat holds $(stat -c %s ours.dat) bytes, not 524288"
[ "$(sha256sum < ours.dat)" = "$osum" ] || fail "the first 512 KiB of ours.dat changed"
cd "$d" || fail "cd $d"
pass
