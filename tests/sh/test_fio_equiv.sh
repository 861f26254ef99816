#!/usr/bin/env bash
# Description: the same small null-engine job run by real fio and by
# `luabench fio` does the same I/O: total I/Os over both directions and
# the block size.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get

# --- the same job under real fio -------------------------------------------------
command -v fio >/dev/null || skip "fio missing"
fio --name=x --ioengine=null --rw=randrw --bs=4k --size=1m --output-format=json >fio.json 2>fio.err ||
  fail "real fio failed: $(cat fio.err)"
"$LUABENCH" fio --name=x --ioengine=null --rw=randrw --bs=4k --size=1m --output-format=json >lb.json 2>lb.err ||
  fail "luabench failed: $(cat lb.err)"
sum='j["jobs"][0]["read"]["total_ios"] + j["jobs"][0]["write"]["total_ios"]'
bs='sorted(set(j["jobs"][0][d]["io_bytes"] // j["jobs"][0][d]["total_ios"] for d in ("read", "write") if j["jobs"][0][d]["total_ios"]))'
[ "$(json_get fio.json "$sum")" = "$(json_get lb.json "$sum")" ] ||
  fail "total I/Os: fio $(json_get fio.json "$sum"), luabench $(json_get lb.json "$sum")"
[ "$(json_get fio.json "$bs")" = "$(json_get lb.json "$bs")" ] ||
  fail "block sizes: fio $(json_get fio.json "$bs"), luabench $(json_get lb.json "$bs")"

pass
