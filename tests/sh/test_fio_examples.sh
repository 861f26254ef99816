#!/usr/bin/env bash
# Description: fio's ten example job files either run under luabench
# (with --override=size=1m --override=runtime=1 and files in a scratch directory) or are
# refused, before anything runs, with one line naming their one unsupported
# option.  Prints which is which.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get

# --- fio's ten example job files ---------------------------------------------
examples=${LB_FIO_EXAMPLES:-${LB_SRC}/../shared/fio-examples}
[ -d "$examples" ] || skip "fio's example job files absent ($examples): fetch fio's source (the installed version, 3.33 on Debian 12) and set LB_FIO_EXAMPLES to its examples/ directory"
echo "fio's example job files, run with --override=size=1m --override=runtime=1:"
refused=()
for f in "$examples"/*.fio; do
  name=$(basename "$f")
  w=$(lb_tmpdir)
  extra=()
  case "$name" in
    waitfor.fio) extra=(--override=filename="$w/data" --override=filesize=1m) ;;
  esac
  rc=0
  (cd "$w" && "$LUABENCH" --quiet fio "$f" --override=size=1m --override=runtime=1 --override=direct=0 --allow-overwrite "${extra[@]}" \
    --output-format=json --output=out.json) >"$w/stdout" 2>"$w/stderr" || rc=$?
  if [ "$rc" -eq 0 ]; then
    python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$w/out.json" || fail "$name: bad JSON"
    echo "  $name: runs"
  elif [ "$rc" -eq 2 ] && [ "$(wc -l <"$w/stderr")" -eq 1 ] && grep -qF "$name:" "$w/stderr"; then
    echo "  $name: refused: $(cat "$w/stderr")"
    refused+=("$name")
  else
    fail "$name: exit $rc: $(head -c 800 "$w/stderr")"
  fi
done
# the one fio submits through a thread: refused, not silently different
expect_exit 2 "unsupported option 'io_submit_mode=offload'" "$LUABENCH" fio "$examples/poisson-rate-submission.fio"

pass
