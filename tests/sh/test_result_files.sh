#!/usr/bin/env bash
# Description: result and log files (--output, write_bw_log, lb.write_atomic
# behind report.write) never replace a file luabench did not create, nor
# write through a symbolic link: the user's bytes stay, the run says so;
# luabench's own earlier results are replaced, and --allow-overwrite
# permits replacing a user's file.  Under --readonly an explicitly named
# result file is still written (fio's meaning) and no data file is made.
. "$(dirname "$0")/lib.sh"
d=$(lb_tmpdir)
cd "$d" || fail "cd $d"
head -c 100 /dev/urandom > out.json
cp out.json x_bw.1.log
head -c 100 /dev/urandom > precious
sum=$(sha256sum < out.json) psum=$(sha256sum < precious)
expect_exit 1 "refusing to replace out.json: not created by luabench" \
  "$LUABENCH" fio --name=x --ioengine=null --size=1m --output=out.json --output-format=json
[ "$(sha256sum < out.json)" = "$sum" ] || fail "--output replaced a user's file"
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "the refusal is not one line: $(cat "$LB_ERR")"
expect_exit 1 "refusing to replace x_bw.1.log: not created by luabench" \
  "$LUABENCH" fio --name=x --ioengine=null --size=1m --write_bw_log=x --log_avg_msec=100
[ "$(sha256sum < x_bw.1.log)" = "$sum" ] || fail "write_bw_log truncated a user's file"
# the same for a log of one line per I/O (no log_avg_msec), and through a link
expect_exit 1 "refusing to replace x_bw.1.log: not created by luabench" \
  "$LUABENCH" fio --name=x --ioengine=null --size=1m --write_bw_log=x
[ "$(sha256sum < x_bw.1.log)" = "$sum" ] || fail "a per-I/O write_bw_log truncated a user's file"
ln -s precious y_bw.1.log
expect_exit 1 "refusing to replace y_bw.1.log" \
  "$LUABENCH" fio --name=y --ioengine=null --size=1m --write_bw_log=y
[ "$(sha256sum < precious)" = "$psum" ] || fail "a per-I/O log was written through a link"
rm y_bw.1.log
ln -s precious link.json
expect_exit 1 "refusing to replace link.json" \
  "$LUABENCH" fio --name=x --ioengine=null --size=1m --output=link.json
[ "$(sha256sum < precious)" = "$psum" ] || fail "--output wrote through a symbolic link"
[ -L link.json ] || fail "the link was replaced"
printf 'local ok, msg, e = lb.write_atomic("precious", "x")\nassert(not ok and e == "EPERM", tostring(msg))\n' > wa.lua
expect_exit 0 "" "$LUABENCH" wa.lua
[ "$(sha256sum < precious)" = "$psum" ] || fail "lb.write_atomic replaced a user's file"
# a character device or a FIFO holds no data to lose: written into, as fio does
expect_exit 0 "" "$LUABENCH" fio --name=x --ioengine=null --size=1m --output=/dev/null \
  --output-format=json
[ -c /dev/null ] || fail "--output=/dev/null replaced the device"
mkfifo pipe.json
cat pipe.json > from_pipe.json &
reader=$!
expect_exit 0 "" "$LUABENCH" fio --name=p --ioengine=null --size=1m --output=pipe.json \
  --output-format=json
wait "$reader"
[ -p pipe.json ] || fail "--output replaced the FIFO"
grep -q '"jobname" : "p"' from_pipe.json || fail "the FIFO's reader got no result: $(head -c 200 from_pipe.json)"
rm pipe.json from_pipe.json
# ours: written, then replaced by the next run
rm -f out.json x_bw.1.log
for i in 1 2; do
  expect_exit 0 "" "$LUABENCH" fio --name=x --ioengine=null --size=1m --output=out.json \
    --output-format=json --write_bw_log=x --log_avg_msec=100
  expect_exit 0 "" "$LUABENCH" fio --name=z --ioengine=null --size=64k --write_bw_log=z
done
[ "$(wc -l < z_bw.1.log)" -eq 16 ] || fail "z_bw.1.log: one line per I/O, 16 of them: $(wc -l < z_bw.1.log)"
rm z_bw.1.log
grep -q '"jobname"' out.json || fail "out.json holds no result"
[ -s x_bw.1.log ] || fail "x_bw.1.log is empty"
# allowed
expect_exit 0 "" "$LUABENCH" fio --allow-overwrite --name=x --ioengine=null --size=1m --output=link.json
[ "$(sha256sum < precious)" = "$psum" ] || fail "--allow-overwrite wrote through the link"
[ -f link.json ] && [ ! -L link.json ] || fail "--allow-overwrite did not replace the link by the result"
# readonly: the named result is written, no data file is created
expect_exit 0 "" "$LUABENCH" fio --readonly --name=r --rw=read --bs=100 --filename=precious --output=ro.json
[ -s ro.json ] || fail "--readonly: the named result was not written"
[ "$(ls -A | sort | tr '\n' ' ')" = "link.json out.json precious ro.json wa.lua x_bw.1.log " ] ||
  fail "unexpected files: $(ls -A | tr '\n' ' ')"
pass
