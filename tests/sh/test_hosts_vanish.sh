#!/usr/bin/env bash
# Description: a host that vanishes in the middle of a point, on the hosts
# of tests/hosts/netns.sh under mpirun: lbhost2's link taken down (the
# watchdog: the other ranks say which rank and host they lost and end with
# status 1, and so does the cut-off rank, long before the point's ten
# minutes), then rank 1's luabench killed with SIGKILL; each time the
# launcher returns non-zero, the point finished before is kept, no rank is
# left running, and once the link is back neither is Open MPI's daemon.
# lb-test: serial (three ranks and their daemons)
# lb-test: labels hosts
. "$(dirname "$0")/lib.sh"
. "$LB_SRC/tests/hosts/lib.sh"
hosts_up netns
# the watchdog's bound, and Open MPI's daemons' own as README advises it:
# mpirun learns that it lost the daemon of a host that is cut off 6 to 7 s
# after the cut, once the watchdog has spoken (5 s) and before the ranks
# end (3 s after that)
export LUABENCH_MPI_TIMEOUT=5
keep=(--mca oob_tcp_keepalive_time 1 --mca oob_tcp_keepalive_intvl 1
      --mca oob_tcp_keepalive_probes 6 -x LUABENCH_MPI_TIMEOUT)

vanish() { # kill|link: runs long.lua, makes the fault once every rank is in its long point
  local what=$1 d=$share/$1 i
  mkdir -p "$d"
  (cd "$d" && timeout -k 5 120 bash "$LB_SRC/tests/hosts/netns.sh" mpirun "$bed" "${keep[@]}" \
     -np 3 "$LUABENCH" --quiet "$LB_SRC/tests/hosts/long.lua" dir="$d" out="$d/p1.json" \
     > "$d/out" 2>&1; echo $? > "$d/rc") &
  for i in $(seq 1 600); do
    [ -e "$d/started.0" ] && [ -e "$d/started.1" ] && [ -e "$d/started.2" ] && break
    [ -e "$d/rc" ] && fail "$what: mpirun returned before the long point: $(cat "$d/out")"
    sleep 0.1
  done
  [ -e "$d/started.2" ] || fail "$what: the ranks did not reach the long point: $(cat "$d/out")"
  sleep 1
  if [ "$what" = link ]; then
    bed_link "$bed" 2 down || fail "lbhost2's link could not be taken down"
  else
    local pid
    pid=$(bed_ps "$bed" | awk '$1 == 2 && $3 ~ /luabench$/ { print $2 }')
    [ -n "$pid" ] || fail "no luabench on lbhost2"
    kill -KILL "$pid"
  fi
  for i in $(seq 1 600); do [ -e "$d/rc" ] && break; sleep 0.1; done
  [ -e "$d/rc" ] || fail "$what: mpirun still running 60 s after the fault: $(cat "$d/out")"
  out=$(cat "$d/out")
  [ "$(cat "$d/rc")" -ne 0 ] || fail "$what: mpirun must return non-zero: $out"
  [ "$(cat "$d/rc")" -ne 124 ] || fail "$what: mpirun hung: $out"
  case $out in *"the long point ended"*) fail "$what: the long point ran to its end: $out" ;; esac
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["total_ios"] == 768 and d["hosts"] == 3, d' \
    "$d/p1.json" || fail "$what: the finished point's result"
  for i in $(seq 1 50); do [ -z "$(bed_ps "$bed" | grep luabench)" ] && break; sleep 0.2; done
  left=$(bed_ps "$bed" | grep luabench)
  [ -z "$left" ] || fail "$what: a rank left running on the hosts: $left"
  # Open MPI's daemon on a host that is cut off hears of the end only once
  # its link is back (its TCP connection to mpirun has data in flight)
  [ "$what" = link ] && bed_link "$bed" 2 up
  for i in $(seq 1 150); do [ -z "$(bed_ps "$bed")" ] && break; sleep 0.2; done
  left=$(bed_ps "$bed")
  [ -z "$left" ] || fail "$what: left running on the hosts: $left"
}

vanish link
contains "$out" "luabench: rank 0 (lbhost1): " "rank 0 says what it lost"
contains "$out" "lost rank 1 (lbhost2): no word from it for 5 s" "rank 0 names the lost rank and host"
# rank 2 too: mpirun's keepalive notices the cut link only after the watchdog
contains "$out" "luabench: rank 2 (lbhost3): " "rank 2 says what it lost"
contains "$out" "lost rank 1 (lbhost2): rank 0 (lbhost1) lost contact with it" "rank 2 names the lost rank"
contains "$out" "ORTE has lost communication with a remote daemon" "mpirun learns of the cut after the ranks"

vanish kill
contains "$out" "lbhost2" "the launcher names the host whose rank died"
pass
