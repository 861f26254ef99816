#!/usr/bin/env bash
# Description: under mpirun -np 3 the merged result sums the ranks exactly,
# merges histograms bucket by bucket (the cluster p99 is the p99 of all
# I/Os, not the mean of the ranks' p99s), and an error on one rank ends all
# (the others' hour-long sleep: a run still there after 120 s has hung).
# lb-test: labels noleak (Open MPI's own leaks, or LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
# lb-test: serial (set latencies need the cores)
command -v mpirun >/dev/null || skip "mpirun not installed"
"$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
tmp=$(lb_tmpdir)
mpi() { timeout -k 10 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$@"; }

cat > "$tmp/merge.lua" <<'EOF2'
-- rank 2's 16 I/Os sleep 200ms each, 2% of the 784: the p99 of all I/Os
-- is at least 200ms whatever a loaded machine adds to the others' (their
-- p99s, and so the mean of the ranks' p99s, depend on the load; one I/O
-- kept off the cores can take 70ms)
local lat = ({"200us", "2ms", "200ms"})[lb.rank + 1]
local t0 = lb.now()
local r = lb.run{name = "m", ioengine = "null", rw = "randread", bs = "4k",
                 size = ({"2m", "1m", "64k"})[lb.rank + 1], null_lat = lat}
local t1 = lb.now()
assert(lb.size == 3 and #r.hosts == 3, "three host rows")
local ios, bytes = 0, 0
for _, h in ipairs(r.hosts) do ios = ios + h.total_ios; bytes = bytes + h.io_bytes end
-- a host row reads as a result does: the same names
assert(r.hosts[1].total_ios and r.hosts[1].io_bytes and r.hosts[1].iops and r.hosts[1].bw_bytes,
       "host rows carry total_ios, io_bytes, iops, bw_bytes")
assert(r.hosts[1].ios == nil and r.hosts[1].bytes == nil, "no other names for the same counts")
-- the spread of the ranks' starts is reported, and lies within the time
-- from the first rank's call of lb.run to the last one's return
local first, last = math.huge, 0
for _, x in ipairs(lb.allgather(("%.9f %.9f"):format(t0, t1))) do
  local a, b = x:match("(%S+) (%S+)")
  first, last = math.min(first, tonumber(a)), math.max(last, tonumber(b))
end
assert(r.start_spread_s >= 0 and r.start_spread_s <= last - first,
       ("start spread %s, lb.run from %.3f to %.3f"):format(tostring(r.start_spread_s), first, last))
local latest = 0
for _, h in ipairs(r.hosts) do latest = math.max(latest, h.start_s) end
assert(latest == r.start_spread_s, "the spread is the last start after the first")
assert(ios == r.read.total_ios, "merged ios " .. r.read.total_ios .. " = sum of rows " .. ios)
assert(bytes == r.read.io_bytes, "merged bytes = sum of rows")
assert(r.read.total_ios == 512 + 256 + 16, "exact total")
-- the union of every rank's samples, rebuilt here from the local histograms
local union = lb.hist()
for _, text in ipairs(lb.allgather(lb.json(r["local"].read.clat_hist:buckets()))) do
  for _, b in ipairs(lb.json_decode(text)) do union:record((b.lo + b.hi) // 2, b.count) end
end
local p99, up99 = r.read.clat_ns.percentile[99], union:percentile(99)
assert(math.abs(p99 - up99) <= up99 / 64 + 1, ("cluster p99 %d vs union p99 %d"):format(p99, up99))
local mean = 0
for _, h in ipairs(r.hosts) do mean = mean + h.p99_ns / 3 end
assert(p99 >= 200e6 * 63 / 64, ("p99 %d of all I/Os, 2%% of which took 200ms (mean of the ranks' p99s %.0f)")
       :format(p99, mean))
if lb.rank == 0 then print("merged", r.read.total_ios, p99, math.floor(mean)) end
EOF2
out=$(mpi "$LUABENCH" --quiet "$tmp/merge.lua" 2>&1) || fail "merge run: $out"
contains "$out" "$(printf "merged\t784")" "rank 0 prints the merged total"

printf 'if lb.rank == 1 then error("broken on rank one") end\nlb.barrier()\nlb.sleep(3600)\n' > "$tmp/err.lua"
rc=0
out=$(mpi "$LUABENCH" --quiet "$tmp/err.lua" 2>&1) || rc=$?
[ "$rc" -ne 0 ] || fail "an error on rank 1 must fail the run"
[ "$rc" -ne 124 ] && [ "$rc" -ne 137 ] || fail "an error on rank 1 did not end the others' sleep (killed after 120 s)"
contains "$out" "rank 1" "the message names the rank"
contains "$out" "broken on rank one" "the message is the rank's"

# lb.solo: a run of this rank alone while the others wait (a lay-out in turn)
cat > "$tmp/solo.lua" <<'EOF2'
for r = 0, lb.size - 1 do
  if lb.rank == r then
    lb.solo(function()
      local res = lb.run{name = "s", ioengine = "null", rw = "read", bs = "4k", size = (r + 1) .. "m"}
      assert(res.hosts == nil and res.read.total_ios == 256 * (r + 1), "this rank's own result")
      local ok, err = pcall(lb.barrier)
      assert(not ok and err:find("inside lb.solo"), "no collective inside lb.solo")
    end)
  end
  lb.barrier()
end
local res = lb.run{name = "c", ioengine = "null", rw = "read", bs = "4k", size = "1m"}
assert(#res.hosts == 3 and res.read.total_ios == 768, "a cluster run again after lb.solo")
if lb.rank == 0 then print("solo ok") end
EOF2
out=$(mpi "$LUABENCH" --quiet "$tmp/solo.lua" 2>&1) || fail "lb.solo: $out"
contains "$out" "solo ok" "runs of one rank alone, then of all"

printf 'local mpi = require "luabench.mpi"\nlocal v = mpi.phase("one", function() return lb.rank + 42 end)\nassert(v == 42)\nlocal _, lead = mpi.host_ranks()\nlocal n = 0\nfor _, x in ipairs(lb.allgather(lead and "1" or "0")) do n = n + tonumber(x) end\nassert(n == mpi.hosts(), "one leader per host")\n' > "$tmp/phase.lua"
mpi "$LUABENCH" --quiet "$tmp/phase.lua" >/dev/null 2>&1 || fail "phases"

# scaleout.lua: a one-client baseline, then three clients with its efficiency
so=(files=3 file_size=2m runtime=0.3 numjobs_shared=1,2 numjobs_independent=1 drop=files
    cache=none workers=1 dir="$tmp/data")
(cd "$tmp" && "$LUABENCH" --quiet "$LB_SRC/scripts/scaleout.lua" "${so[@]}" out="$tmp/base" \
   >/dev/null 2>&1) || fail "scaleout baseline"
(cd "$tmp" && mpi "$LUABENCH" --quiet "$LB_SRC/scripts/scaleout.lua" "${so[@]}" out="$tmp/c3" \
   baseline="$tmp/base.json" > "$tmp/c3.txt" 2>&1) || fail "scaleout under mpirun: $(tail -5 "$tmp/c3.txt")"
python3 - "$tmp/c3.json" <<'EOF2' || fail "scaleout cluster JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["topology"] == "1W/3C", d["topology"]
assert d["clients"] == 3
for m in ("shared", "independent"):
    assert d["modes"][m]["points"], m
eff = json.dumps(d)
assert "efficiency" in eff, "scaling efficiency against the baseline"
EOF2
[ "$(grep -c '^| 1W/3C' "$tmp/c3.md")" -eq 1 ] || fail "cluster row in the markdown table"
pass
