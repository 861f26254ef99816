#!/usr/bin/env bash
# Description: options that set the same thing give the same job whatever
# their order and from run to run (Lua's table order changes with each
# process).  bs and bsrange are fio's bs and min_bs/max_bs: a direction
# bsrange gives keeps its range, bs before or after it (fio 3.33's
# fixup_options), so random sizes between 4k and 16k, never bs alone.
. "$(dirname "$0")/fio_lib.sh"

# sizes LOG DIR: the distinct sizes of DIR's I/Os in a write_iolog file
sizes() { awk -v d="$2" '$3 == d {print $5}' "$1" | sort -n | uniq | tr '\n' ' '; }

# in_range NAME LOG DIR: DIR's sizes are 4k..16k, more than one of them
in_range() {
  local s; s=$(sizes "$2" "$3")
  [ -n "$s" ] || fail "$1: no $3 in the log"
  for b in $s; do
    [ "$b" -ge 4096 ] && [ "$b" -le 16384 ] || fail "$1: a $3 of $b bytes (sizes: $s)"
  done
  [ "$(wc -w <<<"$s")" -gt 1 ] || fail "$1: every $3 is $s bytes: bs won over bsrange"
}

JOB=(--ioengine=null --rw=randrw --size=1m)
if command -v fio >/dev/null; then        # the premise, on fio itself
  for order in "--bs=4k --bsrange=4k-16k" "--bsrange=4k-16k --bs=4k,8k"; do
    # shellcheck disable=SC2086
    fio --name=j "${JOB[@]}" $order --write_iolog=fio.log --output-format=json >/dev/null ||
      fail "fio $order"
    in_range "fio $order" fio.log read
    in_range "fio $order" fio.log write
  done
fi
for run in 1 2 3 4 5 6; do
  for order in "--bs=4k --bsrange=4k-16k" "--bsrange=4k-16k --bs=4k,8k" \
               "--bs=,8k --bsrange=4k-16k"; do
    rm -f lb.log
    # shellcheck disable=SC2086
    quiet_run "r$run" --name=j "${JOB[@]}" $order --write_iolog=lb.log
    in_range "run $run, $order" lb.log read
    in_range "run $run, $order" lb.log write
  done
done

# bsrange for reads only: writes keep bs (8k at most: luabench aligns the
# writes' offsets to the job's smallest block, 4k, where the random map may
# cut one to 4k; fio aligns them to 8k)
quiet_run w --name=j "${JOB[@]}" --bsrange=4k-16k,  --bs=8k --write_iolog=w.log
in_range "bsrange=4k-16k, bs=8k" w.log read
[ "$(sizes w.log write | awk '{print $NF}')" = 8192 ] ||
  fail "bsrange for reads only: writes of $(sizes w.log write)"

# the same from a Lua table, where no order is given
printf 'local r = lb.run{ioengine="null", rw="randread", size="1m", bs="4k", bsrange="4k-16k"}\nprint(r.jobs[1].read.total_ios)\n' > t.lua
for run in 1 2 3 4 5 6; do
  n=$("$LUABENCH" t.lua) || fail "lb.run with bs and bsrange"
  [ "$n" -lt 256 ] || fail "lb.run run $run: $n reads of 1m: bs won over bsrange"
done
pass
