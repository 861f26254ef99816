#!/usr/bin/env bash
# Description: write_iolog and read_iolog as fio's: write_iolog records, as
# fio 3.33 writes it (version 3 text, appended), every I/O a job issued with
# its file, direction, offset and length; read_iolog replays a version 2 or 3
# log: the same I/Os, in the same order, on the files the log names.
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get, quiet_run

# ios LOG: "direction offset length" of each I/O line of an iolog (v2 or v3)
ios() { awk 'NR > 1 { if ($1 ~ /^[0-9]+$/) $1 = ""; $0 = $0; if (NF == 4) print $2, $3, $4 }' "$1"; }

# --- write_iolog: fio's t0007 job, smaller: read:512k skips, no I/O crosses the end ---
quiet_run w --name=s --filename="$d/a.dat" --rw=read:512k --bs=1m --size=8m --write_iolog=l1
[ "$(head -1 l1)" = "fio version 3 iolog" ] || fail "write_iolog header: $(head -1 l1)"
[ "$(sed -n 2p l1 | cut -d' ' -f2-)" = "$d/a.dat add" ] || fail "add line: $(sed -n 2p l1)"
[ "$(sed -n 3p l1 | cut -d' ' -f2-)" = "$d/a.dat open" ] || fail "open line: $(sed -n 3p l1)"
[ "$(tail -1 l1 | cut -d' ' -f2-)" = "$d/a.dat close" ] || fail "close line: $(tail -1 l1)"
want="read 0 1048576
read 1572864 1048576
read 3145728 1048576
read 4718592 1048576
read 6291456 1048576"
[ "$(ios l1)" = "$want" ] || fail "logged I/Os: $(ios l1)"
[ "$(json_get w.json 'j["jobs"][0]["read"]["io_kbytes"]')" = 5120 ] || fail "read KiB of read:512k"
awk 'NR > 1 && $1 !~ /^[0-9]+$/ { exit 1 }' l1 || fail "a line without its usec time: $(cat l1)"
awk 'NR > 1 { if ($1 + 0 < t) exit 1; t = $1 + 0 }' l1 || fail "times go backwards: $(cat l1)"
# fio appends to an existing log: a second run adds a second log after the first
quiet_run w2 --name=s --filename="$d/a.dat" --rw=read:512k --bs=1m --size=8m --write_iolog=l1
[ "$(grep -c '^fio version 3 iolog$' l1)" = 2 ] || fail "second run did not append: $(cat l1)"

# --- a random job's log, replayed: the same I/Os in the same order -------------------
quiet_run rw --name=r --filename="$d/b.dat" --rw=randrw --size=256k \
  --io_size=600k --bs=4k --write_iolog=l2
[ "$(ios l2 | wc -l)" = 150 ] || fail "randrw log: $(ios l2 | wc -l) I/Os, expected 150"
quiet_run rp --name=p --read_iolog=l2 --write_bw_log=rp --log_offset=1
python3 - l2 rp_bw.1.log rp.json <<'PY' || fail "replay of a randrw log"
import json, sys
log = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
want = [(0 if l[2] == "read" else 1, int(l[3]), int(l[4])) for l in log if len(l) == 5]
got = [tuple(int(x) for x in (l.split(",")[2], l.split(",")[4], l.split(",")[3]))
       for l in open(sys.argv[2])]
assert got == want, (got[:5], want[:5])
j = json.load(open(sys.argv[3]))["jobs"][0]
for d, name in ((0, "read"), (1, "write")):
    assert j[name]["io_bytes"] == sum(w[2] for w in want if w[0] == d), name
PY

# --- a version 2 log written by hand: files, directions, offsets, lengths ------------
cat > v2.log <<L
fio version 2 iolog
$d/c.dat add
$d/c.dat open
$d/c.dat write 8192 4096
$d/c.dat write 0 4096
$d/c.dat read 8192 4096
$d/c.dat wait 10 0
$d/c.dat write 65536 16384
$d/c.dat read 0 4096
$d/c.dat close
L
quiet_run v2 --name=v --read_iolog=v2.log --write_bw_log=v2 --log_offset=1 --iodepth=1
[ "$(cut -d, -f3-5 v2_bw.1.log | tr -d ' ')" = "1,4096,8192
1,4096,0
0,4096,8192
1,16384,65536
0,4096,0" ] || fail "v2 replay order: $(cat v2_bw.1.log)"
[ "$(stat -c %s c.dat)" = 81920 ] || fail "replayed file size $(stat -c %s c.dat), expected 81920"

# --- bad input: one line, exit 2 --------------------------------------------------------
echo garbage > g.log
expect_exit 2 "read_iolog: g.log is not a fio iolog of version 2 or 3" "$LUABENCH" fio --name=r --read_iolog=g.log
expect_exit 2 "read_iolog: cannot open nosuch.log" "$LUABENCH" fio --name=r --read_iolog=nosuch.log
printf 'fio version 2 iolog\nx add\nx read 0\n' > short.log
expect_exit 2 "read_iolog: short.log:3: expected" "$LUABENCH" fio --name=r --read_iolog=short.log
[ "$(wc -l < "$LB_ERR")" = 1 ] || fail "more than one line: $(cat "$LB_ERR")"
pass
