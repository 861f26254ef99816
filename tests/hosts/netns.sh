#!/usr/bin/env bash
# A cluster of hosts on one machine for the multi-host tests: N "hosts"
# (network + UTS namespaces with their own hostnames lbhost1..N) and a head
# node (lbhead, where mpirun runs), joined by veth pairs to a bridge that
# lives in the head's namespace.  The addresses (10.201.0.0/24) exist only
# inside the namespaces: nothing is routed to this machine's own network, so
# no packet can leave it.  The storage shared by the hosts is any directory
# of the machine (mounts are not namespaced).  Open MPI runs over TCP only
# (btl tcp,self, pml ob1, no UCX), and its daemons are started inside each
# host's namespaces by a launch agent (DIR/agent) in place of ssh.
#
#   netns.sh start DIR [HOSTS]     make the cluster (3 hosts by default), state in DIR
#   netns.sh stop DIR              kill what runs inside it, remove it (idempotent)
#   netns.sh exec DIR NODE CMD...  run CMD on NODE (head, 1..N or lbhostI)
#   netns.sh mpirun DIR ARGS...    mpirun on the head over all hosts, TCP only
#   netns.sh ps DIR                the processes running inside the cluster
#   netns.sh link DIR I up|down    bring host I's network link up or down
#
# Sourced (. netns.sh), the same as functions: bed_start, bed_stop,
# bed_exec, bed_mpirun, bed_ps, bed_link.  bed_start returns 77 (with a
# line on stderr) where namespaces cannot be made: not root, no ip/nsenter,
# or a kernel or container that refuses them.  Not a general tool: no
# routing, no DNS, one subnet, one bed per DIR.
BED_NET=10.201.0
BED_EXEC=
BED_SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")

bed_say() { echo "netns: $*" >&2; }

# bed_load DIR: the cluster's name prefix and size (BED_ID, BED_N)
bed_load() {
  BED_DIR=$1
  [ -f "$BED_DIR/bed.env" ] || { bed_say "$BED_DIR holds no cluster"; return 1; }
  . "$BED_DIR/bed.env"
}

# the namespace and hostname file of a node (head, I, lbhostI or its address)
bed_node() {
  case $1 in
    head | lbhead | "$BED_NET.1") BED_NS=${BED_ID}sw BED_UTS=$BED_DIR/uts/head ;;
    lbhost[0-9]* | [0-9]* | "$BED_NET".*)
      local i=${1#lbhost}
      case $1 in "$BED_NET".*) i=$((${1##*.} - 10)) ;; esac
      [ "$i" -ge 1 ] 2>/dev/null && [ "$i" -le "$BED_N" ] || { bed_say "no node $1"; return 1; }
      BED_NS=${BED_ID}h$i BED_UTS=$BED_DIR/uts/h$i ;;
    *) bed_say "no node $1"; return 1 ;;
  esac
}

bed_exec() { # DIR NODE CMD...
  bed_load "$1" && bed_node "$2" || return 1
  shift 2
  $BED_EXEC nsenter --net="/run/netns/$BED_NS" --uts="$BED_UTS" -- "$@"
}

# one namespace with its own hostname; $1 node name, $2 netns, $3 hostname
bed_ns() {
  ip netns add "$2" || return 1
  : > "$BED_DIR/uts/$1"
  unshare --uts="$BED_DIR/uts/$1" hostname "$3" || return 1
  local s
  for s in net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1; do
    nsenter --net="/run/netns/$2" sysctl -qw "$s" 2>/dev/null
  done
  ip -n "$2" link set lo up
}

bed_start() { # DIR [HOSTS]
  local dir=$1 n=${2:-3} i
  [ "$(id -u)" -eq 0 ] || { bed_say "needs root"; return 77; }
  for i in ip nsenter unshare; do
    command -v $i >/dev/null || { bed_say "needs $i"; return 77; }
  done
  mkdir -p "$dir/uts" || return 1
  BED_DIR=$(cd "$dir" && pwd) BED_ID=lb$$ BED_N=$n
  while [ -e "/run/netns/${BED_ID}sw" ]; do BED_ID=lb$$x$RANDOM; done
  printf 'BED_ID=%s\nBED_N=%s\n' "$BED_ID" "$BED_N" > "$BED_DIR/bed.env"
  if ! ip netns add "${BED_ID}probe" 2>"$BED_DIR/err"; then
    bed_say "network namespaces cannot be made here: $(head -1 "$BED_DIR/err")"
    return 77
  fi
  ip netns del "${BED_ID}probe"
  bed_ns head "${BED_ID}sw" lbhead || { bed_stop "$BED_DIR"; return 77; }
  if ! ip -n "${BED_ID}sw" link add br0 type bridge stp_state 0 forward_delay 0 2>"$BED_DIR/err"; then
    bed_say "no bridge can be made here: $(head -1 "$BED_DIR/err")"
    bed_stop "$BED_DIR"
    return 77
  fi
  ip -n "${BED_ID}sw" addr add "$BED_NET.1/24" dev br0 && ip -n "${BED_ID}sw" link set br0 up
  : > "$BED_DIR/hostfile"
  for i in $(seq 1 "$n"); do
    local ns=${BED_ID}h$i
    bed_ns "h$i" "$ns" "lbhost$i" &&
      ip link add eth0 netns "$ns" type veth peer name "h$i" netns "${BED_ID}sw" &&
      ip -n "${BED_ID}sw" link set "h$i" master br0 up &&
      ip -n "$ns" addr add "$BED_NET.$((10 + i))/24" dev eth0 &&
      ip -n "$ns" link set eth0 up ||
      { bed_say "host $i could not be made"; bed_stop "$BED_DIR"; return 1; }
    printf 'lbhost%d slots=1\n' "$i" >> "$BED_DIR/hostfile"
  done
  mkdir -p "$BED_DIR/tmp"
  printf '#!/bin/sh\nexec bash %s agent %s "$@"\n' "$BED_SELF" "$BED_DIR" > "$BED_DIR/agent"
  chmod +x "$BED_DIR/agent"
}

# The launch agent, called by mpirun (and by the daemons of a spawn tree)
# like ssh: HOST COMMAND-WORDS...; the words are joined and run by sh on
# that host, with a fresh environment as an ssh login would have.
bed_agent() {
  bed_load "$1" && bed_node "$2" || return 1
  shift 2
  exec nsenter --net="/run/netns/$BED_NS" --uts="$BED_UTS" -- \
    env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
    /bin/sh -c "$*"
}

# The MCA parameters that keep Open MPI on the cluster's TCP network: ob1
# over the tcp and self transports only (no shared memory, no UCX, whose own
# transports could use it), both the ranks' and the daemons' sockets on
# the bridge's subnet.  "name value" per line.
bed_mca() {
  printf '%s\n' "pml ob1" "btl tcp,self" "osc ^ucx" "btl_tcp_if_include $BED_NET.0/24" \
    "oob_tcp_if_include $BED_NET.0/24"
}

# mpirun's options: the hostfile, the launch agent, the MCA parameters, the
# session directories in DIR (the hosts share /tmp, and a killed daemon
# leaves its directory behind), and the sanitizers' options of the caller
# (the agent, like ssh, passes no environment on)
bed_mpi_opts() {
  echo --allow-run-as-root --hostfile "$BED_DIR/hostfile" --mca plm_rsh_agent "$BED_DIR/agent"
  bed_mca | while read -r k v; do echo --mca "$k" "$v"; done
  echo --mca orte_tmpdir_base "$BED_DIR/tmp"
  local v
  for v in ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS TSAN_OPTIONS; do
    [ -z "${!v:-}" ] || echo -x "$v"
  done
}

# the same parameters as environment (OMPI_MCA_name=value words), for srun
bed_mca_env() {
  bed_mca | while read -r k v; do echo "OMPI_MCA_$k=$v"; done
}

bed_mpirun() { # DIR ARGS...
  bed_load "$1" || return 1
  local dir=$1
  shift
  # shellcheck disable=SC2046
  bed_exec "$dir" head mpirun $(bed_mpi_opts) "$@"
}

# the processes inside the cluster's namespaces: "NODE PID COMMAND"
bed_ps() {
  bed_load "$1" || return 1
  local node map="" pid
  for node in head $(seq 1 "$BED_N"); do
    bed_node "$node" || continue
    [ -e "/run/netns/$BED_NS" ] || continue
    map="$map net:[$(stat -c %i "/run/netns/$BED_NS")]=$node"
  done
  [ -n "$map" ] || return 0
  find /proc/[0-9]*/ns/net -maxdepth 0 -printf '%p %l\n' 2>/dev/null |
    awk -v map="$map" 'BEGIN { n = split(map, m, " "); for (i = 1; i <= n; i++) {
                                 split(m[i], kv, "="); node[kv[1]] = kv[2] } }
                       $2 in node { split($1, p, "/"); print node[$2], p[3] }' |
    while read -r node pid; do
      printf '%s %s %s\n' "$node" "$pid" "$(tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null)"
    done
}

bed_link() { # DIR I up|down
  bed_load "$1" && bed_node "$2" || return 1
  ip -n "$BED_NS" link set eth0 "$3"
}

bed_kill_all() { # SIGNAL
  local pids
  pids=$(bed_ps "$BED_DIR" | awk '{print $2}')
  [ -n "$pids" ] || return 1
  # shellcheck disable=SC2086
  kill -"$1" $pids 2>/dev/null
  return 0
}

bed_stop() { # DIR
  [ -f "$1/bed.env" ] || return 0
  bed_load "$1" || return 0
  local i
  if bed_kill_all TERM; then
    for i in 1 2 3 4 5 6 7 8 9 10; do
      [ -n "$(bed_ps "$BED_DIR")" ] || break
      sleep 0.2
    done
    bed_kill_all KILL && sleep 0.2
  fi
  for i in head $(seq 1 "$BED_N"); do
    bed_node "$i" || continue
    [ -e "/run/netns/$BED_NS" ] && ip netns del "$BED_NS"
    if [ -e "$BED_UTS" ]; then
      umount "$BED_UTS" 2>/dev/null
      rm -f "$BED_UTS"
    fi
  done
  [ -e "/run/netns/${BED_ID}probe" ] && ip netns del "${BED_ID}probe"
  rmdir "$BED_DIR/uts" 2>/dev/null
  rm -rf "$BED_DIR/tmp"
  rm -f "$BED_DIR/bed.env" "$BED_DIR/err" "$BED_DIR/agent" "$BED_DIR/hostfile"
  return 0
}

bed_main() {
  local cmd=${1:-}
  [ $# -ge 2 ] || { sed -n '12,18p' "$BED_SELF" >&2; exit 2; }
  shift
  case $cmd in
    start) bed_start "$@" ;;
    stop) bed_stop "$@" ;;
    exec) BED_EXEC=exec bed_exec "$@" ;;     # its signals reach the command itself
    mpirun) BED_EXEC=exec bed_mpirun "$@" ;;
    ps) bed_ps "$@" ;;
    link) bed_link "$@" ;;
    agent) bed_agent "$@" ;;
    *) sed -n '12,18p' "$BED_SELF" >&2; exit 2 ;;
  esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then bed_main "$@"; fi
