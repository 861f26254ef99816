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

-- Round linear ticks 0..top covering max, and the decimals they all take.
local function ticks(max)
  if not max or max <= 0 then return {0, 1}, 1, 0 end
  local raw = max / 5
  local mag = 10 ^ math.floor(math.log(raw, 10))
  local step = mag
  for _, m in ipairs({1, 2, 2.5, 5, 10}) do
    if m * mag >= raw - 1e-12 * raw then step = m * mag; break end
  end
  local out, v = {}, 0
  repeat out[#out + 1] = v; v = v + step until v > max + step * 1e-9
  if out[#out] < max - step * 1e-9 then out[#out + 1] = v end
  local top = out[#out]
  local dec = 0
  while dec < 6 and math.abs(step * 10 ^ dec - math.floor(step * 10 ^ dec + 0.5)) > 1e-6 do
    dec = dec + 1
  end
  return out, top, dec
end

-- Decade ticks from lo to hi (both > 0), with 2 and 5 between when few.
local function log_ticks(lo, hi)
  local a, b = math.floor(math.log(lo, 10) + 1e-9), math.ceil(math.log(hi, 10) - 1e-9)
  if b <= a then b = a + 1 end
  local out = {}
  for e = a, b do
    out[#out + 1] = 10 ^ e
    if b - a <= 2 and e < b then
      out[#out + 1] = 2 * 10 ^ e
      out[#out + 1] = 5 * 10 ^ e
    end
  end
  return out, 10 ^ a, 10 ^ b
end

-- The y scale of chart c (plot box T, ph) over its values, the ticks drawn
-- by tick(py, label): logarithmic over [lo, hi] (decade ticks labelled as
-- latencies), else linear from 0 to hi in units of div.  Returns the scale,
-- a function from a raw value to the y coordinate (nil for none, and on
-- the log scale for values <= 0).
local function y_axis_scale(c, tick, lo, hi, log, div)
  if log then
    local tk, a, b = log_ticks(lo, hi)
    local la, lb_ = math.log(a, 10), math.log(b, 10)
    local function scale(v)
      if not v or v <= 0 then return nil end
      return c.T + c.ph - (math.log(v, 10) - la) / (lb_ - la) * c.ph
    end
    for _, v in ipairs(tk) do tick(scale(v), metrics.fmt_ns(v)) end
    return scale
  end
  local tk, top, dec = ticks(hi / div)
  for _, v in ipairs(tk) do tick(c.T + c.ph - v / top * c.ph, string.format("%." .. dec .. "f", v)) end
  return function(v)
    if not v then return nil end
    return c.T + c.ph - v / div / top * c.ph
  end
end

-- The scale of a y metric: divisor and axis unit.
local function y_scale(metric, unit, maxv)
  if metric == "bw" then return UNITS[unit or "MiB/s"], unit or "MiB/s" end
  if metric == "iops" then return 1, "IOPS" end
  if metrics.known(metric) then
    if (maxv or 0) >= 1e6 then return 1e6, "ms" end
    if (maxv or 0) < 1e3 then return 1, "ns" end
    return 1e3, "us"
  end
  return 1, ""
end

-- One hue per series: its first metric solid, its second dashed.
local COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
                "#e377c2"}

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
-- The legend goes under the plot box, outside it.
local function new_chart(t, xk, ys, opts)
  local c = {t = t, xk = xk, ys = ys, W = opts.width or 760, L = 80, R = #ys > 1 and 90 or 30,
             T = 62, o = {}, xi = {}, legend = {}, labels = {}}
  c.pw, c.ph = c.W - c.L - c.R, (opts.height or 420) - c.T - 56
  c.xs = sorted_x(t.rows, xk)
  for i, v in ipairs(c.xs) do c.xi[tostring(v)] = i end
  function c.add(...) c.o[#c.o + 1] = string.format(...) end
  function c.px(v)
    if #c.xs <= 1 then return c.L + c.pw / 2 end
    return c.L + (c.xi[tostring(v)] - 1) * c.pw / (#c.xs - 1)
  end
  return c
end

local function svg_frame(c, title, subtitle)
  local add = c.add
  add('<text x="%d" y="22" text-anchor="middle" font-size="15">%s</text>', c.W // 2, xml(title))
  if subtitle and subtitle ~= "" then
    add('<text class="subtitle" x="%d" y="42" text-anchor="middle" font-size="11" fill="#555">%s</text>',
        c.W // 2, xml(subtitle))
  end
  add('<rect class="plot-box" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>',
      c.L, c.T, c.pw, c.ph)
  for _, v in ipairs(c.xs) do
    add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888"/>', c.px(v), c.T + c.ph,
        c.px(v), c.T + c.ph + 5)
    add('<text x="%.1f" y="%d" text-anchor="middle">%s</text>', c.px(v), c.T + c.ph + 18, xml(v))
  end
  add('<text class="x-title" x="%d" y="%d" text-anchor="middle">%s</text>', c.L + c.pw // 2,
      c.T + c.ph + 38, xml(c.xk))
end

local LAT_TITLES = {p50 = "p50 latency", p99 = "p99 latency", ["p99.9"] = "p99.9 latency",
                    lat_mean = "mean latency", bw = "bandwidth", iops = "IOPS"}

-- Whether metric y is drawn on a log axis: opts.log (true/false), else a
-- latency whose values span more than a decade.
local function use_log(c, y, opt)
  if y == "bw" or y == "iops" then return opt == true end
  if opt ~= nil then return opt and true or false end
  local lo, hi = math.huge, 0
  for _, r in ipairs(c.t.rows) do
    local v = r[y]
    if type(v) == "number" and v > 0 then lo, hi = math.min(lo, v), math.max(hi, v) end
  end
  return hi > 0 and hi / lo > 10
end

-- The y axis of metric number yi (1 left, 2 right); returns its scale:
-- a function from a raw value to the y coordinate.
local function svg_y_axis(c, yi, y, opts)
  local maxv, minv = 0, math.huge
  for _, r in ipairs(c.t.rows) do
    local v = r[y]
    if type(v) == "number" then
      maxv = math.max(maxv, v)
      if v > 0 then minv = math.min(minv, v) end
    end
  end
  local ax = yi == 1 and c.L or c.L + c.pw
  local function tick(py, label)
    if yi == 1 then
      c.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>', c.L, py, c.L + c.pw, py)
    end
    c.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888"/>', ax, py,
          yi == 1 and ax - 4 or ax + 4, py)
    c.add('<text class="y-tick" x="%d" y="%.1f" text-anchor="%s">%s</text>', yi == 1 and ax - 7 or ax + 7,
          py + 4, yi == 1 and "end" or "start", xml(label))
  end
  local scale, title
  if use_log(c, y, opts.log) and maxv > 0 then
    scale = y_axis_scale(c, tick, minv, maxv, true)
    title = (LAT_TITLES[y] or y) .. " (log scale)"
  else
    local div, unit = y_scale(y, opts.unit, maxv)
    scale = y_axis_scale(c, tick, 0, maxv, false, div)
    title = (LAT_TITLES[y] or y) .. (unit ~= "" and unit ~= "IOPS" and " (" .. unit .. ")" or "")
  end
  local lx, ly = yi == 1 and 16 or c.W - 12, c.T + c.ph // 2
  c.add('<text class="y-title" x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>',
        lx, ly, lx, ly, xml(title))
  return scale
end

-- One line per series for metric number yi; legend entries are collected.
local function svg_lines(c, yi, y, scale)
  local groups, order = series_of(c.t, c.xk, c.ys)
  c.order = order
  for gi, g in ipairs(order) do
    local pts = {}
    local rows = groups[g]
    table.sort(rows, function(a, b) return c.xi[tostring(a[c.xk])] < c.xi[tostring(b[c.xk])] end)
    for _, r in ipairs(rows) do
      local py = scale(r[y])
      if py then pts[#pts + 1] = {c.px(r[c.xk]), py, r} end
    end
    local color = COLORS[(gi - 1) % #COLORS + 1]
    local coords = {}
    for i, p in ipairs(pts) do coords[i] = string.format("%.1f,%.1f", p[1], p[2]) end
    local dash = yi == 2 and ' stroke-dasharray="6,4"' or ""
    if #pts > 0 then
      c.add('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>', color, dash,
            table.concat(coords, " "))
    end
    for _, p in ipairs(pts) do
      c.add('<circle cx="%.1f" cy="%.1f" r="3" fill="%s" stroke="%s"/>', p[1], p[2],
            yi == 1 and color or "white", color)
      if yi == 1 then
        local m = type(p[3].mark) == "string" and p[3].mark or ""
        if m:find("knee", 1, true) then c.labels[#c.labels + 1] = {x = p[1], y = p[2], what = "knee", series = g, color = color} end
        if m:find("peak", 1, true) then c.labels[#c.labels + 1] = {x = p[1], y = p[2], what = "peak", series = g, color = color} end
      end
    end
    local side = #c.ys > 1 and (yi == 1 and ", left axis" or ", right axis") or ""
    c.legend[#c.legend + 1] = {color = color, dash = yi == 2,
                               name = (g ~= "" and g .. ": " or "") .. (LAT_TITLES[y] or y) .. side}
  end
end

-- Knee lines and peak rings, each labelled with its series; every label
-- has a line of its own at the top of the plot.
local function svg_marks(c)
  local many = #(c.order or {}) > 1
  for slot, l in ipairs(c.labels) do
    slot = slot - 1
    local name = l.what .. (many and l.series ~= "" and " (" .. l.series .. ")" or "")
    if l.what == "knee" then
      c.add('<line class="knee" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="2,3"/>',
            l.x, c.T, l.x, c.T + c.ph, l.color)
    else
      c.add('<circle class="peak" cx="%.1f" cy="%.1f" r="7" fill="none" stroke="%s" stroke-width="1.5"/>',
            l.x, l.y, l.color)
    end
    local anchor = l.x > c.L + c.pw * 0.75 and "end" or "start"
    c.add('<text class="mark-label" x="%.1f" y="%d" text-anchor="%s" font-size="11" fill="%s">%s</text>',
          l.x + (anchor == "start" and 4 or -4), c.T + 13 + 13 * slot, anchor, l.color, xml(name))
  end
end

-- The legend, in a box under the plot box: entries in columns.
local function svg_legend(c)
  local n = #c.legend
  if n == 0 then return c.T + c.ph + 50 end
  local widest = 0
  for _, e in ipairs(c.legend) do widest = math.max(widest, #e.name) end
  local colw = math.min(c.W - 20, 40 + widest * 6.6)
  local cols = math.max(1, math.floor((c.W - 20) / colw))
  local rows = math.ceil(n / cols)
  local x0, y0 = 10, c.T + c.ph + 50
  local w, h = math.min(c.W - 20, cols * colw), rows * 18 + 8
  c.add('<g class="legend">')
  c.add('<rect class="legend-box" x="%d" y="%d" width="%.0f" height="%d" fill="#fafafa" stroke="#ccc"/>',
        x0, y0, w, h)
  for i, e in ipairs(c.legend) do
    local col, row = (i - 1) // rows, (i - 1) % rows
    local x, y = x0 + 8 + col * colw, y0 + 16 + row * 18
    c.add('<line x1="%.0f" y1="%d" x2="%.0f" y2="%d" stroke="%s" stroke-width="2"%s/>', x, y - 4,
          x + 24, y - 4, e.color, e.dash and ' stroke-dasharray="6,4"' or "")
    c.add('<text x="%.0f" y="%d">%s</text>', x + 30, y, xml(e.name))
  end
  c.add('</g>')
  return y0 + h + 8
end

-- The whole document of chart c: its legend under the plot, then the
-- lines drawn, on a white page as tall as both.
local function svg_document(c)
  local H = svg_legend(c)
  local head = {
    '<?xml version="1.0" encoding="UTF-8"?>',
    string.format('<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="%d" height="%d" ' ..
                  'viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">', c.W, H, c.W, H),
    string.format('<rect x="0" y="0" width="%d" height="%d" fill="white"/>', c.W, H),
  }
  return table.concat(head, "\n") .. "\n" .. table.concat(c.o, "\n") .. "\n</svg>\n"
end

-- The x parameter: opts.x, else numjobs when the sweep varies it, else the first one.
local function x_key(x, opts)
  if opts.x then return opts.x end
  for _, n in ipairs(x.params or {}) do if n == "numjobs" then return n end end
  return (x.params and x.params[1]) or "name"
end

local WORKLOAD = {"rw", "bs", "ioengine", "engine", "iodepth", "direct", "runtime", "size"}

--[[ What a chart says it shows: the workload's options that did not vary
(rw, bs, engine, iodepth, direct, runtime), the file system and its
mount, the host and the date. ]]
function M.subtitle(x, opts)
  opts = opts or {}
  local parts = {}
  local spec = type(x) == "table" and (x.base or x.options or (x[1] and x[1].options)) or nil
  local varied = {}
  for _, n in ipairs(type(x) == "table" and x.params or {}) do varied[n] = true end
  if type(spec) == "table" then
    for _, k in ipairs(WORKLOAD) do
      local v = spec[k]
      if v ~= nil and not varied[k] and type(v) ~= "table" and type(v) ~= "function" then
        if type(v) == "boolean" then v = v and 1 or 0 end
        if k == "size" and type(v) == "number" then v = metrics.fmt_bytes(v) end
        parts[#parts + 1] = (k == "engine" and "ioengine" or k) .. "=" .. tostring(v)
      end
    end
  end
  local env = tbl.environment(type(x) == "table" and (x.points or x.read or x.write or x[1]) and x or nil)
  if env.fs then parts[#parts + 1] = string.format("%s on %s", env.fs.type, env.fs.mount) end
  parts[#parts + 1] = env.hostname
  parts[#parts + 1] = os.date("!%Y-%m-%d %H:%M UTC")
  return table.concat(parts, ", ")
end

--[[ report.svg(x, opts) or report.svg{data=x, x="numjobs", y={"bw","p99"}}:
a line chart, standalone SVG 1.1.  The first y metric uses the left axis
(solid lines), the second the right one (dashed); one hue per series.  x
values are spaced evenly in their order (a doubling sweep reads
naturally).  A latency axis is logarithmic when its values span more than
a decade (opts.log = false keeps it linear, true forces it).  Knees and
peaks are marked and labelled with their series; the legend sits in a
box under the plot; the subtitle (opts.subtitle, else report.subtitle)
names the workload, file system, host and date.
opts.width/height/title/unit. ]]
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
  svg_frame(c, line and (title .. " (" .. line .. ")") or title, opts.subtitle or M.subtitle(x, opts))
  for yi = 1, math.min(#ys, 2) do
    local scale = svg_y_axis(c, yi, ys[yi], opts)
    svg_lines(c, yi, ys[yi], scale)
  end
  svg_marks(c)
  return svg_document(c)
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

--[[ report.html(x [, opts]): one self-contained page: the subtitle
(opts.subtitle, else report.subtitle), the table, the chart inline (sweeps
and lists of results; opts.chart: an SVG, or several, to show instead,
false for none), and the text summary.  report.html of one result shows
its latency over time and its latency histogram (report.latency). ]]
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
    "<p>" .. xml(opts.subtitle or M.subtitle(x, opts)) .. "</p>",
    string.format("<p>%s, %s CPUs (%s cores), luabench %s, %s</p>", xml(h.hostname or "?"),
                  xml(h.cpus or "?"), xml(h.physical_cores or "?"), xml(lb.version or "?"),
                  xml(os.date("!%Y-%m-%d %H:%M UTC"))),
    tbl.partial_line(t) and ("<p><strong>" .. xml(tbl.partial_line(t)) .. "</strong></p>") or "",
    html_table(t, opts),
  }
  if type(opts.chart) == "string" then
    o[#o + 1] = (opts.chart:gsub("^<%?xml[^\n]*\n", ""))
  elseif opts.chart ~= false and k ~= "result" and #t.rows > 1 then
    local svg = M.svg(x, {x = opts.x, y = opts.y, unit = opts.unit, title = opts.chart_title,
                          subtitle = opts.subtitle, log = opts.log})
    o[#o + 1] = (svg:gsub("^<%?xml[^\n]*\n", ""))
  end
  o[#o + 1] = "<pre>" .. xml(text.text(x, opts)) .. "</pre>"
  o[#o + 1] = "</body></html>"
  return table.concat(o, "\n") .. "\n"
end

-- What the other charts (report.latency) draw with.
M.parts = {xml = xml, ticks = ticks, log_ticks = log_ticks, COLORS = COLORS, legend = svg_legend,
           y_axis_scale = y_axis_scale, document = svg_document}

return M
