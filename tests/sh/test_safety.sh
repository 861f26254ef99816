#!/usr/bin/env bash
# Description: luabench never destroys data it did not create.  A refused
# write (Lua script, `luabench fio`, a fio job file; every engine) leaves
# a user's file byte for byte and its mtime as they were, and creates
# nothing; --allow-overwrite and allow_overwrite=true permit the write
# without taking the file over; --readonly opens nothing for writing and
# creates nothing (checked with strace where it runs); lb.remove removes
# only luabench's files; a block device is refused without allow_overwrite.
. "$(dirname "$0")/lib.sh"

d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

# user FILE SIZE: a file with data luabench did not write, dated 2020
user() { head -c "$2" /dev/urandom > "$1" && touch -t 202001010000 "$1"; }
# the facts a user would compare: size, mtime, content
fp() { echo "$(stat -c '%s %Y' "$1") $(sha256sum < "$1")"; }
listing() { ls -A | sort | tr '\n' ' '; }
engines=$("$LUABENCH" --list-engines | awk '$2 == "supported" {print $1}')
supported() { grep -qx "$1" <<<"$engines"; }
refused="refusing to write to user.dat: not created by luabench"

user user.dat 1048576
before=$(fp user.dat)
unchanged() { [ "$(fp user.dat)" = "$before" ] || fail "$1 changed user.dat"; }

# --- refused: every engine, every kind of write ------------------------------
for eng in psync sync pvsync2 libaio posixaio io_uring mmap; do
  supported "$eng" || continue
  printf 'lb.run{ioengine="%s", iodepth=4, filename="user.dat", rw="randwrite", bs="4k", size="1m"}\n' \
    "$eng" > w.lua
  expect_exit 2 "$refused" "$LUABENCH" w.lua
  [ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "$eng: the refusal is not one line: $(cat "$LB_ERR")"
  unchanged "a randwrite job on $eng"
done
for rw in write trim rw randrw; do
  printf 'lb.run{filename="user.dat", rw="%s", size="1m"}\n' "$rw" > w.lua
  expect_exit 2 "$refused" "$LUABENCH" w.lua
  unchanged "rw=$rw"
done
printf 'lb.run{filename="user.dat", rw="write", size="1m", verify="crc32c"}\n' > w.lua
expect_exit 2 "$refused" "$LUABENCH" w.lua
unchanged "a verify job"
# reading past the end would extend the file
printf 'lb.run{filename="user.dat", rw="read", size="2m"}\n' > w.lua
expect_exit 2 "refusing to write to user.dat" "$LUABENCH" w.lua
unchanged "a read job larger than the file"
# a symbolic link to a user's file is the user's file
ln -s user.dat link.dat
printf 'lb.run{filename="link.dat", rw="write", size="1m"}\n' > w.lua
expect_exit 2 "refusing to write to link.dat" "$LUABENCH" w.lua
unchanged "a write through a symbolic link"
# a generated name that is taken by a user's file
cp -p user.dat x.1
printf 'lb.run{name="x", numjobs=2, filename_format="$jobname.$jobnum", rw="write", size="1m"}\n' > w.lua
expect_exit 2 "refusing to write to x.1" "$LUABENCH" w.lua
cmp -s user.dat x.1 || fail "x.1 was written"
[ ! -e x.0 ] || fail "the refused run created x.0"
rm -f x.1
# one refused job of several: none of them starts or creates anything
printf 'lb.run{rw="write", size="64k", jobs={{name="a", filename="new.dat"}, {name="b", filename="user.dat"}}}\n' > w.lua
expect_exit 2 "$refused" "$LUABENCH" w.lua
[ ! -e new.dat ] || fail "the refused run created new.dat for its other job"

expect_exit 2 "$refused" "$LUABENCH" fio --name=x --rw=write --bs=64k --filename=user.dat
unchanged "luabench fio --rw=write"
expect_exit 2 "$refused" "$LUABENCH" fio --name=x --ioengine=libaio --rw=randwrite --size=1m --filename=user.dat
unchanged "luabench fio --rw=randwrite --ioengine=libaio"
printf '[global]\nioengine=psync\nbs=4k\n\n[w]\nfilename=user.dat\nrw=randrw\nsize=1m\n' > w.fio
expect_exit 2 "$refused" "$LUABENCH" --fio w.fio
unchanged "a fio job file"
expect_exit 2 "$refused" "$LUABENCH" fio w.fio --output-format=json --output=out.json
unchanged "a fio job file with --output"
[ ! -e out.json ] || fail "a refused run wrote its report"
rm -f w.lua
[ "$(listing)" = "link.dat user.dat w.fio " ] || fail "refused runs left files behind: $(listing)"

# --- allowed: the flag or the option, and the file stays the user's -------
# ours FILE: whether luabench calls FILE its own
ours() { printf 'io.write(tostring(lb.is_ours("%s")))\n' "$1" > ours.lua && "$LUABENCH" ours.lua; }
printf 'lb.run{filename="user.dat", rw="write", bs="64k"}\n' > w.lua
expect_exit 0 "" "$LUABENCH" --allow-overwrite w.lua
[ "$(fp user.dat)" != "$before" ] || fail "--allow-overwrite: user.dat was not written"
[ "$(stat -c %s user.dat)" = 1048576 ] || fail "--allow-overwrite changed the size of user.dat"
[ "$(ours user.dat)" = false ] || fail "--allow-overwrite made user.dat luabench's"
again() { user user.dat 1048576; before=$(fp user.dat); }
again
printf 'lb.run{filename="user.dat", rw="randwrite", bs="4k", allow_overwrite=true}\n' > w.lua
expect_exit 0 "" "$LUABENCH" w.lua
[ "$(fp user.dat)" != "$before" ] || fail "allow_overwrite=true: user.dat was not written"
again
expect_exit 0 "" "$LUABENCH" fio --allow-overwrite --name=x --rw=write --bs=64k --filename=user.dat
[ "$(fp user.dat)" != "$before" ] || fail "fio --allow-overwrite: user.dat was not written"
again
expect_exit 0 "" "$LUABENCH" fio --allow-overwrite=yes --name=x --rw=write --bs=64k --filename=user.dat
[ "$(fp user.dat)" != "$before" ] || fail "fio --allow-overwrite=yes: user.dat was not written"
again
printf 'lb.run{filename="user.dat", rw="write", bs="64k"}\n' > w.lua
expect_exit 2 "$refused" "$LUABENCH" --allow-overwrite=0 w.lua
unchanged "--allow-overwrite=0"
expect_exit 0 "" "$LUABENCH" --allow-overwrite=on w.lua
[ "$(fp user.dat)" != "$before" ] || fail "--allow-overwrite=on: user.dat was not written"
again
printf 'allow_overwrite=1\n' >> w.fio
expect_exit 0 "" "$LUABENCH" --fio w.fio
[ "$(fp user.dat)" != "$before" ] || fail "a job file with allow_overwrite=1: user.dat was not written"
[ "$(ours user.dat)" = false ] || fail "allow_overwrite made user.dat luabench's"
rm -f w.lua w.fio ours.lua

# --- --readonly: nothing opened for writing, nothing created -----------------
again
ro=$(lb_tmpdir)
cp -p user.dat "$ro/user.dat"
cd "$ro" || fail "cd $ro"
printf 'lb.run{filename="user.dat", rw="randread", bs="4k"}\n' > "$d/r.lua"
printf 'lb.run{filename="missing.dat", rw="read", size="64k"}\n' > "$d/m.lua"
printf 'lb.run{filename="new.dat", rw="write", size="64k"}\n' > "$d/w.lua"
trace=()
if command -v strace >/dev/null && strace -f -o /dev/null true 2>/dev/null; then
  # LeakSanitizer cannot work under ptrace
  trace=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" strace -f -qq -o "$d/trace" -e trace=open,openat,openat2,creat,truncate,ftruncate,unlink,unlinkat,rename,renameat,renameat2,mkdir,mkdirat,setxattr,fsetxattr,lsetxattr)
fi
# writes_in_trace: the calls in the trace that write or create
writes_in_trace() {
  [ ${#trace[@]} -gt 0 ] || return 0
  grep -E 'O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|creat\(|truncate\(|unlink|rename|mkdir|setxattr' "$d/trace" |
    grep -v ' = -1 ' || true
}
expect_exit 0 "" "${trace[@]}" "$LUABENCH" --readonly "$d/r.lua"
w=$(writes_in_trace); [ -z "$w" ] || fail "--readonly read job: $w"
expect_exit 1 "missing.dat" "${trace[@]}" "$LUABENCH" --readonly "$d/m.lua"
w=$(writes_in_trace); [ -z "$w" ] || fail "--readonly, missing file: $w"
expect_exit 2 "readonly" "${trace[@]}" "$LUABENCH" --readonly "$d/w.lua"
w=$(writes_in_trace); [ -z "$w" ] || fail "--readonly write job: $w"
expect_exit 0 "" "${trace[@]}" "$LUABENCH" fio --readonly --name=x --rw=randread --bs=4k --filename=user.dat
w=$(writes_in_trace); [ -z "$w" ] || fail "fio --readonly: $w"
expect_exit 1 "missing.dat" "$LUABENCH" fio --readonly --name=x --rw=read --size=64k --filename=missing.dat
expect_exit 2 "readonly" "$LUABENCH" fio --readonly --name=x --rw=write --size=64k --filename=new.dat
[ "$(listing)" = "user.dat " ] || fail "--readonly runs created files: $(listing)"
[ "$(fp user.dat)" = "$before" ] || fail "--readonly changed user.dat"
cd "$d" || fail "cd $d"

# --- lb.remove: ours goes, the user's stays ----------------------------------
again
cat > rm.lua <<'EOF'
lb.run{filename="ours.dat", rw="write", size="64k"}
assert(lb.is_ours("ours.dat") == true, "ours.dat is not ours")
assert(lb.is_ours("user.dat") == false, "user.dat is ours")
local ok, msg, name = lb.remove("user.dat")
assert(ok == nil and name == "EPERM", "lb.remove(user.dat): " .. tostring(ok) .. " " .. tostring(msg))
assert(msg:find("user.dat", 1, true), "the refusal does not name the file: " .. msg)
ok, msg, name = lb.remove("link.dat")
assert(ok == nil and name == "EPERM", "lb.remove(link.dat): " .. tostring(ok) .. " " .. tostring(msg))
ok, msg, name = lb.remove(".")
assert(ok == nil, "lb.remove(.) removed the directory")
assert(lb.remove("ours.dat") == true, "lb.remove(ours.dat) failed")
assert(lb.remove("never-existed.dat") == true, "a missing file is not an error")
EOF
expect_exit 0 "" "$LUABENCH" rm.lua
[ ! -e ours.dat ] || fail "lb.remove left ours.dat"
[ "$(fp user.dat)" = "$before" ] || fail "lb.remove touched user.dat"
[ -L link.dat ] || fail "lb.remove removed link.dat"
# a user's file that took the name of one of ours is the user's
printf 'lb.run{filename="ours.dat", rw="write", size="64k"}\n' > mk.lua
expect_exit 0 "" "$LUABENCH" mk.lua
rm ours.dat && cp -p user.dat ours.dat
printf 'local ok, msg = lb.remove("ours.dat")\nassert(not ok, "removed a file that replaced ours")\n' > rm2.lua
expect_exit 0 "" "$LUABENCH" rm2.lua
cmp -s ours.dat user.dat || fail "the replacement of ours.dat was changed"

# --- runs write only where they were asked to -------------------------------
e=$(lb_tmpdir)
cd "$e" || fail "cd $e"
expect_exit 0 "" "$LUABENCH" fio --name=n --ioengine=null --rw=randrw --size=1m --output-format=json,terse
[ -z "$(ls -A)" ] || fail "a null-engine run created files: $(listing)"
expect_exit 0 "" "$LUABENCH" fio --name=w --rw=randwrite --size=64k --nrfiles=2
[ "$(listing)" = "w.0.0 w.0.1 " ] || fail "a write run created more than its files: $(listing)"
mkdir sub
printf 'lb.run{name="s", directory="sub", rw="write", size="64k", numjobs=2}\n' > "$d/sub.lua"
expect_exit 0 "" "$LUABENCH" "$d/sub.lua"
[ "$(ls -A sub | tr '\n' ' ')" = "s.0.0 s.1.0 " ] || fail "directory=sub: $(ls -A sub | tr '\n' ' ')"
[ "$(listing)" = "sub w.0.0 w.0.1 " ] || fail "directory=sub wrote beside sub: $(listing)"
cd "$d" || fail "cd $d"

# --- a block device --------------------------------------------------------
if [ "$(id -u)" -eq 0 ] && command -v losetup >/dev/null && back=$(mktemp "$d/back.XXXXXX") &&
   truncate -s 8M "$back" && head -c 65536 /dev/urandom | dd of="$back" conv=notrunc status=none &&
   loop=$(losetup --find --show "$back" 2>/dev/null); then
  trap 'losetup -d "$loop"; cleanup_tmps' EXIT
  dev_before=$(sha256sum < "$back")
  printf 'lb.run{filename="%s", rw="write", bs="64k"}\n' "$loop" > dev.lua
  expect_exit 2 "refusing to write to $loop" "$LUABENCH" dev.lua
  expect_exit 2 "refusing to write to $loop" "$LUABENCH" fio --name=x --rw=randwrite --filename="$loop"
  sync
  [ "$(sha256sum < "$back")" = "$dev_before" ] || fail "a refused run wrote to $loop"
  printf 'local r = lb.run{filename="%s", rw="read", bs="64k"}\nassert(r.read.io_bytes == 8388608, r.read.io_bytes)\n' "$loop" > devr.lua
  expect_exit 0 "" "$LUABENCH" devr.lua
  expect_exit 0 "" "$LUABENCH" --allow-overwrite dev.lua
  sync
  [ "$(sha256sum < "$back")" != "$dev_before" ] || fail "--allow-overwrite did not write to $loop"
  losetup -d "$loop"
  trap cleanup_tmps EXIT
else
  echo "note: no loop device here: the block device checks were skipped"
fi
pass
