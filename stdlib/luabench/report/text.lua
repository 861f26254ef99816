--[[
luabench.report.text: results as readable text (report.text: a result
like fio's summary, a sweep or a list of results as a table) and as
Markdown (report.markdown, with a pivot in the storage guide's layout).
]]

local metrics = require "luabench.metric"
local tbl = require "luabench.report.table"

local M = {}

local DIRS = metrics.DIRS
local cell, used_columns, distinct = tbl.cell, tbl.used_columns, tbl.distinct

-- ---------------------------------------------------------------- text

local function dir_text(name, d, unit)
  local other = (unit == "MB/s" or unit == "GB/s" or unit == "kB/s") and "MiB/s" or "MB/s"
  local secs = (d.runtime or 0) / 1000
  local lines = {string.format("  %s: IOPS=%s, BW=%s (%s)(%s/%s)", name, metrics.fmt_iops(d.iops),
    metrics.fmt_bw(d.bw_bytes, unit):gsub(" ", ""), metrics.fmt_bw(d.bw_bytes, other):gsub(" ", ""),
    metrics.fmt_bytes(d.io_bytes or 0), metrics.fmt_s(secs))}
  for _, k in ipairs{"slat", "clat", "lat", "sched_lat"} do
    local c = d[k .. "_ns"]
    if c and c.N and c.N > 0 then
      local pc = c.percentile or {}
      lines[#lines + 1] = string.format(
        "    %4s: min=%s, avg=%s, p50=%s, p99=%s, p99.9=%s, max=%s",
        k == "sched_lat" and "sched lat" or k,
        metrics.fmt_ns(c.min), metrics.fmt_ns(c.mean), metrics.fmt_ns(pc[50]), metrics.fmt_ns(pc[99]),
        metrics.fmt_ns(pc[99.9]), metrics.fmt_ns(c.max))
    end
  end
  local sl, l = d.slat_ns, d.lat_ns
  if sl and l and (sl.N or 0) > 0 and (l.mean or 0) > 0 then
    lines[#lines + 1] = metrics.slat_note(sl.mean / l.mean) and
                        ("    " .. metrics.slat_note(sl.mean / l.mean)) or nil
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
  local line = string.format("  cpu: usr=%s%%, sys=%s%%", metrics.num(r.usr_cpu or 0), metrics.num(r.sys_cpu or 0))
  if (cpu.pct_per_gbps or 0) > 0 then
    line = line .. string.format(", %s%% per GB/s", metrics.num(cpu.pct_per_gbps))
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
  lines[#lines + 1] = tbl.partial_line(t)
  return table.concat(lines, "\n")
end

local function sweep_text(sw, opts)
  local latency = tbl.check_latency(opts.latency, 3)
  local t = tbl.sweep_table(sw, opts.ddir, latency)
  t.partial = tbl.partial(sw)
  local out = {M.text_table(t, opts)}
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
  local share = 0
  for _, p in ipairs(sw.points or {}) do
    share = math.max(share, p.values and p.values.slat_share or 0)
  end
  out[#out + 1] = metrics.slat_note(share)
  return table.concat(out, "\n")
end

--[[ report.text(x [, opts]): a readable summary.  A result prints like
fio's (IOPS, BW in two units, slat, clat and lat lines, under a rate cap the
sched lat line, CPU, errors); a
sweep or a list of results prints as a table whose latency columns show
opts.latency ("lat" by default, or "clat"), named in their titles. ]]
function M.text(x, opts)
  opts = opts or {}
  local k = tbl.check_kind(x, 2)
  if k == "result" then return result_text(x, opts) end
  if k == "sweep" then return sweep_text(x, opts) end
  local t = tbl.table(x, opts)
  local share = 0
  for _, r in ipairs(t.rows) do share = math.max(share, tonumber(r.slat_share) or 0) end
  local note = metrics.slat_note(share)
  return M.text_table(t, opts) .. (note and "\n" .. note or "")
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

-- A partial table's Markdown ends in a line that says so.
local function md_partial(t)
  local line = tbl.partial_line(t)
  return line and ("\n**" .. md_escape(line) .. "**\n") or ""
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
  return table.concat(lines, "\n") .. "\n" .. md_partial(t)
end

-- A block size in bytes: 4096, "4k", "1M", "64KiB" (fio's units, 1024-based).
local function bytes_of(v)
  if type(v) == "number" then return v end
  if type(v) ~= "string" then return nil end
  local n, u = v:lower():match("^%s*([%d.]+)%s*([kmgt]?)i?b?%s*$")
  if not n then return nil end
  local mul = {[""] = 1, k = 1024, m = 1024 ^ 2, g = 1024 ^ 3, t = 1024 ^ 4}
  return tonumber(n) and tonumber(n) * mul[u]
end

--[[ The metric a table of x shows when none is asked for: "iops" when
every block size of rows (their bs, else the sweep's base.bs, else the
runs' options.bs) is under 128 KiB, else "bw". ]]
function M.default_metric(x, rows)
  local any, small = false, true
  local function see(bs)
    local b = bytes_of(bs)
    if b then any = true; if b >= 128 * 1024 then small = false end end
  end
  for _, r in ipairs(rows or {}) do see(r.bs) end
  if not any and type(x) == "table" then
    if x.base then see(x.base.bs) end
    for _, p in ipairs(x.points or {}) do
      if not any and p.result and p.result.options then see(p.result.options.bs) end
    end
  end
  return (any and small) and "iops" or "bw"
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

opts.metric: "iops" when every block is smaller than 128 KiB (the guides'
4k tables), else "bw"; opts.unit (default "MiB/s").  A sweep's knee cell
says "(knee)".  A sweep gets its axes guessed (numjobs across) when none
are given; anything else becomes a plain table of report.table's columns. ]]
function M.markdown(x, opts)
  opts = opts or {}
  local k = tbl.check_kind(x, 2)
  local t = tbl.table(x, opts)
  local rows_k, cols_k = opts.rows, opts.cols
  if not cols_k and k == "sweep" then rows_k, cols_k = default_axes(x) end
  if not cols_k then return md_plain(t, opts) end
  local rows = filter(t.rows, opts.where)
  local metric = metrics.check_metric(opts.metric or M.default_metric(x, rows), 2)
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
      local v, knee
      for _, r in ipairs(g.rows) do
        if tostring(r[cols_k]) == tostring(cv) then
          v, knee = r[metric], type(r.mark) == "string" and r.mark:find("knee", 1, true)
        end
      end
      cs[#cs + 1] = v and md_escape(metrics.fmt_metric(metric, v, opts.unit or "MiB/s") ..
                                    (knee and " (knee)" or "")) or ""
    end
    lines[#lines + 1] = "| " .. table.concat(cs, " | ") .. " |"
  end
  return table.concat(lines, "\n") .. "\n" .. md_partial(t)
end

return M
