#!/usr/bin/env bash
# Description: a mixed job under a rate cap chooses its direction as fio
# 3.33 does (io_u.c rate_ddir): the one the mix drew when it is due, else
# the other one when that is due, else the one due first.  The counts below
# are fio's for the same command lines; they follow from the schedules
# alone (the mix only orders I/Os due at the same time), so a loaded machine
# does not change them.  Each direction keeps its own cap (rate_iops=R,W,
# rate=R,W; an empty value leaves a direction free), and an I/O due after
# runtime is not issued.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

# counts NAME WANT_READS WANT_WRITES OPTIONS...
counts() {
  local name=$1 wr=$2 ww=$3; shift 3
  "$LUABENCH" fio --name="$name" --ioengine=null --bs=4k "$@" --output-format=json \
    >"$name.json" 2>"$name.err" || fail "$name: $(cat "$name.err")"
  local got
  got=$(jget "$name.json" 'j.jobs[1].read.total_ios .. " " .. j.jobs[1].write.total_ios')
  echo "$name: $* -> reads writes $got"
  [ "$got" = "$wr $ww" ] || fail "$name: reads and writes $got, fio does $wr $ww"
}

# reads due every 100 ms, writes every 200: 2 reads to a write whatever the
# mix, though it asks for 90% writes (without the switch: about 1 to 8)
counts iops 6 3 --rw=randrw --rwmixread=10 --rate_iops=10,5 --size=36k
counts bytes 6 3 --rw=randrw --rwmixread=10 --rate=40k,20k --size=36k
# the same through the asynchronous loop, 4 in flight
counts async 6 3 --rw=rw --rwmixread=10 --rate_iops=10,5 --size=36k --iodepth=4
# writes capped at 1 a second, reads free: one write, then only reads
counts wcap 2047 1 --rw=randrw --rwmixread=50 --rate_iops=,1 --size=8m
counts rcap 1 2047 --rw=randrw --rwmixread=90 --rate_iops=1, --size=8m --iodepth=8
# rwmixread=100 gives writes no share: never switched to
counts noshare 9 0 --rw=randrw --rwmixread=100 --rate_iops=20,1 --size=36k
# time_based: the I/Os due at 0 and 500 ms, not the one due at the end
counts runtime 2 0 --rw=read --rate_iops=2 --size=1m --time_based --runtime=1
counts runtime_mix 2 1 --rw=randrw --rate_iops=2,1 --size=1m --time_based --runtime=1 --iodepth=4
# fio refuses a cap in bytes beside one in I/Os
expect_exit 2 "rate and rate_iops are mutually exclusive" \
  "$LUABENCH" fio --name=both --ioengine=null --size=1m --rate=1m --rate_iops=,10

# --- the output of a rate-capped mixed job, as fio's ----------------------------
# shellcheck disable=SC2054  # the comma is rate_iops=R,W
JOB=(--name=out --ioengine=null --rw=randrw --rwmixread=70 --bs=4k --size=1m --time_based
     --runtime=1 --rate_iops=50,10)
"$LUABENCH" fio "${JOB[@]}" --output-format=json >out.json 2>out.err || fail "json: $(cat out.err)"
"$LUABENCH" fio "${JOB[@]}" >out.txt 2>&1 || fail "normal output: $(cat out.txt)"
cat >shape.lua <<'LUA'
local function load(p)
  local f = assert(io.open(p)); local j = lb.json_decode(f:read("a")); f:close(); return j
end
local function die(fmt, ...) io.stderr:write(string.format(fmt, ...), "\n"); os.exit(1) end
local j = load(args.lb)
local job = j.jobs[1]
-- fio has no "global options" without one, no "disk_util" without disk
-- statistics, no "steadystate" without ss, and lists no option written bare
for _, k in ipairs{"global options", "disk_util"} do
  if j[k] ~= nil then die("'%s' in the document", k) end
end
if job.steadystate ~= nil then die("a steadystate object without ss") end
if job["job options"].time_based ~= nil then die("--time_based (bare) in job options") end
if job["job options"].rate_iops ~= "50,10" then die("job options: rate_iops %s", tostring(job["job options"].rate_iops)) end
-- a direction without I/O has no bandwidth samples
if job.trim.bw_samples ~= 0 or job.trim.iops_samples ~= 0 or job.trim.bw_agg ~= 0 then
  die("trim samples %s %s agg %s", job.trim.bw_samples, job.trim.iops_samples, job.trim.bw_agg)
end
if job.read.bw_samples < 1 or job.write.bw_samples < 1 then die("no read/write bw samples") end
if job.elapsed < 1 then die("elapsed %s: fio rounds up", job.elapsed) end
if not job.read.sched_lat_ns or not job.write.sched_lat_ns then die("no sched_lat_ns") end
-- the installed fio's keys, the same but for sched_lat_ns
if args.fio ~= "" then
  local f = load(args.fio)
  local function keys(t, pre, out)
    for k, v in pairs(t) do
      if k ~= "sched_lat_ns" and k ~= "percentile" and k ~= "bins" then
        out[#out + 1] = pre .. k
        if type(v) == "table" and k ~= "job options" then keys(v, pre .. k .. ".", out) end
      end
    end
    return out
  end
  local a, b = keys(f, "", {}), keys(j, "", {})
  table.sort(a); table.sort(b)
  local sa, sb = table.concat(a, "\n"), table.concat(b, "\n")
  if sa ~= sb then
    local seen = {}
    for _, k in ipairs(b) do seen[k] = true end
    for _, k in ipairs(a) do if not seen[k] then io.stderr:write("only fio: ", k, "\n") end end
    seen = {}
    for _, k in ipairs(a) do seen[k] = true end
    for _, k in ipairs(b) do if not seen[k] then io.stderr:write("only luabench: ", k, "\n") end end
    die("the keys differ from fio's")
  end
  print(string.format("%d keys as fio's", #a))
end
LUA
fj=""
if command -v fio >/dev/null && fio --version 2>/dev/null | grep -q '^fio-3\.33'; then
  fio "${JOB[@]}" --output-format=json >fio.json 2>/dev/null && fj=fio.json
fi
out=$("$LUABENCH" shape.lua lb=out.json fio="$fj" 2>&1) || fail "$out"
echo "$out"
contains "$(cat out.txt)" "  write: IOPS=" "the write line"
grep -q "^  write: IOPS=.*msec); 0 zone resets$" out.txt || fail "the write line lacks fio's zone resets: $(grep 'write: IOPS' out.txt)"
grep -q "^   sched lat: min=" out.txt || fail "no sched lat line"
pass
