#!/usr/bin/env bash
# Description: a symbolic link swapped in between luabench's check of a
# file and its open is never written through.  A second process keeps
# replacing data.dat (a file of luabench's, kept under a second name) by a
# symbolic link to a user's file and back, as fast as it can, while
# luabench runs a write job on data.dat hundreds of times, laid out or
# reused; each run writes luabench's file or refuses (exit 1 or 2), and
# the user's file keeps its bytes and mtime.  The swap of a missing name
# (the layout's O_EXCL create) is tried the same way.
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is needed for the swapping process"

d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
head -c 1048576 /dev/urandom > user.dat
touch -t 202001010000 user.dat
fp() { echo "$(stat -c '%s %Y' "$1") $(sha256sum < "$1")"; }
before=$(fp user.dat)
printf 'lb.run{filename="data.dat", rw="write", bs="4k", size="256k"}\n' > w.lua
expect_exit 0 "" "$LUABENCH" --quiet w.lua
ln data.dat keep.dat || fail "cannot link data.dat"

# swap MODE: replaces data.dat by a link to user.dat and back (MODE=ours),
# or removes it and puts the link back (MODE=missing), until stop exists
cat > swap.py <<'EOF2'
import os, sys
mode = sys.argv[1]
while not os.path.exists("stop"):
    try:
        os.symlink("user.dat", "s.tmp")
        os.rename("s.tmp", "data.dat")
        if mode == "ours":
            os.link("keep.dat", "h.tmp")
            os.rename("h.tmp", "data.dat")
        else:
            os.unlink("data.dat")
    except OSError:
        pass
EOF2

race() { # MODE RUNS
  local mode=$1 runs=$2 i rc wrote=0 refused=0
  rm -f stop
  python3 swap.py "$mode" & local pid=$!
  for ((i = 0; i < runs; i++)); do
    rc=0
    "$LUABENCH" --quiet w.lua >/dev/null 2>"$LB_ERR" </dev/null || rc=$?
    case $rc in
      0) wrote=$((wrote + 1)) ;;
      1|2) refused=$((refused + 1)) ;;
      *) touch stop; wait "$pid"; fail "$mode: run $i exited $rc: $(head -c 300 "$LB_ERR")" ;;
    esac
    if grep -qE 'AddressSanitizer|runtime error:|Segmentation' "$LB_ERR"; then
      touch stop; wait "$pid"; fail "$mode: run $i: $(head -c 300 "$LB_ERR")"
    fi
    [ "$(fp user.dat)" = "$before" ] || { touch stop; wait "$pid"; fail "$mode: run $i wrote through the link into user.dat"; }
  done
  touch stop
  wait "$pid"
  echo "$mode: $runs runs: $wrote wrote luabench's file, $refused refused"
}
race ours 120
race missing 40
[ "$(fp user.dat)" = "$before" ] || fail "user.dat changed"
pass
