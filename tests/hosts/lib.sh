# The common part of the multi-host tests (tests/sh/test_hosts_*.sh source
# it after tests/sh/lib.sh).
#   hosts_up netns|slurm   three hosts (netns.sh) or a Slurm cluster on them
#                          (slurm.sh) in a temporary directory, stopped at
#                          exit; sets tmp, bed (their state) and share (an
#                          empty shared directory); skips where they cannot
#                          be made, or without root, mpirun, python3 or MPI
#   hosts_why              what to show beside a failed launch: the stack of
#                          every rank that dumped core (the ranks' cores land
#                          in the shared directory, their working directory)
#                          and the last lines of the Slurm daemons' logs
#   hosts_launch CMD...     CMD 2>&1, once more where a rank died inside
#                          Open MPI's MPI_Init (see hosts_init_crash)
#   hosts_data DIR         the data scripts/scaleout.lua files=3 file_size=2m
#                          reads, laid out beforehand by one process

hosts_up() {
  # Open MPI leaks in its own components (as in tests/ci_extra.sh): the
  # ranks run without leak checks (the launchers pass these options on)
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  [ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
  command -v mpirun >/dev/null || skip "mpirun not installed"
  command -v python3 >/dev/null || skip "python3 is needed to read the JSON"
  "$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
  . "$LB_SRC/tests/hosts/$1.sh"
  local start=bed_start stop=bed_stop rc=0
  [ "$1" = netns ] || start=slurm_start stop=slurm_stop
  tmp=$(lb_tmpdir)
  bed=$tmp/bed
  share=$tmp/share
  # shellcheck disable=SC2064
  trap "$stop '$bed'; cleanup_tmps" EXIT
  trap 'exit 1' INT TERM
  $start "$bed" 3 || rc=$?
  [ "$rc" -ne 77 ] || skip "$1: the hosts cannot be made here (the line above says why)"
  [ "$rc" -eq 0 ] || fail "$1: the hosts could not be made"
  mkdir -p "$share"
  # a rank that crashes leaves its stack for hosts_why (the launchers pass
  # the limit on to the ranks)
  ulimit -c unlimited 2>/dev/null || true
}

hosts_why() {
  local c f
  for c in $(find "$share" -maxdepth 2 -name 'core*' -type f 2>/dev/null); do
    echo "--- $c:"
    if command -v gdb >/dev/null; then
      gdb -q -batch -ex 'info threads' -ex 'thread apply all bt 20' "$LUABENCH" "$c" 2>&1 |
        grep -vE '^\[New LWP|^warning:' | head -n 80
    else
      echo "(no gdb to read it)"
    fi
  done
  for f in "$bed"/slurm/log/*.log; do
    [ -f "$f" ] || continue
    echo "--- ${f##*/}:"
    grep -ivE 'debug|sched:' "$f" | tail -n 8
  done
}

# Whether a rank died inside MPI_Init (Open MPI 4.1.4's TCP transport calls
# a null callback there now and then when the machine is loaded: no line of
# luabench has run yet); the cores it left are removed.
hosts_init_crash() {
  local c found=1
  command -v gdb >/dev/null || return 1
  for c in $(find "$share" -maxdepth 2 -name 'core*' -type f 2>/dev/null); do
    gdb -q -batch -ex bt "$LUABENCH" "$c" 2>/dev/null | grep -q 'ompi_mpi_init' && found=0
  done
  [ "$found" -ne 0 ] || find "$share" -maxdepth 2 -name 'core*' -type f -delete
  return "$found"
}

# hosts_launch CMD...: CMD's output and status, as $(CMD 2>&1) gives them;
# a launch whose rank died inside MPI_Init is tried again, up to three
# launches in all, with a line on stderr each time (the crash is Open
# MPI's, before luabench runs; on a loaded machine it came twice running).
hosts_launch() {
  local out rc=0 try
  for try in 1 2 3; do
    rc=0
    out=$("$@" 2>&1) || rc=$?
    [ "$rc" -ne 0 ] && [ "$try" -lt 3 ] && hosts_init_crash || break
    echo "note: a rank died inside Open MPI's MPI_Init; launching again" >&2
  done
  printf '%s\n' "$out"
  return "$rc"
}

hosts_data() {
  printf 'require("luabench.prep").files{dir = args.dir, count = 3, size = "2m"}\n' > "$tmp/prep.lua"
  "$LUABENCH" --quiet "$tmp/prep.lua" dir="$1" || fail "scaleout's data could not be laid out"
}
