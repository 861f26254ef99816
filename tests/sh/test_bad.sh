#!/usr/bin/env bash
# Description: every case of tests/bad/ (bad input and refused runs) ends
# with the exit status it declares, with the message it
# declares (one line, nothing else, for exit 2), with no sanitizer report
# or crash, and without creating or changing anything in its directory.
#
# A case is NAME.lua (run as `luabench NAME.lua`), NAME.fio (run as
# `luabench --fio NAME.fio`) or NAME.args (a command line, one argument a
# line; @BAD@ is tests/bad, @SRC@ the source tree).  Its first line is a
# comment (--, ; or #) "expect: STATUS TEXT"; comment lines after it may
# say "as: nobody" (run as uid 65534, skipped where that is impossible) or
# "creates: NAME ..." (files the case may leave).  Each case runs in a
# fresh directory holding foreign.dat (64 KiB) and small.dat (100 bytes),
# files luabench did not create.  A case that has not ended after 120 s
# hangs (a generous bound: a loaded machine may slow a case tenfold).
#
# The harness forks little per case (the header is read by bash alone, the
# fresh directory is a copy of one template whose listing is taken once):
# on a loaded machine each fork costs tens of milliseconds.
. "$(dirname "$0")/lib.sh"

bad=$LB_SRC/tests/bad
[ -d "$bad" ] || fail "no $bad"
root=$(lb_tmpdir)
chmod 755 "$root"
# a fixed past mtime shows any write, even one that leaves the bytes alone
stamp=202001010000

nobody=()
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null &&
   setpriv --reuid=65534 --regid=65534 --clear-groups "$LUABENCH" --version >/dev/null 2>&1 &&
   setpriv --reuid=65534 --regid=65534 --clear-groups \
     test -r "$LB_SRC/tests/bad/permission_denied.lua" -a -r "$LB_SRC/stdlib/luabench/fio/init.lua"; then
  nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi

failures=()
nfail=0 npass=0 nskip=0
bad_case() { failures+=("$1: $2"); nfail=$((nfail + 1)); }

# header FILE: sets want_rc, want_msg, as_user, creates from the comments
header() {
  local line first=1 re='^(--|;|#)[[:space:]]*(.*)$'
  as_user="" creates="" want_rc="" want_msg=""
  while IFS= read -r line || [ -n "$line" ]; do
    [[ "$line" =~ $re ]] || break
    line=${BASH_REMATCH[2]}
    if [ "$first" ]; then
      case "$line" in expect:*) ;; *) return 1 ;; esac
      line=${line#expect:}
      line=${line# }
      want_rc=${line%% *}
      want_msg=${line#"$want_rc"}
      want_msg=${want_msg# }
      first=""
      continue
    fi
    case "$line" in
      as:*) as_user=${line#as:}; as_user=${as_user// /} ;;
      creates:*) creates=${line#creates:} ;;
    esac
  done < "$1"
  [[ "$want_rc" =~ ^[0-9]+$ ]]
}

# the command of a case, in cmd[]
command_of() {
  local f=$1 line
  cmd=("$LUABENCH")
  case "$f" in
    *.lua) cmd+=("$f") ;;
    *.fio) cmd+=(--fio "$f") ;;
    *.args)
      while IFS= read -r line; do
        case "$line" in '#'*|'') continue ;; esac
        line=${line//@BAD@/$bad}
        line=${line//@SRC@/$LB_SRC}
        cmd+=("$line")
      done < "$f" ;;
  esac
}

# snapshot DIR: every entry with its type, size, mode, mtime and content
# hash; a directory's size and mtime are left out (a file made and removed
# again changes them, and nothing a user sees)
snapshot() {
  (cd "$1" && { find . -type d -printf '%p %y %m\n' -o -printf '%p %y %s %m %TY%Tm%Td%TH%TM\n'
                find . -type f -exec sha256sum {} +; } | sort)
}

# the directory every case starts from
template=$root/template
mkdir "$template" && chmod 755 "$template"
head -c 65536 /dev/urandom > "$template/foreign.dat"
head -c 100 /dev/urandom > "$template/small.dat"
touch -t "$stamp" "$template/foreign.dat" "$template/small.dat"
before=$(snapshot "$template")

crash_re='AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error:|Segmentation fault|core dumped'

run_case() {
  local f=$1 name wd out err rc errtext first nl after
  name=$(basename "$f")
  if ! header "$f"; then bad_case "$name" "no '-- expect: STATUS TEXT' first line"; return; fi
  if [ "$as_user" = nobody ] && [ ${#nobody[@]} -eq 0 ]; then
    echo "SKIP $name: cannot run as nobody here"; nskip=$((nskip + 1)); return
  fi
  wd=$root/${name//./_}
  out=$root/${name//./_}.out err=$root/${name//./_}.err
  cp -a "$template" "$wd"
  command_of "$f"
  local pre=()
  [ "$as_user" = nobody ] && pre=("${nobody[@]}")
  rc=0
  (cd "$wd" && exec timeout -k 5 120 "${pre[@]}" "${cmd[@]}") >"$out" 2>"$err" </dev/null || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    bad_case "$name" "did not end within 120 s"; return
  fi
  errtext=""
  IFS= read -r -d '' errtext < "$err" || true
  IFS= read -r first < "$err" || true
  if [[ "$errtext" =~ $crash_re ]]; then
    bad_case "$name" "sanitizer report or crash: ${errtext:0:400}"; return
  fi
  if [ "$rc" -ne "$want_rc" ]; then
    bad_case "$name" "exit $rc, expected $want_rc: ${errtext:0:400}"; return
  fi
  nl=${errtext//[!$'\n']/}
  if [ "$want_rc" -eq 2 ] && [ "${#nl}" -ne 1 ]; then
    bad_case "$name" "bad input must give one line on stderr, got ${#nl}: ${errtext:0:400}"; return
  fi
  if [ -n "$want_msg" ] && [[ "$first" != *"$want_msg"* ]]; then
    bad_case "$name" "expected '$want_msg' in: ${first:0:400}"; return
  fi
  for c in $creates; do rm -rf "${wd:?}/$c"; done
  after=$(snapshot "$wd")
  if [ "$before" != "$after" ]; then
    bad_case "$name" "the directory changed: $(diff <(echo "$before") <(echo "$after") | grep '^[<>]' | head -5 | tr '\n' ' ')"
    return
  fi
  npass=$((npass + 1))
}

shopt -s nullglob
cases=("$bad"/*.lua "$bad"/*.fio "$bad"/*.args)
[ ${#cases[@]} -ge 45 ] || fail "only ${#cases[@]} cases in $bad"
src_before=$(snapshot "$bad")
for f in "${cases[@]}"; do
  run_case "$f"
done
[ "$(snapshot "$bad")" = "$src_before" ] || bad_case "tests/bad" "a case wrote into the source tree"
echo "$npass passed, $nfail failed, $nskip skipped of ${#cases[@]} cases"
if [ "$nfail" -gt 0 ]; then
  printf 'FAIL: %s\n' "${failures[@]}" >&2
  exit 1
fi
pass
