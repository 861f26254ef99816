#!/usr/bin/env bash
# Description: on a FUSE mount (bindfs, mounted and unmounted here) an
# async engine does the read inside submission, so slat holds the latency
# and clat is near nothing.  The report's table and a sweep's knee follow
# total latency (lat = slat + clat) unless latency=clat is asked for, the
# table says which one it shows, and the report says in one line that slat
# is most of lat.
# lb-test: serial
. "$(dirname "$0")/lib.sh"
[ -e /dev/fuse ] || skip "no /dev/fuse"
command -v bindfs >/dev/null || skip "no bindfs"
command -v fusermount >/dev/null || skip "no fusermount"
tmp=$(mktemp -d /var/tmp/lbfuse.XXXXXX) || fail "mktemp"   # on the disk, not tmpfs
mkdir -p "$tmp/src" "$tmp/mnt"
bindfs "$tmp/src" "$tmp/mnt" 2>"$tmp/err" || skip "bindfs cannot mount here: $(cat "$tmp/err")"
trap 'fusermount -u "$tmp/mnt" 2>/dev/null; rm -rf "$tmp"; cleanup_tmps' EXIT
cat >"$tmp/t.lua" <<'LUA'
local report = require "luabench.report"
local metric = require "luabench.metric"
local file = arg[1]
local r = lb.run{name = "f", ioengine = "libaio", iodepth = 1, filename = file, size = "4m",
                 bs = "256k", rw = "randread", direct = true, loops = 2}
local d = r.read
local v = metric.values(r)
print(string.format("slat %.0f clat %.0f lat %.0f", d.slat_ns.mean, d.clat_ns.mean, d.lat_ns.mean))
assert(v.latency == "lat", "values say " .. tostring(v.latency))
assert(v.p99 == d.lat_hist:percentile(99), "p99 is not lat's")
assert(v.clat_p99 == d.clat_hist:percentile(99), "clat_p99 is not clat's")
print(report.text({r}))
print(report.text({r}, {latency = "clat"}))
-- the knee between two points whose lat grew 3x and clat did not
local function pt(n, res) return {params = {numjobs = n}, label = "numjobs=" .. n, values = res} end
local a, b = pt(1, metric.values(r)), pt(2, metric.values(r))
b.values.p99, b.values.bw = a.values.p99 * 3, a.values.bw * 1.3
local sweep = require "luabench.sweep"
print("lat knee: " .. tostring(sweep.knee{}({}, {point = b, series = {a, b}, axis = "numjobs"})))
print("clat knee: " .. tostring(sweep.knee{latency = "clat_p99"}({}, {point = b, series = {a, b},
                                 axis = "numjobs"})))
LUA
out=$("$LUABENCH" --quiet "$tmp/t.lua" "$tmp/mnt/data" 2>"$tmp/err") || fail "run on FUSE: $(cat "$tmp/err")"
echo "$out"
read -r _ slat _ clat _ lat <<<"$(grep '^slat ' <<<"$out")"
[ "$slat" -gt "$clat" ] || skip "slat ($slat ns) not above clat ($clat ns) on this FUSE mount"
contains "$out" "lat p99" "lat columns"
contains "$out" "clat p99" "clat columns with latency=clat"
contains "$out" "note: slat is" "the slat note"
contains "$out" "lat knee: knee: numjobs 1 -> 2 grew lat p99" "knee on lat"
contains "$out" "clat knee: false" "no knee on clat"
[ -f "$tmp/src/data" ] || fail "the data file is not under the bindfs source"
pass
