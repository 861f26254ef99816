-- Description: a script loads a fio job file, changes an option and runs
-- it again (a sweep): fio.run runs group by group and returns one result
-- per job with fio's jobname and groupid; fio's log files appear where
-- write_bw_log / write_hist_log point.  Exit 77 without a working null
-- engine.

local fio = require "luabench.fio"

local null_ok = false
for _, e in ipairs(lb.engines()) do
  if e.name == "null" and e.supported then null_ok = true end
end
if not null_ok then
  io.stderr:write("SKIP: no null engine\n")
  os.exit(77)
end

local T = dofile("tests/lua/lib.lua")
local check, eq = T.check, T.eq

-- duplicate.fio: two jobs named "same" (read, then write), 1 MiB each, null engine
local jobs = fio.load("tests/fio/duplicate.fio")
local results = fio.run(jobs)
eq(#results, 2, "one result per job")
eq(results[1].jobname, "same", "jobname"); eq(results[2].groupid, 0, "groupid")
eq(results[1].read.total_ios, 256, "4k reads of 1 MiB"); eq(results[2].write.total_ios, 256, "4k writes of 1 MiB")

for _, j in ipairs(jobs) do j.bs = "64k" end
results = fio.run(jobs)
eq(results[1].read.total_ios, 16, "sweep: bs=64k after load")

-- groups.fio: six jobs in four run groups, three reporting groups
local g = fio.run(fio.load("tests/fio/groups.fio"))
eq(#g, 6, "six results")
local ids = {}
for i, r in ipairs(g) do ids[i] = r.groupid end
eq(table.concat(ids, ","), "0,0,1,2,2,3", "reporting groups")
local doc = lb.json_decode(fio.json(g))
eq(#doc.jobs, 6, "six JSON jobs without group_reporting")

-- logs
local dir, _ <close> = T.tmpdir("fio_run")
local prefix = dir .. "/lb_fio_run"
local lj = fio.load("tests/fio/duplicate.fio")
lj[1].write_bw_log, lj[1].log_avg_msec = prefix, "100"
lj[1].write_hist_log, lj[1].log_hist_msec = prefix, "100"
-- 256 I/Os of a set 1ms (a sleep) last 256ms or more: two intervals at least,
-- however loaded the machine
lj[1].null_lat = "1ms"
table.remove(lj, 2)
local lr = fio.run(lj)
check(#lr[1]._run.intervals >= 2, "intervals of 100 ms: " .. #lr[1]._run.intervals)
for _, kind in ipairs{"bw", "clat_hist"} do
  local path = prefix .. "_" .. kind .. ".1.log"
  local f = io.open(path)
  check(f ~= nil, "log file " .. path)
  if f then
    local first = f:read("l") or ""
    f:close()
    os.remove(path)
    local cols = select(2, first:gsub(",", "")) + 1
    eq(cols, kind == "bw" and 5 or 1859, kind .. " log columns")
  end
end
