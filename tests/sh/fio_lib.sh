# Shared setup of the `luabench fio` shell tests: lib.sh, a skip when
# python3, the fio mode or the null engine is missing, a scratch directory
# made current ($d), json_get and quiet_run.
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

command -v python3 >/dev/null || skip "python3 missing"
"$LUABENCH" fio --version >/dev/null 2>&1 || skip "$LUABENCH has no 'fio' mode"
"$LUABENCH" --list-engines 2>/dev/null | grep -q '^null  *supported' || skip "no null engine"

d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

# json_get FILE EXPR: evaluates a Python expression over the JSON document j
json_get() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))
EOF
}

# quiet_run NAME ARGS...: runs `luabench fio ARGS --output-format=json
# --output=NAME.json`, fails on a non-zero exit or anything on stderr
quiet_run() {
  local n=$1; shift
  "$LUABENCH" fio "$@" --output-format=json --output="$n.json" 2>"$n.err" ||
    fail "$n: exit $?: $(head -c 600 "$n.err")"
  [ ! -s "$n.err" ] || fail "$n: wrote on stderr: $(head -c 600 "$n.err")"
}
