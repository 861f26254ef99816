--[[
luabench.report.latency: the charts of one run's latencies, standalone SVG
1.1 like report.svg's.  report.timeline draws latency percentiles over
time from the per-interval samples (result.intervals), one hue per
direction (and per run, for an array of results), the first metric solid
and the second dashed; report.histogram draws the merged latency
histogram on a logarithmic time axis, in percent (or counts) of the I/Os,
with p50, p99 and p99.9 marked and labelled.  Both put the legend in a box
under the plot and the subtitle (the workload, file system, host, date)
under the title, as report.svg does.
]]

local metrics = require "luabench.metric"
local tbl = require "luabench.report.table"
local svg = require "luabench.report.svg"

local M = {}

local parts = svg.parts
local xml, ticks, log_ticks, COLORS = parts.xml, parts.ticks, parts.log_ticks, parts.COLORS

-- The runs of x (a result or an array of results) and a name for each.
local function runs_of(x, who)
  local k = tbl.check_kind(x, 3)
  if k == "result" then return {x}, {""} end
  if k ~= "results" then
    error(string.format("report.%s: expected an lb.run result or an array of results", who), 3)
  end
  local names = {}
  for i, r in ipairs(x) do
    local n = type(r.jobname) == "string" and r.jobname or ("run " .. i)
    names[i] = #x > 1 and n or ""
  end
  return x, names
end

-- A chart: title and subtitle, the plot box, and what the legend helper
-- of report.svg reads (W, T, ph, legend, add).
local function new_chart(opts, title, subtitle)
  local c = {W = opts.width or 760, L = 80, R = 30, T = 62, o = {}, legend = {}}
  c.pw, c.ph = c.W - c.L - c.R, (opts.height or 420) - c.T - 56
  function c.add(...) c.o[#c.o + 1] = string.format(...) end
  c.add('<text class="title" x="%d" y="22" text-anchor="middle" font-size="15">%s</text>', c.W // 2, xml(title))
  if subtitle and subtitle ~= "" then
    c.add('<text class="subtitle" x="%d" y="42" text-anchor="middle" font-size="11" fill="#555">%s</text>',
          c.W // 2, xml(subtitle))
  end
  c.add('<rect class="plot-box" x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#888"/>',
        c.L, c.T, c.pw, c.ph)
  return c
end

local finish = parts.document

local function x_tick(c, px, label)
  c.add('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#888"/>', px, c.T + c.ph, px, c.T + c.ph + 5)
  c.add('<text class="x-tick" x="%.1f" y="%d" text-anchor="middle">%s</text>', px, c.T + c.ph + 18, xml(label))
end

local function y_tick(c, py, label)
  c.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#eee"/>', c.L, py, c.L + c.pw, py)
  c.add('<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="#888"/>', c.L, py, c.L - 4, py)
  c.add('<text class="y-tick" x="%d" y="%.1f" text-anchor="end">%s</text>', c.L - 7, py + 4, xml(label))
end

local function axis_titles(c, xt, yt)
  c.add('<text class="x-title" x="%d" y="%d" text-anchor="middle">%s</text>', c.L + c.pw // 2,
        c.T + c.ph + 38, xml(xt))
  local lx, ly = 16, c.T + c.ph // 2
  c.add('<text class="y-title" x="%d" y="%d" text-anchor="middle" transform="rotate(-90 %d %d)">%s</text>',
        lx, ly, lx, ly, xml(yt))
end

-- A latency axis over [lo, hi] ns: logarithmic (decade ticks) or linear
-- from 0 in the unit that suits hi; returns the scale (ns -> y) and the
-- unit part of the axis title.
local function latency_axis(c, lo, hi, log)
  local function tick(py, label) y_tick(c, py, label) end
  if log then return parts.y_axis_scale(c, tick, lo, hi, true), "log scale" end
  local div, unit = 1, "ns"
  if hi >= 1e6 then div, unit = 1e6, "ms" elseif hi >= 1e3 then div, unit = 1e3, "us" end
  return parts.y_axis_scale(c, tick, 0, hi, false, div), unit
end

-- ---------------------------------------------------------------- timeline

local NAMES = {p50 = "p50", p99 = "p99", ["p99.9"] = "p99.9", lat_mean = "mean"}

local function metric_name(y)
  local kind, base = metrics.kind_of(y)
  return (NAMES[base] or base), kind
end

--[[ report.timeline(x [, opts]): latency over time from the per-interval
samples of x (an lb.run result or an array of them).  opts.y: the latency
metrics, one or two (default {"p50", "p99"}; "lat_mean", "p99.9",
"clat_p99", "sched_p99" under a rate cap...), the first solid, the second dashed; one hue per direction
that did I/O (and per run).  The time axis is seconds since the timed
phase started, each point at the end of its interval.  The latency axis is
logarithmic when the values span more than a decade (opts.log = false
keeps it linear, true forces it).  An interval keeps total latency (lat)
beside clat; one without lat (built by hand) shows clat, and the axis
says which.
opts.title, subtitle, width, height. ]]
function M.timeline(x, opts)
  opts = opts or {}
  local list, names = runs_of(x, "timeline")
  local ys = type(opts.y) == "string" and {opts.y} or opts.y or {"p50", "p99"}
  if #ys < 1 or #ys > 2 then error("report.timeline: y takes one or two latency metrics", 2) end
  for _, y in ipairs(ys) do
    metrics.check_metric(y, 2)
    if y == "bw" or y == "iops" then
      error(string.format("report.timeline: y must be latency metrics (p50, p99, lat_mean...), not '%s'", y), 2)
    end
  end
  -- the series: run x direction x metric, each a list of {t_s, ns}
  local series, lo, hi, tmax, kinds = {}, math.huge, 0, 0, {}
  for ri, r in ipairs(list) do
    for _, d in ipairs(metrics.DIRS) do
      local did = type(r[d]) == "table" and (r[d].total_ios or 0) > 0
      if did then
        for yi, y in ipairs(ys) do
          local pts, skind = {}, nil
          for _, iv in ipairs(r.intervals or {}) do
            local t = (iv.end_ms or 0) / 1000
            tmax = math.max(tmax, t)
            local v = type(iv[d]) == "table" and metrics.metric(iv, y, d) or nil
            if v then
              pts[#pts + 1] = {t, v}
              if v > 0 then lo = math.min(lo, v) end
              hi = math.max(hi, v)
              local _, kind = metrics.hist(iv, d, metrics.HIST_KIND[(metrics.kind_of(y))])
              kinds[kind or "clat"] = true
              skind = skind or kind
            end
          end
          series[#series + 1] = {run = ri, dir = d, yi = yi, y = y, pts = pts, kind = skind}
        end
      end
    end
  end
  local shown = {}
  for _, k in ipairs{"lat", "clat", "sched_lat"} do
    if kinds[k] then shown[#shown + 1] = k == "sched_lat" and "sched" or k end
  end
  local kind = #shown > 0 and table.concat(shown, "/") or "clat"
  local title = opts.title
  if not title then
    local ns = {}
    for i, y in ipairs(ys) do ns[i] = (metric_name(y)) end
    title = "luabench: " .. table.concat(ns, " and ") .. " latency over time (" .. kind .. ", per interval)"
  end
  local c = new_chart(opts, title, opts.subtitle or svg.subtitle(x, opts))
  if hi <= 0 then
    c.add('<text class="empty" x="%d" y="%d" text-anchor="middle">no per-interval samples</text>',
          c.L + c.pw // 2, c.T + c.ph // 2)
    axis_titles(c, "time (s)", kind .. " latency")
    return finish(c)
  end
  if lo == math.huge then lo = hi end
  local log = opts.log
  if log == nil then log = hi / lo > 10 end
  local scale, unit = latency_axis(c, lo, hi, log)
  local tk, top, dec = ticks(tmax)
  local function px(t) return c.L + t / top * c.pw end
  for _, t in ipairs(tk) do x_tick(c, px(t), string.format("%." .. dec .. "f", t)) end
  axis_titles(c, "time (s)", kind .. " latency (" .. unit .. ")")
  -- one hue per run x direction, solid for the first metric, dashed for the second
  local hue, nhue = {}, 0
  for _, s in ipairs(series) do
    local key = s.run .. "/" .. s.dir
    if not hue[key] then nhue = nhue + 1; hue[key] = COLORS[(nhue - 1) % #COLORS + 1] end
    local color = hue[key]
    local coords = {}
    for i, p in ipairs(s.pts) do
      local py = scale(p[2])
      if py then coords[#coords + 1] = string.format("%.1f,%.1f", px(p[1]), py) end
      s.pts[i].py = py
    end
    local dash = s.yi == 2 and ' stroke-dasharray="6,4"' or ""
    if #coords > 0 then
      c.add('<polyline class="series" fill="none" stroke="%s" stroke-width="2"%s points="%s"/>', color,
            dash, table.concat(coords, " "))
    end
    if #coords <= 40 then
      for _, p in ipairs(s.pts) do
        if p.py then
          c.add('<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s" stroke="%s"/>', px(p[1]), p.py,
                s.yi == 1 and color or "white", color)
        end
      end
    end
    local who = names[s.run] ~= "" and names[s.run] .. " " or ""
    c.legend[#c.legend + 1] = {color = color, dash = s.yi == 2,
                               name = who .. s.dir .. ": " .. (metric_name(s.y)) .. " " ..
                                      (s.y:find("^clat_") and "clat" or s.kind or kind)}
  end
  return finish(c)
end

-- ---------------------------------------------------------------- histogram

local MARKS = {50, 99, 99.9}

--[[ report.histogram(x [, opts]): the latency histogram of x (an lb.run
result, or an array of them, merged), the directions merged (opts.ddir:
"read", "write" or "trim" alone): buckets of equal width on a logarithmic
time axis (opts.per_decade, default 10), the share of the I/Os in each in
percent (opts.y = "count": the number of I/Os), p50, p99 and p99.9 marked
with a line and labelled with their value (opts.marks: other
percentiles).  opts.latency = "clat" draws completion latency instead of
total latency (lat, fio's slat + clat).  opts.title, subtitle, width,
height. ]]
function M.histogram(x, opts)
  opts = opts or {}
  local list = runs_of(x, "histogram")
  if opts.ddir ~= nil and opts.ddir ~= "read" and opts.ddir ~= "write" and opts.ddir ~= "trim" then
    error(string.format("report.histogram: ddir must be read, write or trim, not '%s'", tostring(opts.ddir)), 2)
  end
  tbl.check_latency(opts.latency, 2)
  local ymode = opts.y or "percent"
  if ymode ~= "percent" and ymode ~= "count" then
    error(string.format("report.histogram: y must be 'percent' or 'count', not '%s'", tostring(ymode)), 2)
  end
  local per = opts.per_decade or 10
  if type(per) ~= "number" or per < 1 or per ~= math.floor(per) then
    error("report.histogram: per_decade must be a whole number of at least 1", 2)
  end
  local h, kind = lb.hist(), nil
  for _, r in ipairs(list) do
    local rh, k = metrics.hist(r, opts.ddir, opts.latency or "lat")
    if rh then h:merge(rh); kind = kind or k end
  end
  kind = kind or opts.latency or "lat"
  local dirs = opts.ddir or "directions merged"
  local title = opts.title or ("luabench: latency histogram (" .. kind .. ", " .. dirs .. ")")
  local c = new_chart(opts, title, opts.subtitle or svg.subtitle(x, opts))
  local total = h:count()
  if total == 0 then
    c.add('<text class="empty" x="%d" y="%d" text-anchor="middle">no I/O completed</text>',
          c.L + c.pw // 2, c.T + c.ph // 2)
    axis_titles(c, "latency (" .. kind .. ", log scale)", ymode == "count" and "I/Os per bin" or "share of I/Os (%)")
    return finish(c)
  end
  -- the core's buckets regrouped into per-decade bins, by their middle
  local bins, bmin, bmax = {}, math.huge, -math.huge
  for _, b in ipairs(h:buckets()) do
    local mid = math.max(1, (b.lo + b.hi) / 2)
    local i = math.floor(math.log(mid, 10) * per + 1e-9)
    bins[i] = (bins[i] or 0) + b.count
    bmin, bmax = math.min(bmin, i), math.max(bmax, i)
  end
  local lo, hi = 10 ^ (bmin / per), 10 ^ ((bmax + 1) / per)
  local tk, a, b = log_ticks(lo, hi)
  local la, lb_ = math.log(a, 10), math.log(b, 10)
  local function px(v) return c.L + (math.log(v, 10) - la) / (lb_ - la) * c.pw end
  for _, v in ipairs(tk) do x_tick(c, px(v), metrics.fmt_ns(v)) end
  local top_v = 0
  for i = bmin, bmax do
    local v = bins[i] or 0
    if ymode == "percent" then v = v / total * 100 end
    top_v = math.max(top_v, v)
  end
  local ytk, top, dec = ticks(top_v * 1.25)   -- room above the bars for the mark labels
  if ymode == "count" then dec = 0 end
  for _, v in ipairs(ytk) do
    y_tick(c, c.T + c.ph - v / top * c.ph, string.format("%." .. dec .. "f", v) .. (ymode == "percent" and "%" or ""))
  end
  axis_titles(c, "latency (" .. kind .. ", log scale)", ymode == "count" and "I/Os per bin" or "share of I/Os (%)")
  local color = COLORS[1]
  for i = bmin, bmax do
    local n = bins[i]
    if n and n > 0 then
      local v = ymode == "percent" and n / total * 100 or n
      local x0, x1 = px(10 ^ (i / per)), px(10 ^ ((i + 1) / per))
      local hgt = math.max(1, v / top * c.ph)   -- a bin of a few I/Os stays visible
      c.add('<rect class="bar" x="%.2f" y="%.2f" width="%.2f" height="%.2f" fill="%s" fill-opacity="0.75" ' ..
            'stroke="white" stroke-width="0.5"><title>%s-%s: %d I/Os (%.3g%%)</title></rect>',
            x0, c.T + c.ph - hgt, math.max(0.5, x1 - x0), hgt, color,
            metrics.fmt_ns(10 ^ (i / per)), metrics.fmt_ns(10 ^ ((i + 1) / per)), n, n / total * 100)
    end
  end
  c.legend[#c.legend + 1] = {color = color, name = string.format("%s, %s (%d I/Os)", kind, dirs, total)}
  -- the percentile marks, each label on a line of its own at the top
  local mark_colors = {"#d62728", "#9467bd", "#ff7f0e", "#2ca02c", "#17becf"}
  for slot, p in ipairs(opts.marks or MARKS) do
    local v = h:percentile(p)
    local mx = px(math.max(v, a))
    local mc = mark_colors[(slot - 1) % #mark_colors + 1]
    c.add('<line class="pct-mark" x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-width="1.5" ' ..
          'stroke-dasharray="4,3"/>', mx, c.T, mx, c.T + c.ph, mc)
    local anchor = mx > c.L + c.pw * 0.75 and "end" or "start"
    local label = string.format("p%s %s", metrics.num(p), metrics.fmt_ns(v))
    c.add('<text class="mark-label" x="%.1f" y="%d" text-anchor="%s" font-size="11" fill="%s" stroke="white" stroke-width="3" paint-order="stroke">%s</text>',
          mx + (anchor == "start" and 4 or -4), c.T + 13 * slot, anchor, mc, xml(label))
    c.legend[#c.legend + 1] = {color = mc, dash = true, name = label}
  end
  return finish(c)
end

return M
