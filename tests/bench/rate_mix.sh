#!/usr/bin/env bash
# Mixed read/write jobs under rate caps, fio 3.33 and luabench fio on the same command
# lines, interleaved fio, luabench, fio (the two fio runs give fio's own spread): read
# and write counts and job_runtime per case, on the null engine and a file in /dev/shm
# (psync, libaio at QD8).  A benchmark, not a test: it prints, it asserts nothing.
# Usage: tests/bench/rate_mix.sh [LUABENCH] [RUNTIME_S]
set -u
LB=${1:-build/luabench}
RT=${2:-3}
f=/dev/shm/lb_rate_mix.$$
trap 'rm -f "$f"' EXIT
row() { # tool label args...
  local tool=$1 label=$2; shift 2
  local out
  if [ "$tool" = fio ]; then out=$(fio "$@" --output-format=json 2>/dev/null)
  else out=$("$LB" fio --allow-overwrite "$@" --output-format=json 2>/dev/null); fi
  printf '%s' "$out" | python3 -c "
import json, sys
j = json.load(sys.stdin)['jobs'][0]
print('%-8s %-44s reads %7d writes %7d runtime %5d ms' % ('$tool', '$label', j['read']['total_ios'],
      j['write']['total_ios'], j['job_runtime']))"
}
echo "# $(date -u '+%F %T') UTC, load $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) CPUs, $(fio --version)"
for eng in "--ioengine=null" "--ioengine=psync --filename=$f" "--ioengine=libaio --iodepth=8 --filename=$f"; do
  for rate in "--rate_iops=1000" "--rate_iops=500,100" "--rate_iops=,100" \
              "--rate_iops=1000 --rate_process=poisson"; do
    # shellcheck disable=SC2086
    args=(--name=mix $eng --rw=randrw --rwmixread=70 --bs=4k --size=16m --time_based
          --runtime="$RT" $rate)
    label="${eng%% *} ${rate}"
    row fio "$label" "${args[@]}"
    row luabench "$label" "${args[@]}"
    row fio "$label" "${args[@]}"
  done
done
