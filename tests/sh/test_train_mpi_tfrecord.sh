#!/usr/bin/env bash
# Description: lb.train format=tfrecord under mpirun -np 3 (2 accelerators
# each): the file list is sharded over all 6 accelerators as DLIO shards
# it (accelerator g of all ranks streams files g, g + 6, ...), so every
# file is opened once per epoch over all ranks and read whole, each rank
# only its accelerators' files (counted with strace, each thread apart);
# the merged result counts every record once per epoch, its bytes are the
# files' bytes, and it equals the sums of the host rows.
# lb-test: labels noleak (Open MPI's own leaks, or LeakSanitizer under ptrace)
. "$(dirname "$0")/lib.sh"
# lb-test: serial (three ranks with their readers need the cores)
command -v mpirun >/dev/null || skip "mpirun not installed"
command -v strace >/dev/null || skip "strace not installed"
strace -f -e trace=pread64 -o /dev/null true 2>/dev/null || skip "strace cannot trace here (ptrace refused)"
"$LUABENCH" --quiet /dev/stdin <<<'os.exit(lb.mpi_support and 0 or 3)' || skip "no MPI support"
tmp=$(lb_tmpdir)
mpi() { timeout 120 mpirun --allow-run-as-root --oversubscribe -np 3 "$@"; }

# 12 files of 4 records, batch 2: 6 accelerators of 2 files, 4 steps each
cat > "$tmp/run.lua" <<EOF2
local spec = {dir = "$tmp/ds", format = "tfrecord", files = 12, samples_per_file = 4,
              sample_size = "3k", batch_size = 2, accelerators = 2, read_threads = 2,
              epochs = tonumber(args.epochs), shuffle = args.shuffle, seed = 5,
              compute_time = 0}
local r = lb.train(spec)
local size = 0
for f = 0, 11 do
  local h = assert(io.open(("$tmp/ds/shard_%04d.tfrecord"):format(f), "rb"))
  size = size + h:seek("end")
  h:close()
end
local E = spec.epochs
assert(#r.hosts == 3, "three host rows")
assert(r.samples == 48 * E, "every record once per epoch: " .. r.samples)
assert(r.bytes == size * E, ("bytes %d, the files hold %d"):format(r.bytes, size * E))
assert(r.steps == 3 * 2 * 4 * E, "steps " .. r.steps)
local s, b, st, reads = 0, 0, 0, 0
for _, h in ipairs(r.hosts) do
  assert(h.samples == 16 * E and h.steps == 8 * E, "host " .. h.rank .. ": " .. h.samples)
  s, b, st = s + h.samples, b + h.bytes, st + h.steps
  reads = reads + h.sample_read_hist:count()
end
assert(s == r.samples and b == r.bytes and st == r.steps, "merged = sums of the host rows")
assert(reads == r.sample_read_hist:count(), "read histograms merged")
for e = 1, E do assert(r.epochs[e].samples == 48, "epoch " .. e .. ": " .. r.epochs[e].samples) end
if lb.rank == 0 then print("merged", r.samples, r.bytes) end
EOF2
out=$(mpi "$LUABENCH" --quiet "$tmp/run.lua" epochs=2 shuffle=sample 2>&1) || fail "two epochs: $out"
contains "$out" "$(printf 'merged\t96\t')" "rank 0 prints the merged counts"
[ "$(printf '%s\n' "$out" | grep -c merged)" -eq 1 ] || fail "printed by one rank: $out"

# one epoch in the file list's order, each rank traced (each thread its own file)
out=$(mpi sh -c 'exec strace -ff -qq -y -e trace=openat,pread64 -o "$0.$OMPI_COMM_WORLD_RANK" "$@"' \
      "$tmp/tr" "$LUABENCH" --quiet "$tmp/run.lua" epochs=1 shuffle=none 2>&1) || fail "traced run: $out"
contains "$out" "$(printf 'merged\t48\t')" "traced run"
for r in 0 1 2; do
  ls "$tmp"/tr."$r".* >/dev/null 2>&1 || fail "no trace of rank $r"
  # the readers' opens of the dataset's files (the script's own io.open has no O_CLOEXEC)
  cat "$tmp"/tr."$r".* | grep -E '^openat\(.*O_CLOEXEC' |
    sed -E 's/^[^"]*"[^"]*(shard_[0-9]+\.tfrecord)".*/\1/' | grep '^shard_' | sort | uniq -c \
    > "$tmp/open.$r"
  want=$(for f in $((2 * r)) $((2 * r + 1)) $((2 * r + 6)) $((2 * r + 7)); do
           printf '      1 shard_%04d.tfrecord\n' "$f"; done | sort)
  [ "$(cat "$tmp/open.$r")" = "$want" ] || fail "rank $r opened: $(cat "$tmp/open.$r")"
  # bytes read from each: the whole file
  cat "$tmp"/tr."$r".* | grep -F 'pread64(' | grep -F '.tfrecord>' |
    sed -E 's/.*(shard_[0-9]+\.tfrecord)>.* = ([0-9]+)$/\1 \2/' |
    awk '{b[$1] += $2} END {for (f in b) print f, b[f]}' | sort > "$tmp/bytes.$r"
  want=$(for f in $((2 * r)) $((2 * r + 1)) $((2 * r + 6)) $((2 * r + 7)); do
           n=$(printf 'shard_%04d.tfrecord' "$f"); echo "$n $(stat -c %s "$tmp/ds/$n")"; done | sort)
  [ "$(cat "$tmp/bytes.$r")" = "$want" ] || fail "rank $r read: $(cat "$tmp/bytes.$r") want $want"
done
pass
