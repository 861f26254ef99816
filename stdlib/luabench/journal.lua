--[[
luabench.journal: the file a long sweep keeps its finished points in, one
JSON object per line, appended and fsynced as each point ends, so that a
signal, a lost terminal, a failing hook or a crash loses at most the point
in progress; and the reading of it back, so that resume=JOURNAL runs only
the points that are missing.

  local J = journal.open{path = "r.journal.jsonl", define = {runtime = "60s", ...}}
  local J = journal.open{resume = "r.journal.jsonl", define = {...}}  -- appends to it
  J:point(sweep_name, point)        -- a finished point (sweep.run calls it)
  J:failed(sweep_name, point, err)  -- a point that failed (on_error=skip)
  J:finish(sweep_name, {stopped_by=, partial=, reason=})
  J:restore(sweep_name, params) -> point | nil

Lines (field "type"):
  journal  the first line: schema "luabench.journal/1", version, started
           (UTC, ISO 8601), what (the script or "sweep"), define (the
           parameters that define the sweep: a resume must give the same)
  point    sweep (the sweep's name in the file), seq, params, label,
           order, refined, started, ended (UTC), hooks (luabench.cache's
           log of the point), results (every repeat's lb.run result, whole:
           histograms as their exact text form, {hist = "..."}), median
           (which repeat is the point's result)
  failed   sweep, params, label, error, started, ended
  finish   sweep, stopped_by, partial, reason

A journal is never overwritten: a new one is created next to it (.1, .2 ...).
Reading stops at the first line that is not whole (the one a crash cut).
]]

local M = {}

M.SCHEMA = "luabench.journal/1"

local function utc() return os.date("!%Y-%m-%dT%H:%M:%SZ") end

-- ---------------------------------------------------------------- values

-- A copy of a result that JSON keeps whole: histograms as their text.
local function encode(v, depth)
  if type(v) == "userdata" and v.encode then return {hist = v:encode()} end
  if type(v) ~= "table" then return v end
  if depth > 40 then error("journal: a result nested too deep (a cycle?)", 0) end
  local out = {}
  for k, x in pairs(v) do
    if type(x) ~= "function" then out[k] = encode(x, depth + 1) end
  end
  return setmetatable(out, getmetatable(v))
end

local function decode(v)
  if type(v) ~= "table" then return v end
  local n = 0
  for _ in pairs(v) do n = n + 1 end
  if n == 1 and type(v.hist) == "string" then
    local h = lb.hist_decode(v.hist)
    if h then return h end
  end
  for k, x in pairs(v) do v[k] = decode(x) end
  return v
end
M.encode = function(v) return encode(v, 0) end
M.decode = decode

-- A parameter value as the journal compares it: a list as "a,b", else text.
local function show(v)
  if type(v) == "table" then
    local s = {}
    for i, x in ipairs(v) do s[i] = show(x) end
    return table.concat(s, ",")
  end
  if v == nil then return "(not set)" end
  return tostring(v)
end
M.show = show

-- A point's key within its sweep: its parameters, sorted by name.
local function key_of(name, params)
  local names = {}
  for k in pairs(params) do names[#names + 1] = tostring(k) end
  table.sort(names)
  local s = {tostring(name or "")}
  for _, k in ipairs(names) do s[#s + 1] = k .. "=" .. show(params[k]) end
  return table.concat(s, "\0")
end

-- ---------------------------------------------------------------- files

local J = {}
J.__index = J

local function append(self, rec)
  if not self.write then return end
  local line = lb.json(rec) .. "\n"
  local ok, msg = lb.append_sync(self.path, line, not self.created)
  if not ok then error("journal: " .. msg, 0) end
  self.created = true
end

-- The first free name of path, path.1, path.2 ... (before the extension).
local function free_name(path)
  if not lb.stat(path) then return path end
  local stem, ext = path:match("^(.-)(%.[^./]*)$")
  if not stem then stem, ext = path, "" end
  for i = 1, 9999 do
    local p = string.format("%s.%d%s", stem, i, ext)
    if not lb.stat(p) then return p end
  end
  error("journal: no free name beside " .. path, 0)
end

-- The text of a journal file, or nil and the error.  Under MPI the
-- journal lives on rank 0: it reads the file and every rank gets rank 0's
-- text (or its error), so that all of them agree on the points it holds
-- -- the plan of the resumed run -- without the file on their hosts.
local function text_of(path)
  local function load()
    local f, err = io.open(path, "r")
    if not f then return nil, err end
    local text = f:read("a")
    f:close()
    return text
  end
  if (lb.size or 1) <= 1 or not lb.bcast then return load() end
  local msg = ""
  if lb.rank == 0 then
    local text, err = load()
    msg = lb.json({text = text, err = err})
  end
  local got = lb.json_decode(lb.bcast(msg, 0))
  return got.text, got.err
end

-- The records of a journal file; raises (as bad input) when it is not one.
local function read(path, usage)
  local text, err = text_of(path)
  if not text then usage("resume: %s", err) end
  local recs = {}
  for line in text:gmatch("([^\n]*)\n") do
    local ok, rec = pcall(lb.json_decode, line)
    if not ok or type(rec) ~= "table" then break end      -- a line cut short
    recs[#recs + 1] = rec
  end
  if not recs[1] or recs[1].type ~= "journal" or recs[1].schema ~= M.SCHEMA then
    usage("resume: %s is not a luabench journal", path)
  end
  return recs
end

-- Bad input when a parameter that defines the sweep changed.
local function check_define(path, old, new, usage)
  local names, seen = {}, {}
  for k in pairs(old or {}) do names[#names + 1] = k; seen[k] = true end
  for k in pairs(new or {}) do if not seen[k] then names[#names + 1] = k end end
  table.sort(names)
  for _, k in ipairs(names) do
    local a, b = show((old or {})[k]), show((new or {})[k])
    if a ~= b then
      usage("resume: parameter '%s' was %s in %s, now %s: a resumed sweep must have the " ..
            "same parameters", k, a, path, b)
    end
  end
end

-- Bad input as the host knows it: one line, exit 2.
local function default_usage(fmt, ...)
  lb.usage_error(string.format(fmt, ...), 0)
end

--[[ journal.open{path=, resume=, define=, what=, usage=} -> journal.  With
resume the journal is read, its define checked against this one and the
points it holds offered to J:restore; the new points go on at its end.
Otherwise path (made free with .1, .2 ... when taken) is created at the
first line.  usage(fmt, ...) reports bad input (default: an error);
write = false reads but never writes (the other ranks of a cluster; under
MPI only rank 0 ever writes).  Under MPI a resume is collective: every
rank calls journal.open, and rank 0's file is what they all read. ]]
function M.open(o)
  local usage = o.usage or default_usage
  local self = setmetatable({define = o.define or {}, done = {}, created = false, held = 0,
                             write = o.write ~= false and (lb.rank or 0) == 0}, J)
  if o.resume then
    local recs = read(o.resume, usage)
    check_define(o.resume, recs[1].define, self.define, usage)
    self.path, self.created, self.resumed = o.resume, true, 0
    for _, r in ipairs(recs) do
      if r.type == "point" then
        self.done[key_of(r.sweep, r.params or {})] = r
        self.held = self.held + 1
      end
    end
    return self
  end
  self.path = self.write and free_name(o.path) or o.path
  append(self, {type = "journal", schema = M.SCHEMA, version = lb.version, started = utc(),
                what = o.what or "sweep", define = self.define})
  return self
end

function J:point(name, p)
  local results = {}
  local median = 1
  for i, r in ipairs(p.repeats or {p.result}) do
    results[i] = encode(r, 0)
    if r == p.result then median = i end
  end
  append(self, {type = "point", sweep = name, seq = p.seq, params = p.params, label = p.label,
                order = p.order, refined = p.refined, started = p.started, ended = utc(),
                hooks = p.hooks, results = results, median = median})
end

function J:failed(name, p, err)
  append(self, {type = "failed", sweep = name, params = p.params, label = p.label,
                error = tostring(err), started = p.started, ended = utc()})
end

function J:finish(name, o)
  append(self, {type = "finish", sweep = name, stopped_by = o.stopped_by,
                partial = o.partial or nil, reason = o.reason})
end

--[[ J:restore(name, params) -> {result=, repeats=, hooks=, started=,
ended=} of the point with these parameters, when the journal resumed has
it; nil otherwise. ]]
function J:restore(name, params)
  local r = self.done[key_of(name, params)]
  if not r then return nil end
  local repeats = {}
  for i, x in ipairs(r.results or {}) do repeats[i] = decode(x) end
  if #repeats == 0 then return nil end
  self.resumed = (self.resumed or 0) + 1
  return {repeats = repeats, result = repeats[r.median or 1] or repeats[1], hooks = r.hooks or {},
          started = r.started, ended = r.ended}
end

return M
