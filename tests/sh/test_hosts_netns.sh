#!/usr/bin/env bash
# Description: mpirun over three hosts (network and UTS namespaces with
# their own hostnames, on a bridge, Open MPI on TCP only; tests/hosts/netns.sh):
# every rank reports its own hostname, result.hosts has one row per host
# with three distinct hostnames, the rows add up to the cluster's I/Os and
# bytes, and the bytes each host wrote are the bytes of its file on the
# shared directory; the ranks' traffic crossed the hosts' links;
# scripts/scaleout.lua lays out its data (the ranks in turn) and runs across
# the hosts as a 1W/3C cluster; lb.train runs across them with each
# sample read once per epoch over the three hosts and host rows naming
# them; nothing is left running afterwards.
# lb-test: serial (three ranks and their daemons)
# lb-test: labels hosts
. "$(dirname "$0")/lib.sh"
. "$LB_SRC/tests/hosts/lib.sh"
hosts_up netns
run() { timeout -k 10 120 bash "$LB_SRC/tests/hosts/netns.sh" mpirun "$bed" -np 3 "$@"; }
rx() { bed_exec "$bed" "$1" awk '$1 == "eth0:" { print $2 }' /proc/net/dev; }

before=$(rx 2)
out=$(cd "$share" && hosts_launch run "$LUABENCH" --quiet "$LB_SRC/tests/hosts/who.lua" dir="$share" \
        out="$share/who.json") || fail "mpirun over three hosts: $out $(hosts_why)"
for i in 0 1 2; do
  contains "$out" "rank $i of 3 on lbhost$((i + 1))" "rank $i runs on its own host"
done
[ $(( $(rx 2) - before )) -gt 10000 ] || fail "the ranks' traffic did not cross lbhost2's link"
python3 "$LB_SRC/tests/hosts/rows.py" "$share/who.json" "$share" 3 || fail "host rows"

so=(files=3 file_size=2m runtime=0.3 numjobs_shared=1,2 numjobs_independent=1 drop=files
    cache=none workers=1 dir="$share/data")
# the data is laid out by the ranks in turn inside the script (a run of one rank alone)
out=$(cd "$share" && hosts_launch run "$LUABENCH" --quiet "$LB_SRC/scripts/scaleout.lua" "${so[@]}" \
        out="$share/c3") || fail "scaleout over three hosts: $out $(hosts_why)"
[ "$(grep -c '^| 1W/3C' <<<"$out")" -eq 1 ] || fail "one cluster row in the peak table: $out"
python3 - "$share/c3.json" <<'EOF' || fail "scaleout cluster JSON"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["topology"] == "1W/3C" and d["clients"] == 3, (d["topology"], d["clients"])
assert d["host"]["hostname"] == "lbhost1", d["host"]
for m in ("shared", "independent"):
    assert [p["numjobs"] for p in d["modes"][m]["points"]] == ([1, 2] if m == "shared" else [1]), m
    assert all(p["bw_bytes"] > 0 for p in d["modes"][m]["points"]), m
EOF

# a training run across the hosts: DLIO's shards over ranks x accelerators
cat > "$share/train.lua" <<EOF2
local r = lb.train{dir = "$share/ds", files = 12, sample_size = "4k", batch_size = 2,
                   accelerators = 2, read_threads = 1, epochs = 2, seed = 3}
assert(#r.hosts == 3, "three host rows")
local names, samples = {}, 0
for _, h in ipairs(r.hosts) do names[h.hostname] = true; samples = samples + h.samples end
assert(names.lbhost1 and names.lbhost2 and names.lbhost3, "the three hostnames")
assert(samples == r.samples and r.samples == 24, "samples " .. r.samples .. " rows " .. samples)
for _, ep in ipairs(r.epochs) do assert(ep.samples == 12, "an epoch reads every sample once") end
if lb.rank == 0 then print("trained", r.samples, lb.size) end
EOF2
out=$(cd "$share" && hosts_launch run "$LUABENCH" --quiet "$share/train.lua") ||
  fail "lb.train over three hosts: $out $(hosts_why)"
contains "$out" "$(printf 'trained\t24\t3')" "rank 0 prints the merged training counts"

left=$(bed_ps "$bed")
[ -z "$left" ] || fail "left running on the hosts after mpirun returned: $left"
pass
