#!/usr/bin/env bash
# Description: `luabench fio` behaves like fio's command line for a fio
# user: JSON with the right counts, single-dash options, several --name
# jobs, --showcmd, one-line errors with exit 2, and output that fio's own
# tools read (fio_jsonplus_clat2csv, fiologparser_hist.py).
. "$(dirname "$0")/fio_lib.sh"   # skips, scratch directory $d (current), json_get

# --- JSON, exactly JSON, with fio's counts ----------------------------------
"$LUABENCH" fio --name=a --ioengine=null --rw=randread --bs=4k --size=1m \
  --output-format=json >a.json 2>a.err || fail "json run: $(cat a.err)"
[ "$(json_get a.json 'j["jobs"][0]["read"]["total_ios"]')" = 256 ] || fail "total_ios: $(head -c 300 a.json)"
[ "$(json_get a.json 'j["jobs"][0]["jobname"]')" = a ] || fail "jobname"

# --- single dashes ---------------------------------------------------------
"$LUABENCH" fio -name=s -ioengine=null -rw=write -bs=8k -size=1m -output-format=json >s.json 2>s.err ||
  fail "single-dash run: $(cat s.err)"
[ "$(json_get s.json 'j["jobs"][0]["write"]["total_ios"]')" = 128 ] || fail "single-dash total_ios"

# --- several --name jobs, global options first ------------------------------
"$LUABENCH" fio --ioengine=null --size=1m --name=r --rw=read --name=w --rw=write --bs=64k \
  --output-format=json --output=two.json 2>two.err || fail "two jobs: $(cat two.err)"
[ "$(json_get two.json 'len(j["jobs"])')" = 2 ] || fail "two jobs in the report"
[ "$(json_get two.json '(j["jobs"][0]["read"]["total_ios"], j["jobs"][1]["write"]["total_ios"])')" = "(256, 16)" ] ||
  fail "two jobs' counts: $(json_get two.json '[(x["read"]["total_ios"], x["write"]["total_ios"]) for x in j["jobs"]]')"
[ ! -e two.json.tmp ] || fail "--output left its temporary file"

# --- normal and terse ---------------------------------------------------------
out=$("$LUABENCH" fio --name=n --ioengine=null --rw=read --size=1m 2>&1) || fail "normal run: $out"
contains "$out" "n: (groupid=0, jobs=1): err= 0" "normal header"
contains "$out" "  read: IOPS=" "normal IOPS line"
contains "$out" "Run status group 0 (all jobs):" "normal run status"
t=$("$LUABENCH" fio --name=t --ioengine=null --rw=read --size=1m --minimal) || fail "terse run"
[ "$(echo "$t" | awk -F';' '{print NF}')" = 121 ] || fail "terse fields: $t"

# --- job files: --section, exec_prerun/exec_postrun, overrides ------------------
printf '[global]\nioengine=null\nsize=1m\n\n[one]\nrw=read\nexec_prerun=echo before >pre.mark\nexec_postrun=echo after\n\n[two]\nrw=write\n' >hooks.fio
"$LUABENCH" --fio hooks.fio --section=one --bs=64k --output-format=json --output=hooks.json 2>hooks.err ||
  fail "hooks.fio: $(cat hooks.err)"
[ "$(json_get hooks.json 'len(j["jobs"])')" = 1 ] || fail "--section=one ran more than [one]"
[ "$(json_get hooks.json 'j["jobs"][0]["read"]["total_ios"]')" = 16 ] || fail "--bs=64k did not override"
[ -s pre.mark ] || fail "exec_prerun did not run"
grep -q after one.postrun.txt || fail "exec_postrun output is not in one.postrun.txt"

# --- --cmdhelp: an option's help by its name or alias, every option without one -----
h=$("$LUABENCH" fio --cmdhelp=blocksize) || fail "--cmdhelp=blocksize failed"
contains "$h" "                  bs: block size" "--cmdhelp names the option as fio does"
contains "$h" "               alias: blocksize" "--cmdhelp gives the alias"
h=$("$LUABENCH" fio --cmdhelp=rw) || fail "--cmdhelp=rw failed"
contains "$h" "        valid values: read, write, trim, rw, randread" "--cmdhelp lists an enum's values"
all=$("$LUABENCH" fio --cmdhelp) || fail "--cmdhelp failed"
for o in bs bsrange percentage_random offset_align stonewall thread; do
  grep -q "^$o  *: " <<<"$all" || fail "--cmdhelp lists no '$o'"
done
[ "$("$LUABENCH" fio --cmdhelp=all)" = "$all" ] || fail "--cmdhelp=all is not --cmdhelp"
expect_exit 2 "No such command: bsrnge: luabench has no job option of that name (did you mean 'bsrange'?)" \
  "$LUABENCH" fio --cmdhelp=bsrnge
[ "$(wc -l < "$LB_ERR")" -eq 1 ] || fail "--cmdhelp of an unknown name: one line"

# --- --showcmd runs nothing and prints fio's command line of each job file, as fio 3.33 -----
printf '[global]\nfilename=%s/never\nthread\nbs=4k\nioengine=null\nsize=1m\ndescription=two jobs\n\n[a]\nrw=read\ntime_based\nruntime=1\n[b]\nbs=16k\nsteadystate=iops:10%%\nrw=randread\n' "$d" > sc.fio
sc=$("$LUABENCH" fio --showcmd --iodepth=2 sc.fio) || fail "--showcmd failed"
want="fio --iodepth=2 --thread --bs=4k --ioengine=null --size=1m --description=\"two jobs\" --filename=$d/never --name=a --rw=read --time_based --runtime=1 --name=b --bs=16k --steadystate=iops:10% --rw=randread "
[ "$sc" = "$want" ] || fail "--showcmd: got '$sc', expected '$want'"
if command -v fio >/dev/null; then
  [ "$(fio --showcmd --iodepth=2 sc.fio)" = "$sc" ] || fail "--showcmd differs from fio's: $(fio --showcmd --iodepth=2 sc.fio)"
fi
[ "$("$LUABENCH" fio --showcmd sc.fio sc.fio | wc -l)" = 2 ] || fail "--showcmd: one line per job file"
[ -z "$("$LUABENCH" fio --showcmd --name=c --ioengine=null)" ] || fail "--showcmd of command-line jobs prints nothing, as fio"
[ ! -e "$d/never" ] || fail "--showcmd ran the job"
# fio's options that luabench refuses to run still print: --showcmd only parses
printf '[global]\nbs=4k\n[off]\nio_submit_mode=offload\nrw=read\nexec_prerun=true\n' >off.fio
sc=$("$LUABENCH" fio --showcmd off.fio 2>sc.err) || fail "--showcmd of io_submit_mode=offload: $(cat sc.err)"
want="fio --bs=4k --name=off --io_submit_mode=offload --rw=read --exec_prerun=true "
[ "$sc" = "$want" ] || fail "--showcmd of offload: got '$sc', expected '$want'"
[ ! -s sc.err ] || fail "--showcmd of offload wrote on stderr: $(cat sc.err)"
if command -v fio >/dev/null; then
  [ "$(fio --showcmd off.fio)" = "$sc" ] || fail "--showcmd of offload differs from fio's: $(fio --showcmd off.fio)"
fi
expect_exit 2 "unsupported option 'io_submit_mode=offload'" "$LUABENCH" fio off.fio

# --- bad input: one line, exit 2 -------------------------------------------
expect_exit 2 "unknown option '--blocksze'" "$LUABENCH" fio --name=b --ioengine=null --blocksze=4k
[ "$(wc -l <"$LB_ERR")" -eq 1 ] || fail "bad option: more than one line: $(cat "$LB_ERR")"
printf '[global]\nioengine=null\n\n[myjob]\nrw=read\nblocksze=4k\n' >bad.fio
expect_exit 2 "bad.fio:6: [myjob] unsupported option 'blocksze'" "$LUABENCH" --fio bad.fio
[ "$(wc -l <"$LB_ERR")" -eq 1 ] || fail "bad job file: more than one line: $(cat "$LB_ERR")"
expect_exit 2 "unknown output format 'xml'" "$LUABENCH" fio --name=x --output-format=xml
printf '[j]\nrw=read\nbs 4k\n' >syntax.fio
expect_exit 2 "syntax.fio:3:" "$LUABENCH" fio syntax.fio
printf '[global]\nioengine=null\nsize=1m\n[first]\n[second]\nstonewall\nrw=read:-8k\n' >value.fio
expect_exit 2 "value.fio:7: [second] bad value 'read:-8k'" "$LUABENCH" fio value.fio --output-format=json
out=$("$LUABENCH" fio value.fio --output-format=json 2>/dev/null) && fail "value.fio ran"
[ -z "$out" ] || fail "value.fio: the first group ran before the second was refused: $out"
expect_exit 2 "bad value 'lat:1%' for 'ss'" "$LUABENCH" fio --name=s --ioengine=null --size=1m --ss=lat:1% --ss_dur=1
expect_exit 2 "bad arithmetic expression" "$LUABENCH" fio --name=m --ioengine=null --size='(1+)'
expect_exit 2 "only terse version 3" "$LUABENCH" fio --name=v --ioengine=null --terse-version=2
expect_exit 2 "no job given" "$LUABENCH" fio --output-format=json

# --- json+ through fio's own tool ------------------------------------------
if command -v fio_jsonplus_clat2csv >/dev/null; then
  "$LUABENCH" fio --name=p --ioengine=null --rw=randrw --bs=4k --size=1m --output-format=json+ \
    --output=plus.json 2>plus.err || fail "json+ run: $(cat plus.err)"
  fio_jsonplus_clat2csv plus.json plus.csv >/dev/null 2>clat.err || fail "fio_jsonplus_clat2csv: $(cat clat.err)"
  fio_jsonplus_clat2csv plus.json plus.csv --validate >/dev/null 2>clat.err ||
    fail "fio_jsonplus_clat2csv --validate: $(cat clat.err)"
  [ "$(wc -l <plus_job0.csv)" -gt 1 ] || fail "fio_jsonplus_clat2csv wrote no rows"
else
  echo "note: fio_jsonplus_clat2csv missing: json+ not checked with it"
fi

# --- a histogram log through fiologparser_hist.py -----------------------------
parser=/usr/bin/fiologparser_hist.py
if [ ! -e "$parser" ] && [ -e /usr/share/doc/fio/fiologparser_hist.py.gz ]; then
  zcat /usr/share/doc/fio/fiologparser_hist.py.gz >"$d/fiologparser_hist.py"
  parser=$d/fiologparser_hist.py
fi
py=
for p in python3 /usr/bin/python3; do
  if "$p" -c 'import pandas, numpy' 2>/dev/null; then py=$p; break; fi
done
if [ -e "$parser" ] && [ -n "$py" ]; then
  "$LUABENCH" fio --name=h --ioengine=null --rw=randread --bs=4k --size=1g --time_based --runtime=300ms \
    --write_hist_log=h --log_hist_msec=100 --write_bw_log=h --log_avg_msec=100 \
    --output-format=json --output=h.json 2>h.err || fail "hist log run: $(cat h.err)"
  [ -s h_clat_hist.1.log ] || fail "no h_clat_hist.1.log: $(ls)"
  [ -s h_bw.1.log ] || fail "no h_bw.1.log"
  [ "$(head -1 h_bw.1.log | awk -F', ' '{print NF}')" = 5 ] || fail "bw log columns: $(head -1 h_bw.1.log)"
  "$py" "$parser" h_clat_hist.1.log >hist.out 2>hist.err || fail "fiologparser_hist.py: $(cat hist.err)"
  [ "$(wc -l <hist.out)" -gt 1 ] || fail "fiologparser_hist.py printed no interval: $(cat hist.out hist.err)"
else
  echo "note: fiologparser_hist.py or python3-pandas missing: hist log not checked with it"
fi

# --- bad input goes through the one usage-error channel: one line, exit 2, also when
# a script calls the front end (the script stops there, as for any bad input)
printf 'require("luabench.fio").main{"--bogus"}\nprint("went on")\n' > fm.lua
out=$("$LUABENCH" fm.lua 2>fm.err) && fail "fio.main with bad input: exit 0"
[ $? -eq 2 ] || fail "fio.main with bad input: exit status, expected 2: $(cat fm.err)"
[ -z "$out" ] || fail "the script went on after bad input: $out"
[ "$(cat fm.err)" = "luabench fio: unknown option '--bogus'" ] || fail "fio.main bad input line: $(cat fm.err)"
expect_exit 2 "" "$LUABENCH" fio --bogus
[ "$(cat "$LB_ERR")" = "luabench fio: unknown option '--bogus'" ] || fail "luabench fio --bogus: $(cat "$LB_ERR")"
expect_exit 2 "" "$LUABENCH" fio "--name=$(printf 'a\033b')" --bs=zz
[ "$(wc -l < "$LB_ERR")" = 1 ] && ! grep -q "$(printf '\033')" "$LB_ERR" || fail "control byte not escaped: $(cat -v "$LB_ERR")"

pass
