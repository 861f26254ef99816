#!/usr/bin/env bash
# A one-machine Slurm cluster for the multi-host tests, on the hosts of
# netns.sh: slurmctld on the head (lbhead), one slurmd on each host
# (lbhost1..N, one CPU each, so srun -n N puts one task on every host),
# munged with a key generated in DIR; every file (slurm.conf, state, spool,
# logs, pid files, each host's TmpFS) lives in DIR.  Debian's slurm-wlm and
# munge; no cgroups (proctrack/linuxproc, task/none), no accounting.
#
#   slurm.sh start DIR [HOSTS]   make the hosts, start the daemons, wait until the nodes are idle
#   slurm.sh stop DIR            stop the daemons and remove the hosts (idempotent)
#   slurm.sh srun DIR ARGS...    srun on the head, Open MPI's MCA parameters in the environment
#   slurm.sh run DIR CMD...      any command on the head with SLURM_CONF set (sinfo, salloc, sbatch)
#
# Sourced, the same as slurm_start, slurm_stop, slurm_srun, slurm_run (and
# netns.sh's bed_* functions).  slurm_start returns 77 with a line on stderr
# where the daemons cannot start (not installed, no namespaces, a daemon
# that exits or a node that never registers: the line quotes its log).
# Each host gets a temporary directory of its own (TmpFS=DIR/tmp/%n): Slurm's
# PMIx plugin makes its per-step directory there by a name that does not say
# the node, so hosts sharing one /tmp refuse the second step ("File
# exists").  The hosts' /tmp itself stays the machine's, so a build or a
# source tree under /tmp is seen by every host.
. "$(dirname "${BASH_SOURCE[0]}")/netns.sh"
SLURM_SELF=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/$(basename "${BASH_SOURCE[0]}")

slurm_conf() { # DIR N
  local d=$1 n=$2 i
  cat <<EOF
ClusterName=lbtest
SlurmctldHost=lbhead($BED_NET.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge/sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd-%n.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd-%n.log
TmpFS=$d/tmp/%n
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/linear
MpiDefault=pmix
ReturnToService=2
SlurmdParameters=config_overrides
SlurmdTimeout=30
EOF
  for i in $(seq 1 "$n"); do
    echo "NodeName=lbhost$i NodeAddr=$BED_NET.$((10 + i)) CPUs=1 State=UNKNOWN"
  done
  echo "PartitionName=lb Nodes=lbhost[1-$n] Default=YES MaxTime=10 State=UP"
}

slurm_run() { # DIR CMD...
  local d=$1
  shift
  bed_exec "$d" head env SLURM_CONF="$d/slurm/slurm.conf" "$@"
}

slurm_srun() { # DIR ARGS...
  local d=$1
  shift
  bed_load "$d" || return 1
  # shellcheck disable=SC2046
  bed_exec "$d" head env SLURM_CONF="$d/slurm/slurm.conf" $(bed_mca_env) srun "$@"
}

# the last lines of a daemon's log, on one line
slurm_log_tail() { tail -n 3 "$1" 2>/dev/null | tr '\n' ' '; }

slurm_start() { # DIR [HOSTS]
  local rc=0
  slurm_start_daemons "$@" || rc=$?
  [ "$rc" -eq 0 ] || slurm_stop "$1"
  return "$rc"
}

slurm_start_daemons() {
  local dir=$1 n=${2:-3} i s
  for i in slurmctld slurmd munged srun sinfo; do
    command -v $i >/dev/null || { bed_say "needs $i (apt-get install slurm-wlm munge)"; return 77; }
  done
  bed_start "$dir" "$n" || return $?
  s=$BED_DIR/slurm
  mkdir -p "$s/state" "$s/spool" "$s/log" "$s/run" "$s/key" "$s/munge" || return 1
  chmod 700 "$s/key" && chmod 755 "$s/munge"
  head -c 1024 /dev/urandom > "$s/key/munge.key" && chmod 600 "$s/key/munge.key"
  slurm_conf "$s" "$n" > "$s/slurm.conf"
  bed_exec "$BED_DIR" head munged --force --origin="$BED_NET.1" --key-file="$s/key/munge.key" \
    --socket="$s/munge/sock" --pid-file="$s/run/munged.pid" --log-file="$s/log/munged.log" \
    --seed-file="$s/key/seed" ||
    { bed_say "munged did not start: $(slurm_log_tail "$s/log/munged.log")"; return 77; }
  bed_exec "$BED_DIR" head slurmctld -f "$s/slurm.conf" ||
    { bed_say "slurmctld did not start: $(slurm_log_tail "$s/log/slurmctld.log")"; return 77; }
  for i in $(seq 1 "$n"); do
    mkdir -p "$s/tmp/lbhost$i" && chmod 1777 "$s/tmp/lbhost$i"
    bed_exec "$BED_DIR" "$i" slurmd -f "$s/slurm.conf" ||
      { bed_say "slurmd on lbhost$i did not start: $(slurm_log_tail "$s/log/slurmd-lbhost$i.log")"
        return 77; }
  done
  for i in $(seq 1 100); do
    [ "$(slurm_run "$BED_DIR" sinfo -h -N -o %T 2>/dev/null | grep -c '^idle')" -eq "$n" ] && return 0
    sleep 0.2
  done
  bed_say "the nodes did not become idle within 20 s: $(slurm_run "$BED_DIR" sinfo -h -N 2>&1 |
    tr '\n' ' ') $(slurm_log_tail "$s/log/slurmctld.log")"
  return 77
}

slurm_stop() { # DIR
  [ -f "$1/bed.env" ] || return 0
  bed_load "$1" || return 0
  local s=$BED_DIR/slurm f i
  for f in "$s"/run/slurmd-*.pid "$s/run/slurmctld.pid" "$s/run/munged.pid"; do
    [ -f "$f" ] && kill "$(cat "$f")" 2>/dev/null
  done
  for i in 1 2 3 4 5 6 7 8 9 10; do
    [ -z "$(bed_ps "$BED_DIR")" ] && break
    sleep 0.2
  done
  bed_stop "$BED_DIR"
  rm -rf "$s"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  cmd=${1:-}
  [ $# -ge 2 ] || { sed -n '9,12p' "$SLURM_SELF" >&2; exit 2; }
  shift
  case $cmd in
    start) slurm_start "$@" ;;
    stop) slurm_stop "$@" ;;
    srun) BED_EXEC=exec slurm_srun "$@" ;;
    run) BED_EXEC=exec slurm_run "$@" ;;
    *) sed -n '9,12p' "$SLURM_SELF" >&2; exit 2 ;;
  esac
fi
