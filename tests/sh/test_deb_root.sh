#!/bin/bash
# Description: the Debian package cpack makes installs with apt-get (dpkg
# where there is no apt) into a root without luabench, and works there: a
# script run from a directory of its own uses the packaged library, a
# ready script (single_node.lua) writes its out= files, `man luabench` and
# `man 7 luabench-lua` render, and removing the package leaves no luabench.
# The root is this host's root file system alone (no other mounts, so no
# build tree, no /usr/local of a cmake --install) under an overlay in a
# private mount namespace, with any installed luabench removed from it:
# every write lands in the overlay's upper directory, which goes at the
# end.  No network is needed: the package's dependencies are the host's.
# Skipped (77) without root, unshare, overlayfs, cpack or dpkg.
# lb-test: serial (cpack may relink build/luabench while other tests run it)
. "$(dirname "$0")/lib.sh"
: "${LB_BUILD:?LB_BUILD must name the build directory}"
[ "$(id -u)" -eq 0 ] || skip "a clean root needs root (mount namespace, overlay, chroot)"
for c in unshare chroot cpack dpkg-deb; do command -v $c >/dev/null || skip "$c not installed"; done
[ -f "$LB_BUILD/CPackConfig.cmake" ] || skip "no CPackConfig.cmake in $LB_BUILD"
tmp=$(lb_tmpdir)
(cd "$tmp" && cpack --config "$LB_BUILD/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1) ||
  fail "cpack: $(tail -5 "$tmp/cpack.log")"
deb=$(ls "$tmp"/pkg/luabench_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no luabench_*.deb"
mkdir "$tmp/root" "$tmp/up" "$tmp/work"

# Inside the namespace: the overlay, checked to be one before anything is
# written under it, then the install and the checks in the chroot.
cat > "$tmp/inner.sh" <<'EOF2'
set -u
t=$1 deb=$2 r=$1/root
mount -t overlay overlay -o "lowerdir=/,upperdir=$t/up,workdir=$t/work" "$r" 2>"$t/mount.err" ||
  { echo "SKIP: no overlay mount over /: $(cat "$t/mount.err")"; exit 77; }
awk -v r="$r" '$2 == r && $3 == "overlay" { ok = 1 } END { exit !ok }' /proc/self/mounts ||
  { echo "FAIL: $r is not the overlay"; exit 1; }
mount -t proc proc "$r/proc" && mount --rbind /dev "$r/dev" && mount -t tmpfs tmpfs "$r/tmp" ||
  { echo "FAIL: mounts in the root"; exit 1; }
rm -rf "$r/usr/local/bin/luabench" "$r/usr/local/bin/luabench-fio" "$r/usr/local/share/luabench"
cp "$t/checks.sh" "$deb" "$r/tmp/" || exit 1
exec chroot "$r" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  bash /tmp/checks.sh "/tmp/$(basename "$deb")"
EOF2
cat > "$tmp/checks.sh" <<'EOF2'
set -u
deb=$1
fail() { echo "FAIL: $*"; exit 1; }
if dpkg -s luabench >/dev/null 2>&1; then dpkg --purge luabench >/dev/null 2>&1 || fail "purging the old luabench"; fi
command -v luabench >/dev/null && fail "a luabench is left in the root: $(command -v luabench)"
if command -v apt-get >/dev/null; then
  out=$(DEBIAN_FRONTEND=noninteractive apt-get install -y "$deb" 2>&1) || fail "apt-get install: $(echo "$out" | tail -5)"
else
  out=$(dpkg -i "$deb" 2>&1) || fail "dpkg -i: $(echo "$out" | tail -5)"
fi
[ "$(command -v luabench)" = /usr/bin/luabench ] || fail "no /usr/bin/luabench after the install"
mkdir -p /tmp/elsewhere/deeper && cd /tmp/elsewhere/deeper || fail "cd"
cat > s.lua <<'EOF3'
local report = require "luabench.report"
local r = lb.run{ioengine = "null", size = "1m", bs = "4k"}
lb.report(r)
print("stdlib " .. lb.stdlib)
print("svg " .. #report.histogram(r))
EOF3
out=$(luabench --quiet s.lua 2>&1) || fail "script run: $out"
case "$out" in *"read: IOPS="*) ;; *) fail "no summary: $out" ;; esac
case "$out" in *"stdlib /usr/"*"/share/luabench/stdlib"*) ;; *) fail "not the packaged library: $out" ;; esac
case "$out" in *"svg "[1-9]*) ;; *) fail "report.histogram: $out" ;; esac
out=$(luabench --quiet /usr/share/luabench/scripts/single_node.lua size=1m runtime=0.2s numjobs=1 bs=4k \
      rw=randread cache=none out=/tmp/elsewhere/sn 2>&1) || fail "single_node.lua: $out"
for f in sn.json sn.md sn.csv sn.svg sn.html; do [ -s "/tmp/elsewhere/$f" ] || fail "no $f: $out"; done
# The pages are there unless dpkg is told to leave /usr/share/man out (as in
# container images); they are rendered where man is installed.
if ! grep -qs "^path-exclude=/usr/share/man" /etc/dpkg/dpkg.cfg.d/*; then
  for p in /usr/share/man/man1/luabench.1 /usr/share/man/man7/luabench-lua.7; do
    [ -s "$p" ] || fail "no $p after the install"
  done
  if command -v man >/dev/null; then
    page=$(MANWIDTH=80 man luabench 2>&1) || fail "man luabench: $(echo "$page" | head -5)"
    case "$page" in *"LUABENCH(1)"*"SYNOPSIS"*) ;; *) fail "man luabench: $(echo "$page" | head -5)" ;; esac
    page=$(MANWIDTH=80 man 7 luabench-lua 2>&1) || fail "man 7 luabench-lua: $(echo "$page" | head -5)"
    case "$page" in *"LUABENCH-LUA(7)"*"lb.run(spec)"*) ;; *) fail "man 7 luabench-lua: $(echo "$page" | head -5)" ;; esac
    for p in /usr/share/man/man1/luabench.1 /usr/share/man/man7/luabench-lua.7; do
      page=$(MANWIDTH=80 man -l "$p" 2>&1) || fail "man -l $p: $(echo "$page" | head -5)"
      [ "$(echo "$page" | wc -l)" -gt 20 ] || fail "man -l $p: $(echo "$page" | head -5)"
    done
  else
    echo "note: man is not installed here: the pages were not rendered"
  fi
fi
dpkg -r luabench >/dev/null 2>&1 || fail "dpkg -r luabench"
[ ! -e /usr/bin/luabench ] && [ ! -e /usr/share/luabench/stdlib/luabench/report/init.lua ] ||
  fail "files left after dpkg -r"
echo "in-root checks passed"
EOF2
rc=0
out=$(unshare -m --propagation private bash "$tmp/inner.sh" "$tmp" "$deb" 2>&1) || rc=$?
[ "$rc" -eq 77 ] && skip "$(echo "$out" | grep '^SKIP' | sed 's/^SKIP: //')"
[ "$rc" -eq 0 ] || fail "in the clean root (exit $rc): $out"
contains "$out" "in-root checks passed" "the checks in the root"
grep -q " $tmp/root " /proc/self/mounts && fail "the overlay is still mounted outside the namespace"
pass
