# Shared helpers for the shell tests: temp dirs, assertions, exit codes.
set -u
: "${LUABENCH:?LUABENCH must name the luabench binary}"
LB_SRC=${LB_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
LB_ERR=$(mktemp)
LB_TMPLIST=$(mktemp)
cleanup_tmps() {
  while read -r d; do rm -rf "$d"; done < "$LB_TMPLIST"
  rm -f "$LB_ERR" "$LB_TMPLIST"
}
trap cleanup_tmps EXIT

# A fresh directory under /dev/shm (or /tmp), removed at exit (also when
# called in a subshell: tmp=$(lb_tmpdir)).
lb_tmpdir() {
  local base=/dev/shm
  [ -w "$base" ] || base=/tmp
  local d
  d=$(mktemp -d "$base/lbtest.XXXXXX")
  echo "$d" >> "$LB_TMPLIST"
  echo "$d"
}

fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
pass() { echo "ok"; exit 0; }

contains() { # text needle what
  case "$1" in *"$2"*) ;; *) fail "$3: expected '$2' in: $1" ;; esac
}

# expect_exit CODE NEEDLE CMD...: runs CMD, checks its status and that stderr
# holds NEEDLE; stderr is kept in $LB_ERR.
expect_exit() {
  local want=$1 needle=$2; shift 2
  local got=0
  "$@" >/dev/null 2>"$LB_ERR" </dev/null || got=$?
  [ "$got" -eq "$want" ] || fail "$* exited $got, expected $want: $(head -c 600 "$LB_ERR")"
  [ -z "$needle" ] || grep -qF -- "$needle" "$LB_ERR" ||
    fail "$*: expected '$needle' on stderr, got: $(head -c 600 "$LB_ERR")"
  if grep -qE 'AddressSanitizer|runtime error:|ThreadSanitizer|Segmentation' "$LB_ERR"; then
    fail "$*: sanitizer report or crash: $(head -c 600 "$LB_ERR")"
  fi
}

# jget FILE EXPR: prints a Lua expression over the JSON document j read
# from FILE (writes jget.lua in the current directory).
jget() {
  printf 'local f = assert(io.open(args.file)); j = lb.json_decode(f:read("a")); f:close()\nio.write(tostring(%s))\n' \
    "$2" > jget.lua
  "$LUABENCH" jget.lua file="$1"
}
