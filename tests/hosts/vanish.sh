#!/usr/bin/env bash
# What a run does when a host vanishes in the middle of a point: starts the
# hosts of netns.sh (and Slurm's daemons for srun), runs scripts/scaleout.lua
# (4 points of 4 s, out=) over three ranks, and at 8 s (FAULT_AT), in the second
# point, either
#   kill    SIGKILL rank 1's luabench (on lbhost2)
#   link    takes lbhost2's link down (ip link set eth0 down)
#   crash   takes lbhost2's link down, then SIGKILLs everything on it (but
#           the launch agent's shell, which stands for mpirun's ssh client
#           on the head: it is stopped, as an ssh client hangs on a dead host)
# then prints a timeline: when each luabench and daemon process went,
# when the launcher returned and with what status, its output, what was
# left running after WATCH seconds, and whether out= was written.
# Everything is stopped at the end.  A measurement for people, not a test.
#
#   vanish.sh kill|link|crash [mpirun|srun] [WATCH seconds, default 60]
#
# MPIRUN_ARGS or SRUN_ARGS (words) go to the launcher, e.g. MCA parameters;
# RANK_CMD (words) is run by every rank in place of scaleout.lua.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/slurm.sh"
what=${1:?kill, link or crash}
launcher=${2:-mpirun}
watch=${3:-60}
luabench=${LUABENCH:-$here/../../build/luabench}
dir=$(mktemp -d /dev/shm/vanish.XXXXXX)
bed=$dir/bed
share=$dir/share
trap 'slurm_stop "$bed"; rm -rf "$dir"' EXIT
trap 'exit 1' INT TERM
if [ "$launcher" = srun ]; then slurm_start "$bed" 3; else bed_start "$bed" 3; fi || exit $?
mkdir -p "$share"
printf 'require("luabench.prep").files{dir = args.dir, count = 3, size = "8m"}\n' > "$share/prep.lua"
"$luabench" --quiet "$share/prep.lua" dir="$share/data" || exit 1
args=("$luabench" --quiet "$here/../../scripts/scaleout.lua" dir="$share/data" files=3 file_size=8m
      runtime=4 modes=shared numjobs_shared=1,2,3,4 drop=files cache=none out="$share/result")
# shellcheck disable=SC2206
[ -z "${RANK_CMD:-}" ] || args=($RANK_CMD)

t0=$(date +%s.%N)
t() { printf '%6.2f' "$(echo "$(date +%s.%N) - $t0" | bc)"; }
(
  cd "$share" || exit 1
  # niced: the watcher and the fault keep their time while the ranks use the CPUs
  # shellcheck disable=SC2086
  if [ "$launcher" = srun ]; then
    slurm_srun "$bed" ${SRUN_ARGS:-} -n 3 nice -n 10 "${args[@]}"
  else
    nice -n 10 bash "$here/netns.sh" mpirun "$bed" ${MPIRUN_ARGS:-} -np 3 "${args[@]}"
  fi > "$dir/launcher.out" 2>&1
  echo "$? $(date +%s.%N)" > "$dir/launcher.rc"
) &

# The watcher, one process so that a loaded machine does not delay it:
# every 0.1 s it lists the processes of the cluster's namespaces and prints
# "time gone: node pid command" for each luabench, daemon or launcher that
# went; at FAULT_AT s it makes the fault on lbhost2; it ends when $dir/stop
# exists (or $dir is gone).
ns_map=""
for node in head 1 2 3; do
  bed_node "$node" && ns_map="$ns_map net:[$(stat -c %i "/run/netns/$BED_NS")]=$node"
done
bed_node 2
python3 - "$t0" "$dir/stop" "$what" "${FAULT_AT:-8}" "$BED_NS" "$ns_map" "${args[0]##*/}" <<'PY' &
import os, signal, subprocess, sys, time
t0, stop, what, ns2 = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[5]
fault_at = float(sys.argv[4])
nodes = dict(p.split("=") for p in sys.argv[6].split())
want = (sys.argv[7], "orted", "slurmstepd", "mpirun", "srun")
def say(msg):
    print("%6.2f %s" % (time.time() - t0, msg), flush=True)
def procs():
    out = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            node = nodes.get(os.readlink("/proc/%s/ns/net" % pid))
            if node is None:
                continue
            cmd = open("/proc/%s/cmdline" % pid, "rb").read().replace(b"\0", b" ").decode()
        except OSError:
            continue
        out[int(pid)] = (node, cmd)
    return out
def fault(now):
    if what == "kill":
        pid = next(p for p, (n, c) in now.items() if n == "2" and c.split(" ")[0].endswith(want[0]))
        os.kill(pid, signal.SIGKILL)
        say("SIGKILL rank 1's %s, pid %d on lbhost2" % (want[0], pid))
        return
    subprocess.run(["ip", "-n", ns2, "link", "set", "eth0", "down"], check=True)
    say("lbhost2's link down")
    if what == "crash":
        # mpirun's own child there (the launch agent's shell) stands for
        # the ssh client on the head: it neither exits nor says anything
        # when the host dies, so it is stopped, not killed
        killed, stopped = [], []
        for p, (n, c) in now.items():
            if n != "2":
                continue
            try:
                ppid = int(open("/proc/%d/stat" % p).read().rsplit(")", 1)[1].split()[1])
                agent = now.get(ppid, ("", ""))[0] == "head"
                os.kill(p, signal.SIGSTOP if agent else signal.SIGKILL)
                (stopped if agent else killed).append(p)
            except OSError:
                pass
        say("lbhost2 crashed: SIGKILL %s, SIGSTOP %s (the agent's shell)" %
            (" ".join(map(str, killed)), " ".join(map(str, stopped)) or "-"))
seen, fired = {}, False
while os.path.isdir(os.path.dirname(stop)) and not os.path.exists(stop):
    now = procs()
    if not fired and time.time() - t0 > fault_at:
        fired = True
        fault(now)
        open(os.path.join(os.path.dirname(stop), "fired"), "w").write("%f" % time.time())
    keep = {p: "%s %d %s" % (n, p, c[:70]) for p, (n, c) in now.items()
            if any(w in c.split(" ")[0] for w in want)}
    for pid in sorted(set(seen) - set(keep)):
        if pid not in now:         # gone, not only exec.d into another command
            say("gone: " + seen[pid])
    seen = keep
    time.sleep(0.1)
PY
watcher=$!

# wait until 3 s after the launcher returned, or WATCH s after the fault
while :; do
  if [ -f "$dir/launcher.rc" ]; then
    read -r rc at < "$dir/launcher.rc"
    printf '%6.2f %s returned %s\n' "$(echo "$at - $t0" | bc)" "$launcher" "$rc"
    sleep 3
    break
  fi
  if [ -f "$dir/fired" ] &&
     [ "$(echo "$(date +%s.%N) > $(cat "$dir/fired") + $watch" | bc)" -eq 1 ]; then
    echo "$(t) $launcher still running $watch s after the fault"
    break
  fi
  sleep 0.5
done
touch "$dir/stop"
wait "$watcher"
echo "--- left running on the hosts:"
bed_ps "$bed" | grep -vE ' (munged|slurmctld|: slurmscriptd|slurmd) ' | cut -c1-100
echo "--- out= files: $(cd "$share" && ls result.* 2>/dev/null | tr '\n' ' ')"
echo "--- $launcher's output:"
cat "$dir/launcher.out"
if [ ! -f "$dir/launcher.rc" ]; then
  echo "--- SIGTERM to $launcher"
  head_pid=$(bed_ps "$bed" | awk -v l="$launcher" '$1 == "head" && $3 == l {print $2}')
  # shellcheck disable=SC2086
  [ -n "$head_pid" ] && kill -TERM $head_pid
  for i in $(seq 1 20); do [ -f "$dir/launcher.rc" ] && break; sleep 0.5; done
  if [ -f "$dir/launcher.rc" ]; then
    read -r rc at < "$dir/launcher.rc"
    echo "$(t) $launcher returned $rc after SIGTERM"
  else
    echo "$(t) $launcher still running 10 s after SIGTERM"
  fi
  bed_ps "$bed" | grep -vE ' (munged|slurmctld|: slurmscriptd|slurmd) ' | cut -c1-100
  tail -n 20 "$dir/launcher.out"
fi
if [ "$launcher" = srun ]; then
  echo "--- slurmctld's log:"
  grep -vE 'debug|sched:' "$bed/slurm/log/slurmctld.log" | tail -n 15
fi
