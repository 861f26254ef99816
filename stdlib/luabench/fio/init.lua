-- luabench.fio: fio job files, fio's command line and fio's reports.
--
--   local fio = require "luabench.fio"
--   local jobs = fio.load("test.fio")        -- parse and check, run nothing
--   jobs[1].bs = "64k"                        -- sweep an option...
--   local results = fio.run(jobs)             -- run group by group
--   io.write(fio.json(results))               -- fio's JSON (fio.normal, fio.terse)
--
-- fio.main(argv) is `luabench --fio FILE...` and `luabench fio [options]`.
-- The work is split: fio.parse (job files, option names), fio.run (lb.run
-- per group, stop rules, hooks), fio.logs (log files), fio.output (JSON,
-- terse), fio.text (normal output).  Nothing here touches `lb` at load.

local P = require "luabench.fio.parse"
local R = require "luabench.fio.run"
local O = require "luabench.fio.output"
local T = require "luabench.fio.text"

local M = {}

M.load = P.load
M.groups = P.groups
M.run = R.run
M.entries = O.entries
M.normal = T.normal
M.terse = O.terse

-- fio's JSON; opts.plus (or opts.format == "json+") adds latency bins.
function M.json(results, opts)
  opts = opts or {}
  return O.json(results, {plus = opts.plus or opts.format == "json+"})
end

------------------------------------------------------------------------
-- --showcmd: fio's command line of each job file, as fio 3.33 prints it:
-- "fio", the file's [global] options (after the command line's, for the
-- first file), then per section --name=SECTION and the section's own
-- options, in the order written ("--flag" for a bare flag), one line per
-- file.  Jobs of the command line alone print nothing, as in fio.

-- fio's names where luabench's canonical one is fio's alias; fio parses
-- (and prints) a section's options by priority, the order written within one.
local FIO_NAME = {ss = "steadystate", ss_dur = "steadystate_duration",
                  ss_ramp = "steadystate_ramp_time"}
local PRIO = {lockfile = 1, cpus_allowed_policy = 1, kb_base = 1, unit_base = 1,
              filename = -1, filename_format = -1}

local function by_prio(keys)
  local idx = {}
  for i, k in ipairs(keys) do idx[k] = i end
  local out = table.move(keys, 1, #keys, 1, {})
  table.sort(out, function(a, b)
    local pa, pb = PRIO[a] or 0, PRIO[b] or 0
    if pa ~= pb then return pa > pb end
    return idx[a] < idx[b]
  end)
  return out
end

local function fio_arg(k, v, bare)
  local name = FIO_NAME[k] or k
  if bare then return "--" .. name end
  if k == "description" then v = '"' .. v .. '"' end
  return "--" .. name .. "=" .. tostring(v)
end

function M.showcmd(jobs)
  local out, files, first = {}, {}, true
  for _, j in ipairs(jobs) do
    if j._fileno then
      local f = files[#files]
      if not f or f.n ~= j._fileno then
        f = {n = j._fileno, jobs = {}}
        files[#files + 1] = f
      end
      f.jobs[#f.jobs + 1] = j
    end
  end
  for _, f in ipairs(files) do
    local g = jobs.file_globals[f.n]
    local j1 = f.jobs[1]               -- inherited the [global] flags as written
    local function global_arg(k)
      return fio_arg(k, g.options[k], not P.owns(j1, k) and j1["_bare_" .. k])
    end
    local parts = {"fio"}
    if first and #g.order > 0 then
      for _, k in ipairs(jobs.cli_order or {}) do
        parts[#parts + 1] = fio_arg(k, jobs.cli_global[k], jobs.cli_global["_bare_" .. k])
      end
    end
    first = false
    for _, k in ipairs(by_prio(g.order)) do parts[#parts + 1] = global_arg(k) end
    for _, j in ipairs(f.jobs) do
      parts[#parts + 1] = "--name=" .. j._section
      for _, k in ipairs(by_prio(j._own)) do
        if k ~= "name" then parts[#parts + 1] = fio_arg(k, j[k], j["_bare_" .. k]) end
      end
    end
    out[#out + 1] = table.concat(parts, " ") .. " \n"
  end
  return table.concat(out)
end

------------------------------------------------------------------------
-- The command line

local USAGE = [[
usage: luabench fio [options] [JOBFILE...]
       luabench-fio [options] [JOBFILE...]
       luabench --fio JOBFILE... [options]

fio's command line, run by luabench.  Job options are fio's
(--name=NAME starts a job; options before the first --name are global:
defaults that the job files' own values override, as in fio).
Single or double dashes: -rw=read and --rw=read are the same.

  --override=NAME=VALUE     a job option that wins over the job files'
                            values (luabench's own; repeatable)

  --output=FILE             write the report to FILE (atomically)
  --output-format=LIST      normal, json, json+, terse; comma-separated
  --minimal                 the same as --output-format=terse
  --append-terse            terse after the chosen format
  --section=NAME            run only this section of the job files (repeatable)
  --showcmd                 print each job file as fio's command line, run nothing
  --parse-only              check the jobs, run nothing
  --readonly                open no file for writing
  --allow-overwrite         allow writing into files luabench did not create
  --group_reporting         report each group as a whole
  --inflate-log=FILE        write the log FILE (log_store_compressed=1) inflated
  --verbose                 luabench's own notes on stderr (ignored options...)
  --cmdhelp[=NAME]          what job option NAME is (all of them without NAME)
  --version, --help
  --eta=WHEN                fio's status line on stdout: auto (when it is a
                            terminal and the output is normal), always, never
  --eta-newline=TIME        a new status line every TIME instead of redrawing it
Accepted and ignored (they tune fio itself): --max-jobs=N, --debug=LIST,
--eta-interval, --latency-log, --bandwidth-log,
--terse-version=3.
]]

local FORMATS = {normal = true, json = true, ["json+"] = true, terse = true}
local NOTED = {["eta-interval"] = true,
               ["latency-log"] = true, ["bandwidth-log"] = true}
local TAKES_VALUE = {output = true, ["output-format"] = true, section = true,
                     ["terse-version"] = true, eta = true, ["eta-interval"] = true,
                     ["eta-newline"] = true, ["max-jobs"] = true, ["inflate-log"] = true,
                     override = true}
local ETA = {auto = true, always = true, never = true}

local function usage_error(msg) error("luabench fio: " .. msg, 0) end

-- A flag's value: "--readonly" is true, "--readonly=0" false (every
-- boolean reads as the core reads it: lb.parse_bool).
local function flag_value(key, val)
  if val == nil then return true end
  local lbt = rawget(_G, "lb")
  local b
  if lbt and lbt.parse_bool then b = lbt.parse_bool(val)
  else b = ({["1"] = true, ["0"] = false})[val] end
  if b == nil then
    usage_error("bad value '" .. val .. "' for '--" .. key ..
                "': not a boolean (use 1/0, true/false, yes/no, on/off)")
  end
  return b
end

-- --cmdhelp: fio's help of one job option (its name or alias: help, alias,
-- type, valid values) or, without one or with "all", a line for each; an
-- unknown name is bad input, fio's "No such command" with a suggestion.
local function cmdhelp(name)
  local lbt = rawget(_G, "lb")
  local list, ignored = {}, {}
  if lbt and lbt.options then list, ignored = lbt.options() end
  local front, seen = {}, {}
  for _, o in ipairs(list) do seen[o.name] = true end
  for _, n in ipairs(ignored or {}) do
    if not seen[n] then
      seen[n] = true
      front[#front + 1] = {name = n, help = "accepted and ignored: it tunes fio itself"}
    end
  end
  for n in pairs(P.HANDLED) do
    if not seen[n] then
      seen[n] = true
      front[#front + 1] = {name = n, help = "handled by luabench's fio front end"}
    end
  end
  table.sort(front, function(a, b) return a.name < b.name end)
  local all = {}
  for _, o in ipairs(list) do all[#all + 1] = o end
  for _, o in ipairs(front) do all[#all + 1] = o end
  if name == nil or name == "" or name == "all" then
    local out = {}
    for _, o in ipairs(all) do out[#out + 1] = string.format("%-24s: %s\n", o.name, o.help) end
    return table.concat(out)
  end
  for _, o in ipairs(all) do
    local hit = o.name == name
    for a in (o.alias or ""):gmatch("[^,|%s]+") do hit = hit or a == name end
    if hit then
      local out = {string.format("%20s: %s\n", o.name, o.help)}
      if o.alias and o.alias ~= "" then out[#out + 1] = string.format("%20s: %s\n", "alias", o.alias) end
      if o.type then out[#out + 1] = string.format("%20s: %s\n", "type", o.type) end
      if o.values then
        out[#out + 1] = string.format("%20s: %s\n", "valid values", (o.values:gsub("|", ", ")))
      end
      return table.concat(out)
    end
  end
  local tab = P.option_table()
  local sug = P.suggest(tab, name)
  usage_error("No such command: " .. name .. ": luabench has no job option of that name" ..
              (sug and (" (did you mean '" .. sug .. "'?)") or ""))
end

local function cli_option(cfg, key, val, argv, i)
  local k = key:gsub("_", "-")
  if TAKES_VALUE[k] and val == nil then
    i = i + 1
    val = argv[i]
    if val == nil then usage_error("option '--" .. key .. "' needs a value") end
  end
  if k == "output" then cfg.output = val
  elseif k == "output-format" then
    cfg.formats = {}
    for f in val:gmatch("[^,]+") do
      if not FORMATS[f] then usage_error("unknown output format '" .. f .. "' (normal, json, json+, terse)") end
      cfg.formats[#cfg.formats + 1] = f
    end
  elseif k == "minimal" then cfg.formats = {"terse"}
  elseif k == "append-terse" then cfg.append_terse = true
  elseif k == "terse-version" then
    if val ~= "3" then usage_error("only terse version 3 is written") end
  elseif k == "eta" then
    if not ETA[val] then usage_error("--eta must be auto, always or never, not '" .. val .. "'") end
    cfg.eta = val
  elseif k == "eta-newline" then
    local ok, secs = pcall(require("luabench.stop").seconds, val)
    if not ok or secs <= 0 then usage_error("--eta-newline needs a time like 1s, not '" .. val .. "'") end
    cfg.eta_newline = secs
  elseif k == "section" then
    cfg.sections = cfg.sections or {}
    for s in val:gmatch("[^,]+") do cfg.sections[s] = true end
  elseif k == "override" then
    -- luabench's own: a job option that wins over the job files' values
    local okey, oval = val:match("^%-*([^=]+)=(.*)$")
    if not okey then usage_error("--override needs NAME=VALUE, not '" .. val .. "'") end
    if not P.resolve(cfg.ctx.tab, okey) then
      local s = P.suggest(cfg.ctx.tab, okey)
      usage_error("unknown option '" .. okey .. "' in '--override'" ..
                  (s and (" (did you mean '" .. s .. "'?)") or ""))
    end
    local canon = P.set(cfg.ctx, cfg.override, okey, P.expand(oval, {file = "command line"}),
                        {file = "command line", section = "override"})
    cfg.override_order[#cfg.override_order + 1] = canon
  elseif k == "showcmd" then cfg.showcmd = true
  elseif k == "parse-only" then cfg.parse_only = true
  elseif k == "readonly" then cfg.readonly = flag_value(key, val)
  elseif k == "allow-overwrite" then cfg.allow_overwrite = flag_value(key, val)
  elseif k == "max-jobs" then
    local n = tonumber(val)
    if not n or n < 1 or n ~= math.floor(n) then
      usage_error("bad value '" .. val .. "' for '--max-jobs' (a positive count)")
    end
    P.note("'--max-jobs' sizes fio's own tables: ignored")
  elseif k == "debug" then
    -- fio's debug masks trace fio's internals; of "parse" luabench keeps
    -- what it makes of a value (the steady-state limit), on stdout as fio
    for m in (val or ""):gmatch("[^,]+") do
      if m == "parse" or m == "all" then cfg.debug_parse = true end
    end
    P.note("'--debug" .. (val and ("=" .. val) or "") .. "' traces fio's internals: ignored" ..
           (cfg.debug_parse and " (but for the values parsed)" or ""))
  elseif k == "verbose" then cfg.verbose = true
  elseif k == "inflate-log" then cfg.inflate_log = val; cfg.exit = 0
  elseif k == "cmdhelp" then cfg.exit = 0; io.write(cmdhelp(val))
  elseif k == "version" then cfg.exit = 0; io.write(O.version(), "\n")
  elseif k == "help" or k == "h" then cfg.exit = 0; io.write(USAGE)
  elseif NOTED[k] then P.note("'--" .. key .. "' is accepted and ignored")
  else return nil end
  return i
end

local function new_cli_job(cfg, name)
  local job = {}
  for k, v in pairs(cfg.global) do job[k] = v end
  job.name, job._section, job._file, job._own = name, name, "command line", {"name"}   -- fio lists it
  cfg.jobs[#cfg.jobs + 1] = job
  return job
end

local function job_option(cfg, key, val)
  local w = {file = "command line", section = cfg.cur and cfg.cur._section or "global"}
  if val then val = P.expand(val, w) end
  if key == "name" and val ~= "global" then
    cfg.cur = new_cli_job(cfg, val or "")
    return
  elseif key == "name" then cfg.cur = nil; return end
  local target = cfg.cur or cfg.global
  local canon = P.set(cfg.ctx, target, key, val, w)
  if not cfg.cur then cfg.order[#cfg.order + 1] = canon end
end

-- argv -> cfg {files, jobs, global, order, formats, output, ...}.
function M.cli(argv, tab)
  local cfg = {files = {}, jobs = {}, global = {}, order = {}, formats = {"normal"},
               override = {}, override_order = {}, ctx = {tab = tab or P.option_table()}}
  local i = 1
  if argv[1] == "--fio" or argv[1] == "fio" then i = 2 end
  while i <= #argv do
    local a = argv[i]
    local body = a:match("^%-%-?(.+)$")
    if a == "-" or a == "--" or not body then
      cfg.files[#cfg.files + 1] = a
    else
      local key, val = body:match("^([^=]+)=(.*)$")
      key = key or body
      local ni = cli_option(cfg, key, val, argv, i)
      if cfg.exit then return cfg end
      if ni then i = ni
      elseif P.resolve(cfg.ctx.tab, key) or key == "name" then job_option(cfg, key, val)
      else
        local s = P.suggest(cfg.ctx.tab, key)
        usage_error("unknown option '" .. a:match("^[^=]*") .. "'" ..
                    (s and (" (did you mean '--" .. s .. "'?)") or ""))
      end
    end
    i = i + 1
  end
  return cfg
end

-- fio's rule: options given before any --name are defaults of the job
-- files' jobs, which their [global] and sections override, wherever they
-- stand on the command line.  --override=NAME=VALUE wins over the files.
local function apply_cli(job, cfg)
  for _, k in ipairs(cfg.order) do
    if job[k] == nil then job[k] = cfg.global[k] end
  end
  for _, k in ipairs(cfg.override_order) do
    if job[k] == nil then job._own[#job._own + 1] = k end
    job[k] = cfg.override[k]
  end
end

-- The jobs cfg describes: command-line jobs, then each job file (a file
-- starts a new run group, as in fio).
function M.cli_jobs(cfg)
  local jobs = {}
  for _, j in ipairs(cfg.jobs) do
    for _, k in ipairs(cfg.override_order) do j[k] = cfg.override[k] end
    jobs[#jobs + 1] = j
  end
  jobs.global_options, jobs.global_order = {}, {}
  for _, k in ipairs(cfg.order) do
    jobs.global_options[k], jobs.global_options["_bare_" .. k] = cfg.global[k], cfg.global["_bare_" .. k]
  end
  jobs.global_order = #cfg.files == 0 and cfg.order or {}
  for n, path in ipairs(cfg.files) do
    local fj = P.load(path, {tab = cfg.ctx.tab, sections = cfg.sections, showcmd = cfg.showcmd})
    if (n > 1 or #jobs > 0) and fj[1] then fj[1]._stonewall = true end
    for _, j in ipairs(fj) do apply_cli(j, cfg); jobs[#jobs + 1] = j end
    for _, k in ipairs(fj.global_order) do
      if jobs.global_options[k] == nil then jobs.global_order[#jobs.global_order + 1] = k end
      jobs.global_options[k] = fj.global_options[k]
      jobs.global_options["_bare_" .. k] = fj.global_options["_bare_" .. k]
    end
    jobs.file_globals = jobs.file_globals or {}
    jobs.file_globals[n] = {order = fj.global_order, options = fj.global_options}
    for _, j in ipairs(fj) do j._fileno = n end
  end
  for _, j in ipairs(jobs) do
    if cfg.readonly then j.readonly = "1" end
    if cfg.allow_overwrite then j.allow_overwrite = "1" end
  end
  jobs.cli_order, jobs.cli_global = cfg.order, cfg.global   -- for --showcmd
  if #jobs == 0 and cfg.parse_only then return jobs end   -- fio: options alone parse
  if #jobs == 0 then usage_error("no job given (see luabench fio --help)") end
  P.check_wait_for(jobs)
  return P.groups(jobs)
end

local function write_output(path, text, allow)
  local lbt = rawget(_G, "lb")
  if lbt and lbt.write_atomic then
    local ok, err = lbt.write_atomic(path, text, allow)
    if not ok then error("cannot write " .. path .. ": " .. tostring(err), 0) end
    return
  end
  local tmp = path .. ".tmp"
  local f, err = io.open(tmp, "w")
  if not f then error("cannot write " .. path .. ": " .. err, 0) end
  f:write(text)
  f:close()
  local ok, rerr = os.rename(tmp, path)
  if not ok then os.remove(tmp); error("cannot write " .. path .. ": " .. rerr, 0) end
end

function M.report(results, formats)
  local parts = {}
  for _, f in ipairs(formats) do
    if f == "normal" then parts[#parts + 1] = T.normal(results)
    elseif f == "terse" then parts[#parts + 1] = O.terse(results)
    else parts[#parts + 1] = O.json(results, {plus = f == "json+"}) end
  end
  return table.concat(parts)
end

local function has(list, x)
  for _, v in ipairs(list) do if v == x then return true end end
  return false
end

-- luabench --fio FILE... / luabench fio [options]: returns the exit code.
function M.main(argv)
  -- bad input: the host's one usage-error channel prints the line
  -- ("luabench: ..." or "luabench fio: ...", escaped) and exits 2
  local function bad(msg)
    msg = tostring(msg):gsub("^luabench: ", "")
    local lbt = rawget(_G, "lb")
    if lbt and lbt.usage_error then lbt.usage_error(msg, 0) end
    io.stderr:write(msg:find("^luabench ") and "" or "luabench: ", msg, "\n")
    return 2
  end
  local ok, cfg = pcall(M.cli, argv)
  if not ok then return bad(cfg) end
  if cfg.inflate_log then
    local text, err = lb.inflate(cfg.inflate_log)
    if not text then io.stderr:write("luabench fio: --inflate-log: ", err, "\n"); return 1 end
    io.write(text)
    return 0
  end
  if cfg.exit then return cfg.exit end
  if cfg.output then                    -- refuse before running, not after
    local dir = cfg.output:match("^(.*)/[^/]*$") or "."
    local st = lb.stat(dir == "" and "/" or dir)
    if not st or st.type ~= "directory" then
      return bad("--output=" .. cfg.output .. ": directory " .. dir .. " does not exist")
    end
  end
  if cfg.append_terse and not has(cfg.formats, "terse") then cfg.formats[#cfg.formats + 1] = "terse" end
  local jobs
  ok, jobs = pcall(M.cli_jobs, cfg)
  if not ok then return bad(jobs) end
  if cfg.debug_parse then
    local list = #jobs > 0 and jobs or {cfg.global}
    for _, j in ipairs(list) do
      if j.ss and j.ss ~= "" then
        local aok, a = pcall(R.steady_args, j)
        if aok then io.write("parse    ", a.parsed, "\n") end
      end
    end
  end
  if cfg.showcmd then io.write(M.showcmd(jobs)); return 0 end
  local cok, cerr = pcall(R.check_all, jobs, cfg.ctx.tab)
  if not cok then return bad(cerr) end
  if cfg.parse_only then return 0 end
  if not cfg.output and has(cfg.formats, "normal") then
    io.write(T.preamble(jobs)); io.flush()
  end
  cfg.eta = cfg.eta or lb.eta                  -- luabench --eta=... --fio FILE
  local eta = (cfg.eta == "always" or has(cfg.formats, "normal")) and
              require("luabench.progress").fio_eta{mode = cfg.eta, newline = cfg.eta_newline}
  local rok, results = pcall(R.run, jobs, {tab = cfg.ctx.tab, checked = true, eta = eta or nil})
  if not rok then
    -- an error object: the host prints its text alone (no traceback) and
    -- still picks the exit status (2 for input the core refused, else 1)
    error(setmetatable({}, {__tostring = function() return tostring(results) end}), 0)
  end
  local text = M.report(results, cfg.formats)
  if cfg.output then
    local wok, werr = pcall(write_output, cfg.output, text, cfg.allow_overwrite)
    if not wok then io.stderr:write("luabench: ", tostring(werr), "\n"); return 1 end
  else
    io.write(text)
  end
  local status = 0
  for _, r in ipairs(results) do
    local e = r.errors
    if (r.error or 0) ~= 0 or (e and (e.count or 0) > 0) then
      -- like fio, the failure itself goes to stderr: file, offset, errno
      local n = e and e.count or 1
      io.stderr:write("luabench: job '", tostring(r.jobname), "': ",
                      n == 0 and "" or n == 1 and "1 error: " or (n .. " errors, the first: "),
                      tostring(e and e.message or ("errno " .. tostring(r.error))), "\n")
      status = 1
    end
  end
  return status
end

return M
