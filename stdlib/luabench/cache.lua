--[[
luabench.cache: control and inspect cache state before a run, the way the
storage guide asks before every read benchmark -- drop the page cache (cold),
read the files through (hot), check how much of them is resident, and run
the backend's own commands (load, free) and poll them until they report
success.

  cache.drop(files)              -> method ("drop_caches" | "fadvise"), note
  cache.residency(files)         -> fraction 0..1, {{path, resident, total, fraction}...}
  cache.warm(files)              -> bytes read, seconds (through the core)
  cache.exec{cmd=}               -> {status, output, time_s, cmd}
  cache.poll{cmd=, done="SUCCEEDED", fail="FAILED", every="10s", timeout="30m"}
  cache.log()                    -> every hook run so far: {kind, cmd, status, time_s, ...}
  cache.state(P, files)          -> S: S.prepare("hot"|"cold"|"none") before each run

Like fio (invalidate=1), lb.run drops the cached pages of the files it
reads before it starts: a hot-cache run needs invalidate = false in its
spec, or cache.warm's work is undone.

`files` is a path, a colon-separated list (fio's filename=, "\:" escapes a
colon), an array of paths, or a file set from luabench.prep.  Nothing here
measures performance; a sweep copies the log entries made before each point
into point.hooks.
]]

local stop = require "luabench.stop"
local metrics = require "luabench.metric"

local M = {}

local log = {}

local function now() return lb.now() end

local function record(e)
  e.at = os.date("!%Y-%m-%dT%H:%M:%SZ")
  log[#log + 1] = e
  return e
end

-- Every hook run so far, oldest first (the live table).
function M.log() return log end

-- Splits fio's colon list: "a:b\:c" -> {"a", "b:c"}.
function M.split(s)
  local out, cur, i = {}, {}, 1
  while i <= #s do
    local c = s:sub(i, i)
    if c == "\\" and s:sub(i + 1, i + 1) == ":" then
      cur[#cur + 1] = ":"; i = i + 1
    elseif c == ":" then
      out[#out + 1] = table.concat(cur); cur = {}
    else
      cur[#cur + 1] = c
    end
    i = i + 1
  end
  out[#out + 1] = table.concat(cur)
  return out
end

-- The paths of any files argument (see the top of this file).
function M.paths(files, level)
  level = (level or 1) + 1
  if type(files) == "string" then return M.split(files) end
  if type(files) ~= "table" then
    error("expected a path, a list of paths or a file set, not a " .. type(files), level)
  end
  if files.paths then return files.paths end
  local out = {}
  for _, f in ipairs(files) do
    for _, p in ipairs(M.paths(f, level)) do out[#out + 1] = p end
  end
  return out
end

--[[ cache.residency(files) -> fraction, detail: the share of the files'
pages in the page cache (mincore), 0 for files holding no pages. ]]
function M.residency(files)
  local detail, res, tot = {}, 0, 0
  for _, p in ipairs(M.paths(files, 2)) do
    local r, t = lb.residency(p)
    if not r then error("cache.residency: " .. t, 2) end
    detail[#detail + 1] = {path = p, resident = r, total = t, fraction = t > 0 and r / t or 0}
    res, tot = res + r, tot + t
  end
  return tot > 0 and res / tot or 0, detail
end

--[[ cache.drop(files [, {global=true}]) -> method, note.  Tries the whole
page cache first (sync, then 3 > /proc/sys/vm/drop_caches, as the guide
does with sudo tee); when that is refused, or with global=false, drops the
files' own pages with posix_fadvise(DONTNEED) after writing them back.  The
note says what happened when it was not the plain drop_caches, including
files still resident afterwards (tmpfs pages cannot be dropped). ]]
function M.drop(files, o)
  o = o or {}
  local paths = M.paths(files, 2)
  local t0 = now()
  local ok, msg
  if o.global ~= false then ok, msg = lb.drop_caches() end
  local method, notes = "drop_caches", {}
  if not ok then
    method = "fadvise"
    for _, p in ipairs(paths) do
      local done, err = lb.fadvise(p, "dontneed")
      if not done then error("cache.drop: " .. err, 2) end
    end
    notes[#notes + 1] = (msg and ("drop_caches refused (" .. msg .. "), ") or "") ..
                        string.format("dropped %d file(s) with fadvise(DONTNEED)", #paths)
  end
  local frac = #paths > 0 and M.residency(paths) or 0
  if frac > 0.01 then
    notes[#notes + 1] = string.format("%.0f%% still resident (tmpfs, mapped or in use)", frac * 100)
  end
  local note = #notes > 0 and table.concat(notes, "; ") or nil
  record{kind = "drop", cmd = method, status = 0, time_s = now() - t0, note = note,
         files = #paths, residency = frac}
  return method, note
end

local function file_size(p)
  local st, msg = lb.stat(p)
  if not st then error("cache.warm: " .. msg, 4) end
  return st.size
end

-- Reads path from offset to its end with Lua's io; the bytes read.
local function read_rest(path, offset)
  local f, err = io.open(path, "rb")
  if not f then error("cache.warm: " .. err, 4) end
  f:seek("set", offset)
  local n = 0
  while true do
    local chunk = f:read(1 << 20)
    if not chunk then break end
    n = n + #chunk
  end
  f:close()
  return n
end

-- One batch of files read through the core, one job each, in parallel.
local function warm_batch(batch, o)
  local jobs = {}
  for i, b in ipairs(batch) do jobs[i] = {name = "warm", filename = b.path} end
  local r = lb.run{name = "warm", jobs = jobs, rw = "read", bs = o.bs or "1M",
                   ioengine = o.engine or "psync", invalidate = false, readonly = true}
  local bytes = 0
  for i, b in ipairs(batch) do
    local got = r.jobs[i].read.io_bytes
    bytes = bytes + got
    if got < b.size then bytes = bytes + read_rest(b.path, got) end
  end
  return bytes
end

--[[ cache.warm(files [, {engine="psync", bs="1M", parallel=16}]) ->
bytes, seconds: reads every file through the page cache, several at once
through the core (invalidate=false), so the next run is hot. ]]
function M.warm(files, o)
  o = o or {}
  local t0, bytes = now(), 0
  local paths = M.paths(files, 2)
  local par = o.parallel or 16
  for i = 1, #paths, par do
    local batch = {}
    for j = i, math.min(i + par - 1, #paths) do
      local size = file_size(paths[j])
      if size > 0 then batch[#batch + 1] = {path = paths[j], size = size} end
    end
    if #batch > 0 then bytes = bytes + warm_batch(batch, o) end
  end
  local dt = now() - t0
  record{kind = "warm", cmd = "read " .. #paths .. " file(s)", status = 0, time_s = dt,
         bytes = bytes}
  return bytes, dt
end

-- Runs cmd with stderr folded into stdout; no log entry.
local function run(cmd)
  local t0 = now()
  local f = io.popen("{ " .. cmd .. "\n} 2>&1", "r")
  if not f then return {cmd = cmd, status = 127, output = "", time_s = 0} end
  local out = f:read("a") or ""
  local _, how, code = f:close()
  local status = how == "signal" and 128 + (code or 0) or (code or 0)
  return {cmd = cmd, status = status, output = out, time_s = now() - t0}
end

local function arg_cmd(o, who)
  if type(o) == "string" then o = {cmd = o} end
  if type(o) ~= "table" or type(o.cmd) ~= "string" or o.cmd == "" then
    error(who .. ": 'cmd' (a shell command) is required", 3)
  end
  return o
end

--[[ cache.exec{cmd=, check=false} (or cache.exec(cmd)) -> {status,
output, time_s, cmd}.  Runs through the shell; status is the exit code
(128+N for signal N).  check=true raises when the status is not 0. ]]
function M.exec(o)
  o = arg_cmd(o, "cache.exec")
  local r = run(o.cmd)
  record{kind = "exec", cmd = r.cmd, status = r.status, time_s = r.time_s}
  if o.check and r.status ~= 0 then
    error(string.format("cache.exec: '%s' exited with %d: %s", r.cmd, r.status,
                        (r.output:gsub("%s+$", ""))), 2)
  end
  return r
end

local function found(text, pat, lua_pattern)
  return pat ~= nil and text:find(pat, 1, not lua_pattern) ~= nil
end

local function last_line(s)
  local l = s:gsub("%s+$", ""):match("([^\n]*)$") or ""
  return #l > 200 and l:sub(1, 200) .. "..." or l
end

--[[ cache.poll{cmd=, done=, fail=, every="10s", timeout="30m",
pattern=false} -> the exec result of the successful try (plus tries and
waited_s).  done (also accepted as ["until"], a Lua keyword) and fail are
plain substrings of the output unless pattern=true.  Raises when the output
matches fail, when timeout passes, or when the command cannot run (126,
127); a failing exit status alone just means "try again". ]]
function M.poll(o)
  o = arg_cmd(o, "cache.poll")
  local want = o.done or o["until"]
  if type(want) ~= "string" then error("cache.poll: 'done' (the success text) is required", 2) end
  local every = stop.seconds(o.every or "10s", 1, 2)
  local timeout = stop.seconds(o.timeout or "30m", 1, 2)
  local t0, tries = now(), 0
  local function finish(status, r)
    record{kind = "poll", cmd = o.cmd, status = status, time_s = now() - t0, tries = tries,
           exit = r.status}
  end
  while true do
    tries = tries + 1
    local r = run(o.cmd)
    if found(r.output, o.fail, o.pattern) then
      finish("failed", r)
      error(string.format("cache.poll: '%s' reported '%s' after %d tries (%s): %s", o.cmd,
                          o.fail, tries, metrics.fmt_s(now() - t0),
                          last_line(r.output)), 2)
    end
    if found(r.output, want, o.pattern) then
      finish("done", r)
      r.tries, r.waited_s = tries, now() - t0
      return r
    end
    if r.status == 126 or r.status == 127 then
      finish("cannot run", r)
      error(string.format("cache.poll: cannot run '%s' (exit %d): %s", o.cmd, r.status,
                          last_line(r.output)), 2)
    end
    if now() - t0 + every > timeout then
      finish("timeout", r)
      error(string.format("cache.poll: timed out after %s waiting for '%s' from '%s' (%d tries); last output: %s",
                          metrics.fmt_s(now() - t0), want, o.cmd, tries,
                          last_line(r.output)), 2)
    end
    lb.sleep(every)
  end
end

-- ---------------------------------------------------------------- state

local function rank0() return (lb.rank or 0) == 0 end

local function barrier()
  if lb.barrier and (lb.size or 1) > 1 then lb.barrier() end
end

--[[ The cache parameters of the guide's procedure, for script.params
(script.CACHE_PARAMS). ]]
M.PARAMS = {
  {"cache", default = "hot", type = "list", choices = {"hot", "cold", "none"},
   help = "cache state before every run: hot (drop, then load_cmd, else read the files " ..
          "through), cold (free_cmd, then drop), none (leave it); hot,cold measures both"},
  {"drop", default = "all", choices = {"all", "files"},
   help = "what dropping the client page cache drops: all (3 > drop_caches, as the " ..
          "guide; fadvise when refused) or files (fadvise on the data files only)"},
  {"load_cmd", help = "shell command loading the data into the cache tier (hot), " ..
                      "e.g. 'alluxio job load --path /s3/testdata --submit'"},
  {"progress_cmd", help = "shell command polled after load_cmd until its output holds " ..
                          "'until', e.g. 'alluxio job load --path /s3/testdata --progress'"},
  {"until", default = "SUCCEEDED", help = "text progress_cmd prints when the load is done"},
  {"fail", default = "FAILED", help = "text progress_cmd prints when the load failed"},
  {"every", default = "10s", type = "time", help = "time between two polls of progress_cmd"},
  {"poll_timeout", default = "30m", type = "time", help = "give up polling after this long"},
  {"free_cmd", help = "shell command freeing the cache tier (cold), " ..
                      "e.g. 'alluxio job free --path /s3/testdata --submit'"},
}

--[[ cache.state(P, files [, o]) -> S with S.prepare(state)
to call before each run ("hot", "cold" or "none") and S.invalidate(state),
the run's invalidate= (false for hot: lb.run would otherwise drop the
pages just read).  Every state but none starts by dropping the client page
cache (the guide does it before every hot and cold run).  Hot then runs
load_cmd and polls progress_cmd; without load_cmd it reads the files
through the page cache instead (not with direct=1: O_DIRECT bypasses it).
Cold runs free_cmd first.  The shell hooks run on rank 0 only; drops and
warming on every rank.  A drop that leaves the files' pages resident is
warned about once (S.warning); S.recall(log) gives that warning for the
drops of a cache log (the points of a resumed sweep).  P holds the values of PARAMS; o.direct
tells that the runs read with O_DIRECT; o.note(fmt, ...) and
o.warn(fmt, ...) receive what it has to say (script.cache_state passes
script.note and script.warn). ]]
function M.state(P, files, o)
  o = o or {}
  local tell, warn = o.note or function() end, o.warn or function() end
  local S = {drops = {}}
  local function resident(note, frac)
    if frac > 0.01 and not S.warning then
      S.warning = string.format("the client page cache could not be dropped (%s): runs may " ..
                                "read from memory", note or
                                string.format("%.0f%% still resident", frac * 100))
      warn("%s", S.warning)
    end
    return frac > 0.01
  end
  -- The warning a drop in a log gave (the points a resumed sweep keeps).
  function S.recall(log)
    for _, h in ipairs(log or {}) do
      if h.kind == "drop" and tonumber(h.residency) then resident(h.note, h.residency) end
    end
  end
  local function drop()
    local method, note = M.drop(files, {global = P.drop ~= "files"})
    local frac = M.residency(files)
    S.drops[#S.drops + 1] = {method = method, note = note, residency = frac}
    if not resident(note, frac) and note and not S.noted then
      S.noted = true
      tell("cache drop: %s", note)
    end
  end
  function S.prepare(state)
    if state == "none" then return end
    if state == "cold" and P.free_cmd and rank0() then
      M.exec{cmd = P.free_cmd, check = true}
    end
    drop()
    if state == "hot" then
      if P.load_cmd then
        if rank0() then
          M.exec{cmd = P.load_cmd, check = true}
          if P.progress_cmd then
            M.poll{cmd = P.progress_cmd, done = P["until"], fail = P.fail,
                   every = P.every, timeout = P.poll_timeout}
          end
        end
      elseif o.direct then
        if not S.direct_noted then
          S.direct_noted = true
          tell("cache=hot with direct=1 and no load_cmd: O_DIRECT reads bypass the page " ..
               "cache, so there is nothing to warm; give load_cmd= to load a cache tier")
        end
      else
        M.warm(files)
      end
    end
    barrier()
  end
  function S.invalidate(state) return state ~= "hot" end
  return S
end

return M
