#!/usr/bin/env bash
# Description: under a rate cap every I/O also has an open-loop latency,
# measured from the time the rate schedule had it due.  One 200 ms stall
# (the fault engine's delay, fixed by its seed) in a 1000 IOPS run of 2048
# reads: the I/Os due during the stall are issued after it, so the
# scheduled-start p99 holds the stall while the issue-time clat/lat p99
# do not.  The key is in the lb.run result, luabench fio's JSON and json+,
# its normal output and lb.report's text, only with a rate cap; fio's own
# keys of the job are the same with and without it.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
STALL="--ioengine=fault --fault_engine=null --rw=randread --bs=4k --size=8m
  --fault_delay=0.001 --fault_delay_us=200000 --fault_seed=5"

# --- luabench fio: json+ and normal output of the stalled run ---------------------
# shellcheck disable=SC2086
"$LUABENCH" fio --name=ol $STALL --rate_iops=1000 --output-format=json+,normal >ol.out 2>ol.err ||
  fail "stalled run: $(cat ol.err)"
awk '/^{/ { j = 1 } j { print } /^}/ { j = 0 }' ol.out >ol.json
awk 't { print } /^}/ { t = 1 }' ol.out >ol.txt
# shellcheck disable=SC2086
"$LUABENCH" fio --name=ol $STALL --output-format=json >free.json 2>free.err ||
  fail "run without a rate cap: $(cat free.err)"
cat >check.lua <<'LUA'
local function load(p)
  local f = assert(io.open(p)); local j = lb.json_decode(f:read("a")); f:close()
  return j.jobs[1].read
end
local x, free = load(args.rated), load(args.free)
local function die(fmt, ...) io.stderr:write(string.format(fmt, ...), "\n"); os.exit(1) end
local s, lat, clat = x.sched_lat_ns, x.lat_ns, x.clat_ns
if not s then die("no sched_lat_ns under rate_iops") end
if free.sched_lat_ns then die("sched_lat_ns without a rate cap") end
local p = function(t, q) return t.percentile and t.percentile[string.format("%f", q)] end
local lp99 = x.lat_ns.percentile and p(lat, 99) or nil
print(string.format("total_ios %d lat max %d clat p99 %d sched p50 %d p99 %d N %d", x.total_ios,
                    lat.max, p(clat, 99), p(s, 50), p(s, 99), s.N))
if x.total_ios ~= 2048 or s.N ~= 2048 then die("N %d of %d I/Os", s.N, x.total_ios) end
if lat.max < 200e6 then die("the stall is not in lat: max %d ns", lat.max) end
if p(clat, 99) >= 100e6 then die("clat p99 %d ns holds the stall", p(clat, 99)) end
if lp99 and lp99 >= 100e6 then die("lat p99 %d ns holds the stall", lp99) end
if p(s, 99) < 100e6 then die("sched p99 %d ns misses the stall", p(s, 99)) end
-- each I/O's due time is at or before its start: sched lat >= lat, I/O by I/O
if s.max < lat.max or p(s, 50) < p(clat, 50) then die("sched lat below lat") end
if not s.bins then die("json+ has no sched_lat_ns bins") end
local n = 0
for _, c in pairs(s.bins) do n = n + c end
if n ~= 2048 then die("sched_lat_ns bins hold %d I/Os", n) end
-- fio's keys unchanged: the same with and without the cap, less the new one
local a, b = {}, {}
for k in pairs(x) do if k ~= "sched_lat_ns" then a[#a + 1] = k end end
for k in pairs(free) do b[#b + 1] = k end
table.sort(a); table.sort(b)
if table.concat(a, ",") ~= table.concat(b, ",") then
  die("keys differ:\n%s\n%s", table.concat(a, ","), table.concat(b, ","))
end
LUA
out=$("$LUABENCH" check.lua rated=ol.json free=free.json 2>&1) || fail "$out"
echo "$out"
contains "$(cat ol.txt)" "   sched lat: min=" "the sched lat line of the normal output"
grep -q "sched" free.json && fail "a run without a rate cap mentions sched"
# shellcheck disable=SC2086
"$LUABENCH" fio --name=ol $STALL --output-format=normal >free.txt 2>&1 || fail "normal run"
grep -q "sched lat" free.txt && fail "the normal output without a rate cap has a sched lat line"

# --- lb.run: rate in bytes, poisson; the result, metric.values, lb.report ----------
cat >run.lua <<'LUA'
local report, metric = require "luabench.report", require "luabench.metric"
local function die(fmt, ...) io.stderr:write(string.format(fmt, ...), "\n"); os.exit(1) end
local base = {name = "p", ioengine = "null", rw = "randread", bs = "4k", size = "256k"}
local function with(t) local j = {}; for k, v in pairs(base) do j[k] = v end
  for k, v in pairs(t) do j[k] = v end; return j end
local r = lb.run(with{rate = "400k", rate_process = "poisson"})
local x = r.jobs[1].read
if not x.sched_lat_ns or x.sched_lat_ns.N ~= 64 then die("rate=400k poisson: no sched_lat_ns of 64") end
if not x.sched_lat_hist or x.sched_lat_hist:count() ~= 64 then die("no sched_lat_hist") end
local v = metric.values(r.jobs[1])
if not v.sched_p99 or v.sched_p99 ~= x.sched_lat_hist:percentile(99) then die("values: no sched_p99") end
local t = report.text(r.jobs[1])
if not t:find("    sched lat: min=", 1, true) then die("report has no sched lat line:\n%s", t) end
local f = lb.run(base).jobs[1]
if f.read.sched_lat_ns or f.read.sched_lat_hist or metric.values(f).sched_p99 then
  die("sched latency without a rate cap")
end
if report.text(f):find("sched", 1, true) then die("report of an uncapped run says sched") end
print(t)
LUA
out=$("$LUABENCH" --quiet run.lua 2>&1) || fail "$out"
echo "$out"
pass
