--[[
luabench.report: turns results and sweeps into text, tables, Markdown, CSV,
JSON, SVG charts (a sweep's lines; one run's latency over time and
latency histogram: report.timeline, report.histogram) and HTML pages.  Pure Lua over the result tables lb.run
returns; it measures nothing and never runs I/O.

Everything starts from report.table(x), which any formatter (yours too) can
use.  x is one lb.run result, an array of results, a sweep (sweep.run's
return), an array of plain rows ({rw=, numjobs=, bw=...}) or a table that
already has columns and rows.  Rows hold raw
numbers: bandwidth in bytes/s, latencies in ns, CPU in percent.

  columns = { {key=, title=, unit=}, ... }     -- in display order
  rows    = { {numjobs=4, iops=..., bw=..., p99=..., ...}, ... }

Metric keys: iops, bw (B/s), p50, p99, p99.9, lat_mean (ns, completion
latency, directions merged), usr_cpu, sys_cpu (%), cpu_per_gbps (CPU % per
GB/s of bandwidth), errors, stopped_by; a sweep adds its parameters first,
spread_bw / spread_p99 (relative max-min of the repeats) and mark ("knee",
"peak").

report.json's schema ("luabench.report/1"):
  { schema = "luabench.report/1", kind = "result" | "results" | "sweep" | "rows" | "table",
    version, time (UTC, ISO 8601), host = {hostname, cpus, physical_cores},
    columns, rows (as above), knee = params|absent, peak = params|absent,
    stopped_by = string|absent, partial = true|absent, reason = why it is partial,
    params = the sweep's parameters, base = its base spec,
    environment = {luabench, commit, kernel, cpu, clock, hostname, cpus, dir,
                   fs = {mount, type, source, options}} (where the runs ran),
    points = {{params, names, label, values, repeats = {values...},
               intervals = {iops = {...}, bw =, p50 =, p99 =}}...} (what
               luabench compare reads: each repeat's values and the
               representative run's per-interval samples; hooks: the
               cache hooks run before the point),
    results = raw result tables (opts.full) }

A partial report -- a sweep cut short by a signal or a failing point, a run
stopped by a signal, a table with partial = reason -- says so in every
format: a last line "partial results: REASON" (text, Markdown, HTML), the
chart's title, a "partial" column holding the reason (CSV), partial and
reason (JSON).

Units: opts.unit picks "MiB/s" (default), "MB/s", "GiB/s", "GB/s", "KiB/s"
or "kB/s" for bandwidth in text, Markdown, CSV, SVG and HTML.
]]
local metrics = require "luabench.metric"
local tbl = require "luabench.report.table"
local text = require "luabench.report.text"
local svg = require "luabench.report.svg"
local latency = require "luabench.report.latency"

local M = {}

-- The formats, and metric's helpers for scripts that know them as report's.
for _, k in ipairs({"num", "fmt_iops", "fmt_bw", "fmt_ns", "fmt_s", "fmt_bytes", "fmt_metric",
                    "check_metric", "clat_hist", "metric", "values"}) do
  M[k] = metrics[k]
end
M.table, M.partial = tbl.table, tbl.partial
M.text, M.text_table, M.markdown = text.text, text.text_table, text.markdown
M.svg, M.subtitle = svg.svg, svg.subtitle
M.timeline, M.histogram = latency.timeline, latency.histogram

--[[ report.html(x [, opts]): the page of report.svg.html; for one
result the chart is its latency over time and its latency histogram. ]]
function M.html(x, opts)
  opts = opts or {}
  if opts.chart == nil and tbl.check_kind(x, 2) == "result" then
    local o = {}
    for k, v in pairs(opts) do o[k] = v end
    local charts = {latency.timeline(x, {subtitle = opts.subtitle, log = opts.log}),
                    latency.histogram(x, {subtitle = opts.subtitle, latency = opts.latency})}
    for i, c in ipairs(charts) do charts[i] = c:gsub("^<%?xml[^\n]*\n", "") end
    o.chart = table.concat(charts)
    opts = o
  end
  return svg.html(x, opts)
end

local UNITS = metrics.UNITS
local check_kind = tbl.check_kind

-- ---------------------------------------------------------------- csv

local function csv_field(v)
  if v == nil then return "" end
  local s = type(v) == "number" and (v == math.floor(v) and v < 2^53 and v > -2^53
            and string.format("%d", v) or string.format("%.10g", v)) or tostring(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- A CSV header's unit suffix and the divisor of a column's raw values.
local function csv_unit(c, unit)
  if c.key == "bw" then return "_" .. unit:gsub("/s$", "ps"), UNITS[unit] end
  if c.unit == "ns" then return "_us", 1e3 end
  if c.unit == "%" then return "_pct", 1 end
  return "", 1
end

--[[ report.csv(x [, opts]): RFC 4180, every column of report.table, a
header of column keys with their unit (iops, bw_MiBps, p50_us, p99_us,
lat_mean_us, usr_cpu_pct, ...), then numbers in those units: bandwidth in
opts.unit (MiB/s by default; "MB/s" gives bw_MBps), latencies in
microseconds.  opts.raw = true: bare keys, bw in B/s, latencies in ns. ]]
function M.csv(x, opts)
  opts = opts or {}
  check_kind(x, 2)
  local t = tbl.table(x, opts)
  local unit = opts.unit or "MiB/s"
  if not UNITS[unit] then error("unknown unit '" .. tostring(unit) .. "'", 2) end
  local head, divs = {}, {}
  for j, c in ipairs(t.columns) do
    local suffix, div = csv_unit(c, unit)
    if opts.raw then suffix, div = "", 1 end
    head[j], divs[j] = csv_field(c.key .. suffix), div
  end
  local why = tbl.partial(t)
  if why then head[#head + 1] = "partial" end
  local lines = {table.concat(head, ",")}
  for _, r in ipairs(t.rows) do
    local cs = {}
    for j, c in ipairs(t.columns) do
      local v = r[c.key]
      if type(v) == "number" and divs[j] ~= 1 then v = v / divs[j] end
      cs[j] = csv_field(v)
    end
    if why then cs[#cs + 1] = csv_field(why) end
    lines[#lines + 1] = table.concat(cs, ",")
  end
  return table.concat(lines, "\r\n") .. "\r\n"
end

-- ---------------------------------------------------------------- json

local ARRAY = {__jsontype = "array"}

function M.json(x, opts)
  opts = opts or {}
  local k = check_kind(x, 2)
  local t = tbl.table(x, opts)
  local doc = {
    schema = "luabench.report/1", kind = k, version = lb.version,
    time = os.date("!%Y-%m-%dT%H:%M:%SZ"), host = tbl.host_info(),
    columns = setmetatable(table.move(t.columns, 1, #t.columns, 1, {}), ARRAY),
    rows = setmetatable(table.move(t.rows, 1, #t.rows, 1, {}), ARRAY),
  }
  if k == "result" or k == "results" or k == "sweep" then
    doc.points = setmetatable(require("luabench.compare").points(x), ARRAY)
    doc.environment = tbl.environment(x)
  end
  if t.partial then doc.partial, doc.reason = true, t.partial end
  if k == "sweep" then
    for i, p in ipairs(x.points) do
      doc.points[i].hooks = p.hooks and #p.hooks > 0 and p.hooks or nil
    end
    doc.base = x.base
  end
  if k == "sweep" then
    doc.params = setmetatable(table.move(x.params or {}, 1, #(x.params or {}), 1, {}), ARRAY)
    doc.knee = x.knee and x.knee.params
    doc.peak = x.peak and x.peak.params
    doc.stopped_by = x.stopped_by
  elseif k == "result" then
    doc.stopped_by = x.stopped_by
  end
  if opts.full then
    local list = k == "result" and {x} or k == "results" and x or {}
    if k == "sweep" then for i, p in ipairs(x.points) do list[i] = p.result end end
    doc.results = setmetatable(list, ARRAY)
  end
  return lb.json(doc, opts.pretty)
end

-- ---------------------------------------------------------------- files

--[[ report.print(result [, opts]): report.text's summary on stdout, once
for a cluster (rank 0 prints); scripts know it as lb.report. ]]
function M.print(...)
  local r, opts = ...
  if type(r) ~= "table" then
    local mt = getmetatable(r)
    local got = type(mt) == "table" and type(rawget(mt, "__name")) == "string" and mt.__name
                or select("#", ...) == 0 and "no value" or type(r)
    error(string.format("bad argument #1 to 'report' (table expected, got %s)", got), 2)
  end
  check_kind(r)
  local s = M.text(r, opts)
  if lb and lb.rank and lb.rank ~= 0 then return end
  io.stdout:write(s)
  if #s > 0 and s:sub(-1) ~= "\n" then io.stdout:write("\n") end
  io.stdout:flush()
end

-- report.write(path, text): atomically (temporary file, fsync, rename);
-- raises on failure, returns path.
function M.write(path, text)
  assert(type(path) == "string", "report.write: path must be a string")
  assert(type(text) == "string", "report.write: text must be a string")
  local ok, msg = lb.write_atomic(path, text)
  if not ok then error("report.write: " .. msg, 2) end
  return path
end

return M
