#!/usr/bin/env bash
# Description: under mpirun -np 3 the per-interval series of the ranks are
# aligned on the common start: rank 1's job starts 2 s late (startdelay),
# so its first two intervals hold no I/O, as the others' do not begin
# later; the cluster's interval k is the sum of every rank's interval k and
# the series is as long as the longest rank's.
# lb-test: labels noleak (Open MPI's own leaks, or LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
# lb-test: serial (three ranks)
command -v mpirun >/dev/null || skip "mpirun not installed"
"$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
tmp=$(lb_tmpdir)
cat > "$tmp/iv.lua" <<'EOF2'
local r = lb.run{name = "iv", ioengine = "null", rw = "read", bs = "4k", size = "1g",
  time_based = 1, runtime = "3s", rate_iops = 100, interval = "1s",
  startdelay = lb.rank == 1 and "2s" or nil}
local mine = {}
for i, iv in ipairs(r["local"].intervals) do mine[i] = iv.read.total_ios end
local all = {}
for i, text in ipairs(lb.allgather(lb.json(mine))) do all[i] = lb.json_decode(text) end
assert(#all[1] == 3 and #all[3] == 3, "ranks 0 and 2: three intervals, got " .. #all[1])
assert(#all[2] == 5, "rank 1: two empty intervals before its three, got " .. #all[2])
assert(all[2][1] == 0 and all[2][2] == 0 and all[2][3] > 0, "rank 1's late start: " .. lb.json(all[2]))
assert(#r.intervals == 5, "the cluster's series as long as the longest")
for k, iv in ipairs(r.intervals) do
  local sum = 0
  for i = 1, 3 do sum = sum + (all[i][k] or 0) end
  assert(iv.read.total_ios == sum, ("interval %d: %d, the ranks' sum %d"):format(k, iv.read.total_ios, sum))
  assert(iv.start_ms == (k - 1) * 1000, "interval start " .. iv.start_ms)
end
if lb.rank == 0 then print("aligned", #r.intervals) end
EOF2
out=$(timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$LUABENCH" --quiet "$tmp/iv.lua" 2>&1) ||
  fail "intervals: $out"
contains "$out" "$(printf 'aligned\t5')" "rank 0 checked the series"
pass
