-- fio job files and fio option names.
--
-- Reads fio's ini dialect ([global] and job sections, ';'/'#' comments,
-- key=value and bare flags, include, ${VAR} and $ncpus-style keywords,
-- parenthesised arithmetic) into a list of jobs: each a table of option
-- name -> string plus name, _section, _line, _file, _own (the options the
-- section set itself, in order), _at (option -> "file:line"), _group (run
-- group) and _groupid (reporting group).  Names are checked against the
-- core's option table (lb.options(), aliases folded to the canonical name)
-- and against the few fio names that luabench.fio handles itself.  Running
-- jobs is not done here, and `lb` is only looked at inside functions, so
-- the parser works without the binding.

local P = {}

-- Handled by luabench.fio itself, unless the core knows the name.
P.HANDLED = {
  stonewall = true, wait_for_previous = true, new_group = true, wait_for = true,
  ss = true, steadystate = true, ss_dur = true, steadystate_duration = true,
  ss_ramp = true, steadystate_ramp_time = true, ss_interval = true,
  write_bw_log = true, write_iops_log = true, write_lat_log = true, write_hist_log = true,
  log_avg_msec = true, log_hist_msec = true, log_hist_coarseness = true,
  log_max_value = true, log_offset = true, per_job_logs = true, log_store_compressed = true,
  exec_prerun = true, exec_postrun = true, description = true, timeout = true,
  clat_percentiles = true, lat_percentiles = true, slat_percentiles = true,
  percentile_list = true, rwmixwrite = true, io_submit_mode = true, unified_rw_reporting = true,
  write_iolog = true, read_iolog = true, replay_no_stall = true,
}
-- fio's long names for the steady-state options.
P.RENAME = {steadystate = "ss", steadystate_duration = "ss_dur",
            steadystate_ramp_time = "ss_ramp", wait_for_previous = "stonewall"}

-- Options that only tune fio's own machinery: accepted with a note.
P.INTERNAL = {
  thread = true, threads = true, use_thread = true, clocksource = true,
  gtod_reduce = true, gtod_cpu = true, log_entries = true,
  log_compression = true, log_unix_epoch = true,
  disable_lat = true, disable_clat = true, disable_slat = true,
  disable_bw_measurement = true, disable_bw = true,
  stats = true, eta = true, eta_newline = true,
}

-- Options whose bare form means "the default string", not "1".
local BARE_EMPTY = {write_bw_log = true, write_iops_log = true,
                    write_lat_log = true, write_hist_log = true}

-- Notes go to stderr, never to stdout (JSON there must stay clean); fio's
-- front end writes them only with --verbose (lb.no_notes otherwise).
function P.note(msg)
  local lbt = rawget(_G, "lb")
  local quiet = lbt and (lbt.quiet or lbt.no_notes)
  if not quiet then io.stderr:write("luabench: note: ", msg, "\n") end
end

local function where_str(w)
  local s = w.file or "command line"
  if w.line then s = s .. ":" .. w.line end
  s = s .. ": "
  if w.section then s = s .. "[" .. w.section .. "] " end
  return s
end
P.where_str = where_str

local function fail(w, msg) error(where_str(w) .. msg, 0) end
P.fail = fail

-- True unless the value is one of fio's false spellings.
function P.truthy(v)
  if v == nil or v == false then return false end
  v = tostring(v):lower()
  return v ~= "0" and v ~= "false" and v ~= "no" and v ~= "off"
end

------------------------------------------------------------------------
-- The option table

local function distance(a, b)
  local prev = {}
  for j = 0, #b do prev[j] = j end
  for i = 1, #a do
    local cur = {[0] = i}
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      cur[j] = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
    end
    prev = cur
  end
  return prev[#b]
end

-- list: array of {name=, alias=, type=} (lb.options() shape); ignored:
-- names the core accepts and ignores (lb.options()' second result).
-- Without a list and without the binding there is no checking at all.
function P.option_table(list, ignored)
  if list == nil then
    local lbt = rawget(_G, "lb")
    if not (lbt and lbt.options) then return nil end
    list, ignored = lbt.options()
  end
  local t = {canon = {}, names = {}, ignored = {}}
  for _, o in ipairs(list) do
    t.canon[o.name] = o.name
    if o.alias and o.alias ~= "" then
      for a in o.alias:gmatch("[^,|%s]+") do
        t.canon[a] = o.name
        t.names[#t.names + 1] = a
      end
    end
    t.names[#t.names + 1] = o.name
  end
  for _, n in ipairs(ignored or {}) do t.ignored[n] = true end
  return t
end

function P.suggest(tab, name)
  -- no option name is this long: comparing would cost time and help nobody
  if #name > 64 then return nil end
  local best, bd = nil, math.huge
  local function try(n)
    local d = distance(name, n)
    if d < bd then best, bd = n, d end
  end
  if tab then for _, n in ipairs(tab.names) do try(n) end end
  for n in pairs(P.HANDLED) do try(n) end
  if best and bd <= math.max(2, #name // 3) then return best end
end

-- Resolves a name: canonical name and kind ("core", "fio", "internal"),
-- or nil.  Without a table every name passes as "core".
function P.resolve(tab, name)
  if not tab then
    if P.HANDLED[name] then return P.RENAME[name] or name, "fio" end
    return name, "core"
  end
  if tab.canon[name] then return tab.canon[name], "core" end
  if P.HANDLED[name] then return P.RENAME[name] or name, "fio" end
  if P.INTERNAL[name] or tab.ignored[name] then return name, "internal" end
  return nil
end

------------------------------------------------------------------------
-- Values: ${VAR}, $ncpus/$pagesize/$mb_memory, (arithmetic)

local function ncpus()
  local lbt = rawget(_G, "lb")
  if lbt and lbt.cpus then return lbt.cpus() end
  local f = io.open("/sys/devices/system/cpu/online")
  local s = f and f:read("l"); if f then f:close() end
  local n = 0
  for a, b in (s or "0"):gmatch("(%d+)%-?(%d*)") do
    n = n + (b ~= "" and tonumber(b) - tonumber(a) + 1 or 1)
  end
  return math.max(n, 1)
end

local function mb_memory()
  local f = io.open("/proc/meminfo")
  local s = f and f:read("a") or ""; if f then f:close() end
  return (tonumber(s:match("MemTotal:%s*(%d+)")) or 0) // 1024
end

local KEYWORDS = {ncpus = ncpus, pagesize = function() return 4096 end,
                  mb_memory = mb_memory}

-- A tiny evaluator for + - * / % ^ and parentheses over integers.
local function arith(s)
  local pos = 1
  local function skip() pos = s:find("%S", pos) or #s + 1 end
  local expr
  local function atom()
    skip()
    local c = s:sub(pos, pos)
    if c == "(" then
      pos = pos + 1; local v = expr(); skip()
      if s:sub(pos, pos) ~= ")" then return nil end
      pos = pos + 1; return v
    elseif c == "-" then pos = pos + 1; local v = atom(); return v and -v
    end
    local num = s:match("^%d+%.?%d*", pos)
    if not num then return nil end
    pos = pos + #num
    return tonumber(num)
  end
  local function power()
    local v = atom(); skip()
    if v and s:sub(pos, pos) == "^" then
      pos = pos + 1; local r = power(); return r and v ^ r
    end
    return v
  end
  local function term()
    local v = power()
    while v do
      skip(); local op = s:sub(pos, pos)
      if op ~= "*" and op ~= "/" and op ~= "%" then break end
      pos = pos + 1
      local r = power(); if not r then return nil end
      if op == "*" then v = v * r elseif op == "/" then v = v / r else v = v % r end
    end
    return v
  end
  function expr()
    local v = term()
    while v do
      skip(); local op = s:sub(pos, pos)
      if op ~= "+" and op ~= "-" then break end
      pos = pos + 1
      local r = term(); if not r then return nil end
      v = op == "+" and v + r or v - r
    end
    return v
  end
  local v = expr(); skip()
  if v == nil or pos <= #s or v ~= v then return nil end
  return string.format("%d", math.floor(v + 0.5))
end

-- Expands one option value; w locates errors; env is a getenv function.
function P.expand(value, w, env)
  env = env or os.getenv
  value = value:gsub("%${([^}]*)}", function(var)
    local v = env(var)
    if v == nil then fail(w, "environment variable '" .. var .. "' is not set") end
    return v
  end)
  local keyword = false
  value = value:gsub("%$([%a_]+)", function(k)
    if KEYWORDS[k] then keyword = true; return tostring(KEYWORDS[k]()) end
  end)
  local pure = value:match("^[%d%s%.%+%-%*/%%%^%(%)]+$")
  if pure and (value:find("^%(") or keyword and value:find("[-+*/%%^]")) then
    local v = arith(value)
    if not v then fail(w, "bad arithmetic expression '" .. value .. "'") end
    return v
  end
  return value
end

------------------------------------------------------------------------
-- Setting one option on a job

-- Whether the section of job set canon itself (it may also inherit it).
function P.owns(job, canon)
  for _, k in ipairs(job._own or {}) do if k == canon then return true end end
  return false
end

-- fio reads a size as a number and its unit and ignores what follows
-- (str_to_decimal): "65536)" is 65536, and in a bsrange each end is read so,
-- "512/25:1k:25" being 512-1k.  Values without such a tail are unchanged.
local FIO_SIZES = {size = true, filesize = true, io_size = true, offset = true,
                   zonesize = true, zonerange = true, zoneskip = true}
local function fio_number(s)
  return s:match("^%s*(0[xX]%x+)") or s:match("^%s*(%d+%.?%d*[%a%%]*)")
end
local function fio_size_value(canon, value)
  if type(value) ~= "string" or value:find(",") then return value end
  if FIO_SIZES[canon] then return fio_number(value) or value end
  if canon == "bsrange" then
    local a, b = value:match("^([^:%-]*)[:%-](.*)$")
    a, b = a and fio_number(a), b and fio_number(b)
    if a and b then return a .. "-" .. b end
  end
  return value
end

-- Sets name=value on job (a [global] or job table); ctx carries the
-- option table and the notes already given.  Used by job files and the CLI.
function P.set(ctx, job, name, value, w)
  local canon, kind = P.resolve(ctx.tab, name)
  if ctx.showcmd and (not canon or (canon == "io_submit_mode" and value ~= "inline")) then
    -- --showcmd only prints: fio's options luabench does not run print as written
    job["_bare_" .. name] = value == nil or nil
    if job._own and not P.owns(job, name) then job._own[#job._own + 1] = name end
    job[name] = value == nil and "1" or value
    return name
  end
  if not canon then
    local s = P.suggest(ctx.tab, name)
    fail(w, "unsupported option '" .. name .. "'" ..
            (s and (" (did you mean '" .. s .. "'?)") or ""))
  end
  local bare = value == nil or nil            -- written bare: --showcmd prints it so
  if value == nil then value = BARE_EMPTY[canon] and "" or "1" end
  job["_bare_" .. canon] = bare
  if kind == "internal" then
    ctx.noted = ctx.noted or {}
    if not ctx.noted[canon] then
      ctx.noted[canon] = true
      P.note(where_str(w) .. "'" .. name .. "' only tunes fio's internals: ignored")
    end
  elseif canon == "io_submit_mode" and value ~= "inline" then
    fail(w, "unsupported option 'io_submit_mode=" .. value .. "'" .. (value == "offload" and
            " (fio hands each I/O to a pool of iodepth threads, each with its own engine at depth 1;" ..
            " luabench's clones submit and reap their own I/O: under a rate cap sched_lat_ns gives" ..
            " the latency from each I/O's due time)" or ""))
  elseif canon == "rwmixwrite" and ctx.tab and not ctx.tab.canon.rwmixwrite then
    local n = tonumber(value)
    if not n or n < 0 or n > 100 then fail(w, "bad value '" .. value .. "' for 'rwmixwrite'") end
    canon, value = "rwmixread", tostring(100 - math.floor(n))
  end
  value = fio_size_value(canon, value)
  if canon == "name" then job.name = value end
  if job._own and not P.owns(job, canon) then job._own[#job._own + 1] = canon end
  job[canon] = value
  if w.line then
    job._at = job._at or {}
    job._at[canon] = w.file .. ":" .. w.line
  end
  return canon
end

------------------------------------------------------------------------
-- Job files

local function dirname(path) return path:match("^(.*)/[^/]*$") or "." end

-- An absolute path with "." and ".." folded (symlinks are not followed).
local function normpath(path)
  if path:sub(1, 1) ~= "/" then path = (os.getenv("PWD") or ".") .. "/" .. path end
  local parts = {}
  for c in path:gmatch("[^/]+") do
    if c == ".." then parts[#parts] = nil elseif c ~= "." then parts[#parts + 1] = c end
  end
  return "/" .. table.concat(parts, "/")
end

local function new_job(st, section, w)
  local job = {}
  for k, v in pairs(st.global) do job[k] = v end
  job.name, job._section, job._file, job._line, job._own = section, section, w.file, w.line, {}
  job._at = {}
  for k, v in pairs(st.global._at or {}) do job._at[k] = v end
  st.jobs[#st.jobs + 1] = job
  return job
end

-- Strips a trailing comment: ';' or '#' after whitespace.
local function strip_comment(s)
  local i = s:find("%s[;#]")
  if i then s = s:sub(1, i - 1) end
  return (s:gsub("^%s+", ""):gsub("%s+$", ""))
end

local read_file

local function do_line(st, raw, w, included)
  local s = raw:gsub("\r$", "")
  s = s:gsub("^%s+", "")
  if s == "" or s:find("^[;#]") then return end
  s = strip_comment(s)
  local inc = s:match("^include%s+(.+)$")
  if inc then
    if inc:sub(1, 1) ~= "/" then inc = dirname(w.file) .. "/" .. inc end
    return read_file(st, inc, w)
  end
  if s:sub(1, 1) == "[" then
    local name = s:match("^%[%s*([^%]]-)%s*%]$")
    if not name or name == "" then fail(w, "malformed section header '" .. s .. "'") end
    if included then fail(w, "include files may not contain sections") end
    if name == "global" then st.cur = st.global; st.section = "global"
    else st.cur = new_job(st, name, w); st.section = name end
    return
  end
  local key, eq, value = s:match("^([%w_%-%.]+)%s*(=?)%s*(.*)$")
  if not key or (eq == "" and value ~= "") then fail(w, "malformed line '" .. s .. "'") end
  w.section = st.section
  if not st.cur then fail(w, "option '" .. key .. "' outside any section") end
  if eq == "" then value = nil else value = P.expand(value, w, st.env) end
  local canon = P.set(st.ctx, st.cur, key, value, w)
  if st.cur == st.global and not st.global_seen[canon] then
    st.global_seen[canon] = true
    st.global_order[#st.global_order + 1] = canon
  end
end

function read_file(st, path, from)
  local real = normpath(path)
  for _, p in ipairs(st.stack) do
    if p == real then
      fail(from, "include cycle: '" .. path .. "' is already being read")
    end
  end
  local f, err = io.open(path, "r")
  if not f then
    if from then fail(from, "cannot include '" .. path .. "': " .. err) end
    error(err, 0)
  end
  st.stack[#st.stack + 1] = real
  local n = 0
  for line in f:lines() do
    n = n + 1
    do_line(st, line, {file = path, line = n, section = st.section}, from ~= nil)
  end
  f:close()
  st.stack[#st.stack] = nil
end

-- fio refuses a wait_for naming no earlier job.
function P.check_wait_for(jobs)
  local seen = {}
  for _, job in ipairs(jobs) do
    if job.wait_for and job.wait_for ~= "" and not seen[job.wait_for] then
      fail({file = job._file, line = job._line, section = job._section},
           "wait_for: no job named '" .. job.wait_for .. "' before this one")
    end
    seen[job.name] = true
  end
end

-- Numbers the run groups (_group) and reporting groups (_groupid): a
-- stonewall, or a wait_for, starts a new run group after the previous
-- one finished; stonewall and new_group start a new reporting group.
function P.groups(jobs)
  local g, gid = 0, 0
  for i, job in ipairs(jobs) do
    local stone = P.truthy(job.stonewall) or job._stonewall
    if i > 1 then
      if stone or (job.wait_for and job.wait_for ~= "") then g = g + 1 end
      if stone or P.truthy(job.new_group) then gid = gid + 1 end
    end
    job._group, job._groupid = g, gid
  end
  return jobs
end

-- opts: options (an lb.options()-shaped list, default lb.options()),
-- env (getenv function), sections (set of section names to keep), showcmd
-- (options luabench does not run are kept as written, for --showcmd).
function P.load(path, opts)
  opts = opts or {}
  local st = {jobs = {}, global = {}, global_order = {}, global_seen = {}, stack = {},
              env = opts.env,
              ctx = {tab = opts.tab or P.option_table(opts.options, opts.ignored),
                     showcmd = opts.showcmd}}
  read_file(st, path, nil)
  local jobs = st.jobs
  if opts.sections then
    local kept = {}
    for _, j in ipairs(jobs) do if opts.sections[j._section] then kept[#kept + 1] = j end end
    jobs = kept
  end
  P.check_wait_for(jobs)
  P.groups(jobs)
  jobs.global_options = {}
  for _, k in ipairs(st.global_order) do
    jobs.global_options[k], jobs.global_options["_bare_" .. k] = st.global[k], st.global["_bare_" .. k]
  end
  jobs.global_order = st.global_order
  return jobs
end

return P
