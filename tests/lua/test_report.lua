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
