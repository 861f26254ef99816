#!/usr/bin/env bash
# Description: lb.train starts its readers (read_threads per accelerator)
# and its accelerators once per call, not once per epoch, as DLIO's
# persistent PyTorch workers: counted with strace -f -c -e clone,clone3,
# one epoch starts as many threads as three epochs with a checkpoint after
# each (written by the accelerators' own threads), for files of a sample
# each and for TFRecord streams; the epochs' samples are all read.
# lb-test: labels noleak (LeakSanitizer cannot run under strace's ptrace)
. "$(dirname "$0")/lib.sh"
command -v strace >/dev/null || skip "strace is not installed"
strace -f -c -e trace=clone,clone3 -o /dev/null true 2>/dev/null ||
  skip "strace cannot trace here (ptrace refused)"
tmp=$(lb_tmpdir)
cd "$tmp" || fail "cd $tmp"
cat > run.lua <<'LUA'
local r = lb.train{dir = args.dir, files = 32, sample_size = "4k", batch_size = 2,
                   read_threads = 3, accelerators = 2, epochs = tonumber(args.epochs),
                   format = args.format, compute_time = "1ms",
                   checkpoint = {every_epochs = 1, size = "64k"}}
print(string.format("samples=%d epochs=%d checkpoints=%d", r.samples, #r.epochs, r.checkpoints.count))
LUA

# threads the run starts: the clone and clone3 calls of the process
threads() { # out-file lua-args...
  local out=$1; shift
  strace -f -c -e trace=clone,clone3 -o st.txt "$LUABENCH" run.lua "$@" > "$out" ||
    fail "run $*: exit $?: $(cat "$out")"
  awk '$NF == "clone" || $NF == "clone3" { n += $4 } END { print n + 0 }' st.txt
}

for format in raw tfrecord; do
  "$LUABENCH" run.lua dir=ds-$format format=$format epochs=1 > layout.txt ||
    fail "$format: layout: exit $?"              # laid out: no layout threads below
  one=$(threads one.txt dir=ds-$format format=$format epochs=1)
  three=$(threads three.txt dir=ds-$format format=$format epochs=3)
  grep -qx "samples=32 epochs=1 checkpoints=1" one.txt || fail "$format, 1 epoch: $(cat one.txt)"
  grep -qx "samples=96 epochs=3 checkpoints=3" three.txt || fail "$format, 3 epochs: $(cat three.txt)"
  # 6 readers and 2 accelerators
  [ "$one" -ge 8 ] || fail "$format: 1 epoch started $one threads, expected at least 8"
  [ "$three" -eq "$one" ] ||
    fail "$format: 3 epochs started $three threads, 1 epoch $one: threads started per epoch"
done
pass
