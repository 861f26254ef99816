-- fio's read_iolog: a job that replays what an I/O log recorded.
--
-- fio's text logs, version 2 ("fio version 2 iolog": "file action" and
-- "file read|write|trim|sync|datasync offset length" lines) and version 3
-- (the same with a leading usec time, what write_iolog writes), are read
-- once on the main thread into flat lists; the job is then turned into a
-- generator job (lua/genlib.c) whose files are the log's files, in the
-- order the log adds them, each as large as the furthest byte the log
-- touches, rw what the log does (read, write or both), bs its longest I/O.
-- Every clone replays the whole log, in order, as fast as the engine goes:
-- the times of a version 3 log are not waited for (fio's replay_no_stall=1),
-- and a version 2 "wait" line is skipped.  blktrace files are not read.
-- write_iolog itself is lua/iolog.c's kind "iolog" (fio.logs.io_logs).

local P = require "luabench.fio.parse"

local I = {}

local DIRS = {read = 1, write = 2, trim = 3, sync = 4, datasync = 5}

local function where(job)
  local at = job._at and job._at.read_iolog
  local file, line = (at or ""):match("^(.*):(%d+)$")
  return {file = file or job._file, line = tonumber(line) or job._line, section = job._section}
end

-- Reads the log at path: {files = {name...}, dir, off, len, file (lists),
-- reads, writes, extent = {bytes per file}, max_len}; fails naming the line.
function I.read(path, w)
  local f, err = io.open(path, "r")
  if not f then P.fail(w, "read_iolog: cannot open " .. tostring(err)) end
  local head = f:read("l") or ""
  local ver = head:match("^fio version ([23]) iolog") and tonumber(head:match("^fio version (%d)"))
  if not ver then
    f:close()
    P.fail(w, "read_iolog: " .. path .. " is not a fio iolog of version 2 or 3 (first line '" ..
              head:sub(1, 40) .. "')")
  end
  local log = {files = {}, index = {}, dir = {}, off = {}, len = {}, file = {},
               reads = 0, writes = 0, extent = {}, max_len = 0, version = ver}
  local n, lineno = 0, 1
  for line in f:lines() do
    lineno = lineno + 1
    local words = {}
    for x in line:gmatch("%S+") do words[#words + 1] = x end
    if ver == 3 then table.remove(words, 1) end
    local name, act = words[1], words[2]
    local bad = function(why)
      f:close()
      P.fail(w, string.format("read_iolog: %s:%d: %s", path, lineno, why))
    end
    if #words == 0 then
      -- blank line
    elseif #words == 2 then
      if act == "add" then
        if not log.index[name] then
          log.files[#log.files + 1] = name
          log.index[name] = #log.files
          log.extent[#log.files] = 0
        end
      elseif act ~= "open" and act ~= "close" then
        bad("unknown file action '" .. tostring(act) .. "'")
      end
    elseif #words == 4 and act == "wait" and ver == 2 then
      -- fio waits here; a replay without stalls does not
    elseif #words == 4 and DIRS[act] then
      local fi = log.index[name]
      if not fi then bad("file '" .. name .. "' used before it is added") end
      local off, len = math.tointeger(tonumber(words[3])), math.tointeger(tonumber(words[4]))
      if not off or not len or off < 0 or len < 0 then bad("bad offset or length") end
      local d = DIRS[act]
      if d <= 3 and len == 0 then bad("a " .. act .. " of 0 bytes") end
      n = n + 1
      log.dir[n], log.off[n], log.len[n], log.file[n] = d, off, len, fi
      if d == 1 then log.reads = log.reads + 1 elseif d <= 3 then log.writes = log.writes + 1 end
      if d <= 3 then
        if off + len > log.extent[fi] then log.extent[fi] = off + len end
        if len > log.max_len then log.max_len = len end
      end
    else
      bad("expected 'file action' or 'file direction offset length'")
    end
  end
  f:close()
  if n == 0 then P.fail(w, "read_iolog: " .. path .. " holds no I/O") end
  return log
end

-- The generator that replays ctx.args (a log from I.read).
I.generator = {
  init = function(ctx) ctx.i = 1 end,
  next = function(ctx)
    local a, i = ctx.args, ctx.i
    local n = #a.dir
    if i > n then return nil end
    local last = i + ctx.batch - 1
    if last > n then last = n end
    for k = i, last do
      local d, fi = a.dir[k], a.file[k]
      if d == 1 then ctx.read(a.off[k], a.len[k], fi)
      elseif d == 2 then ctx.write(a.off[k], a.len[k], fi)
      elseif d == 3 then ctx.trim(a.off[k], a.len[k], fi)
      elseif d == 4 then ctx.fsync(fi)
      else ctx.fdatasync(fi) end
    end
    ctx.i = last + 1
    return true
  end,
}

local function escape(name) return (name:gsub(":", "\\:")) end

-- Rewrites spec s of job (fio.run.spec) into the replay of job.read_iolog.
function I.apply(job, s)
  local w = where(job)
  if job.write_iolog and job.write_iolog ~= "" then
    P.fail(w, "read_iolog and write_iolog cannot be used together")
  end
  local log = job._replay
  if not log then
    log = I.read(job.read_iolog, w)
    job._replay = log
  end
  local names, extent = {}, 0
  for i, name in ipairs(log.files) do
    names[i] = escape(name)
    if log.extent[i] > extent then extent = log.extent[i] end
  end
  s.filename = table.concat(names, ":")
  s.directory, s.filename_format, s.nrfiles = nil, nil, nil
  s.size = tostring(math.max(extent, 1) * #log.files)
  s.offset, s.io_size, s.time_based, s.loops = nil, nil, nil, nil
  s.rw = log.writes == 0 and "read" or log.reads == 0 and "write" or "rw"
  s.rwmixread = nil
  s.bs = tostring(math.max(log.max_len, 512))
  s.bsrange, s.bssplit = nil, nil
  s.generator = I.generator
  s.generator_args = {dir = log.dir, off = log.off, len = log.len, file = log.file}
  return s
end

return I
