#!/usr/bin/env bash
# Description: luabench.script's params, which every script under scripts/
# can use: key=value parameters with defaults and types (array or keyed
# spec), help=1 prints them and exits 0, an unknown name, a bad value or a
# bare argument prints one line and exits 2; script.engine refuses an
# unknown engine; script.main turns a runtime failure into one line, exit 1;
# the scripts refuse out= in a missing directory (script.check_out).
. "$(dirname "$0")/lib.sh"
tmp=$(lb_tmpdir)
cat > "$tmp/p.lua" <<'LUA'
local script = require "luabench.script"
local P, given = script.params({
  {"count", type = "int", min = 1, default = 4, help = "how many"},
  {"list", type = "ints", default = "1,2,4", help = "numbers"},
  {"mode", default = "a", choices = {"a", "b"}, help = "a mode"},
  {"on", type = "bool", default = false, help = "a switch"},
  {"size", type = "size", default = "16m", help = "a size"},
  {"wait", type = "time", default = "1s", help = "a time"},
  zeta = {default = "z", help = "keyed, listed after the array ones"},
  alpha = {type = "number", help = "keyed too"},
}, {about = "A test script."})
if P.mode == "b" then script.engine(args.engine or "nosuch") end
if P.on and P.count == 99 then
  return script.main(function() error("disk on fire") end)
end
print(string.format("count=%d list=%s mode=%s on=%s size=%s wait=%s zeta=%s alpha=%s given=%s",
                    P.count, table.concat(P.list, "+"), P.mode, tostring(P.on), P.size, P.wait,
                    P.zeta, tostring(P.alpha), tostring(given.count)))
LUA
out=$("$LUABENCH" --quiet "$tmp/p.lua") || fail "defaults"
[ "$out" = "count=4 list=1+2+4 mode=a on=false size=16m wait=1s zeta=z alpha=nil given=nil" ] ||
  fail "defaults: $out"
out=$("$LUABENCH" --quiet "$tmp/p.lua" count=7 list=8,16 mode=a on=yes size=1G wait=500ms zeta=q alpha=0.5) ||
  fail "given"
[ "$out" = "count=7 list=8+16 mode=a on=true size=1G wait=500ms zeta=q alpha=0.5 given=true" ] ||
  fail "given: $out"
out=$("$LUABENCH" --quiet "$tmp/p.lua" help=1) || fail "help=1 exit"
contains "$out" "A test script." "help about"
contains "$out" "count  how many [4]" "help line with default"
contains "$out" "mode   a mode (a|b) [a]" "help line with choices"
[ "$(grep -n 'zeta' <<<"$out" | cut -d: -f1)" -gt "$(grep -n 'alpha' <<<"$out" | cut -d: -f1)" ] ||
  fail "keyed entries in name order"
[ "$(grep -n 'alpha' <<<"$out" | cut -d: -f1)" -gt "$(grep -n 'wait' <<<"$out" | cut -d: -f1)" ] ||
  fail "keyed entries after the array ones"
expect_exit 2 "p.lua: unknown parameter 'cnt' (known: count, list, mode, on, size, wait, alpha, zeta, help)" \
  "$LUABENCH" --quiet "$tmp/p.lua" cnt=3
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for an unknown parameter"
expect_exit 2 "parameter 'count' must be at least 1, not 0" "$LUABENCH" --quiet "$tmp/p.lua" count=0
expect_exit 2 "parameter 'list' must be an integer, not 'x'" "$LUABENCH" --quiet "$tmp/p.lua" list=1,x
expect_exit 2 "parameter 'mode' must be one of a, b, not 'c'" "$LUABENCH" --quiet "$tmp/p.lua" mode=c
expect_exit 2 "parameter 'on' must be 0 or 1" "$LUABENCH" --quiet "$tmp/p.lua" on=maybe
expect_exit 2 "parameter 'size' must be a size" "$LUABENCH" --quiet "$tmp/p.lua" size=big
expect_exit 2 "parameter 'wait' must be a duration" "$LUABENCH" --quiet "$tmp/p.lua" wait=soon
expect_exit 2 "unexpected argument 'oops' (parameters are key=value" "$LUABENCH" --quiet "$tmp/p.lua" oops
expect_exit 2 "unknown engine 'nosuch'" "$LUABENCH" --quiet "$tmp/p.lua" mode=b
expect_exit 1 "p.lua: disk on fire" "$LUABENCH" --quiet "$tmp/p.lua" on=1 count=99
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "one line for a runtime failure: $(cat "$LB_ERR")"
# script.check_out: out= naming a missing directory is refused before any run
for s in cern scaleout single_node; do
  expect_exit 2 "$s.lua: out: directory $tmp/none does not exist" \
    "$LUABENCH" --quiet "$LB_SRC/scripts/$s.lua" out="$tmp/none/r"
done
pass
