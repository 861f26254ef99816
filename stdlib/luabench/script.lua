--[[
luabench.script: what the scripts under scripts/ share -- key=value
parameters (defaults, types, help=1, unknown names refused), notes (also
kept for the report) and warnings on stderr, the out= directory check, a
temporary data directory removed at the end, the io_uring -> libaio
fallback, and the cache state the storage guide sets up before every read
run (drop the client page cache, then load or free the cache tier with
shell hooks).

  local script = require "luabench.script"
  local P, given = script.params({
    {"files", default = 4, type = "int", min = 1, help = "number of data files"},
    {"modes", default = "shared,independent", type = "list",
     choices = {"shared", "independent"}, help = "file access modes to run"},
    {"dir", help = "data directory (default: a temporary one)"},
  }, {about = "what the script does, one paragraph"})

The spec is an array of {name, default=, type=, help=, choices=, min=,
max= (ints), shown=} (help lists them in that order) or a table keyed by name (listed in
name order); both may be mixed.  Types: string (default), int, number,
bool (0/1, true/false, yes/no, on/off), size (fio units, kept as text),
time (fio units, kept as text), ints and list (comma-separated; choices
apply to each item).  A string default is parsed like the command line;
`shown` replaces the default in the help text (a computed default).

help=1 prints the parameters and exits 0.  An unknown name or a bad value
prints one line on stderr ("luabench: NAME: ...", the known names listed)
and exits 2.  Returns the values and the set of names given.
]]

local stop = require "luabench.stop"
local prep = require "luabench.prep"
local cache = require "luabench.cache"
local journal = require "luabench.journal"

local M = {}

-- ---------------------------------------------------------------- names

-- The running script's file name, from the outermost Lua chunk.
function M.name()
  local name, level = nil, 2
  while true do
    local info = debug.getinfo(level, "S")
    if not info then break end
    if info.what == "main" and info.source:sub(1, 1) == "@" then name = info.source:sub(2) end
    level = level + 1
  end
  return name and (name:match("([^/]+)$") or name) or "script"
end

M.script_name = nil

local function prefix()
  return "luabench: " .. (M.script_name or M.name()) .. ": "
end

function M.rank0()
  return (lb.rank or 0) == 0
end

-- Bad input: raises the message through the host's channel, which prints
-- it as one line, "luabench: NAME: message", and exits 2 (under MPI it
-- ends every rank).
function M.usage_error(fmt, ...)
  lb.usage_error(prefix():gsub("^luabench: ", "") .. string.format(fmt, ...), 0)
end

-- "note: ..." on stderr (rank 0, not with --quiet).
function M.note(fmt, ...)
  if lb.quiet or not M.rank0() then return end
  io.stderr:write("note: " .. string.format(fmt, ...) .. "\n")
end

-- "warning: ..." on stderr (rank 0, also with --quiet).
function M.warn(fmt, ...)
  if not M.rank0() then return end
  io.stderr:write("warning: " .. string.format(fmt, ...) .. "\n")
end

function M.barrier()
  if lb.barrier and (lb.size or 1) > 1 then lb.barrier() end
end

--[[ script.notes() -> list, note: note(fmt, ...) says "note: ..." like
script.note and keeps the line in list, for the notes of a report. ]]
function M.notes()
  local list = {}
  return list, function(fmt, ...)
    local s = string.format(fmt, ...)
    list[#list + 1] = s
    M.note("%s", s)
  end
end

-- ---------------------------------------------------------------- params


local function split(s)
  local out = {}
  for w in s:gmatch("[^,%s]+") do out[#out + 1] = w end
  return out
end

local function check_choice(p, v)
  if not p.choices then return end
  for _, c in ipairs(p.choices) do if c == v then return end end
  M.usage_error("parameter '%s' must be one of %s, not '%s'", p.name,
                table.concat(p.choices, ", "), v)
end

local function to_int(p, s)
  local n = math.tointeger(tonumber(s))
  if not n then M.usage_error("parameter '%s' must be an integer, not '%s'", p.name, s) end
  if p.min and n < p.min then
    M.usage_error("parameter '%s' must be at least %d, not %d", p.name, p.min, n)
  end
  if p.max and n > p.max then
    M.usage_error("parameter '%s' must be at most %d, not %d", p.name, p.max, n)
  end
  return n
end

local PARSE = {
  string = function(p, s) check_choice(p, s); return s end,
  int = to_int,
  number = function(p, s)
    local n = tonumber(s)
    if not n then M.usage_error("parameter '%s' must be a number, not '%s'", p.name, s) end
    if p.min and n < p.min then
      M.usage_error("parameter '%s' must be at least %s, not %s", p.name, p.min, s)
    end
    return n
  end,
  bool = function(p, s)
    local b = lb.parse_bool(s)
    if b == nil then M.usage_error("parameter '%s' must be 0 or 1, not '%s'", p.name, s) end
    return b
  end,
  size = function(p, s)
    local ok = pcall(prep.bytes, s)
    if not ok then
      M.usage_error("parameter '%s' must be a size like 16m or 5G, not '%s'", p.name, s)
    end
    return s
  end,
  time = function(p, s)
    local ok = pcall(stop.seconds, s, 1)
    if not ok then
      M.usage_error("parameter '%s' must be a duration like 500ms or 60s, not '%s'", p.name, s)
    end
    return s
  end,
  ints = function(p, s)
    local out = {}
    for i, w in ipairs(split(s)) do out[i] = to_int(p, w) end
    if #out == 0 then M.usage_error("parameter '%s' needs at least one value", p.name) end
    return out
  end,
  list = function(p, s)
    local out = split(s)
    for _, w in ipairs(out) do check_choice(p, w) end
    if #out == 0 then M.usage_error("parameter '%s' needs at least one value", p.name) end
    return out
  end,
}

-- The entries of a spec in display order.
local function entries(spec)
  local list, keyed = {}, {}
  for _, e in ipairs(spec) do
    local p = {}
    for k, v in pairs(e) do p[k] = v end
    p.name = e[1]
    list[#list + 1] = p
  end
  for k, e in pairs(spec) do
    if type(k) == "string" then
      local p = {}
      for kk, v in pairs(e) do p[kk] = v end
      p.name = k
      keyed[#keyed + 1] = p
    end
  end
  table.sort(keyed, function(a, b) return a.name < b.name end)
  for _, p in ipairs(keyed) do list[#list + 1] = p end
  for _, p in ipairs(list) do
    p.type = p.type or "string"
    if not PARSE[p.type] then error("script.params: unknown type '" .. p.type .. "'", 3) end
  end
  for _, p in ipairs(list) do
    if p.name == "dir" then
      list[#list + 1] = {name = "mkdir", type = "bool", default = false,
                         help = "create dir= with its missing parents (else its parent must exist)"}
      break
    end
  end
  list[#list + 1] = {name = "help", type = "bool", help = "print these parameters and exit"}
  return list
end

local function shown_default(p)
  if p.shown then return p.shown end
  local d = p.default
  if d == nil then return nil end
  if type(d) == "table" then
    local s = {}
    for i, v in ipairs(d) do s[i] = tostring(v) end
    return table.concat(s, ",")
  end
  if type(d) == "boolean" then return d and "1" or "0" end
  return tostring(d)
end

-- head followed by text, wrapped at width with lines indented under it.
local function wrap(head, text, width)
  local lines, line = {}, head
  local indent = string.rep(" ", #head)
  for word in text:gmatch("%S+") do
    if #line + #word + 1 > width and line ~= head and line ~= indent then
      lines[#lines + 1] = line
      line = indent .. word
    elseif line == head or line == indent then
      line = line .. word
    else
      line = line .. " " .. word
    end
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

function M.help_text(list, o)
  local name = M.script_name or M.name()
  local out = {o.usage or ("usage: luabench scripts/" .. name .. " [key=value ...]")}
  if o.about then out[#out + 1] = "\n" .. wrap("", o.about, 79) end
  out[#out + 1] = "\nparameters (key=value):"
  local w = 0
  for _, p in ipairs(list) do w = math.max(w, #p.name) end
  for _, p in ipairs(list) do
    local d = shown_default(p)
    local ch = p.choices and (" (" .. table.concat(p.choices, "|") .. ")") or ""
    local text = (p.help or "") .. ch .. (d and (" [" .. d .. "]") or "")
    out[#out + 1] = wrap(string.format("  %-" .. w .. "s  ", p.name), text, 79)
  end
  return table.concat(out, "\n")
end

--[[ script.params(spec [, {about=, usage=, name=}]) -> values, given.
See the top of this file. ]]
function M.params(spec, o)
  o = o or {}
  M.script_name = o.name or M.script_name or M.name()
  local list = entries(spec)
  local by, known = {}, {}
  for _, p in ipairs(list) do by[p.name] = p; known[#known + 1] = p.name end
  local given_args = args or {}
  local names = {}
  for k in pairs(given_args) do
    if type(k) == "string" then names[#names + 1] = k end
  end
  table.sort(names)
  for k, v in pairs(given_args) do
    if math.type(k) == "integer" then
      M.usage_error("unexpected argument '%s' (parameters are key=value; known: %s)", v,
                    table.concat(known, ", "))
    end
  end
  for _, k in ipairs(names) do
    if not by[k] then
      M.usage_error("unknown parameter '%s' (known: %s)", k, table.concat(known, ", "))
    end
  end
  if given_args.help and lb.parse_bool(tostring(given_args.help)) ~= false then
    print(M.help_text(list, o))
    io.stdout:flush()
    os.exit(0, true)
  end
  local values, given = {}, {}
  for _, p in ipairs(list) do
    local s = given_args[p.name]
    if s ~= nil then
      values[p.name], given[p.name] = PARSE[p.type](p, tostring(s)), true
    elseif type(p.default) == "string" and p.type ~= "string" then
      values[p.name] = PARSE[p.type](p, p.default)
    else
      values[p.name] = p.default
    end
  end
  values.help = nil
  if values.dir then M.check_dir(values.dir, values.mkdir) end
  return values, given
end

-- Concatenates spec arrays (a script's own entries and shared ones).
function M.spec(...)
  local out = {}
  for _, part in ipairs({...}) do
    for _, e in ipairs(part) do out[#out + 1] = e end
  end
  return out
end

--[[ script.main(fn, ...) -> exit code: runs fn; a failure prints one line,
"luabench: NAME: message", and returns 1 (the host's exit status when the
script returns it); bad options lb.run refused go on to the host, which
exits 2.  Under MPI with several ranks, and with
LUABENCH_TRACEBACK set, the error goes on to the host (which ends every
rank, or prints the traceback). ]]
function M.main(fn, ...)
  if (lb.size or 1) > 1 or os.getenv("LUABENCH_TRACEBACK") then return fn(...) or 0 end
  local ok, err = pcall(fn, ...)
  if ok then return err or 0 end
  -- Bad options lb.run refused: the host prints them and exits 2.
  local usage = debug.getregistry()["luabench.usage"]
  if type(usage) == "string" and tostring(err):find(usage, 1, true) then error(err, 0) end
  local msg = tostring(err):gsub("^[^\n:]*%.lua:%d+: ", "")
  io.stderr:write(prefix() .. msg .. "\n")
  return 1
end

-- ---------------------------------------------------------------- files

local function quote(s) return "'" .. s:gsub("'", "'\\''") .. "'" end

-- The directory part of a path ("." for a bare name).
function M.dirname(p) return p:match("^(.*)/[^/]*$") or "." end

--[[ script.check_out(prefix): bad input (exit 2) when the directory the
files of out=PREFIX go to does not exist; nothing when prefix is nil. ]]
function M.check_out(prefix)
  if prefix and not (lb.stat(M.dirname(prefix)) or {}).type then
    M.usage_error("out: directory %s does not exist", M.dirname(prefix))
  end
end

--[[ script.check_dir(dir, mkdir): bad input (exit 2) when dir is missing
and so is its parent, unless mkdir (then it is created with its parents): a
mistyped mount point must not send the data to whatever disk lies under
it.  A missing dir whose parent exists is left to the script to create. ]]
function M.check_dir(dir, mkdir)
  local st = lb.stat(dir)
  if st then
    if st.type ~= "directory" then M.usage_error("dir: %s is not a directory", dir) end
    return
  end
  if mkdir then
    local ok, msg = lb.mkdir(dir)
    if not ok then M.usage_error("dir: %s", msg) end
    return
  end
  local parent = M.dirname((dir:gsub("/+$", "")))
  if not lb.stat(parent) then
    M.usage_error("dir: %s does not exist, nor does its parent %s (a mistyped mount point? " ..
                  "mkdir=1 creates it)", dir, parent)
  end
end

-- A fresh directory under base (default: the current directory), as an
-- absolute path: base/luabench-NAME.XXXXXX.
function M.tempdir(name, base)
  local pattern = string.format("luabench-%s.XXXXXX", name or "data")
  local p = io.popen("cd " .. quote(base or ".") .. " && mktemp -d \"$(pwd -P)\"/" ..
                     quote(pattern) .. " 2>&1", "r")
  local dir = p and p:read("l")
  local ok = p and p:close()
  if not ok or not dir or dir == "" then
    error("cannot make a temporary directory " .. pattern .. ": " .. tostring(dir), 2)
  end
  return dir
end

local function list_dir(dir)
  local out = {}
  local p = io.popen("ls -A " .. quote(dir) .. " 2>/dev/null", "r")
  if not p then return out end
  for line in p:lines() do out[#out + 1] = dir .. "/" .. line end
  p:close()
  return out
end

--[[ script.cleanup{dir=, paths=, rmdir=true}: removes the files luabench
created (paths, or every entry of dir when paths is nil), then dir itself
when rmdir is not false and it is empty.  Files luabench did not create
stay.  Returns nil or a note of what was left. ]]
function M.cleanup(o)
  local left = {}
  for _, p in ipairs(o.paths or list_dir(o.dir)) do
    local ok, msg = lb.remove(p)
    if not ok then left[#left + 1] = msg end
  end
  if o.dir and o.rmdir ~= false and not os.remove(o.dir) then
    return string.format("%s left in place%s", o.dir,
                         #left > 0 and (": " .. table.concat(left, "; ")) or " (not empty)")
  end
  if #left > 0 then return table.concat(left, "; ") end
  return nil
end

-- ---------------------------------------------------------------- journal

-- The parameters every sweeping script takes for its journal.
M.JOURNAL_PARAMS = {
  {"resume", help = "the journal of an interrupted run (named in its first line): run only " ..
                    "the points it lacks, with the same parameters"},
  {"on_error", default = "stop", choices = {"stop", "skip"},
   help = "a failing point: stop there (keeping the points before it) or skip it and go on"},
}

-- Parameters that do not change what is measured: a resume may differ.
local NOT_DEFINING = {resume = true, out = true, on_error = true, keep = true, help = true,
                      baseline = true, unit = true}

--[[ script.journal(P [, name] [, free]) -> journal: the luabench.journal every
point of the script goes to -- P.resume when given (its parameters checked
against P: a changed one is bad input, exit 2), else a new PREFIX.journal.jsonl
beside out=PREFIX, else NAME.journal.jsonl in the working directory (made
free with .1, .2 ... when taken).  The first line the script prints names
it.  Only rank 0 writes; under --readonly there is none (a note says so).
free: a set of the script's parameter names that may differ on resume
(they change no number). ]]
function M.journal(P, name, free)
  name = name or (M.script_name or M.name()):gsub("%.lua$", "")
  local define = {}
  for k, v in pairs(P) do
    if not NOT_DEFINING[k] and not (free and free[k]) then define[k] = journal.show(v) end
  end
  if lb.readonly and not P.resume then
    M.note("--readonly: no journal is kept")
    return nil
  end
  local path = P.out and (P.out .. ".journal.jsonl") or (name .. ".journal.jsonl")
  local J
  if M.rank0() or P.resume then
    J = journal.open{path = path, resume = P.resume, define = define,
                     what = M.script_name or M.name(), usage = M.usage_error,
                     write = M.rank0()}
  end
  if M.rank0() and J then
    print(string.format("journal: %s%s", J.path,
                        P.resume and string.format(" (resumed: %d points kept)", J.held) or ""))
    io.stdout:flush()
  end
  return J
end

-- ---------------------------------------------------------------- engines

local function engine_info(name)
  for _, e in ipairs(lb.engines()) do
    if e.name == name then return e end
  end
end

--[[ script.engine(name) -> name to use, note|nil: io_uring falls back to
libaio (and libaio to psync) when lb.engines() says it is not supported
here; any other engine is used as given.  An unknown name is bad input
(exit 2). ]]
function M.engine(name)
  if not engine_info(name) then
    local names = {}
    for _, e in ipairs(lb.engines()) do names[#names + 1] = e.name end
    M.usage_error("parameter 'engine': unknown engine '%s' (engines: %s)", tostring(name),
                  table.concat(names, ", "))
  end
  local chain = {io_uring = "libaio", libaio = "psync"}
  local note
  while chain[name] do
    local e = engine_info(name)
    if not e or e.supported then break end
    local next_ = chain[name]
    note = string.format("%s is not supported here (%s); using %s", name,
                         e.why or "no reason given", next_)
    name = next_
  end
  return name, note
end

-- ---------------------------------------------------------------- cache

-- The cache parameters of the guide's procedure, for script.params.
M.CACHE_PARAMS = cache.PARAMS

--[[ script.cache_state(P, files [, {direct=}]): cache.state, whose notes
and warning script.note and script.warn say. ]]
function M.cache_state(P, files, o)
  return cache.state(P, files, {direct = o and o.direct, note = M.note, warn = M.warn})
end

return M
