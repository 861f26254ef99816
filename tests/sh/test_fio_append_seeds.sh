#!/usr/bin/env bash
# Description: file_append, allrandrepeat and unique_filename as fio
# 3.33's, on the same jobs as fio where it is installed: file_append
# writes from a file's end (offset unused), the bytes before it kept, a
# missing file from 0, and a read job extends the file by its size; with
# allrandrepeat a randrw job reads and writes the bytes fio does, with
# randrepeat=0 or any randseed; unique_filename=0 and 1 name the same files.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
have_fio=0
command -v fio >/dev/null && fio --version 2>/dev/null | grep -q '^fio-3' && have_fio=1

# tool NAME ARGS...: runs luabench's or fio's front end, json to NAME.json
tool() {
  local t=$1 n=$2; shift 2
  rm -f "$n.json"
  if [ "$t" = fio ]; then
    fio "$@" --output-format=json --output="$n.json" >/dev/null 2>"$n.err" || fail "fio $*: exit $?: $(head -c 300 "$n.err")"
  else
    "$LUABENCH" fio "$@" --output-format=json --output="$n.json" >/dev/null 2>"$n.err" ||
      fail "luabench fio $*: exit $?: $(head -c 300 "$n.err")"
  fi
}
first_write() { awk '$3 == "write" { print $4; exit }' "$1"; }

# --- file_append -----------------------------------------------------------------
tools=(lb); [ $have_fio = 1 ] && tools+=(fio)
for t in "${tools[@]}"; do
  tool "$t" mk --name=a --filename="$t.old" --rw=write --bs=4k --size=64k
  before=$(md5sum < "$t.old")
  tool "$t" ap --name=a --filename="$t.old" --rw=write --bs=4k --size=16k --file_append=1 --offset=8k \
    --write_iolog="$t.old.log"
  [ "$(stat -c %s "$t.old")" = 81920 ] || fail "$t: file_append: the file is $(stat -c %s "$t.old") bytes, expected 81920"
  [ "$(head -c 65536 "$t.old" | md5sum)" = "$before" ] || fail "$t: file_append changed the bytes before the end"
  [ "$(first_write "$t.old.log")" = 65536 ] || fail "$t: file_append: first write at $(first_write "$t.old.log")"
  tool "$t" new --name=a --filename="$t.new" --rw=write --bs=4k --size=16k --file_append=1 --write_iolog="$t.new.log"
  [ "$(stat -c %s "$t.new")" = 16384 ] || fail "$t: file_append on a new file: $(stat -c %s "$t.new") bytes"
  [ "$(first_write "$t.new.log")" = 0 ] || fail "$t: file_append on a new file: first write at $(first_write "$t.new.log")"
  tool "$t" rd --name=a --filename="$t.old" --rw=read --bs=4k --size=16k --file_append=1
  [ "$(stat -c %s "$t.old")" = 98304 ] || fail "$t: a reading file_append job left $(stat -c %s "$t.old") bytes, expected 98304"
  [ "$(jget rd.json 'j.jobs[1].read.io_bytes')" = 16384 ] || fail "$t: file_append read $(jget rd.json 'j.jobs[1].read.io_bytes') bytes"
done

# --- allrandrepeat -----------------------------------------------------------------
mix() { jget "$1.json" "j.jobs[1].read.io_bytes .. ' ' .. j.jobs[1].write.io_bytes"; }
job=(--name=r --ioengine=null --rw=randrw --bs=4k --size=4m)
tool lb plain "${job[@]}"
for o in "--randrepeat=0" "--randseed=77" "--numjobs=2 --group_reporting"; do
  # shellcheck disable=SC2086
  tool lb ar "${job[@]}" --allrandrepeat=1 $o
  want="2220032 1974272"; [ "$o" = "--numjobs=2 --group_reporting" ] && want="4382720 4005888"
  [ "$(mix ar)" = "$want" ] || fail "allrandrepeat $o: read write bytes $(mix ar), fio's are $want"
  if [ $have_fio = 1 ]; then
    # shellcheck disable=SC2086
    tool fio far "${job[@]}" --allrandrepeat=1 $o
    [ "$(mix far)" = "$want" ] || fail "fio's allrandrepeat $o gave $(mix far), not $want"
  fi
done
[ "$(mix plain)" != "2220032 1974272" ] || fail "allrandrepeat changed nothing"

# --- unique_filename ----------------------------------------------------------------
mkdir u0 u1
tool lb u0 --name=u --directory=u0 --rw=write --size=8k --nrfiles=2 --unique_filename=0
tool lb u1 --name=u --directory=u1 --rw=write --size=8k --nrfiles=2 --unique_filename=1
[ "$(ls u0)" = "$(ls u1)" ] && [ "$(ls u0 | wc -l)" = 2 ] || fail "unique_filename: names $(ls u0) and $(ls u1)"
expect_exit 2 "bad value 'maybe' for 'unique_filename'" "$LUABENCH" fio --name=u --ioengine=null --size=4k --unique_filename=maybe
expect_exit 2 "bad value 'x' for 'file_append'" "$LUABENCH" fio --name=u --ioengine=null --size=4k --file_append=x
pass
