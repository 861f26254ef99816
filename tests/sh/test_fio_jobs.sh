#!/usr/bin/env bash
# Description: the fio options that fio's own job tests (t/jobs/t00NN)
# exercise mean what they mean in fio: the bytes and offsets a job touches,
# the numbers in its JSON, and nothing on stderr when fio prints nothing.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get

# quiet_run NAME ARGS...: runs `luabench fio ARGS --output-format=json
# --output=NAME.json`, fails on a non-zero exit or anything on stderr
quiet_run() {
  local n=$1; shift
  "$LUABENCH" fio "$@" --output-format=json --output="$n.json" 2>"$n.err" ||
    fail "$n: exit $?: $(head -c 600 "$n.err")"
  [ ! -s "$n.err" ] || fail "$n: wrote on stderr: $(head -c 600 "$n.err")"
}

# --- --max-jobs: accepted silently, as fio does; a bad value is bad input -------
quiet_run maxjobs --max-jobs=4 --name=m --ioengine=null --rw=read --size=1m
[ "$(json_get maxjobs.json 'j["jobs"][0]["read"]["io_bytes"]')" = 1048576 ] || fail "--max-jobs run: read bytes"
quiet_run maxjobs2 --name=m --ioengine=null --rw=read --size=1m --max-jobs 4
expect_exit 2 "bad value 'x' for '--max-jobs'" "$LUABENCH" fio --max-jobs=x --name=m --ioengine=null

pass
