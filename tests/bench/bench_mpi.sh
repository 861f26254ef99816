#!/usr/bin/env bash
# Multi-rank overhead: for 1, 2, 4 and 8 ranks on this machine, the time the
# merge of the ranks' results takes (and lb.report after it), and the null
# engine's rate per rank against a single process.  Not a test.
#   bash tests/bench/bench_mpi.sh [build/luabench] [runtime]
set -eu
lb=$(realpath "${1:-build/luabench}")
rt=${2:-2s}
script=$(mktemp --suffix=.lua)
trap 'rm -f "$script"' EXIT
cat > "$script" <<EOF2
local r = lb.run{name = "m", ioengine = "null", rw = "randread", bs = "4k",
                 runtime = "$rt", time_based = true}
local t0 = lb.now()
local report = require("luabench.report").text(r)
local rep_ms = (lb.now() - t0) * 1000
local mine = (r["local"] or r).read.iops
local all = lb.allgather(string.format("%.0f", mine))
if lb.rank == 0 then
  local sum = 0
  for _, v in ipairs(all) do sum = sum + tonumber(v) end
  print(string.format("ranks %d: merge %.2f ms, report %.2f ms, IOPS per rank %.2fM, cluster %.2fM",
        lb.size, (r.merge_s or 0) * 1000, rep_ms, sum / lb.size / 1e6, r.read.iops / 1e6))
end
EOF2
echo "# $(date -u '+%Y-%m-%d %H:%M') on $(hostname), $(nproc) CPUs"
"$lb" --quiet "$script"
for n in 2 4 8; do
  mpirun --allow-run-as-root --oversubscribe -np "$n" "$lb" --quiet "$script"
done
