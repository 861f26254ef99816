#!/bin/bash
# Description: an installed luabench (cmake --install into a fresh prefix)
# runs a script from another directory with the installed library: the
# modules of its folders (luabench.report, luabench.fio.parse), the old
# fio_* names, lb.report and the fio front end; luabench(1) lists the
# options of --help, luabench-lua(7) the Lua API, both found by man under
# the prefix, uncompressed; the bash completion completes options, engines and a
# script's parameters; cpack makes a Debian package holding them.
. "$(dirname "$0")/lib.sh"
command -v cmake >/dev/null || skip "cmake not installed"
: "${LB_BUILD:?LB_BUILD must name the build directory}"
tmp=$(lb_tmpdir)
cmake --install "$LB_BUILD" --prefix "$tmp/prefix" >/dev/null || fail "cmake --install failed"
bin=$tmp/prefix/bin/luabench
[ -x "$bin" ] || fail "no luabench under the prefix"

mkdir "$tmp/elsewhere"
cat > "$tmp/elsewhere/s.lua" <<'EOF2'
local report = require "luabench.report"
local parse = require "luabench.fio.parse"
assert(require "luabench.fio_parse" == parse, "the old name is the new module")
assert(type(require("luabench.fio").main) == "function", "luabench.fio")
lb.report(lb.run{ioengine = "null", size = "64k"})
print("stdlib " .. lb.stdlib, report.fmt_bw(1572864))
EOF2
out=$(cd "$tmp/elsewhere" && env -u LUABENCH_STDLIB "$bin" --quiet s.lua 2>&1) || fail "installed run: $out"
contains "$out" "stdlib $tmp/prefix/" "the library comes from the prefix"
contains "$out" "1.50 MiB/s" "report's formatters"
contains "$out" "read: IOPS=" "lb.report's summary"
out=$(cd "$tmp/elsewhere" && env -u LUABENCH_STDLIB "$bin" fio --name=x --ioengine=null --size=64k \
      --output-format=terse 2>&1) || fail "installed fio front end: $out"
contains "$out" "3;luabench-" "terse output of the fio front end"

# the man page and the completion
page=$tmp/prefix/share/man/man1/luabench.1
[ -s "$page" ] || fail "no man page under the prefix"
if command -v man >/dev/null; then
  text=$(MANWIDTH=100 man -l "$page" 2>&1) || fail "man -l: $text"
  for w in "SYNOPSIS" "luabench compare [options] A.json B.json" "--allow-overwrite" "WORKLOAD OPTIONS" \
           "iodepth" "blocksize" "--confidence=C"; do
    contains "$text" "$w" "luabench(1)"
  done
  contains "$text" "luabench-lua(7)" "luabench(1) names the Lua page"
  page7=$tmp/prefix/share/man/man7/luabench-lua.7
  [ -s "$page7" ] || fail "no luabench-lua(7) under the prefix"
  text=$(MANWIDTH=100 man -l "$page7" 2>&1) || fail "man -l luabench-lua.7: $text"
  for w in "THE lb TABLE" "lb.run(spec)" "lb.train{" "lb.meta{" "h:percentile(p)" "luabench.report" \
           "report.timeline(result" "sweep.run{" "stop.steady{" "cache.drop(files" "prep.files{" \
           "compare.compare(a, b" "mpi.phase(" "script.params(spec"; do
    contains "$text" "$w" "luabench-lua(7)"
  done
  # the pages are found by name under the prefix's man directory, uncompressed
  text=$(MANWIDTH=100 man -M "$tmp/prefix/share/man" luabench 2>&1) || fail "man luabench: $text"
  contains "$text" "LUABENCH(1)" "man luabench"
  text=$(MANWIDTH=100 man -M "$tmp/prefix/share/man" 7 luabench-lua 2>&1) || fail "man 7 luabench-lua: $text"
  contains "$text" "LUABENCH-LUA(7)" "man 7 luabench-lua"
fi
comp=$tmp/prefix/share/bash-completion/completions/luabench
[ -s "$comp" ] || fail "no bash completion under the prefix"
complete_words() { # the words, the one being completed last
  PATH="$tmp/prefix/bin:$PATH" bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1));
    _luabench; echo "${COMPREPLY[*]}"' _ "$comp" "$@"
}
contains "$(complete_words luabench --list)" "--list-engines" "completion of host options"
contains "$(complete_words luabench fio --iode)" "--iodepth=" "completion of workload options"
contains "$(complete_words luabench fio --ioengine = io_)" "io_uring" "completion of engines"
contains "$(complete_words luabench "$LB_SRC/scripts/scaleout.lua" numjobs_)" "numjobs_shared=" \
  "completion of a script's parameters"
contains "$(complete_words luabench compare --conf)" "--confidence=" "completion of compare's options"

# the Debian package
if command -v cpack >/dev/null && command -v dpkg-deb >/dev/null && [ -f "$LB_BUILD/CPackConfig.cmake" ]; then
  (cd "$tmp" && cpack --config "$LB_BUILD/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
    fail "cpack: $(tail -5 "$tmp/cpack.log")"
  deb=$(ls "$tmp"/pkg/luabench_*.deb 2>/dev/null | head -1)
  [ -n "$deb" ] || fail "cpack made no luabench_*.deb"
  list=$(dpkg-deb -c "$deb")
  for f in ./usr/bin/luabench ./usr/share/man/man1/luabench.1 ./usr/share/man/man7/luabench-lua.7 \
           ./usr/share/bash-completion/completions/luabench \
           ./usr/share/luabench/stdlib/luabench/compare.lua ./usr/share/luabench/scripts/scaleout.lua; do
    contains "$list" "$f" "the package"
  done
  contains "$(dpkg-deb -f "$deb" Depends)" "liblua5.4" "the package's dependencies"
fi
pass
