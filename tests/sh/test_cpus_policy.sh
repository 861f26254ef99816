#!/usr/bin/env bash
# Description: nice and cpus_allowed_policy as fio's, read from /proc while
# the clones run: nice=5 gives each clone's thread nice 5;
# cpus_allowed_policy=split puts each clone on one CPU of cpus_allowed in
# turn (clone 0 on the first, clone 1 on the second, clone 2 on the first
# again), shared leaves every clone on all of them; a bad nice exits 2.
. "$(dirname "$0")/lib.sh"
case "$(awk '/^Cpus_allowed_list/{print $2}' /proc/self/status)" in 0-*) ;; *) skip "CPUs 0 and 1 are not both allowed here" ;; esac
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"

# CPU lists of the threads running at nice 5, sorted, after the clones start
lists() { # POLICY
  "$LUABENCH" fio --name=j --ioengine=null --size=1m --time_based --runtime=20 --numjobs=3 \
    --cpus_allowed=0-1 --cpus_allowed_policy="$1" --nice=5 --output=/dev/null 2>err &
  local pid=$! out="" i
  for i in $(seq 1 100); do
    out=$(for t in /proc/$pid/task/*; do
            [ "$(awk '{print $19}' "$t/stat" 2>/dev/null)" = 5 ] &&
              awk '/^Cpus_allowed_list/{print $2}' "$t/status"
          done 2>/dev/null | sort | tr '\n' ' ')
    [ "$(echo "$out" | wc -w)" -ge 3 ] && break
    sleep 0.1
  done
  kill -INT "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  echo "$out"
}
got=$(lists split)
[ "$got" = "0 0 1 " ] || fail "split: threads at nice 5 on CPUs '$got', expected '0 0 1 '"
got=$(lists shared)
[ "$got" = "0-1 0-1 0-1 " ] || fail "shared: threads at nice 5 on CPUs '$got', expected '0-1 0-1 0-1 '"
expect_exit 2 "nice" "$LUABENCH" fio --name=j --ioengine=null --size=1m --nice=40
pass
