-- Description: fio job files and fio's command line become the jobs a fio
-- user expects: fio's ten example files, includes, ${VAR}, comments,
-- duplicate sections, groups, and errors that name file, line and section.
-- Runs under luabench, or under plain lua5.4 (LUA_PATH='stdlib/?.lua;stdlib/?/init.lua') where
-- the checks that need the core's option table are left out.

local fio = require "luabench.fio"
local P = require "luabench.fio.parse"
local R = require "luabench.fio.run"

local have_lb = rawget(_G, "lb") ~= nil and lb.options ~= nil
local T = dofile("tests/lua/lib.lua")
local check, eq = T.check, T.eq

-- fn must raise an error whose message contains every needle.
local function raises(fn, needles, what)
  local ok, err = pcall(fn)
  check(not ok, what .. ": no error")
  if ok then return end
  err = tostring(err)
  check(not err:find("\n"), what .. ": message is not one line: " .. err)
  for _, n in ipairs(needles) do
    check(err:find(n, 1, true) ~= nil, what .. ": '" .. n .. "' not in: " .. err)
  end
end

local T = "tests/fio/"
local function load(name, opts) return fio.load(T .. name, opts) end

-- fio's examples ----------------------------------------------------------

local EXAMPLES = os.getenv("LB_FIO_EXAMPLES") or "../shared/fio-examples"
local expected = {
  ["backwards-read.fio"] = {jobs = 1, rw = "read:-8k"},
  ["fio-rand-RW.fio"] = {jobs = 1, rw = "randrw", name = "file1"},
  ["fio-rand-read.fio"] = {jobs = 1, rw = "randread"},
  ["iometer-file-access-server.fio"] = {jobs = 1, rw = "randrw"},
  ["null.fio"] = {jobs = 1, rw = "randread"},
  ["poisson-rate-submission.fio"] = {refused = "unsupported option 'io_submit_mode=offload'"},
  ["steadystate.fio"] = {jobs = 2, groups = 2},
  ["tiobench-example.fio"] = {jobs = 4, groups = 4},
  ["waitfor.fio"] = {jobs = 4, groups = 4},
  ["zipf.fio"] = {jobs = 1, rw = "randread"},
}
local f = io.open(EXAMPLES .. "/null.fio")
if f then
  f:close()
  for file, want in pairs(expected) do
    local path = EXAMPLES .. "/" .. file
    if want.refused then
      raises(function() fio.load(path) end, {file .. ":", want.refused}, file)
    else
      local ok, jobs = pcall(fio.load, path)
      check(ok, file .. ": " .. tostring(jobs))
      if ok then
        eq(#jobs, want.jobs, file .. " jobs")
        if want.rw then eq(jobs[1].rw, want.rw, file .. " rw") end
        if want.name then eq(jobs[1].name, want.name, file .. " name") end
        if want.groups then eq(jobs[#jobs]._group + 1, want.groups, file .. " groups") end
      end
    end
  end
  local tio = fio.load(EXAMPLES .. "/tiobench-example.fio")
  eq(tio[1].numjobs, "4", "tiobench: trailing comment after a tab is dropped")
  local ss = fio.load(EXAMPLES .. "/steadystate.fio")
  local a = R.steady_args(ss[1])
  eq(a.metric, "iops", "ss=iops:10% metric"); eq(a.deviation, 0.10, "ss=iops:10% deviation")
  eq(a.window, 30, "ss_dur=30s"); eq(a.ramp, 10, "ss_ramp=10s")
  local b = R.steady_args(ss[2])
  eq(b.metric, "bw", "ss=bw_slope:1% metric"); eq(b.slope, 0.01, "ss=bw_slope:1% slope")
  eq(ss[1].group_reporting, "1", "bare group_reporting in [global]")
  local wf = fio.load(EXAMPLES .. "/waitfor.fio")
  eq(wf[2]._group, 1, "wait_for starts a new run group")
  eq(wf[2]._groupid, 1, "new_group starts a reporting group")
  if have_lb then
    local rw = fio.load(EXAMPLES .. "/fio-rand-RW.fio")
    eq(rw[1].rwmixread, "60", "rwmixread kept")
  end
else
  io.stderr:write("note: ", EXAMPLES, " is absent: fio's examples not checked (fetch fio's ",
                  "source and set LB_FIO_EXAMPLES to its examples/ directory)\n")
end

-- includes ----------------------------------------------------------------

local inc = load("include.fio")
eq(#inc, 1, "include: jobs")
eq(inc[1].ioengine, "null", "include into [global]")
eq(inc[1].size, "2m", "nested include relative to the included file")
eq(inc[1].bs, "8k", "include into a job section")
eq(inc.global_options.ioengine, "null", "included options are global options")
raises(function() load("include_cycle.fio") end, {"cycle_b.inc:1:", "include cycle"}, "include cycle")
raises(function() load("include_section.fio") end, {"has_section.inc:2:", "may not contain sections"},
       "section in an include file")

-- environment and keywords --------------------------------------------------

local env = {LB_FIO_TEST_SIZE = "3m", LB_FIO_TEST_NAME = "lbx", LB_FIO_TEST_BS = "16"}
local ej = load("env.fio", {env = function(k) return env[k] end})
eq(ej[1].size, "3m", "${VAR} in [global]")
eq(ej[1].filename, "/tmp/lbx.dat", "${VAR} inside a value")
eq(ej[1].bs, "16k", "${VAR} followed by a unit")
check(tonumber(ej[1].numjobs) and tonumber(ej[1].numjobs) >= 1, "$ncpus: " .. tostring(ej[1].numjobs))
eq(ej[1].iodepth, "9", "(2*4+1)")
raises(function() load("env_unset.fio", {env = function() return nil end}) end,
       {"env_unset.fio:3:", "[env]", "LB_FIO_TEST_NEVER_SET"}, "unset variable")

-- units, comments, bare flags, CRLF, duplicates ------------------------------

local u = load("units.fio")[1]
for k, v in pairs{bs = "4K", size = "10G", io_size = "1Gi", runtime = "5m", ramp_time = "30s",
                  rate = "10m,5m", rate_iops = "500", offset = "0x1000", bssplit = "4k/50:64k/50"} do
  eq(u[k], v, "units: " .. k .. " passes through")
end
local c = load("comments.fio")
eq(#c, 1, "comments: one job")
eq(c[1].rw, "randread", "spaces around '=' and a trailing ';' comment")
eq(c[1].bs, "16k", "tabs around '=' and a trailing '#' comment")
eq(c[1].filename, "/tmp/with#hash;semi", "'#' and ';' inside a value stay")
eq(c[1].time_based, "1", "bare flag")
eq(c[1].size, "1m", "surrounding spaces")
eq(c[1]._line, 4, "section line")
local cr = load("crlf.fio")[1]
eq(cr.rw, "write", "CRLF line ends"); eq(cr.bs, "4k", "CRLF line ends (bs)")
local dup = load("duplicate.fio")
eq(#dup, 2, "a repeated section is a second job")
eq(dup[1].name, "same", "dup name 1"); eq(dup[2].name, "same", "dup name 2")
eq(dup[1].rw, "read", "dup 1 rw"); eq(dup[2].rw, "write", "dup 2 rw")
eq(dup[2].size, "1m", "dup 2 gets [global]")

-- malformed files ----------------------------------------------------------

raises(function() load("bad_section.fio") end, {"bad_section.fio:4:", "section header"}, "bad header")
raises(function() load("bad_line.fio") end, {"bad_line.fio:3:", "[job]", "malformed line"}, "bad line")
raises(function() load("outside.fio") end, {"outside.fio:2:", "outside any section"}, "option outside")
raises(function() load("wait_unknown.fio") end, {"wait_unknown.fio:1:", "[first]", "later"},
       "wait_for an unknown job")
raises(function() load("nonexistent.fio") end, {"nonexistent.fio"}, "missing file")

-- groups --------------------------------------------------------------------

local g = load("groups.fio")
local runs, reports = {}, {}
for i, j in ipairs(g) do runs[i], reports[i] = j._group, j._groupid end
eq(table.concat(runs, ","), "0,0,1,1,2,3", "run groups (stonewall, wait_for, wait_for_previous)")
eq(table.concat(reports, ","), "0,0,1,2,2,3", "reporting groups (stonewall, new_group)")
eq(#R.split(g), 4, "split into four runs")
eq(#load("groups.fio", {sections = {a = true, c = true}}), 2, "section selection")

-- options fio.lua handles itself ---------------------------------------------

local fo = load("fio_only.fio")[1]
local s = R.steady_args(fo)
eq(s.metric, "iops", "iops_slope metric"); eq(s.slope, 0.005, "iops_slope:0.5%")
eq(s.window, 60, "ss_dur=1m"); eq(s.ramp, 0.5, "ss_ramp=500ms")
eq(fo.write_hist_log, "", "bare write_hist_log: the default name")
raises(function() R.steady_args({ss = "lat:5%", _file = "x.fio", _line = 3, _section = "j"}) end,
       {"x.fio:3:", "[j]", "bad value 'lat:5%'"}, "bad ss criterion")
local ab = R.steady_args({ss = "iops:100", ss_dur = "5s"})
eq(ab.absolute, true, "ss=iops:100 is absolute"); eq(ab.deviation, 100, "ss=iops:100: 100 IOPS")
ab = R.steady_args({ss = "bw_slope:12"})
eq(ab.slope, 12, "bw_slope:12: 12 bytes/s per second")
raises(function() R.steady_args({ss = "iops:many", _file = "x.fio", _line = 3, _section = "j"}) end,
       {"bad value 'iops:many'"}, "ss limit not a number")
eq(R.seconds("250ms", "t"), 0.25, "250ms"); eq(R.seconds("2h", "t"), 7200, "2h")
eq(P.expand("$ncpus*2", {}) ~= "$ncpus*2", true, "$ncpus arithmetic")

if have_lb then
  -- the core's option table: names, aliases, fio-only names
  eq(fo.runtime, "30", "timeout is runtime")
  check(fo.rwmixwrite == "30" or fo.rwmixread == "70", "rwmixwrite=30 reaches the core")
  local spec = R.spec(fo, P.option_table())
  eq(spec.ss, nil, "ss stays out of the lb.run spec")
  eq(spec.write_bw_log, nil, "logs stay out of the lb.run spec")
  eq(spec.gtod_reduce, nil, "internals stay out of the lb.run spec")
  eq(spec.interval, "250ms", "log_avg_msec sets the sampling interval")
  eq(spec.ioengine, "null", "core options reach the spec")
  raises(function() load("unsupported.fio") end,
         {"unsupported.fio:7:", "[myjob]", "unsupported option 'blocksze'", "blocksize"}, "unsupported option")
  raises(function() load("unsupported_global.fio") end,
         {"unsupported_global.fio:3:", "[global]", "'fancy_option'"}, "unsupported option in [global]")
  eq(load("kb_base.fio")[1].kb_base, "1000", "kb_base passes through to the core")

  -- fio's command line
  local cfg = fio.cli({"--rw=read", "-bs=8k", "--name=a", "--ioengine=null", "-name=b", "--rw=write",
                      "--output-format=json,terse", "--output", "/dev/null"})
  local jobs = fio.cli_jobs(cfg)
  eq(#jobs, 2, "cli: two --name jobs")
  eq(jobs[1].rw, "read", "cli: global before --name"); eq(jobs[1].bs, "8k", "cli: single dash")
  eq(jobs[1].ioengine, "null", "cli: job option"); eq(jobs[2].ioengine, nil, "cli: job options stay in their job")
  eq(jobs[2].rw, "write", "cli: job overrides global")
  eq(table.concat(cfg.formats, ","), "json,terse", "cli: formats"); eq(cfg.output, "/dev/null", "cli: --output FILE")
  local fcfg = fio.cli({"--fio", T .. "duplicate.fio", "--size=4k", "--section=same"})
  local fjobs = fio.cli_jobs(fcfg)
  eq(fjobs[1].size, "1m", "cli: the file's [global] size wins over --size (fio)"); eq(#fjobs, 2, "cli: --section keeps both 'same'")
  eq(fjobs[1].rw, "read", "cli: the file's own rw")
  local dcfg = fio.cli({"--bs=8k", T .. "duplicate.fio", "--rw=randread", "--runtime=1"})
  local djobs = fio.cli_jobs(dcfg)
  eq(djobs[1].bs, "8k", "cli: an option the files leave unset applies (before the file)")
  eq(djobs[1].runtime, "1", "cli: an option the files leave unset applies (after the file)")
  eq(djobs[1].rw, "read", "cli: the section's rw wins over --rw after the file (fio)")
  local ocfg = fio.cli({T .. "duplicate.fio", "--override=size=4k", "--override", "rw=trim"})
  local ojobs = fio.cli_jobs(ocfg)
  eq(ojobs[1].size, "4k", "cli: --override=size wins over the file"); eq(ojobs[2].rw, "trim", "cli: --override rw")
  raises(function() fio.cli({"--override=blocksze=4k"}) end, {"unknown option 'blocksze' in '--override'"},
         "cli: --override of an unknown option")
  raises(function() fio.cli({"--override=bs"}) end, {"--override needs NAME=VALUE"}, "cli: --override without a value")
  raises(function() fio.cli({"--name=a", "--no-such-option"}) end, {"unknown option '--no-such-option'"},
         "cli: unknown option")
  raises(function() fio.cli({"--output-format=xml"}) end, {"'xml'"}, "cli: unknown format")
  local sc = fio.showcmd(fio.cli_jobs(fio.cli({T .. "duplicate.fio", "--bs=8k"})))
  eq(sc, "fio --bs=8k --ioengine=null --size=1m --name=same --rw=read --name=same --rw=write \n",
     "showcmd: fio's command line of the file")
else
  io.stderr:write("note: no lb binding: option-table checks left out\n")
end
