#!/usr/bin/env python3
"""Runs one MPI rank's command and writes the CPU seconds (user + system) of
it and everything it waited for to OUT.RANK, then exits with its status.

  rank_cpu.py OUT CMD...

For ranks whose CPU the launcher's own process tree does not get: under
tests/hosts/netns.sh mpirun exits without reaping its launch agents (the
`sh -c orted ...` of each host), so wait4 of mpirun counts none of the
remote daemons' and ranks' time."""
import os, resource, subprocess, sys

p = subprocess.run(sys.argv[2:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
rank = os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", "0"))
with open(f"{sys.argv[1]}.{rank}", "w") as f:
    f.write(f"{r.ru_utime + r.ru_stime:.6f}\n")
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
