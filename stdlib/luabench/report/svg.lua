--[[
luabench.report.svg: charts and pages.  report.svg draws a line chart of
one or two metrics over a parameter as standalone SVG 1.1; report.html is
one self-contained page with the table, the chart and the text summary.
]]

local metrics = require "luabench.metric"
local tbl = require "luabench.report.table"
local text = require "luabench.report.text"

local M = {}

local UNITS = metrics.UNITS
local used_columns, cell, distinct = tbl.used_columns, tbl.cell, tbl.distinct

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
  if metrics.known(metric) then
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

-- The x values of the rows, each once: numbers by value, the rest as text.
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
          py + 4, yi == 1 and "end" or "start", xml(metrics.num(v)))
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
  tbl.check_kind(x, 2)
  local xk = x_key(x, opts)
  local ys = type(opts.y) == "string" and {opts.y} or opts.y or {"bw", "p99"}
  for _, y in ipairs(ys) do metrics.check_metric(y, 2) end
  local t = tbl.table(x, opts)
  local c = new_chart(t, xk, ys, opts)
  local title = opts.title or ("luabench: " .. table.concat(ys, " and ") .. " by " .. xk)
  local line = tbl.partial_line(t)
  svg_frame(c, line and (title .. " (" .. line .. ")") or title)
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
  local k = tbl.check_kind(x, 2)
  local t = tbl.table(x, opts)
  local title = opts.title or "luabench report"
  local h = tbl.host_info()
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
    tbl.partial_line(t) and ("<p><strong>" .. xml(tbl.partial_line(t)) .. "</strong></p>") or "",
    html_table(t, opts),
  }
  if k ~= "result" and #t.rows > 1 then
    local svg = M.svg(x, {x = opts.x, y = opts.y, unit = opts.unit, title = opts.chart_title})
    o[#o + 1] = (svg:gsub("^<%?xml[^\n]*\n", ""))
  end
  o[#o + 1] = "<pre>" .. xml(text.text(x, opts)) .. "</pre>"
  o[#o + 1] = "</body></html>"
  return table.concat(o, "\n") .. "\n"
end

return M
