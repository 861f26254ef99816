#!/usr/bin/env bash
# Description: SIGINT and SIGTERM stop a run at once: the process exits
# 130 or 143 within a few seconds (the runs would take 30 s) and prints the
# results measured so far, marked partial (result.partial, the text report,
# fio's JSON); an --output file is absent or whole, valid JSON, never cut
# short; no run starts after the signal; a run stopped while laying out
# leaves a file luabench can remove; a second SIGINT (or SIGTERM) ends a
# process that is stuck in Lua code or a hook at once.
. "$(dirname "$0")/lib.sh"

"$LUABENCH" --list-engines 2>/dev/null | grep -q '^null  *supported' || skip "no null engine"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
problems=()
problem() { problems+=("$1"); echo "FAIL: $1" >&2; }

# start ARGS...: runs luabench in the background; pid in $pid.  (The old
# out and err go first: the child truncates them only once it runs.)
start() {
  rm -f out err
  "$LUABENCH" "$@" >out 2>err </dev/null &
  pid=$!
}
# running_threads N: waits (up to 10 s) until the process has N threads
running_threads() {
  local i
  for i in $(seq 100); do
    [ "$(ls /proc/$pid/task 2>/dev/null | wc -l)" -ge "$1" ] && return 0
    sleep 0.1
  done
  return 1
}
# stderr_has TEXT: waits (up to 10 s) until stderr holds TEXT
stderr_has() {
  local i
  for i in $(seq 100); do
    grep -qF -- "$1" err 2>/dev/null && return 0
    sleep 0.1
  done
  return 1
}
alive() { [ -d /proc/$pid ] && [ "$(awk '{print $3}' /proc/$pid/stat 2>/dev/null)" != Z ]; }
# finish LIMIT_S: waits for the process; SIGKILL after LIMIT_S; sets rc, ms
finish() {
  local t0 i
  t0=$(date +%s%N)
  for i in $(seq $(($1 * 20))); do alive || break; sleep 0.05; done
  alive && kill -KILL "$pid" 2>/dev/null
  rc=0
  wait "$pid" || rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
}
no_crash() {
  ! grep -qE 'AddressSanitizer|LeakSanitizer|ThreadSanitizer|runtime error:|Segmentation fault' err ||
    problem "$1: sanitizer report or crash: $(head -c 400 err)"
}

# --- a long run, SIGINT then SIGTERM ----------------------------------------
cat > long.lua <<'EOF'
local r = lb.run{name = "long", ioengine = "null", null_lat = "100us", size = "1m",
                 runtime = "30s", time_based = true, numjobs = 2}
print("partial=" .. tostring(r.partial) .. " ios=" .. r.read.total_ios)
lb.report(r)
EOF
for sig in INT TERM; do
  want=130; [ $sig = TERM ] && want=143
  start long.lua
  running_threads 3 || problem "SIG$sig: the run did not start"
  sleep 0.5
  kill -$sig "$pid"
  finish 10
  no_crash "SIG$sig"
  [ "$rc" -eq "$want" ] || problem "SIG$sig during a run: exit $rc, expected $want: $(head -c 300 err)"
  [ "$ms" -lt 5000 ] || problem "SIG$sig: the process took $ms ms to exit"
  grep -q '^partial=true ios=[1-9]' out || problem "SIG$sig: result.partial is not true: $(head -c 300 out)"
  grep -qi 'partial' <(sed 1d out) || problem "SIG$sig: lb.report does not say the results are partial: $(sed 1d out | head -c 400)"
done

# --- luabench fio --output: absent or whole JSON, marked partial --------------
cat > check.lua <<'EOF'
local f = assert(io.open(args.file))
local doc = lb.json_decode(f:read("a"))
f:close()
local job = doc.jobs[1]
assert(job and job.read.total_ios > 0, "no job or no I/O in the report")
io.write(tostring(job.partial))
EOF
for delay in 0.7 0.2 0.05; do
  rm -f f.json f.json.*
  start fio --name=f --ioengine=null --null_lat=100us --size=1m --runtime=30 --time_based \
    --output-format=json --output=f.json
  running_threads 2 || true
  sleep "$delay"
  kill -INT "$pid"
  finish 10
  no_crash "fio --output"
  [ "$rc" -eq 130 ] || problem "fio --output, SIGINT after ${delay}s: exit $rc: $(head -c 300 err)"
  leftovers=$(ls f.json.* 2>/dev/null)
  [ -z "$leftovers" ] || problem "fio --output left $leftovers"
  if [ -e f.json ]; then
    p=$("$LUABENCH" check.lua file=f.json 2>&1) || problem "fio --output: f.json is not whole JSON: $p"
    [ "$p" = true ] || problem "fio --output: the JSON does not say partial (jobs[1].partial is $p)"
  fi
done
# normal output on stdout says it too
start fio --name=n --ioengine=null --null_lat=100us --size=1m --runtime=30 --time_based
running_threads 2 || true
sleep 0.5
kill -INT "$pid"
finish 10
[ "$rc" -eq 130 ] || problem "fio normal output, SIGINT: exit $rc"
grep -q 'IOPS=' out || problem "fio normal output: no results after SIGINT: $(head -c 300 out)"
grep -qi partial out err || problem "fio normal output: nothing says the results are partial"

# --- no run starts after the signal ------------------------------------------
cat > many.lua <<'EOF'
for i = 1, 50 do
  local r = lb.run{name = "r" .. i, ioengine = "null", null_lat = "100us", size = "1m",
                   runtime = "200ms", time_based = true}
  print(i, r.partial)
  io.stdout:flush()
end
EOF
start many.lua
sleep 0.7
kill -INT "$pid"
finish 10
[ "$rc" -eq 130 ] || problem "a loop of runs, SIGINT: exit $rc: $(head -c 300 err)"
[ "$ms" -lt 5000 ] || problem "a loop of runs kept going for $ms ms after SIGINT"
n=$(wc -l < out)
[ "$n" -lt 20 ] || problem "runs went on after SIGINT: $n of them"
grep -q 'interrupted' err || problem "the next lb.run does not say 'interrupted': $(head -c 300 err)"

# --- SIGINT while laying out a file -----------------------------------------
cat > layout.lua <<'EOF'
-- laid out, then read for 30 s: SIGINT ends either phase
local ok, err = pcall(lb.run, {name = "big", filename = "big.dat", size = "512m", rw = "read", bs = "1m",
                               time_based = true, runtime = "30s"})
assert(lb.is_ours("big.dat") ~= false, "big.dat is not ours")
assert(lb.remove("big.dat"), "cannot remove big.dat")
print(ok, err)
EOF
start layout.lua
for i in $(seq 100); do [ -e big.dat ] && break; sleep 0.02; done
sleep 0.1
kill -INT "$pid"
finish 10
no_crash "layout"
[ "$rc" -eq 130 ] || problem "SIGINT during the layout: exit $rc: $(head -c 300 err)"
[ ! -e big.dat ] || problem "big.dat stayed after lb.remove"

# --- a second signal ends a stuck process at once ---------------------------
cat > stuck.lua <<'EOF'
io.stderr:write("ready\n")
lb.sleep(30)
io.stderr:write("first signal seen: ", tostring(lb.interrupted()), "\n")
local t = lb.now()
while lb.now() - t < 30 do end      -- a hook that never returns
EOF
for sig in INT TERM; do
  want=130; [ $sig = TERM ] && want=143
  start stuck.lua
  stderr_has ready || problem "stuck.lua did not start"
  kill -$sig "$pid"
  stderr_has "first signal seen: true" || problem "SIG$sig: lb.sleep did not end or lb.interrupted() is false: $(cat err)"
  sleep 0.3
  alive || problem "SIG$sig: expected the busy loop to still run after one signal"
  kill -$sig "$pid"
  finish 10
  [ "$rc" -eq "$want" ] || problem "second SIG$sig: exit $rc, expected $want"
  [ "$ms" -lt 2000 ] || problem "second SIG$sig: took $ms ms to end the process"
done

# a hook stuck in a command: cache.exec waits for its child
cat > hook.lua <<'EOF'
io.stderr:write("ready\n")
require("luabench.cache").exec{cmd = "sleep 30"}
EOF
start hook.lua
stderr_has ready || problem "hook.lua did not start"
sleep 0.3
kids=$(cat /proc/$pid/task/*/children 2>/dev/null)
kill -INT "$pid"
sleep 0.3
kill -INT "$pid"
finish 10
[ "$rc" -eq 130 ] || problem "second SIGINT in cache.exec: exit $rc"
[ "$ms" -lt 2000 ] || problem "second SIGINT in cache.exec: took $ms ms"
for k in $kids; do
  kill $(cat /proc/$k/task/*/children 2>/dev/null) "$k" 2>/dev/null
done

# a set latency of seconds ends at the stop, and lb.sleep after it returns
printf 'io.stderr:write("ready\\n")\nlocal r = lb.run{ioengine="null", null_lat="5s", runtime="60s", time_based=true}\nlb.sleep(30)\nlb.report(r)\n' > long_lat.lua
start --quiet long_lat.lua
stderr_has ready || problem "long_lat.lua did not start"
sleep 1
kill -INT "$pid"
finish 10
[ "$rc" -eq 130 ] || problem "SIGINT during a 5 s null latency: exit $rc"
[ "$ms" -lt 3000 ] || problem "SIGINT during a 5 s null latency: took $ms ms"

[ ${#problems[@]} -eq 0 ] || exit 1
pass
