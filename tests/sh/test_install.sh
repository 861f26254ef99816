#!/bin/bash
# Description: an installed luabench (cmake --install into a fresh prefix)
# runs a script from another directory with the installed library: the
# modules of its folders (luabench.report, luabench.fio.parse), the old
# fio_* names, lb.report and the fio front end.
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
pass
