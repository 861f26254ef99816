#!/usr/bin/env bash
# Description: every case of tests/bad/ (bad input and refused runs) ends
# with the exit status it declares, within 10 s, with the message it
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
# files luabench did not create.
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
  local first line
  first=$(head -n 1 "$1" | sed -E 's/^(--|;|#)[[:space:]]*//')
  case "$first" in expect:*) ;; *) return 1 ;; esac
  first=${first#expect:}
  first=${first# }
  want_rc=${first%% *}
  want_msg=${first#"$want_rc"}
  want_msg=${want_msg# }
  as_user="" creates=""
  while IFS= read -r line; do
    line=$(printf '%s' "$line" | sed -E 's/^(--|;|#)[[:space:]]*//')
    case "$line" in
      as:*) as_user=${line#as:}; as_user=${as_user// /} ;;
      creates:*) creates=${line#creates:} ;;
    esac
  done < <(sed -n '2,/^[^-;#]/p' "$1" | grep -E '^(--|;|#)')
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

# snapshot DIR: every entry with its size, mode, mtime and content hash
snapshot() {
  (cd "$1" && find . -printf '%p %y %s %m %TY%Tm%Td%TH%TM\n' | sort &&
   find . -type f -exec sha256sum {} + | sort)
}

run_case() {
  local f=$1 name wd out err rc lines before after
  name=$(basename "$f")
  if ! header "$f"; then bad_case "$name" "no '-- expect: STATUS TEXT' first line"; return; fi
  if [ "$as_user" = nobody ] && [ ${#nobody[@]} -eq 0 ]; then
    echo "SKIP $name: cannot run as nobody here"; nskip=$((nskip + 1)); return
  fi
  wd=$root/${name//./_}
  out=$root/${name//./_}.out err=$root/${name//./_}.err
  mkdir -p "$wd" && chmod 755 "$wd"
  head -c 65536 /dev/urandom > "$wd/foreign.dat"
  head -c 100 /dev/urandom > "$wd/small.dat"
  touch -t "$stamp" "$wd/foreign.dat" "$wd/small.dat" "$wd"
  before=$(snapshot "$wd")
  command_of "$f"
  local pre=()
  [ "$as_user" = nobody ] && pre=("${nobody[@]}")
  rc=0
  (cd "$wd" && exec timeout -k 2 10 "${pre[@]}" "${cmd[@]}") >"$out" 2>"$err" </dev/null || rc=$?
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    bad_case "$name" "did not end within 10 s"; return
  fi
  if grep -qE 'AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error:|Segmentation fault|core dumped' "$err"; then
    bad_case "$name" "sanitizer report or crash: $(head -c 400 "$err")"; return
  fi
  if [ "$rc" -ne "$want_rc" ]; then
    bad_case "$name" "exit $rc, expected $want_rc: $(head -c 400 "$err")"; return
  fi
  lines=$(wc -l < "$err")
  if [ "$want_rc" -eq 2 ] && [ "$lines" -ne 1 ]; then
    bad_case "$name" "bad input must give one line on stderr, got $lines: $(head -c 400 "$err")"; return
  fi
  if [ -n "$want_msg" ] && ! head -n 1 "$err" | grep -qF -- "$want_msg"; then
    bad_case "$name" "expected '$want_msg' in: $(head -n 1 "$err" | head -c 400)"; return
  fi
  for c in $creates; do rm -rf "${wd:?}/$c"; done
  touch -t "$stamp" "$wd"
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
