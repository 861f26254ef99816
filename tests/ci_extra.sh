#!/usr/bin/env bash
# The checks CI runs after the README's test command (.ci/run calls this
# from the source root):
#   0. build-werror-*: gcc and clang, each at -O2 and -O3, with -Werror: the
#      build must be warning-free (a build only, no tests; build-werror-*
#      are removed after);
#   1. build-asan: clang, AddressSanitizer + UndefinedBehaviorSanitizer
#      (leaks checked, except in the tests labelled noleak: Open MPI's own
#      leaks, or strace), the
#      libFuzzer targets beside; the whole ctest suite but fio's own (run
#      against the plain build already), which replays each
#      fuzzer's seed corpus too;
#   2. build-tsan: clang, ThreadSanitizer; the tests labelled "threads"
#      (the core's and the Lua tests: every one that runs worker threads;
#      the shell tests are left out: they test the command line, and
#      ThreadSanitizer defers signals until a thread next calls into libc,
#      so a process waiting inside a libc call ignores a second SIGINT);
#   3. each fuzzer for FUZZ_SECONDS (45 by default) over its seed corpus in
#      tests/fuzz/corpus_<name>; what it finds goes to build-asan/fuzz-corpus
#      and crashes to build-asan/fuzz-crash (both ignored by git).
# Exits non-zero on the first failure.  Each stage prints its duration.
# Environment: CC (default clang), JOBS (default 2), FUZZ_SECONDS.
set -euo pipefail
cd "$(dirname "$0")/.."
cc=${CC:-clang}
jobs=${JOBS:-2}
fuzz_seconds=${FUZZ_SECONDS:-45}
export ASAN_OPTIONS=detect_leaks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1

t_all=$(date +%s)
stage() { t_stage=$(date +%s); echo "=== ci_extra: $*"; }
done_stage() { echo "=== ci_extra: $1 took $(($(date +%s) - t_stage)) s"; }

command -v "$cc" >/dev/null || { echo "ci_extra: $cc not found (the README installs clang)" >&2; exit 1; }

for wcc in gcc clang; do
  command -v "$wcc" >/dev/null || { echo "ci_extra: $wcc not found" >&2; exit 1; }
  for opt in -O2 -O3; do
    stage "$wcc $opt -Werror build (build-werror-$wcc$opt)"
    dir=build-werror-$wcc$opt
    CC=$wcc cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS_RELEASE="$opt" \
      -DCMAKE_C_FLAGS=-Werror >/dev/null
    cmake --build "$dir" -j"$jobs" >"$dir.log" 2>&1 ||
      { grep -E -A4 'warning:|error:' "$dir.log" | head -n 60 >&2
        echo "ci_extra: $wcc $opt -Werror build failed" >&2; exit 1; }
    rm -rf "$dir" "$dir.log"
    done_stage "$wcc $opt -Werror build"
  done
done

stage "AddressSanitizer + UndefinedBehaviorSanitizer build (build-asan)"
CC=$cc cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DLB_SANITIZE=address,undefined -DLB_FUZZ=ON >/dev/null
cmake --build build-asan -j"$jobs"
done_stage "asan build"

stage "ctest under ASan+UBSan"
# Open MPI's memory patcher rewrites the sanitizer's own entry points
# (the interposed munmap and friends) and a rank may then call through a
# null pointer at MPI_Init: the sanitized ranks go without it (it only
# caches registrations for RDMA networks, which none of the tests use).
export OMPI_MCA_memory='^patcher'
# Open MPI leaks in its own components (dlopen'ed, gone from the stacks by
# exit, so no suppression can name them), and LeakSanitizer cannot run under
# ptrace (the tests that count system calls with strace): those tests say
# "lb-test: labels noleak" and run without leak checks, everything else
# with them.
# fio's own suite ran against the plain build already; it measures what
# options mean, not memory safety, and would double CI's time here.
ctest --test-dir build-asan --output-on-failure -j"$jobs" -LE '^(fio-suite|noleak)$'
ASAN_OPTIONS=detect_leaks=0 ctest --test-dir build-asan --output-on-failure -L '^noleak$'
done_stage "asan ctest"

stage "ThreadSanitizer build (build-tsan)"
CC=$cc cmake -S . -B build-tsan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLB_SANITIZE=thread >/dev/null
cmake --build build-tsan -j"$jobs"
done_stage "tsan build"

stage "ctest -L threads under TSan"
ctest --test-dir build-tsan --output-on-failure -j"$jobs" -L threads
done_stage "tsan ctest"

# fuzz_fioparse keeps one Lua state, whose memory outlives each input:
# leak checks after each input would only measure the garbage collector.
for f in options hist fioparse trainfmt; do
  bin=build-asan/fuzz_$f
  [ -x "$bin" ] || { echo "ci_extra: $bin was not built" >&2; exit 1; }
  stage "fuzz_$f for ${fuzz_seconds} s"
  mkdir -p "build-asan/fuzz-corpus/$f" build-asan/fuzz-crash
  extra=()
  [ "$f" = fioparse ] && extra=(-detect_leaks=0)
  "$bin" "${extra[@]}" -max_total_time="$fuzz_seconds" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix=build-asan/fuzz-crash/ \
    "build-asan/fuzz-corpus/$f" "tests/fuzz/corpus_$f" 2>"build-asan/fuzz-$f.log" ||
    { tail -n 60 "build-asan/fuzz-$f.log" >&2; echo "ci_extra: fuzz_$f failed" >&2; exit 1; }
  grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units)' "build-asan/fuzz-$f.log" || true
  done_stage "fuzz_$f"
done

echo "=== ci_extra: all passed in $(($(date +%s) - t_all)) s"
