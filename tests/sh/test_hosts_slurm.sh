#!/usr/bin/env bash
# Description: under Slurm (slurmctld and three slurmd on the hosts of
# tests/hosts/netns.sh, started here by tests/hosts/slurm.sh), srun -n 3
# luabench runs one rank per host with PMIx: three distinct hostnames in
# result.hosts, rows that add up to the cluster's figures and to the bytes on
# the shared directory, and the same merged result as mpirun on the same
# hosts; the README's srun line (scripts/scaleout.lua, one task per node)
# gives the cluster's table; srun --mpi=none (tasks without MPI between
# them, N unrelated runs) is refused with a line that says what to use; no
# task is left running afterwards.
# lb-test: serial (three ranks and five daemons)
# lb-test: labels hosts
. "$(dirname "$0")/lib.sh"
. "$LB_SRC/tests/hosts/lib.sh"
hosts_up slurm
mkdir -p "$share/srun" "$share/mpirun" "$share/none"
lim() { timeout -k 10 120 "$@"; }
who() { echo "$LUABENCH" --quiet "$LB_SRC/tests/hosts/who.lua" dir="$share/$1" out="$share/$1.json"; }

# shellcheck disable=SC2046
out=$(cd "$share" && hosts_launch lim bash "$LB_SRC/tests/hosts/slurm.sh" srun "$bed" -n 3 $(who srun)) ||
  fail "srun -n 3: $out $(hosts_why)"
for i in 0 1 2; do
  contains "$out" "rank $i of 3 on lbhost$((i + 1))" "task $i runs on its own host"
done
# shellcheck disable=SC2046
out=$(cd "$share" && hosts_launch lim bash "$LB_SRC/tests/hosts/netns.sh" mpirun "$bed" -np 3 $(who mpirun)) ||
  fail "mpirun on the Slurm hosts: $out $(hosts_why)"
python3 "$LB_SRC/tests/hosts/rows.py" "$share/mpirun.json" "$share/mpirun" 3 || fail "mpirun rows"
python3 "$LB_SRC/tests/hosts/rows.py" "$share/srun.json" "$share/srun" 3 "$share/mpirun.json" ||
  fail "srun's result must be mpirun's"

# srun --mpi=none: each task would run alone; every task refuses (exit 2)
rc=0
# shellcheck disable=SC2046
out=$(cd "$share" && lim bash "$LB_SRC/tests/hosts/slurm.sh" srun "$bed" --mpi=none -n 3 \
        $(who none) 2>&1) || rc=$?
[ "$rc" -eq 2 ] || fail "srun --mpi=none must be refused with exit 2, not $rc: $out"
[ "$(grep -c 'start it with srun --mpi=pmix' <<<"$out")" -eq 3 ] || fail "each task says what to use: $out"
[ ! -e "$share/none.json" ] && [ -z "$(ls "$share"/none 2>/dev/null)" ] || fail "a refused task ran: $out"

# The README's line, small: srun --mpi=pmix -N ... --ntasks-per-node=1 luabench scripts/scaleout.lua
hosts_data "$share/data"
out=$(cd "$share" && hosts_launch lim bash "$LB_SRC/tests/hosts/slurm.sh" srun "$bed" --mpi=pmix -N 3 --ntasks-per-node=1 \
        "$LUABENCH" --quiet "$LB_SRC/scripts/scaleout.lua" dir="$share/data" workers=3 files=3 \
        file_size=2m runtime=0.3 numjobs_shared=1,2 numjobs_independent=1 drop=files cache=none) ||
  fail "the README's srun line: $out $(hosts_why)"
[ "$(grep -c '^| 3W/3C |' <<<"$out")" -eq 1 ] || fail "one 3W/3C row in the peak table: $out"
contains "$out" "headline: " "the cluster's headline"

left=$(bed_ps "$bed" | grep -vE ' (munged|slurmctld|: slurmscriptd|slurmd) ')
[ -z "$left" ] || fail "left running on the hosts after srun returned: $left"
pass
