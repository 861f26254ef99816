-- Running loaded fio jobs through lb.run, group by group.
--
-- Jobs of one run group (see fio.parse.groups) start together in one
-- lb.run{jobs = {...}}; the next group starts when it has finished, which
-- is what fio's stonewall and wait_for ask for.  fio-only options become
-- Lua: ss/ss_dur/ss_ramp a stop rule from luabench.stop, exec_prerun and
-- exec_postrun shell commands, write_*_log files written afterwards from
-- result.intervals (fio.logs).  Results come back one per job, tagged with
-- jobname, groupid and the job itself; reporting is fio.output's business.

local P = require "luabench.fio.parse"

local R = {}

-- "30s", "5m", "500ms", "10" (seconds by default) -> seconds.
function R.seconds(v, what)
  local ok, s = pcall(require("luabench.stop").seconds, v)
  if not ok then error("bad time '" .. tostring(v) .. "' for '" .. what .. "'", 0) end
  return s
end

local function where(job)
  return {file = job._file, line = job._line, section = job._section}
end

-- fio's ss=iops:10% / bw_slope:1% -> arguments of stop.steady; an
-- absolute limit (ss=iops:10, bw_slope:12: IOPS, bytes/s, per second for
-- a slope) sets absolute.  What fio's --debug=parse says of the limit is
-- in a.parsed.
function R.steady_args(job)
  local crit, limit = job.ss:lower():match("^%s*([%a_]+)%s*:%s*([%d%.]+%%?)%s*$")
  local metric = crit and crit:gsub("_slope$", "")
  if metric ~= "iops" and metric ~= "bw" then
    P.fail(where(job), "bad value '" .. job.ss .. "' for 'ss' (iops, iops_slope, bw or bw_slope, ':' and a limit)")
  end
  local slope = crit:find("_slope$") ~= nil
  local a = {metric = metric}
  if not limit:find("%%$") then
    local n = tonumber(limit)
    a.parsed = metric == "iops" and string.format("set steady state IOPS threshold to %f", n)
               or string.format("set steady state BW threshold to %d", math.floor(n))
    a.absolute = true
    if slope then a.slope = n else a.deviation = n end
  else
    local frac = tonumber(limit:sub(1, -2)) / 100
    a.parsed = string.format("set steady state threshold to %f%%", frac * 100)
    if slope then a.slope = frac else a.deviation = frac end
  end
  if job.ss_dur then a.window = R.seconds(job.ss_dur, "ss_dur") end
  if job.ss_ramp then a.ramp = R.seconds(job.ss_ramp, "ss_ramp") end
  return a
end

-- The stop rule of one job, or nil.  fio: ss_dur=0 (the default) disables it.
function R.stop_rule(job)
  if not job.ss or job.ss == "" then return nil end
  local a = R.steady_args(job)
  if not a.window or a.window <= 0 then
    P.note(P.where_str(where(job)) .. "'ss' without 'ss_dur': steady-state detection is off, as in fio")
    return nil
  end
  return require("luabench.stop").steady(a)
end

local LOGS = {"write_bw_log", "write_iops_log", "write_lat_log", "write_hist_log"}

function R.wants_logs(job)
  for _, k in ipairs(LOGS) do if job[k] then return true end end
  return false
end

-- The interval the run samples at: the finest log window asked for.
local function log_interval(job)
  local ms
  for _, k in ipairs{"log_avg_msec", "log_hist_msec"} do
    local v = tonumber(job[k])
    if v and v > 0 and (not ms or v < ms) then ms = v end
  end
  return ms
end

-- The lb.run spec of one job: every option the core knows, as strings.
function R.spec(job, tab)
  local s = {}
  for k, v in pairs(job) do
    if type(k) == "string" and k:sub(1, 1) ~= "_"
       and (tab and tab.canon[k] or not tab and not P.HANDLED[k]) then
      s[k] = v
    end
  end
  if R.wants_logs(job) and not job.interval then
    local ms = log_interval(job)
    if ms then s.interval = ms .. "ms" end
  end
  if job.read_iolog and job.read_iolog ~= "" then require("luabench.fio.iolog").apply(job, s) end
  return s
end

-- A stop function for a run group: the first rule that fires.
local function group_stop(rules)
  if #rules == 0 then return nil end
  if #rules == 1 then return rules[1] end
  return function(iv)
    for _, r in ipairs(rules) do
      local why = r(iv)
      if why then return why end
    end
  end
end

local function sh_quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- fio runs these through system(3), output into jobname.prerun.txt.
local function exec_hook(job, key, suffix)
  local cmd = job[key]
  if not cmd or cmd == "" then return end
  local out = job.name .. "." .. suffix .. ".txt"
  local ok, how, code = os.execute("(" .. cmd .. ") >" .. sh_quote(out) .. " 2>&1")
  if not ok then
    P.note(P.where_str(where(job)) .. key .. " '" .. cmd .. "' failed (" .. how .. " " ..
           tostring(code) .. "), see " .. out)
  end
end

-- Splits jobs into run groups, in order.
function R.split(jobs)
  local groups, last = {}, nil
  local need = false
  for _, j in ipairs(jobs) do if j._group == nil then need = true end end
  if need then P.groups(jobs) end
  for _, j in ipairs(jobs) do
    if j._group ~= last then groups[#groups + 1] = {}; last = j._group end
    table.insert(groups[#groups], j)
  end
  return groups
end

-- The group's spec: one job as is, several as {jobs = {...}}; thread:
-- fio's thread number of the group's first clone (log file names).
function R.group_spec(group, tab, thread)
  local specs, rules, io_log = {}, {}, {}
  local logs = require "luabench.fio.logs"
  thread = thread or 1
  for i, job in ipairs(group) do
    specs[i] = R.spec(job, tab)
    rules[#rules + 1] = R.stop_rule(job)
    for _, e in ipairs(logs.io_logs(job, i, thread)) do io_log[#io_log + 1] = e end
    thread = thread + (tonumber(job.numjobs) or 1)
  end
  if #rules > 0 and #group > 1 then
    P.note("[" .. group[1]._section .. "] steady-state rules of a group judge the whole group")
  end
  local spec = #specs == 1 and specs[1] or {jobs = specs}
  spec.stop = group_stop(rules)
  if #io_log > 0 then spec._io_log = io_log end
  return spec, thread
end

-- Refuses a job the core would refuse, before anything runs, with the
-- file, line and section of the option at fault (lb.check's message).
function R.check(job, tab)
  local spec = R.spec(job, tab)
  local ok, err = pcall(lb.check, spec)
  if ok then return end
  err = tostring(err):gsub("^[^\n]-%.lua:%d+: ", "")
  local at
  for k, v in pairs(spec) do
    local ok1, err1 = pcall(lb.check, {[k] = v})
    if not ok1 and tostring(err1):gsub("^[^\n]-%.lua:%d+: ", "") == err then at = job._at and job._at[k] end
  end
  local file, line = (at or ""):match("^(.*):(%d+)$")
  P.fail({file = file or job._file, line = tonumber(line) or job._line, section = job._section}, err)
end

-- Checks every job (fio's stop-the-run-before-anything-starts).
function R.check_all(jobs, tab)
  for _, job in ipairs(jobs) do
    if job.ss and job.ss ~= "" then R.steady_args(job) end
    if lb.check then R.check(job, tab) end
  end
end

-- Tags one job's result; clones of jobs without group_reporting are the
-- consecutive entries of run.clones.
local function per_job(run, group, tab)
  local out, c = {}, 1
  for i, job in ipairs(group) do
    local r = #group == 1 and run or run.jobs[i]
    r.jobname, r.groupid, r._job, r._run = job.name, job._groupid or 0, job, run
    r._jobindex = #group > 1 and i or nil       -- its counts in the run's intervals
    r._spec = R.spec(job, tab)
    r.options = r._spec
    if not P.truthy(job.group_reporting) and type(run.clones) == "table" then
      local n = tonumber(job.numjobs) or 1
      r._clones = table.move(run.clones, c, c + n - 1, 1, {})
      c = c + n
    end
    out[i] = r
  end
  return out
end

-- What fio's status line says of a group: jobs, letters, expected length.
local function eta_of(group)
  local n, letters, total_s, total_bytes = 0, {}, 0, 0
  local stop = require "luabench.stop"
  local prep = require "luabench.prep"
  for _, job in ipairs(group) do
    local nj = tonumber(job.numjobs) or 1
    n = n + nj
    letters[#letters + 1] = string.format("%s(%d)", require("luabench.progress").letter(
                                          tostring(job.rw or "read"):match("^[a-z]+")),
                                          nj)
    local ok, rt = pcall(stop.seconds, job.runtime or 0)
    local ok2, ramp = pcall(stop.seconds, job.ramp_time or 0)
    local t = (ok and rt or 0) + (ok2 and ramp or 0)
    if t > 0 then total_s = math.max(total_s, t) end
    local okb, b = pcall(prep.bytes, job.io_size or job.size or 0)
    if okb then total_bytes = total_bytes + b * nj end
  end
  return {jobs = n, letters = table.concat(letters, ""), total_s = total_s > 0 and total_s or nil,
          total_bytes = total_bytes}
end

-- Runs the jobs; returns the list of per-job results (see fio.output).
-- opts: tab (option table), checked (R.check_all done already),
-- on_result = function(result) after each job, eta (progress.fio_eta's
-- line, or nil).
function R.run(jobs, opts)
  opts = opts or {}
  local tab = opts.tab or P.option_table()
  local groups = R.split(jobs)
  local specs, thread = {}, 1
  for g, group in ipairs(groups) do specs[g], thread = R.group_spec(group, tab, thread) end
  if not opts.checked then R.check_all(jobs, tab) end
  local results = {global_options = jobs.global_options, global_order = jobs.global_order}
  local logs = require "luabench.fio.logs"
  local ended                           -- exitall with exit_what=all ended a group
  for g, group in ipairs(groups) do
    specs[g]._stopped = ended
    for _, job in ipairs(group) do exec_hook(job, "exec_prerun", "prerun") end
    if opts.eta then specs[g].stop = opts.eta:wrap(specs[g].stop, eta_of(group)) end
    local progress = require "luabench.progress"
    progress.busy = progress.busy + 1           -- its own line, or none as asked
    local ok, run = pcall(lb.run, specs[g])
    progress.busy = progress.busy - 1
    if opts.eta then opts.eta:finish() end
    if not ok then error((tostring(run):gsub("^[^\n]-%.lua:%d+: ", "")), 0) end
    for _, job in ipairs(group) do exec_hook(job, "exec_postrun", "postrun") end
    if run.stopped_by == "exitall (exit_what=all)" then ended = run.stopped_by end
    for _, r in ipairs(per_job(run, group, tab)) do
      results[#results + 1] = r
      if R.wants_logs(r._job) then logs.write(r, #results, #group > 1) end
      if opts.on_result then opts.on_result(r) end
    end
  end
  return results
end

return R
