--[[
luabench.report.table: the rows and columns that every report format
starts from (report.table), what a report can show (a result, a list of
results, a sweep, plain rows, a table), a cell as text, and the host a
report names.  The formats live beside it: report.text (text, Markdown),
report.svg (SVG, HTML); report gathers them.
]]

local metrics = require "luabench.metric"

local M = {}

local METRIC_COLS = {
  {key = "iops", title = "IOPS", unit = "1/s"},
  {key = "bw", title = "BW", unit = "B/s"},
  {key = "p50", title = "lat p50", unit = "ns"},
  {key = "p99", title = "lat p99", unit = "ns"},
  {key = "p99.9", title = "lat p99.9", unit = "ns"},
  {key = "lat_mean", title = "lat mean", unit = "ns"},
  {key = "usr_cpu", title = "usr CPU", unit = "%"},
  {key = "sys_cpu", title = "sys CPU", unit = "%"},
  {key = "cpu_per_gbps", title = "CPU per GB/s", unit = "%"},
  {key = "errors", title = "errors", unit = ""},
  {key = "stopped_by", title = "stopped by", unit = ""},
}

local function kind_of(x)
  if type(x) ~= "table" then return nil end
  if x.columns and x.rows then return "table" end
  if x.points then return "sweep" end
  if x.read or x.write then return "result" end
  if type(x[1]) == "table" and (x[1].read or x[1].write) then return "results" end
  if type(x[1]) == "table" then return "rows" end
  return nil
end

-- Columns for plain rows: their other keys by name, then the metrics.
local function rows_table(rows)
  local metric, seen, names = {}, {}, {}
  for _, c in ipairs(METRIC_COLS) do metric[c.key] = c end
  for _, r in ipairs(rows) do
    for k in pairs(r) do
      if type(k) == "string" and not seen[k] and not metric[k] then
        seen[k] = true
        names[#names + 1] = k
      end
    end
  end
  table.sort(names)
  local cols = {}
  for _, k in ipairs(names) do cols[#cols + 1] = {key = k, title = k, unit = ""} end
  for _, c in ipairs(METRIC_COLS) do
    for _, r in ipairs(rows) do
      if r[c.key] ~= nil then
        cols[#cols + 1] = {key = c.key, title = c.title, unit = c.unit}
        break
      end
    end
  end
  return {columns = cols, rows = rows}
end

-- Raises for x that report cannot show, at the caller's level (none: no position).
function M.check_kind(x, level)
  local k = kind_of(x)
  if not k then
    error("report: expected an lb.run result, an array of results, a sweep, rows or a table",
          level and level + 1 or 0)
  end
  return k
end

-- The metric columns; latency = "clat" puts completion latency in the
-- latency columns (keys clat_p50..., titles "clat p50"...).
local function copy_cols(cols, latency)
  local out = {}
  for i, c in ipairs(cols) do
    out[i] = {key = c.key, title = c.title, unit = c.unit}
    if latency == "clat" and c.unit == "ns" then
      out[i].key, out[i].title = "clat_" .. c.key, c.title:gsub("^lat", "clat")
    end
  end
  return out
end

-- Raises unless latency is nil, "lat" or "clat".
function M.check_latency(latency, level)
  if latency ~= nil and latency ~= "lat" and latency ~= "clat" then
    error(string.format("report: latency must be 'lat' or 'clat', not '%s'", tostring(latency)),
          (level or 1) + 1)
  end
  return latency or "lat"
end

local SPEC_COLS = {"rw", "bs", "numjobs", "iodepth", "ioengine"}

local function results_table(list, ddir, latency)
  local cols = {{key = "name", title = "name", unit = ""}}
  local present = {}
  for _, r in ipairs(list) do
    for _, k in ipairs(SPEC_COLS) do
      if r.options and r.options[k] then present[k] = true end
    end
  end
  for _, k in ipairs(SPEC_COLS) do
    if present[k] then cols[#cols + 1] = {key = k, title = k, unit = ""} end
  end
  for _, c in ipairs(copy_cols(METRIC_COLS, latency)) do cols[#cols + 1] = c end
  local rows = {}
  for i, r in ipairs(list) do
    local row = metrics.values(r, ddir)
    row.name = r.label or r.jobname or ("run " .. i)
    for _, k in ipairs(SPEC_COLS) do
      if present[k] then row[k] = r.options[k] end
    end
    rows[i] = row
  end
  return {columns = cols, rows = rows}
end

local function marks(sw, p)
  local m = {}
  if sw.knee == p then m[#m + 1] = "knee" end
  for _, s in ipairs(sw.series or {}) do
    if s.knee == p and sw.knee ~= p then m[#m + 1] = "knee" end
  end
  if sw.peak == p then m[#m + 1] = "peak" end
  return table.concat(m, ",")
end

function M.sweep_table(sw, ddir, latency)
  local cols = {}
  for _, name in ipairs(sw.params or {}) do
    cols[#cols + 1] = {key = name, title = name, unit = ""}
  end
  for _, c in ipairs(copy_cols(METRIC_COLS, latency)) do cols[#cols + 1] = c end
  local repeated = false
  for _, p in ipairs(sw.points) do
    if p.repeats and #p.repeats > 1 then repeated = true end
  end
  if repeated then
    cols[#cols + 1] = {key = "spread_bw", title = "BW spread", unit = "ratio"}
    cols[#cols + 1] = {key = "spread_p99", title = "p99 spread", unit = "ratio"}
  end
  cols[#cols + 1] = {key = "mark", title = "", unit = ""}
  local rows = {}
  for i, p in ipairs(sw.points) do
    local row = metrics.values(p.result, ddir)
    for k, v in pairs(p.params) do row[k] = v end
    if repeated and p.spread then
      row.spread_bw, row.spread_p99 = p.spread.bw, p.spread.p99
    end
    row.mark = marks(sw, p)
    rows[i] = row
  end
  return {columns = cols, rows = rows}
end

--[[ report.partial(x) -> reason | nil: why x holds only part of what was
asked for -- a sweep cut short (its reason), a result or one of a list of
results stopped by a signal, a table with partial = true or a reason. ]]
function M.partial(x)
  if type(x) ~= "table" then return nil end
  if x.partial then
    return type(x.reason) == "string" and x.reason or
           type(x.partial) == "string" and x.partial or "partial results"
  end
  if kind_of(x) == "results" then
    for _, r in ipairs(x) do
      if type(r) == "table" and r.partial then return "a run was interrupted" end
    end
  end
  return nil
end

--[[ report.table(x [, opts]) -> {columns=, rows=, latency=, partial=reason|nil}.
opts.ddir = "read" | "write" | "trim" restricts the metrics to one
direction; opts.latency = "lat" (the default: total latency, as fio's lat)
or "clat" (completion latency) is what the latency columns show. ]]
function M.table(x, opts)
  opts = opts or {}
  local k = M.check_kind(x, 2)
  local latency = M.check_latency(opts.latency, 2)
  if k == "table" then return x end
  local t
  if k == "sweep" then t = M.sweep_table(x, opts.ddir, latency)
  elseif k == "result" then t = results_table({x}, opts.ddir, latency)
  elseif k == "rows" then t = rows_table(x)
  else t = results_table(x, opts.ddir, latency) end
  if k ~= "rows" then t.latency = latency end
  t.partial = M.partial(x)
  return t
end

-- The line every format adds to a partial report.
function M.partial_line(t)
  local why = M.partial(t)
  return why and ("partial results: " .. why) or nil
end

-- A cell as text: metrics by kind, bw in opts.unit.
function M.cell(col, v, unit)
  if v == nil or v == "" then return "" end
  local k = col.key
  if k == "bw" then return metrics.fmt_bw(v, unit) end
  if k == "iops" then return metrics.fmt_iops(v) end
  if col.unit == "ns" then return metrics.fmt_ns(v) end
  if col.unit == "%" then return metrics.num(v) .. "%" end
  if col.unit == "ratio" then return string.format("%.1f%%", v * 100) end
  if type(v) == "number" then return metrics.num(v) end
  return tostring(v)
end

-- Columns worth printing: those with at least one value in some row.
function M.used_columns(t)
  local out = {}
  for _, c in ipairs(t.columns) do
    for _, r in ipairs(t.rows) do
      local v = r[c.key]
      if v ~= nil and v ~= "" and not (c.key == "errors" and v == 0) then
        out[#out + 1] = c
        break
      end
    end
  end
  return out
end

-- The values of key in rows, each once, in their order.
function M.distinct(rows, key)
  local seen, out = {}, {}
  for _, r in ipairs(rows) do
    local v = r[key]
    if v ~= nil and not seen[tostring(v)] then
      seen[tostring(v)] = true
      out[#out + 1] = v
    end
  end
  return out
end

local function read_file(path)
  local f = io.open(path, "r")
  if not f then return nil end
  local s = f:read("a")
  f:close()
  return s
end

-- The mount holding path: {mount=, type=, source=, options=} from /proc/self/mounts.
function M.mount_of(path)
  local mounts = read_file("/proc/self/mounts")
  if not mounts or type(path) ~= "string" or path:sub(1, 1) ~= "/" then return nil end
  local best
  for src, dir, fstype, mopts in mounts:gmatch("(%S+) (%S+) (%S+) (%S+)[^\n]*") do
    dir = dir:gsub("\\040", " ")
    local under = dir == "/" or path == dir or path:sub(1, #dir + 1) == dir .. "/"
    if under and (not best or #dir >= #best.mount) then
      best = {mount = dir, type = fstype, source = src, options = mopts}
    end
  end
  return best
end

-- The directory a run's files are in: its directory, its filename's, else the working one.
local function run_dir(r)
  local o = type(r) == "table" and r.options or {}
  local d = o.directory or (type(o.filename) == "string" and o.filename:match("^(.*)/[^/]*$"))
  d = type(d) == "string" and d:match("^[^:]+") or nil
  local cwd = os.getenv("PWD")
  if d and d:sub(1, 1) ~= "/" and cwd then d = cwd .. "/" .. d end
  return d or cwd
end

--[[ What a report says about where it ran: luabench's version, the
kernel, the CPU, the clock, the host, and the file system of the runs'
directory (its mount point, type, device, options). ]]
function M.environment(x)
  local first = type(x) == "table" and (x.points and x.points[1] and x.points[1].result or
                                         (x.read or x.write) and x or x[1]) or nil
  local cpuinfo = read_file("/proc/cpuinfo") or ""
  local dir = run_dir(first)
  return {
    luabench = lb.version, commit = lb.commit,
    kernel = (read_file("/proc/sys/kernel/osrelease") or ""):match("^%s*(.-)%s*$"),
    cpu = cpuinfo:match("model name%s*:%s*([^\n]+)"), clock = lb.clock and lb.clock() or nil,
    hostname = lb.hostname and lb.hostname() or nil, cpus = lb.cpus and lb.cpus() or nil,
    dir = dir, fs = dir and M.mount_of(dir) or nil,
  }
end

-- What a report says about the host it ran on.
function M.host_info()
  return {hostname = lb.hostname and lb.hostname() or nil,
          cpus = lb.cpus and lb.cpus() or nil,
          physical_cores = lb.physical_cores and lb.physical_cores() or nil}
end

return M
