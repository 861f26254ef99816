--[[
luabench.prep: lays out the test files a benchmark reads -- one big file,
a set of files for a colon-separated filename=, or a tree of many small
ones -- through the core (rw=write, bs=1M, psync by default, many files at
once), so laying out is as parallel as the benchmark.

  prep.file{path=, size=}                                -> file set
  prep.files{dir=, count=20, size="5G", name="file%02d"} -> file set
  prep.tree{dir=, files=1000, size="4k", fanout=64}      -> file set

  file set = {paths = {...}, colon = "a:b:c", dir =, size = bytes per file,
              count =, created =, reused =}

Idempotent: a file that already has the right size is reused as it is (its
mtime does not change).  Every other file is written by the core, which
refuses to overwrite files it did not create unless --allow-overwrite was
given.  Options for all three: engine ("psync"), bs ("1M"), parallel (files
written at once, 16), fsync (true: end_fsync so the data is on disk before a
cold-cache run).  A progress line goes to stderr when it is a terminal.
]]

local progress = require "luabench.progress"
local metrics = require "luabench.metric"

local M = {}

local SIZE_UNITS = {[""] = 1, k = 1, m = 2, g = 3, t = 4, p = 5}

--[[ prep.bytes(v) -> integer bytes: a number, or a size with fio's
suffixes (k, m, g, t, p with optional b or ib; 1024-based). ]]
function M.bytes(v, level)
  level = (level or 1) + 1
  if math.type(v) == "integer" and v >= 0 then return v end
  if type(v) == "number" and v >= 0 then return math.floor(v) end
  if type(v) ~= "string" then error("expected a size like '4k' or '5G', got a " .. type(v), level) end
  local n, u = v:lower():match("^%s*(%d*%.?%d+)%s*([kmgtp]?)i?b?%s*$")
  n = tonumber(n)
  if n == nil then error(string.format("bad size '%s' (use fio's units: 4k, 1M, 5G)", v), level) end
  return math.floor(n * 1024 ^ SIZE_UNITS[u])
end

-- fio's filename= list: paths joined by ':', a ':' inside a path as "\:".
function M.colon(paths)
  local out = {}
  for i, p in ipairs(paths) do out[i] = p:gsub(":", "\\:") end
  return table.concat(out, ":")
end

local function size_of(path)
  if lb.stat then
    local st = lb.stat(path)
    return st and st.type == "file" and st.size or nil
  end
  local f = io.open(path, "rb")
  if not f then return nil end
  local n = f:seek("end")
  f:close()
  return n
end

local function dirname(p)
  return p:match("^(.*)/[^/]*$") or "."
end

local function mkdirs(paths)
  local seen = {}
  for _, p in ipairs(paths) do
    local d = dirname(p)
    if not seen[d] and d ~= "" then
      seen[d] = true
      local ok, msg = lb.mkdir(d)
      if not ok then error("prep: " .. msg, 4) end
    end
  end
end

-- One block for a small file, else the largest block size up to bs that
-- divides size (the core writes whole blocks); nil when none of 512+ does.
local function block_for(size, bs)
  if size <= bs then return size end
  while bs > 512 and size % bs ~= 0 do bs = bs // 2 end
  return size % bs == 0 and bs or nil
end

local function write_batch(batch, size, o, line, done_before)
  local jobs = {}
  for i, p in ipairs(batch) do
    jobs[i] = {name = "prep", filename = p, size = size}
  end
  local spec = {name = "prep", jobs = jobs, rw = "write", ioengine = o.engine or "psync",
                bs = block_for(size, M.bytes(o.bs or "1M", 4)), numjobs = 1,
                end_fsync = o.fsync ~= false}
  if line.on then
    spec.stop = function(iv)
      local w = iv.total and iv.total.write and iv.total.write.bytes or 0
      line.label = string.format("prep: %s of %s written", metrics.fmt_bytes(done_before + w),
                                 metrics.fmt_bytes(line.total_bytes))
      line:update(nil)
      return false
    end
  end
  -- a lay-out is this rank's own (the ranks lay out in turn): no
  -- collectives with ranks that are not running it
  local ok, err = pcall(lb.solo or function(f, ...) return f(...) end, progress.own_run, spec)
  if not ok then
    error("prep: " .. tostring(err):gsub("^[^:\n]*:%d+: ", ""), 4)
  end
end

local function write_empty(p)
  local f, err = io.open(p, "ab")
  if not f then error("prep: " .. err, 4) end
  f:close()
end

--[[ Lays out paths (all of size bytes) and returns the file set. ]]
local function layout(paths, size, o, dir)
  if size > 0 and not block_for(size, M.bytes(o.bs or "1M", 3)) then
    error(string.format("prep: size %d is above bs and not a multiple of 512 bytes", size), 3)
  end
  local todo, reused = {}, 0
  for _, p in ipairs(paths) do
    if size_of(p) == size then reused = reused + 1 else todo[#todo + 1] = p end
  end
  if #todo > 0 and lb.readonly then
    error("prep: --readonly was given, but " .. todo[1] .. " must be written", 3)
  end
  mkdirs(todo)
  local line = progress.new{label = string.format("prep: %d file(s) of %s", #todo, metrics.fmt_bytes(size))}
  line.total_bytes = #todo * size
  local _ <close> = setmetatable({}, {__close = function() line:clear() end})
  local par = o.parallel or 16
  for i = 1, #todo, par do
    local batch = table.move(todo, i, math.min(i + par - 1, #todo), 1, {})
    if size == 0 then
      for _, p in ipairs(batch) do write_empty(p) end
    else
      write_batch(batch, size, o, line, (i - 1) * size)
    end
  end
  for _, p in ipairs(todo) do
    local got = size_of(p)
    if got ~= size then
      error(string.format("prep: %s has %s bytes after writing, wanted %d%s", p, tostring(got),
                          size, (got or 0) > size and " (it was larger: remove it first)" or ""), 3)
    end
  end
  return {paths = paths, colon = M.colon(paths), dir = dir or dirname(paths[1]), size = size,
          count = #paths, created = #todo, reused = reused}
end

local function need(o, key, who)
  if o[key] == nil then error(who .. ": '" .. key .. "' is required", 3) end
  return o[key]
end

function M.file(o)
  assert(type(o) == "table", "prep.file expects a table")
  local path = need(o, "path", "prep.file")
  return layout({path}, M.bytes(need(o, "size", "prep.file"), 2), o)
end

function M.files(o)
  assert(type(o) == "table", "prep.files expects a table")
  local dir = need(o, "dir", "prep.files"):gsub("/+$", "")
  local count = o.count or 20
  local fmt = o.name or "file%02d"
  local paths = {}
  for i = 0, count - 1 do paths[#paths + 1] = dir .. "/" .. string.format(fmt, i) end
  return layout(paths, M.bytes(o.size or "5G", 2), o, dir)
end

--[[ prep.tree: `files` files spread over nested directories holding at
most `fanout` entries each: dir/d03/d17/f000123. ]]
function M.tree(o)
  assert(type(o) == "table", "prep.tree expects a table")
  local dir = need(o, "dir", "prep.tree"):gsub("/+$", "")
  local n = need(o, "files", "prep.tree")
  local fanout = o.fanout or 64
  assert(fanout >= 2, "prep.tree: fanout must be at least 2")
  local levels, cap = 0, fanout
  while cap < n do levels, cap = levels + 1, cap * fanout end
  local dw, fw = #tostring(fanout - 1), #tostring(math.max(n - 1, 0))
  local paths = {}
  for i = 0, n - 1 do
    local parts, q = {}, i // fanout
    for _ = 1, levels do
      table.insert(parts, 1, string.format("d%0" .. dw .. "d", q % fanout))
      q = q // fanout
    end
    parts[#parts + 1] = string.format("f%0" .. fw .. "d", i)
    paths[#paths + 1] = dir .. "/" .. table.concat(parts, "/")
  end
  return layout(paths, M.bytes(o.size or "4k", 2), o, dir)
end

return M
