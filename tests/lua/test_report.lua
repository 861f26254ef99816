-- Description: reports of a real sweep and a result read back: JSON parses
-- with the documented schema, CSV parses to the same numbers, the SVG is
-- well-formed XML, the Markdown pivot has the guide's rows and columns, and
-- the text summary names IOPS, both bandwidth units, percentiles and CPU.
local report = require "luabench.report"
local sweep = require "luabench.sweep"

local T = dofile("tests/lua/lib.lua")
local check = T.check

local dir, _ <close> = T.tmpdir("report")

local sw = sweep.run{
  base = {name = "rep", engine = "null", bs = "4k", size = "1g", time_based = true, runtime = "100ms"},
  vary = {{"rw", {"read", "randread"}}, {"numjobs", {1, 2}}},
  progress = false,
}
local t = report.table(sw)
check(#t.rows == 4 and t.columns[1].key == "rw" and t.columns[2].key == "numjobs", "table shape")
for _, r in ipairs(t.rows) do check(r.bw > 0 and r.iops > 0 and r.p99 > 0, "row values") end

-- JSON
local doc = lb.json_decode(report.json(sw))
check(doc.schema == "luabench.report/1" and doc.kind == "sweep", "json schema %s", tostring(doc.schema))
check(#doc.rows == 4 and #doc.columns == #t.columns and doc.host and doc.time, "json rows/columns")
for i, r in ipairs(doc.rows) do
  check(r.rw == t.rows[i].rw and r.numjobs == t.rows[i].numjobs, "json row %d params", i)
  check(math.abs(r.bw - t.rows[i].bw) <= 1e-9 * t.rows[i].bw + 1, "json row %d bw", i)
end
check(doc.peak and doc.peak.rw, "json peak params")
-- where it ran, what ran, and the hooks before each point
local env = doc.environment
check(env and env.luabench == lb.version and env.kernel and #env.kernel > 0 and env.clock, "environment")
check(env.cpus and env.cpus > 0 and env.hostname, "environment: host")
check(doc.base and doc.base.bs == "4k" and doc.params[1] == "rw", "the sweep's base and parameters")
check(#doc.points == 4 and doc.points[1].params.rw and #doc.points[1].repeats == 1, "points")
local cache = require "luabench.cache"
local hooked = sweep.run{
  base = {name = "h", engine = "null", bs = "4k", size = "1m", rw = "read", directory = dir},
  vary = {{"numjobs", {1, 2}}}, progress = false,
  before_each = function() cache.exec{cmd = "echo hook-ran"} end,
}
local hdoc = lb.json_decode(report.json(hooked))
check(hdoc.points[2].hooks and hdoc.points[2].hooks[1].cmd == "echo hook-ran", "the hook log of a point")
local fs = hdoc.environment.fs
check(fs and fs.mount and fs.type and hdoc.environment.dir == dir, "the file system of %s", dir)
if dir:find("^/dev/shm/") then T.eq(fs.type, "tmpfs", "/dev/shm's file system") end
local one = lb.json_decode(report.json(sw.points[1].result, {full = true}))
check(one.kind == "result" and #one.rows == 1 and one.results[1].read, "json of a result")

-- CSV, parsed back by a small RFC 4180 reader
local function parse_csv(s)
  local rows, row, field, i, quoted = {}, {}, {}, 1, false
  while i <= #s do
    local c = s:sub(i, i)
    if quoted then
      if c == '"' and s:sub(i + 1, i + 1) == '"' then field[#field + 1] = '"'; i = i + 1
      elseif c == '"' then quoted = false
      else field[#field + 1] = c end
    elseif c == '"' then quoted = true
    elseif c == "," then row[#row + 1] = table.concat(field); field = {}
    elseif c == "\r" and s:sub(i + 1, i + 1) == "\n" then
      row[#row + 1] = table.concat(field); rows[#rows + 1] = row; row, field = {}, {}; i = i + 1
    else field[#field + 1] = c end
    i = i + 1
  end
  return rows
end
local csv = parse_csv(report.csv(sw))
check(#csv == 5, "csv has %d lines, wanted 5", #csv)
local want_head = {rw = "rw", numjobs = "numjobs", iops = "iops", bw = "bw_MiBps", p50 = "p50_us",
                   p99 = "p99_us", ["p99.9"] = "p99.9_us", lat_mean = "lat_mean_us",
                   usr_cpu = "usr_cpu_pct", sys_cpu = "sys_cpu_pct"}
for j, c in ipairs(t.columns) do
  check(csv[1][j] == (want_head[c.key] or csv[1][j]), "csv header %d: %s", j, tostring(csv[1][j]))
end
for i = 1, 4 do
  local rec = {}
  for j in ipairs(t.columns) do rec[csv[1][j]] = csv[i + 1][j] end
  check(rec.rw == t.rows[i].rw and tonumber(rec.numjobs) == t.rows[i].numjobs, "csv row %d", i)
  check(math.abs(tonumber(rec.bw_MiBps) * 1048576 - t.rows[i].bw) <= 1e-5 * t.rows[i].bw, "csv bw %s", rec.bw_MiBps)
  check(math.abs(tonumber(rec.p99_us) * 1e3 - t.rows[i].p99) <= 1e-5 * t.rows[i].p99, "csv p99 %s", rec.p99_us)
  check(math.abs(tonumber(rec.iops) - t.rows[i].iops) <= 1e-5 * t.rows[i].iops, "csv iops %s", rec.iops)
end
local raw = parse_csv(report.csv(sw, {raw = true}))
for j, c in ipairs(t.columns) do check(raw[1][j] == c.key, "raw csv header %d: %s", j, tostring(raw[1][j])) end
local mb = parse_csv(report.csv(sw, {unit = "MB/s"}))
local bwcol
for j, k in ipairs(mb[1]) do if k == "bw_MBps" then bwcol = j end end
check(bwcol and math.abs(tonumber(mb[2][bwcol]) * 1e6 - t.rows[1].bw) <= 1e-4 * t.rows[1].bw, "csv in MB/s")

-- SVG: a strict tag balance check, then a real XML parser when there is one
local function balanced(s)
  local stack = {}
  for close, name, selfclose in s:gmatch("<(/?)([%w:_-]+)[^>]-(/?)>") do
    if close == "/" then
      if stack[#stack] ~= name then return false, "unexpected </" .. name .. ">" end
      stack[#stack] = nil
    elseif selfclose ~= "/" then
      stack[#stack + 1] = name
    end
  end
  return #stack == 0, stack[#stack]
end
local svg = report.svg{data = sw, x = "numjobs", y = {"bw", "p99"}}
check(svg:find("^<%?xml") and svg:find("<svg") and svg:find("</svg>%s*$"), "svg frame")
check(balanced(svg), "svg tags are not balanced")
check(select(2, svg:gsub("<polyline", "")) == 4, "two series x two metrics = 4 lines")
local svgpath = dir .. "/chart.svg"
report.write(svgpath, svg)
local rc = os.execute("command -v python3 >/dev/null 2>&1")
if rc then
  check(os.execute("python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' '" ..
                   svgpath .. "'"), "python3 could not parse the SVG")
end

-- Chart layout, read back from the SVG: two modes whose p99s are decades apart
local function chart_table()
  local rows = {}
  local bwv = {shared = {1, 1.9, 3.5, 3.6}, independent = {1.2, 2.3, 4.4, 8.0}}
  local p99v = {shared = {8e3, 9e3, 12e3, 40e3}, independent = {2e6, 2.5e6, 3e6, 9e6}}
  for _, mode in ipairs({"shared", "independent"}) do
    for i, n in ipairs({1, 2, 4, 8}) do
      local mark = (mode == "shared" and n == 4 or mode == "independent" and n == 2) and "knee" or
                   (mode == "independent" and n == 8) and "peak" or ""
      rows[#rows + 1] = {mode = mode, numjobs = n, bw = bwv[mode][i] * 2^30, p99 = p99v[mode][i], mark = mark}
    end
  end
  return {columns = {{key = "mode", title = "mode", unit = ""}, {key = "numjobs", title = "numjobs", unit = ""},
                     {key = "bw", title = "BW", unit = "B/s"}, {key = "p99", title = "p99", unit = "ns"},
                     {key = "mark", title = "", unit = ""}}, rows = rows}
end
local function rect(svgs, class)
  local tag = svgs:match('<rect class="' .. class .. '"[^>]*>')
  check(tag, "no rect of class %s", class)
  local n = {}
  for _, k in ipairs({"x", "y", "width", "height"}) do n[k] = tonumber(tag:match(' ' .. k .. '="([%d.]+)"')) end
  return n
end
local chart = report.svg(chart_table(), {x = "numjobs", y = {"bw", "p99"}, unit = "GiB/s", subtitle = "rw=read, bs=1M"})
check(balanced(chart), "chart tags are not balanced")
local plot, legend = rect(chart, "plot%-box"), rect(chart, "legend%-box")
local H = tonumber(chart:match('<svg[^>]* height="(%d+)"'))
check(legend.y >= plot.y + plot.height or legend.x >= plot.x + plot.width or
      legend.x + legend.width <= plot.x or legend.y + legend.height <= plot.y,
      "the legend box overlaps the plot box")
check(legend.y + legend.height <= H, "the legend is inside the picture")
check(chart:find(">knee %(mode=shared%)<") and chart:find(">knee %(mode=independent%)<"), "knees labelled by series")
check(chart:find(">peak %(mode=independent%)<"), "peak labelled by series")
check(chart:find('class="subtitle"[^>]*>rw=read, bs=1M<'), "subtitle")
check(chart:find(">p99 latency %(log scale%)<"), "p99 spanning 3 decades is on a log axis")
check(chart:find('class="y%-tick"[^>]*>10us<') and chart:find('class="y%-tick"[^>]*>1ms<'), "log ticks with units")
local decs = {}
for label in chart:gmatch('class="y%-tick" x="7%d"[^>]*>([^<]*)<') do decs[#(label:match("%.(%d*)$") or "")] = true end
local ndec = 0
for _ in pairs(decs) do ndec = ndec + 1 end
T.eq(ndec, 1, "left ticks share their decimals")
check(chart:find(">bandwidth %(GiB/s%)<"), "bandwidth axis names its unit")
local strokes = {}
for st, dash in chart:gmatch('<polyline fill="none" stroke="([^"]+)" stroke%-width="2"([^/]*)points') do
  strokes[#strokes + 1] = {st, dash:find("dasharray") ~= nil}
end
T.eq(#strokes, 4, "two series x two metrics")
check(strokes[1][1] == strokes[3][1] and not strokes[1][2] and strokes[3][2], "one hue per series, p99 dashed")
check(strokes[1][1] ~= strokes[2][1], "series differ in hue")
local lin = report.svg(chart_table(), {x = "numjobs", y = {"bw", "p99"}, log = false})
check(not lin:find("log scale") and lin:find(">p99 latency %(ms%)<"), "log = false keeps the axis linear")
local sub = report.subtitle(sw)
check(sub:find("bs=4k", 1, true) and sub:find("ioengine=null", 1, true) and not sub:find("numjobs=", 1, true),
      "a sweep's subtitle: %s", sub)

-- Markdown in the guide's layout
local md = report.markdown(sw, {rows = "rw", cols = "numjobs", metric = "bw", unit = "MiB/s"})
local lines = {}
for l in md:gmatch("[^\n]+") do lines[#lines + 1] = l end
check(#lines == 4, "markdown has %d lines:\n%s", #lines, md)
check(lines[1] == "| Bandwidth/Threads | 1 thread | 2 threads |", "markdown header: %s", lines[1])
check(lines[2] == "|---|---|---|", "markdown rule: %s", lines[2])
check(lines[3]:find("^| Sequential Read | [%d.]+ MiB/s | [%d.]+ MiB/s |$"), "markdown row: %s", lines[3])
check(lines[4]:find("^| Random Read | "), "markdown row: %s", lines[4])
local iops = report.markdown(sw, {rows = "rw", cols = "numjobs", metric = "iops"})
check(iops:find("^| IOPS/Threads |"), "iops header")
check(report.markdown(sw, {rows = "rw", cols = "numjobs", metric = "bw", unit = "MB/s"}):find(" MB/s |"),
      "MB/s cells")
-- the metric by block size: IOPS for 4k, bandwidth for 1M; the knee marked
check(report.markdown(sw, {rows = "rw", cols = "numjobs"}):find("^| IOPS/Threads |"), "4k: IOPS by default")
local big = sweep.run{
  base = {name = "rep", engine = "null", bs = "1m", size = "1g", time_based = true, runtime = "100ms"},
  vary = {{"numjobs", {1, 2, 4}}}, progress = false,
  stop = sweep.knee{bw_gain = 100},   -- no step gains 100x: the knee is the first point
}
local bigmd = report.markdown(big)
check(bigmd:find("^| Bandwidth/Threads |"), "1M: bandwidth by default:\n%s", bigmd)
check(bigmd:find("| [%d.]+ MiB/s %(knee%) |"), "the knee cell is marked:\n%s", bigmd)
T.eq(select(2, bigmd:gsub("%(knee%)", "")), 1, "one knee")

-- plain rows give the same layout: the guide's single-node baseline
local baseline = {}
for _, r in ipairs({{"read", {2101, 9519, 8089}}, {"randread", {202, 6684, 8276}}}) do
  for i, n in ipairs({1, 32, 128}) do
    baseline[#baseline + 1] = {rw = r[1], numjobs = n, bw = r[2][i] * 1048576}
  end
end
local want = "| Bandwidth/Threads | 1 thread | 32 threads | 128 threads |\n|---|---|---|---|\n" ..
             "| Sequential Read | 2101 MiB/s | 9519 MiB/s | 8089 MiB/s |\n" ..
             "| Random Read | 202 MiB/s | 6684 MiB/s | 8276 MiB/s |\n"
local got = report.markdown(baseline, {rows = "rw", cols = "numjobs"})
check(got == want, "baseline table:\n%s", got)

-- text of one result, and of the sweep
local r = sw.points[1].result
local text = report.text(r)
for _, want in ipairs({"IOPS=", "BW=", "MiB/s", "MB/s", "p50=", "p99=", "p99.9=", "cpu: usr=", "errors: none"}) do
  check(text:find(want, 1, true), "text lacks %s:\n%s", want, text)
end
local stext = report.text(sw)
check(stext:find("numjobs") and stext:find("peak: "), "sweep text:\n%s", stext)

-- HTML: one page with the table and the chart inline
local html = report.html(sw, {title = "test & report"})
check(html:find("^<!DOCTYPE html>") and html:find("<table>") and html:find("<svg") and
      html:find("test &amp; report"), "html page")
check(not html:find("<%?xml"), "the inline svg keeps no XML declaration")

-- report.write is atomic and raises on failure
local out = dir .. "/r.md"
report.write(out, md)
local f = assert(io.open(out))
check(f:read("a") == md, "report.write content")
f:close()
check(not pcall(report.write, dir .. "/no/such/dir/x", "x"), "report.write into a missing dir")
