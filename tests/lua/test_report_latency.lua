-- Description: the charts of one run, read back from their SVG: latency
-- over time (report.timeline) has a line per direction and metric whose
-- points lie inside the plot box in time order, a time axis that grows, a
-- log latency axis when the values span more than a decade (linear when
-- told), and the legend outside the plot; the latency histogram
-- (report.histogram) has bars that hold every I/O on a log time axis, its
-- p50/p99/p99.9 marks labelled with the histogram's own values in order;
-- report.html of a run embeds both; bad arguments raise naming the problem.
local report = require "luabench.report"
local metric = require "luabench.metric"

local T = dofile("tests/lua/lib.lua")
local check, eq = T.check, T.eq

-- The tags of an SVG: {name=, attrs={...}, text=} in document order.
local function tags(s)
  local out = {}
  for name, attrs, rest in s:gmatch("<([%w:_-]+)([^>]*)>([^<]*)") do
    local a = {}
    for k, v in attrs:gmatch('([%w:_-]+)="([^"]*)"') do a[k] = tonumber(v) or v end
    out[#out + 1] = {name = name, attrs = a, text = rest}
  end
  return out
end

local function by_class(ts, class)
  local out = {}
  for _, t in ipairs(ts) do if t.attrs.class == class then out[#out + 1] = t end end
  return out
end

local function one(ts, class)
  local l = by_class(ts, class)
  eq(#l, 1, "elements of class " .. class)
  return l[1].attrs, l[1].text
end

local function balanced(s)
  local stack = {}
  for close, name, selfclose in s:gmatch("<(/?)([%w:_-]+)[^>]-(/?)>") do
    if close == "/" then
      if stack[#stack] ~= name then return false end
      stack[#stack] = nil
    elseif selfclose ~= "/" and name ~= "?xml" then
      stack[#stack + 1] = name
    end
  end
  return #stack == 0
end

-- The frame every chart shares: plot box, legend box outside it and inside
-- the picture, title, subtitle and axis titles.
local function frame(s, what)
  check(s:find("^<%?xml") and s:find("</svg>\n$") and balanced(s), "%s: not a well-formed SVG", what)
  local ts = tags(s)
  local W = tonumber(s:match('<svg[^>]* width="(%d+)"'))
  local H = tonumber(s:match('<svg[^>]* height="(%d+)"'))
  local plot, legend = one(ts, "plot-box"), one(ts, "legend-box")
  check(legend.y >= plot.y + plot.height or legend.x >= plot.x + plot.width or
        legend.x + legend.width <= plot.x or legend.y + legend.height <= plot.y,
        "%s: the legend box overlaps the plot box", what)
  check(legend.x >= 0 and legend.y >= 0 and legend.x + legend.width <= W and legend.y + legend.height <= H,
        "%s: the legend is outside the picture", what)
  local _, title = one(ts, "title")
  local _, sub = one(ts, "subtitle")
  local _, xt = one(ts, "x-title")
  local _, yt = one(ts, "y-title")
  check(#title > 0 and #sub > 0 and #xt > 0 and #yt > 0, "%s: empty titles", what)
  local inside = function(x, y)
    return x >= plot.x - 0.05 and x <= plot.x + plot.width + 0.05 and
           y >= plot.y - 0.05 and y <= plot.y + plot.height + 0.05
  end
  return ts, plot, inside, {title = title, sub = sub, x = xt, y = yt}
end

-- The x positions and numbers of the x tick labels, in document order.
local function x_ticks(ts)
  local out = {}
  for _, t in ipairs(by_class(ts, "x-tick")) do out[#out + 1] = {x = t.attrs.x, label = t.text} end
  return out
end

-- ---------------------------------------------------------------- a real run

local r = lb.run{name = "chart", ioengine = "null", size = "64m", bs = "4k", rw = "randrw",
                 runtime = "1s", time_based = true, interval = "100ms"}
check(#r.intervals >= 3, "intervals: %d", #r.intervals)   -- about 10; fewer when the sampler is starved
local tl = report.timeline(r)
local ts, plot, inside, titles = frame(tl, "timeline")
check(titles.title:find("p50 and p99 latency over time", 1, true), "timeline title: %s", titles.title)
check(titles.sub:find("rw=randrw", 1, true) and titles.sub:find("bs=4k", 1, true) and
      titles.sub:find(lb.hostname(), 1, true) and titles.sub:find("%d%d%d%d%-%d%d%-%d%d"),
      "timeline subtitle: %s", titles.sub)
eq(titles.x, "time (s)", "time axis title")
local lines = by_class(ts, "series")
eq(#lines, 4, "read and write x p50 and p99")
for i, l in ipairs(lines) do
  local last, n = -math.huge, 0
  for px, py in l.attrs.points:gmatch("([%d.]+),([%d.]+)") do
    px, py = tonumber(px), tonumber(py)
    check(inside(px, py), "line %d: point %s,%s outside the plot box", i, px, py)
    check(px > last, "line %d: time goes back at %s", i, px)
    last, n = px, n + 1
  end
  -- a point per interval in which the line's direction did I/O (on a
  -- starved machine an interval may hold none of one direction)
  local d, want = i <= 2 and "read" or "write", 0
  for _, iv in ipairs(r.intervals) do
    if type(iv[d]) == "table" and (iv[d].total_ios or 0) > 0 then want = want + 1 end
  end
  eq(n, want, "line " .. i .. " has a point per interval with " .. d .. "s")
end
check(lines[1].attrs.stroke == lines[2].attrs.stroke and not lines[1].attrs["stroke-dasharray"] and
      lines[2].attrs["stroke-dasharray"], "one hue per direction, p99 dashed")
check(lines[1].attrs.stroke ~= lines[3].attrs.stroke, "read and write differ in hue")
local xt = x_ticks(ts)
check(#xt >= 3, "time ticks: %d", #xt)
for i = 2, #xt do
  check(xt[i].x > xt[i - 1].x and tonumber(xt[i].label) > tonumber(xt[i - 1].label),
        "time ticks grow: %s after %s", xt[i].label, xt[i - 1].label)
end
check(tonumber(xt[#xt].label) >= r.intervals[#r.intervals].end_ms / 1000 - 1e-9, "the time axis covers the run")
-- intervals keep total latency: the lines are lat's
for _, want in ipairs({"read: p50 lat", "read: p99 lat", "write: p50 lat", "write: p99 lat"}) do
  check(tl:find(">" .. want .. "<", 1, true), "legend lacks %s", want)
end

-- one metric, and the mean
local mean = report.timeline(r, {y = "lat_mean"})
eq(#by_class(tags(mean), "series"), 2, "lat_mean: a line per direction")
check(mean:find(">read: mean lat<", 1, true), "lat_mean legend")

-- ---------------------------------------------------------------- synthetic runs

-- A run of read intervals whose latencies step from 100us to 20ms: three
-- decades on the latency axis.
local function hist_of(list)
  local h = lb.hist()
  for _, p in ipairs(list) do h:record(p[1], p[2]) end
  return h
end
local ivs, all = {}, lb.hist()
for i = 1, 6 do
  local v = i <= 3 and 100e3 or 20e6
  local h = hist_of({{v, 99}, {v * 2, 1}})
  all:merge(h)
  ivs[i] = {index = i, start_ms = (i - 1) * 500, end_ms = i * 500, duration_s = 0.5,
            read = {total_ios = 100, clat_hist = h}}
end
local syn = {read = {total_ios = all:count(), clat_hist = all, lat_hist = all}, intervals = ivs,
             options = {rw = "randread", bs = "4k", ioengine = "psync"}}
local logc = report.timeline(syn)
local lts = frame(logc, "log timeline")
local _, ytitle = one(lts, "y-title")
check(ytitle:find("log scale", 1, true), "three decades: a log axis (%s)", ytitle)
local ylabels = {}
for _, t in ipairs(by_class(lts, "y-tick")) do ylabels[t.text] = true end
check(ylabels["100us"] and ylabels["1ms"] and ylabels["10ms"], "decade ticks with units")
local lin = report.timeline(syn, {log = false})
local _, lt = one(tags(lin), "y-title")
eq(lt, "clat latency (ms)", "log = false keeps it linear")
-- a steady run stays linear
local flat = {}
for i = 1, 4 do flat[i] = {end_ms = i * 1000, read = {total_ios = 10, clat_hist = hist_of({{50e3, 10}})}} end
local _, ft = one(tags(report.timeline({read = {total_ios = 40, clat_hist = all}, intervals = flat})), "y-title")
eq(ft, "clat latency (us)", "one latency: a linear axis in us")

-- two runs: a hue per run, named in the legend
local two = report.timeline({r, syn})
check(two:find(">chart read: p50 lat<", 1, true) and two:find(">run 2 read: p99 clat<", 1, true),
      "the runs are named in the legend")

-- ---------------------------------------------------------------- histogram

local hs = report.histogram(r)
local hts, hplot, hin, htitles = frame(hs, "histogram")
check(htitles.title:find("latency histogram", 1, true) and htitles.x:find("log scale", 1, true),
      "histogram titles: %s / %s", htitles.title, htitles.x)
local h = metric.hist(r, nil, "lat")
local bars, sum = by_class(hts, "bar"), 0
check(#bars > 0, "no bars")
for _, b in ipairs(bars) do
  local a = b.attrs
  check(hin(a.x, a.y) and hin(a.x + a.width, a.y + a.height), "bar outside the plot box")
  check(math.abs(a.y + a.height - (hplot.y + hplot.height)) < 0.1, "bars stand on the axis")
end
for n in hs:gmatch(": (%d+) I/Os %(") do sum = sum + tonumber(n) end
eq(sum, h:count(), "the bars hold every I/O")
local marks = by_class(hts, "pct-mark")
eq(#marks, 3, "three percentile marks")
local labels = by_class(hts, "mark-label")
for i, p in ipairs({50, 99, 99.9}) do
  eq(labels[i].text, string.format("p%s %s", metric.num(p), metric.fmt_ns(h:percentile(p))), "mark label")
  check(hin(marks[i].attrs.x1, marks[i].attrs.y1), "mark %d inside the plot", i)
  if i > 1 then check(marks[i].attrs.x1 >= marks[i - 1].attrs.x1, "marks in order of percentile") end
end

-- a known histogram: 990 I/Os at 120us, 10 at 12ms
local known = hist_of({{120e3, 990}, {12e6, 10}})
local ks = report.histogram({read = {total_ios = 1000, clat_hist = known, lat_hist = known}})
local kts, kplot = frame(ks, "known histogram")
local kb = by_class(kts, "bar")
eq(#kb, 2, "two bins")
local ticks = {}
for _, t in ipairs(x_ticks(kts)) do ticks[t.label] = t.x end
check(ticks["100us"] and ticks["1ms"] and ticks["10ms"], "decade ticks on the time axis")
check(kb[1].attrs.x >= ticks["100us"] and kb[1].attrs.x + kb[1].attrs.width <= ticks["1ms"], "the 120us bar")
check(kb[2].attrs.x >= ticks["10ms"] and kb[2].attrs.x + kb[2].attrs.width <= ticks["100ms"], "the 12ms bar")
check(kb[1].attrs.height > 90 * kb[2].attrs.height, "99%% against 1%%: %g and %g", kb[1].attrs.height,
      kb[2].attrs.height)
check(ks:find(": 990 I/Os %(99%%%)") and ks:find(": 10 I/Os %(1%%%)"), "bar counts and shares")
local kl = by_class(kts, "mark-label")
check(kl[1].text:find("^p50 1[12][0-9.]*us$") and kl[3].text:find("^p99%.9 1[12][0-9.]*ms$"),
      "known marks: %s, %s", kl[1].text, kl[3].text)
local yl = {}
for _, t in ipairs(by_class(kts, "y-tick")) do yl[#yl + 1] = t.text end
check(yl[1] == "0%" and yl[#yl]:find("%%$"), "percent ticks: %s", table.concat(yl, " "))
local counts = report.histogram({read = {total_ios = 1000, clat_hist = known}}, {y = "count", latency = "clat"})
local cyl = by_class(tags(counts), "y-tick")
check(tonumber(cyl[#cyl].text) >= 990 and not cyl[#cyl].text:find("%%"), "count ticks: %s", cyl[#cyl].text)

-- ---------------------------------------------------------------- html and bad input

local html = report.html(r)
eq(select(2, html:gsub("<svg ", "")), 2, "the page of a run embeds two charts")
check(html:find("latency over time", 1, true) and html:find("latency histogram", 1, true), "both charts")
check(not html:find("<%?xml"), "inline charts keep no XML declaration")

local function raises(fn, want)
  local ok, msg = pcall(fn)
  check(not ok and tostring(msg):find(want, 1, true), "expected an error with '%s', got %s", want, tostring(msg))
end
raises(function() report.timeline(r, {y = "bw"}) end, "y must be latency metrics")
raises(function() report.timeline(r, {y = "p99x"}) end, "unknown metric 'p99x'")
raises(function() report.timeline({points = {}}) end, "expected an lb.run result or an array of results")
raises(function() report.histogram(r, {ddir = "up"}) end, "ddir must be read, write or trim")
raises(function() report.histogram(r, {y = "log"}) end, "y must be 'percent' or 'count'")
raises(function() report.histogram(r, {per_decade = 0}) end, "per_decade must be a whole number")
