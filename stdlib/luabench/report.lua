--[[
luabench.report: turns results and sweeps into text, tables, Markdown, CSV,
JSON, SVG charts and HTML pages.  Pure Lua over the result tables lb.run
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
    stopped_by = string|absent, results = raw result tables (opts.full) }

Units: opts.unit picks "MiB/s" (default), "MB/s", "GiB/s", "GB/s", "KiB/s"
or "kB/s" for bandwidth in text, Markdown, CSV, SVG and HTML.
]]

local M = {}

local DIRS = {"read", "write", "trim"}

local UNITS = {
  ["KiB/s"] = 1024, ["MiB/s"] = 1024 ^ 2, ["GiB/s"] = 1024 ^ 3,
  ["kB/s"] = 1e3, ["MB/s"] = 1e6, ["GB/s"] = 1e9,
}

-- ---------------------------------------------------------------- numbers

-- Three significant digits without exponents: 9056, 48.1, 2.34, 0.123.
function M.num(v)
  if v == nil or v ~= v then return "-" end
  local a = math.abs(v)
  if a >= 99.95 or a == math.floor(a) and a < 1e15 then return string.format("%.0f", v) end
  if a >= 9.995 then return string.format("%.1f", v) end
  if a >= 0.9995 then return string.format("%.2f", v) end
  return string.format("%.3f", v)
end

-- fio's IOPS style: 950, 2.3k, 55.9k, 253k, 1.2M.
function M.fmt_iops(v)
  if v == nil then return "-" end
  if v >= 1e6 then return M.num(v / 1e6) .. "M" end
  if v >= 1e3 then
    local k = v / 1e3
    return (k >= 99.95 and string.format("%.0f", k) or string.format("%.1f", k)) .. "k"
  end
  return string.format("%.0f", v)
end

function M.fmt_bw(bytes_per_s, unit)
  unit = unit or "MiB/s"
  local div = UNITS[unit] or error("unknown bandwidth unit '" .. tostring(unit) .. "'", 2)
  if bytes_per_s == nil then return "-" end
  return M.num(bytes_per_s / div) .. " " .. unit
end

function M.fmt_ns(ns)
  if ns == nil then return "-" end
  if ns < 1e3 then return string.format("%.0fns", ns) end
  if ns < 1e6 then return M.num(ns / 1e3) .. "us" end
  if ns < 1e9 then return M.num(ns / 1e6) .. "ms" end
  return M.num(ns / 1e9) .. "s"
end

-- Seconds as fio writes durations: 250ms, 10s, 1.5s, 2m30s, 1h5m.
function M.fmt_s(s)
  if s == nil then return "-" end
  if s < 1 then return string.format("%.0fms", s * 1000) end
  if s < 60 then return M.num(s) .. "s" end
  if s < 3600 then
    local m = math.floor(s / 60)
    local r = math.floor(s - m * 60 + 0.5)
    return r > 0 and string.format("%dm%ds", m, r) or string.format("%dm", m)
  end
  local h = math.floor(s / 3600)
  return string.format("%dh%dm", h, math.floor((s - h * 3600) / 60 + 0.5))
end

function M.fmt_bytes(b)
  local units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
  local i = 1
  while b >= 1024 and i < #units do b = b / 1024; i = i + 1 end
  return M.num(b) .. units[i]
end

-- Metric values are formatted by kind: throughput, latency or plain.
function M.fmt_metric(name, v, unit)
  if name == "bw" then return M.fmt_bw(v, unit) end
  if name == "iops" then return M.fmt_iops(v) end
  if name == "lat_mean" or (type(name) == "string" and name:match("^p%d")) then
    return M.fmt_ns(v)
  end
  return M.num(v)
end

-- ---------------------------------------------------------------- metrics

local function percentile_of(name)
  local p = type(name) == "string" and tonumber(name:match("^p(%d+%.?%d*)$"))
  if p and p > 0 and p <= 100 then return p end
end

local function known_metric(name)
  return name == "bw" or name == "iops" or name == "lat_mean" or percentile_of(name) ~= nil
end

-- Raises for a metric name that is not one of bw, iops, lat_mean, pNN.
function M.check_metric(name, level)
  if not known_metric(name) then
    error(string.format("unknown metric '%s' (use bw, iops, lat_mean, p50, p99, p99.9...)",
                        tostring(name)), (level or 1) + 1)
  end
  return name
end

local function parts(t, ddir)
  if ddir then return {t[ddir]} end
  local out = {}
  for _, d in ipairs(DIRS) do
    if type(t[d]) == "table" then out[#out + 1] = t[d] end
  end
  return out
end

local function has_ios(part)
  local h = part.clat_hist
  return h ~= nil and h:count() > 0
end

-- The completion-latency histogram of the directions that did I/O, merged.
function M.clat_hist(t, ddir)
  local with = {}
  for _, p in ipairs(parts(t, ddir)) do
    if has_ios(p) then with[#with + 1] = p.clat_hist end
  end
  if #with <= 1 then return with[1] end
  local h = lb.hist()
  for _, x in ipairs(with) do h:merge(x) end
  return h
end

--[[ One metric of anything with read/write/trim parts: an lb.run result,
an interval, or a stop callback's running total.  bw is bytes/s and iops
per second, summed over directions; latencies (ns) come from the merged
clat histograms.  nil when no I/O completed (latencies). ]]
function M.metric(t, name, ddir)
  if name == "bw" or name == "iops" then
    local key, sum = name == "bw" and "bw_bytes" or "iops", 0
    for _, p in ipairs(parts(t, ddir)) do sum = sum + (p[key] or 0) end
    return sum
  end
  M.check_metric(name, 2)
  local h = M.clat_hist(t, ddir)
  if h == nil then return nil end
  if name == "lat_mean" then return h:mean() end
  return h:percentile(percentile_of(name))
end

-- The row of one result: every metric key, raw units.
function M.values(r, ddir)
  local v = {
    iops = M.metric(r, "iops", ddir), bw = M.metric(r, "bw", ddir),
    p50 = M.metric(r, "p50", ddir), p99 = M.metric(r, "p99", ddir),
    ["p99.9"] = M.metric(r, "p99.9", ddir), lat_mean = M.metric(r, "lat_mean", ddir),
    usr_cpu = r.usr_cpu, sys_cpu = r.sys_cpu,
    cpu_per_gbps = r.cpu and r.cpu.pct_per_gbps,
    errors = r.errors and r.errors.count or 0,
    stopped_by = r.stopped_by,
  }
  return v
end

-- ---------------------------------------------------------------- tables

local METRIC_COLS = {
  {key = "iops", title = "IOPS", unit = "1/s"},
  {key = "bw", title = "BW", unit = "B/s"},
  {key = "p50", title = "clat p50", unit = "ns"},
  {key = "p99", title = "clat p99", unit = "ns"},
  {key = "p99.9", title = "clat p99.9", unit = "ns"},
  {key = "lat_mean", title = "clat mean", unit = "ns"},
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
local function check_kind(x, level)
  local k = kind_of(x)
  if not k then
    error("report: expected an lb.run result, an array of results, a sweep, rows or a table",
          level and level + 1 or 0)
  end
  return k
end

local function copy_cols(cols)
  local out = {}
  for i, c in ipairs(cols) do out[i] = {key = c.key, title = c.title, unit = c.unit} end
  return out
end

local SPEC_COLS = {"rw", "bs", "numjobs", "iodepth", "ioengine"}

local function results_table(list, ddir)
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
  for _, c in ipairs(copy_cols(METRIC_COLS)) do cols[#cols + 1] = c end
  local rows = {}
  for i, r in ipairs(list) do
    local row = M.values(r, ddir)
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

local function sweep_table(sw, ddir)
  local cols = {}
  for _, name in ipairs(sw.params or {}) do
    cols[#cols + 1] = {key = name, title = name, unit = ""}
  end
  for _, c in ipairs(copy_cols(METRIC_COLS)) do cols[#cols + 1] = c end
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
    local row = M.values(p.result, ddir)
    for k, v in pairs(p.params) do row[k] = v end
    if repeated and p.spread then
      row.spread_bw, row.spread_p99 = p.spread.bw, p.spread.p99
    end
    row.mark = marks(sw, p)
    rows[i] = row
  end
  return {columns = cols, rows = rows}
end

--[[ report.table(x [, opts]) -> {columns=, rows=}.  opts.ddir = "read" |
"write" | "trim" restricts the metrics to one direction. ]]
function M.table(x, opts)
  opts = opts or {}
  local k = check_kind(x, 2)
  if k == "table" then return x end
  if k == "sweep" then return sweep_table(x, opts.ddir) end
  if k == "result" then return results_table({x}, opts.ddir) end
  if k == "rows" then return rows_table(x) end
  return results_table(x, opts.ddir)
end

-- A cell as text: metrics by kind, bw in opts.unit.
local function cell(col, v, unit)
  if v == nil or v == "" then return "" end
  local k = col.key
  if k == "bw" then return M.fmt_bw(v, unit) end
  if k == "iops" then return M.fmt_iops(v) end
  if col.unit == "ns" then return M.fmt_ns(v) end
  if col.unit == "%" then return M.num(v) .. "%" end
  if col.unit == "ratio" then return string.format("%.1f%%", v * 100) end
  if type(v) == "number" then return M.num(v) end
  return tostring(v)
end

-- Columns worth printing: those with at least one value in some row.
local function used_columns(t)
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

-- ---------------------------------------------------------------- text

local function dir_text(name, d, unit)
  local other = (unit == "MB/s" or unit == "GB/s" or unit == "kB/s") and "MiB/s" or "MB/s"
  local secs = (d.runtime or 0) / 1000
  local lines = {string.format("  %s: IOPS=%s, BW=%s (%s)(%s/%s)", name, M.fmt_iops(d.iops),
    M.fmt_bw(d.bw_bytes, unit):gsub(" ", ""), M.fmt_bw(d.bw_bytes, other):gsub(" ", ""),
    M.fmt_bytes(d.io_bytes or 0), M.fmt_s(secs))}
  local c = d.clat_ns
  if c and c.N and c.N > 0 then
    local pc = c.percentile or {}
    lines[#lines + 1] = string.format(
      "    clat: min=%s, avg=%s, p50=%s, p99=%s, p99.9=%s, max=%s",
      M.fmt_ns(c.min), M.fmt_ns(c.mean), M.fmt_ns(pc[50]), M.fmt_ns(pc[99]),
      M.fmt_ns(pc[99.9]), M.fmt_ns(c.max))
  end
  return table.concat(lines, "\n")
end

local function errors_text(e)
  if not e or (e.count or 0) == 0 then return "  errors: none" end
  local s = string.format("  errors: %d", e.count)
  if e.first_error then
    s = s .. string.format(" (first %s on %s at offset %s, %s)", e.first_error,
                           e.first_file or "?", tostring(e.first_offset or "?"),
                           e.first_ddir or "?")
  end
  if e.message and e.message ~= "" then s = s .. ": " .. e.message end
  return s
end

local function result_text(r, opts)
  local unit = opts.unit or "MiB/s"
  local o = r.options or {}
  local desc = {}
  for _, k in ipairs({"ioengine", "engine", "rw", "bs", "numjobs", "iodepth"}) do
    if o[k] then desc[#desc + 1] = k .. "=" .. o[k] end
  end
  local out = {string.format("%s: %s", r.label or r.jobname or "job", table.concat(desc, " "))}
  for _, d in ipairs(DIRS) do
    local p = r[d]
    if p and (p.total_ios or 0) > 0 then out[#out + 1] = dir_text(d, p, unit) end
  end
  if #out == 1 then out[#out + 1] = "  no I/O completed" end
  local cpu = r.cpu or {}
  local line = string.format("  cpu: usr=%s%%, sys=%s%%", M.num(r.usr_cpu or 0), M.num(r.sys_cpu or 0))
  if (cpu.pct_per_gbps or 0) > 0 then
    line = line .. string.format(", %s%% per GB/s", M.num(cpu.pct_per_gbps))
  end
  out[#out + 1] = line
  out[#out + 1] = errors_text(r.errors)
  if r.stopped_by then
    out[#out + 1] = "  stopped by: " .. r.stopped_by .. (r.partial and " (partial results)" or "")
  end
  return table.concat(out, "\n")
end

-- Fixed-width text of a table (the columns that have values).
function M.text_table(t, opts)
  opts = opts or {}
  local cols = used_columns(t)
  local cells, width = {}, {}
  for j, c in ipairs(cols) do
    local title = c.key == "bw" and ("BW " .. (opts.unit or "MiB/s")) or c.title
    width[j] = #title
    cells[0] = cells[0] or {}
    cells[0][j] = title
  end
  for i, r in ipairs(t.rows) do
    cells[i] = {}
    for j, c in ipairs(cols) do
      local s = cell(c, r[c.key], opts.unit)
      if c.key == "bw" then s = s:gsub(" .*$", "") end
      cells[i][j] = s
      width[j] = math.max(width[j], #s)
    end
  end
  local lines = {}
  for i = 0, #t.rows do
    local parts_ = {}
    for j = 1, #cols do parts_[j] = string.format("%" .. width[j] .. "s", cells[i][j]) end
    lines[#lines + 1] = (table.concat(parts_, "  "):gsub("%s+$", ""))
  end
  return table.concat(lines, "\n")
end

local function sweep_text(sw, opts)
  local out = {M.text_table(sweep_table(sw, opts.ddir), opts)}
  local function label(p) return p and p.label or "none found" end
  local series = sw.series or {}
  if sw.finds_knee and #series > 1 then
    for _, s in ipairs(series) do
      out[#out + 1] = string.format("knee of %s: %s", s.key, label(s.knee))
    end
  elseif sw.finds_knee or sw.knee then
    out[#out + 1] = "knee: " .. label(sw.knee)
  end
  if sw.peak then out[#out + 1] = "peak: " .. label(sw.peak) end
  if sw.stopped_by then out[#out + 1] = "stopped by: " .. sw.stopped_by end
  return table.concat(out, "\n")
end

--[[ report.text(x [, opts]): a readable summary.  A result prints like
fio's (IOPS, BW in two units, clat percentiles, CPU, errors); a sweep or a
list of results prints as a table. ]]
function M.text(x, opts)
  opts = opts or {}
  local k = check_kind(x, 2)
  if k == "result" then return result_text(x, opts) end
  if k == "sweep" then return sweep_text(x, opts) end
  return M.text_table(M.table(x, opts), opts)
end

-- ---------------------------------------------------------------- markdown

local PATTERN_NAMES = {
  read = "Sequential Read", write = "Sequential Write", randread = "Random Read",
  randwrite = "Random Write", rw = "Sequential Mixed", readwrite = "Sequential Mixed",
  randrw = "Random Mixed", trim = "Sequential Trim", randtrim = "Random Trim",
}
local METRIC_TITLES = {bw = "Bandwidth", iops = "IOPS", lat_mean = "Mean latency"}

local function md_escape(s)
  return (tostring(s):gsub("|", "\\|"))
end

local function distinct(rows, key)
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

local function col_label(name, v)
  if name == "numjobs" then
    return tostring(v) .. (tonumber(v) == 1 and " thread" or " threads")
  end
  return name .. "=" .. tostring(v)
end

local function row_label(name, v)
  if name == "rw" and PATTERN_NAMES[v] then return PATTERN_NAMES[v] end
  return name == "rw" and tostring(v) or name .. "=" .. tostring(v)
end

local NON_PARAM = {mark = true, stopped_by = true, errors = true}

-- Rows whose values match every key of where (compared as text).
local function filter(rows, where)
  if not where then return rows end
  local out = {}
  for _, r in ipairs(rows) do
    local ok = true
    for key, v in pairs(where) do
      if tostring(r[key]) ~= tostring(v) then ok = false end
    end
    if ok then out[#out + 1] = r end
  end
  return out
end

--[[ The pivot's rows: one per value of rows_k and of every other parameter
that still varies, labelled "Sequential Read, bs=4k". ]]
local function row_groups(t, rows, rows_k, cols_k)
  local others = {}
  for _, c in ipairs(t.columns) do
    if c.unit == "" and not NON_PARAM[c.key] and c.key ~= rows_k and c.key ~= cols_k
       and #distinct(rows, c.key) > 1 then
      others[#others + 1] = c.key
    end
  end
  local groups, by = {}, {}
  for _, r in ipairs(rows) do
    local parts_ = {}
    if rows_k then parts_[1] = row_label(rows_k, r[rows_k]) end
    for _, o in ipairs(others) do parts_[#parts_ + 1] = o .. "=" .. tostring(r[o]) end
    local label = table.concat(parts_, ", ")
    if not by[label] then
      by[label] = {label = label, rows = {}}
      groups[#groups + 1] = by[label]
    end
    table.insert(by[label].rows, r)
  end
  return groups
end

local function md_plain(t, opts)
  local cols = used_columns(t)
  local head, rule = {}, {}
  for j, c in ipairs(cols) do
    head[j] = c.key == "bw" and ("BW (" .. (opts.unit or "MiB/s") .. ")") or c.title
    rule[j] = "---"
  end
  local lines = {"| " .. table.concat(head, " | ") .. " |", "|" .. table.concat(rule, "|") .. "|"}
  for _, r in ipairs(t.rows) do
    local cs = {}
    for j, c in ipairs(cols) do
      local s = cell(c, r[c.key], opts.unit)
      if c.key == "bw" then s = s:gsub(" .*$", "") end
      cs[j] = md_escape(s)
    end
    lines[#lines + 1] = "| " .. table.concat(cs, " | ") .. " |"
  end
  return table.concat(lines, "\n") .. "\n"
end

local function default_axes(sw)
  local ps = sw.params or {}
  local cols = nil
  for _, n in ipairs(ps) do if n == "numjobs" then cols = n end end
  cols = cols or ps[#ps]
  local rows
  for _, n in ipairs(ps) do if n ~= cols then rows = rows or n end end
  return rows, cols
end

--[[ report.markdown(x, opts): with opts.rows and opts.cols (parameter
names) a pivot in the storage guide's layout, one metric per cell:

  | Bandwidth/Threads | 1 thread | 32 threads |
  |---|---|---|
  | Sequential Read | 2101 MiB/s | 9519 MiB/s |

opts.metric (default "bw"), opts.unit (default "MiB/s").  A sweep gets its
axes guessed (numjobs across) when none are given; anything else becomes a
plain table of report.table's columns. ]]
function M.markdown(x, opts)
  opts = opts or {}
  local k = check_kind(x, 2)
  local t = M.table(x, opts)
  local rows_k, cols_k = opts.rows, opts.cols
  if not cols_k and k == "sweep" then rows_k, cols_k = default_axes(x) end
  if not cols_k then return md_plain(t, opts) end
  local metric = M.check_metric(opts.metric or "bw", 2)
  local rows = filter(t.rows, opts.where)
  local cvals = distinct(rows, cols_k)
  local groups = row_groups(t, rows, rows_k, cols_k)
  local title = (METRIC_TITLES[metric] or metric) .. "/" ..
                (cols_k == "numjobs" and "Threads" or cols_k)
  local head, rule = {md_escape(title)}, {"---"}
  for _, v in ipairs(cvals) do
    head[#head + 1] = md_escape(col_label(cols_k, v))
    rule[#rule + 1] = "---"
  end
  local lines = {"| " .. table.concat(head, " | ") .. " |", "|" .. table.concat(rule, "|") .. "|"}
  for _, g in ipairs(groups) do
    local cs = {md_escape(g.label ~= "" and g.label or (METRIC_TITLES[metric] or metric))}
    for _, cv in ipairs(cvals) do
      local v
      for _, r in ipairs(g.rows) do
        if tostring(r[cols_k]) == tostring(cv) then v = r[metric] end
      end
      cs[#cs + 1] = v and md_escape(M.fmt_metric(metric, v, opts.unit or "MiB/s")) or ""
    end
    lines[#lines + 1] = "| " .. table.concat(cs, " | ") .. " |"
  end
  return table.concat(lines, "\n") .. "\n"
end

-- ---------------------------------------------------------------- csv

local function csv_field(v)
  if v == nil then return "" end
  local s = type(v) == "number" and (v == math.floor(v) and v < 2^53 and v > -2^53
            and string.format("%d", v) or string.format("%.10g", v)) or tostring(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

--[[ report.csv(x [, opts]): RFC 4180, a header of column keys, then raw
numbers (bw B/s, latencies ns).  With opts.unit the bw column is in that
unit and its header says so ("bw_MiB/s"). ]]
function M.csv(x, opts)
  opts = opts or {}
  check_kind(x, 2)
  local t = M.table(x, opts)
  local div = opts.unit and (UNITS[opts.unit] or error("unknown unit '" .. opts.unit .. "'", 2))
  local head = {}
  for j, c in ipairs(t.columns) do
    head[j] = csv_field((c.key == "bw" and div) and ("bw_" .. opts.unit) or c.key)
  end
  local lines = {table.concat(head, ",")}
  for _, r in ipairs(t.rows) do
    local cs = {}
    for j, c in ipairs(t.columns) do
      local v = r[c.key]
      if c.key == "bw" and div and v then v = v / div end
      cs[j] = csv_field(v)
    end
    lines[#lines + 1] = table.concat(cs, ",")
  end
  return table.concat(lines, "\r\n") .. "\r\n"
end

-- ---------------------------------------------------------------- json

local function host_info()
  return {hostname = lb.hostname and lb.hostname() or nil,
          cpus = lb.cpus and lb.cpus() or nil,
          physical_cores = lb.physical_cores and lb.physical_cores() or nil}
end

local ARRAY = {__jsontype = "array"}

function M.json(x, opts)
  opts = opts or {}
  local k = check_kind(x, 2)
  local t = M.table(x, opts)
  local doc = {
    schema = "luabench.report/1", kind = k, version = lb.version,
    time = os.date("!%Y-%m-%dT%H:%M:%SZ"), host = host_info(),
    columns = setmetatable(table.move(t.columns, 1, #t.columns, 1, {}), ARRAY),
    rows = setmetatable(table.move(t.rows, 1, #t.rows, 1, {}), ARRAY),
  }
  if k == "sweep" then
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

-- ---------------------------------------------------------------- svg

local function xml(s)
  return (tostring(s):gsub("[&<>\"']", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
                                        ['"'] = "&quot;", ["'"] = "&apos;"}))
end

-- Round tick values 0..max covering max.
local function ticks(max)
  if not max or max <= 0 then return {0, 1}, 1 end
  local raw = max / 5
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs({1, 2, 2.5, 5, 10}) do
    if m * mag >= raw then step = m * mag; break end
  end
  local out, v = {}, 0
  repeat out[#out + 1] = v; v = v + step until v > max + step * 1e-9
  out[#out + 1] = v
  return out, v
end

-- The scale of a y metric: divisor and axis unit.
local function y_scale(metric, unit, maxv)
  if metric == "bw" then return UNITS[unit or "MiB/s"], unit or "MiB/s" end
  if metric == "iops" then return 1, "IOPS" end
  if known_metric(metric) then
    if (maxv or 0) >= 1e6 then return 1e6, "ms" end
    return 1e3, "us"
  end
  return 1, ""
end

local COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf"}

local function series_of(t, x, ys)
  local groups, order = {}, {}
  for _, r in ipairs(t.rows) do
    local key = {}
    for _, c in ipairs(t.columns) do
      local n = c.key
      if n ~= x and c.unit == "" and n ~= "mark" and n ~= "stopped_by" and n ~= "name"
         and r[n] ~= nil and n ~= "errors" then
        key[#key + 1] = n .. "=" .. tostring(r[n])
      end
    end
    local k = table.concat(key, " ")
    if not groups[k] then groups[k] = {}; order[#order + 1] = k end
    table.insert(groups[k], r)
  end
  return groups, order
end

--[[ report.svg(x, opts) or report.svg{data=x, x="numjobs", y={"bw","p99"}}:
a line chart, standalone SVG 1.1.  The first y metric uses the left axis,
the second the right one; x values are spaced evenly in their order (a
doubling sweep reads naturally).  Several series (other parameters) get
one colour each; the knee is marked.  opts.width/height/title/unit. ]]
local function sorted_x(rows, xk)
  local xs = distinct(rows, xk)
  table.sort(xs, function(a, b)
    local na, nb = tonumber(a), tonumber(b)
    if na and nb then return na < nb end
    return tostring(a) < tostring(b)
  end)
  return xs
end

-- The chart being drawn: geometry, the x positions and the output lines.
local function new_chart(t, xk, ys, opts)
  local c = {t = t, xk = xk, ys = ys, W = opts.width or 720, H = opts.height or 400,
             L = 80, R = #ys > 1 and 80 or 30, T = 40, B = 60, o = {}, xi = {}}
  c.pw, c.ph = c.W - c.L - c.R, c.H - c.T - c.B
  c.xs = sorted_x(t.rows, xk)
  for i, v in ipairs(c.xs) do c.xi[tostring(v)] = i end
  function c.add(...) c.o[#c.o + 1] = string.format(...) end
  function c.px(v)
    if #c.xs <= 1 then return c.L + c.pw / 2 end
    return c.L + (c.xi[tostring(v)] - 1) * c.pw / (#c.xs - 1)
  end
  return c
end

local function svg_frame(c, title)
  local add = c.add
  add('<?xml version="1.0" encoding="UTF-8"?>')
  add('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" ' ..
      'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">', c.W, c.H, c.W, c.H)
  add('<rect x="0" y="0" width="%d" height="%d" fill="white"/>', c.W, c.H)
  add('<text x="%d" y="22" text-anchor="middle" font-size="15">%s</text>', c.W // 2, xml(title))
  add('<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>', c.L, c.T, c.pw, c.ph)
  for _, v in ipairs(c.xs) do
    add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888"/>', c.px(v), c.T + c.ph,
        c.px(v), c.T + c.ph + 5)
    add('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', c.px(v), c.T + c.ph + 18, xml(v))
  end
  add('<text x="%d" y="%d" text-anchor="middle">%s</text>', c.L + c.pw // 2, c.H - 22, xml(c.xk))
end

-- The y axis of metric number yi (1 left, 2 right); returns its scale.
local function svg_y_axis(c, yi, y, unit_opt)
  local maxv = 0
  for _, r in ipairs(c.t.rows) do maxv = math.max(maxv, r[y] or 0) end
  local div, unit = y_scale(y, unit_opt, maxv)
  local tk, top = ticks(maxv / div)
  local ax = yi == 1 and c.L or c.L + c.pw
  for _, v in ipairs(tk) do
    local py = c.T + c.ph - v / top * c.ph
    if yi == 1 then
      c.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>', c.L, py, c.L + c.pw, py)
    end
    c.add('<text x="%d" y="%.1f" text-anchor="%s">%s</text>', yi == 1 and ax - 6 or ax + 6,
          py + 4, yi == 1 and "end" or "start", xml(M.num(v)))
  end
  local lx, ly = yi == 1 and 18 or c.W - 14, c.T + c.ph // 2
  c.add('<text x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>',
        lx, ly, lx, ly, xml(y .. (unit ~= "" and " (" .. unit .. ")" or "")))
  return div, top
end

-- One line (and its legend entry) per series for metric number yi.
local function svg_lines(c, yi, y, div, top)
  local groups, order = series_of(c.t, c.xk, c.ys)
  local per = math.min(#c.ys, 2)
  for gi, g in ipairs(order) do
    local pts = {}
    local rows = groups[g]
    table.sort(rows, function(a, b) return c.xi[tostring(a[c.xk])] < c.xi[tostring(b[c.xk])] end)
    for _, r in ipairs(rows) do
      if r[y] then pts[#pts + 1] = {c.px(r[c.xk]), c.T + c.ph - r[y] / div / top * c.ph} end
    end
    local color = COLORS[((gi - 1) * per + yi - 1) % #COLORS + 1]
    local coords = {}
    for i, p in ipairs(pts) do coords[i] = string.format("%.1f,%.1f", p[1], p[2]) end
    if #pts > 0 then
      c.add('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>', color,
            yi == 2 and ' stroke-dasharray="6,4"' or "", table.concat(coords, " "))
    end
    for _, p in ipairs(pts) do
      c.add('<circle cx="%.1f" cy="%.1f" r="3" fill="%s" stroke="%s"/>', p[1], p[2],
            yi == 1 and color or "white", color)
    end
    local name = (g ~= "" and g .. ": " or "") .. y .. (yi == 1 and " (solid, left)" or " (dashed, right)")
    c.add('<text x="%d" y="%d" fill="%s">%s</text>', c.L + 8, c.T + 16 + 15 * ((gi - 1) * per + yi - 1),
          color, xml(name))
  end
end

local function svg_knees(c)
  for _, r in ipairs(c.t.rows) do
    if r.mark and r.mark:find("knee") then
      local x = c.px(r[c.xk])
      c.add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#555" stroke-dasharray="2,3"/>',
            x, c.T, x, c.T + c.ph)
      c.add('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">knee</text>', x, c.T - 4)
    end
  end
end

-- The x parameter: opts.x, else numjobs when the sweep varies it, else the first one.
local function x_key(x, opts)
  if opts.x then return opts.x end
  for _, n in ipairs(x.params or {}) do if n == "numjobs" then return n end end
  return (x.params and x.params[1]) or "name"
end

--[[ report.svg(x, opts) or report.svg{data=x, x="numjobs", y={"bw","p99"}}:
a line chart, standalone SVG 1.1.  The first y metric uses the left axis,
the second the right one; x values are spaced evenly in their order (a
doubling sweep reads naturally).  Several series (other parameters) get
their own colours; the knee is marked.  opts.width/height/title/unit. ]]
function M.svg(x, opts)
  if opts == nil and type(x) == "table" and (x.data or x.sweep) then
    opts, x = x, x.data or x.sweep
  end
  opts = opts or {}
  check_kind(x, 2)
  local xk = x_key(x, opts)
  local ys = type(opts.y) == "string" and {opts.y} or opts.y or {"bw", "p99"}
  for _, y in ipairs(ys) do M.check_metric(y, 2) end
  local c = new_chart(M.table(x, opts), xk, ys, opts)
  svg_frame(c, opts.title or ("luabench: " .. table.concat(ys, " and ") .. " by " .. xk))
  for yi = 1, math.min(#ys, 2) do
    local div, top = svg_y_axis(c, yi, ys[yi], opts.unit)
    svg_lines(c, yi, ys[yi], div, top)
  end
  svg_knees(c)
  c.add('</svg>')
  return table.concat(c.o, "\n") .. "\n"
end

-- ---------------------------------------------------------------- html

local function html_table(t, opts)
  local cols = used_columns(t)
  local o = {"<table>", "<tr>"}
  for _, c in ipairs(cols) do
    o[#o + 1] = "<th>" .. xml(c.key == "bw" and ("BW (" .. (opts.unit or "MiB/s") .. ")") or c.title) .. "</th>"
  end
  o[#o + 1] = "</tr>"
  for _, r in ipairs(t.rows) do
    o[#o + 1] = "<tr>"
    for _, c in ipairs(cols) do
      local s = cell(c, r[c.key], opts.unit)
      if c.key == "bw" then s = s:gsub(" .*$", "") end
      o[#o + 1] = "<td>" .. xml(s) .. "</td>"
    end
    o[#o + 1] = "</tr>"
  end
  o[#o + 1] = "</table>"
  return table.concat(o)
end

--[[ report.html(x [, opts]): one self-contained page: the table, the chart
inline (sweeps and lists of results), and the text summary. ]]
function M.html(x, opts)
  opts = opts or {}
  local k = check_kind(x, 2)
  local t = M.table(x, opts)
  local title = opts.title or "luabench report"
  local h = host_info()
  local o = {
    "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
    "<title>" .. xml(title) .. "</title>",
    "<style>body{font-family:sans-serif;margin:2em;color:#222}" ..
    "table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;" ..
    "padding:3px 8px;text-align:right}th{background:#f4f4f4}pre{background:#f8f8f8;" ..
    "padding:1em}</style></head><body>",
    "<h1>" .. xml(title) .. "</h1>",
    string.format("<p>%s, %s CPUs (%s cores), luabench %s, %s</p>", xml(h.hostname or "?"),
                  xml(h.cpus or "?"), xml(h.physical_cores or "?"), xml(lb.version or "?"),
                  xml(os.date("!%Y-%m-%d %H:%M UTC"))),
    html_table(t, opts),
  }
  if k ~= "result" and #t.rows > 1 then
    local svg = M.svg(x, {x = opts.x, y = opts.y, unit = opts.unit, title = opts.chart_title})
    o[#o + 1] = (svg:gsub("^<%?xml[^\n]*\n", ""))
  end
  o[#o + 1] = "<pre>" .. xml(M.text(x, opts)) .. "</pre>"
  o[#o + 1] = "</body></html>"
  return table.concat(o, "\n") .. "\n"
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
