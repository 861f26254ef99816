-- The storage guide's single-node tables: one file read sequentially and
-- randomly with iodepth=1, libaio, direct I/O and --readonly, at block
-- sizes 256k and 1M (throughput, MiB/s) and 4k (IOPS), by 1, 32 and 128
-- threads, printed in the guide's two tables:
--
--   | Bandwidth/Threads | Single Thread | 32 Threads | 128 Threads |
--   | Sequential Read   | 2101 MiB/s    | 9519 MiB/s | 8089 MiB/s  |
--
-- It replaces, for every bs, rw and numjobs:
--   echo 3 | sudo tee /proc/sys/vm/drop_caches
--   fio -iodepth=1 -rw=read -ioengine=libaio -bs=<bs> -numjobs=<n> -group_reporting \
--       -size=100G -filename=/mnt/alluxio/100gb -name=read_test --readonly -direct=1 --runtime=60
--
-- Every finished run goes to a journal (named in the first line printed); a
-- signal or a failing run ends the script with the tables of the runs
-- finished so far, marked partial; resume=JOURNAL runs only the rest.
--
--   luabench scripts/single_node.lua [filename=/mnt/alluxio/100gb direct=1 runtime=60]
--   luabench scripts/single_node.lua help=1
local script = require "luabench.script"
local sweep = require "luabench.sweep"
local report = require "luabench.report"
local prep = require "luabench.prep"
local progress = require "luabench.progress"

local P = script.params(script.spec({
  {"filename", help = "the file to read; laid out when missing (default: 'data' in dir)"},
  {"dir", help = "directory of the file when filename= is not given (default: a temporary " ..
                 "directory under the current one)"},
  {"keep", type = "bool", shown = "0 for the temporary directory, 1 otherwise",
   help = "1: keep the file at the end"},
  {"size", type = "size", shown = "the file's size when it exists, else 64m",
   help = "size of the file (guide: 100G)"},
  {"runtime", type = "time", default = "1s", help = "time per run (guide: 60)"},
  {"engine", default = "libaio", help = "I/O engine (libaio falls back to psync)"},
  {"direct", type = "bool", default = false, help = "1: O_DIRECT (guide: 1)"},
  {"iodepth", type = "int", min = 1, default = 1, help = "I/O depth per thread"},
  {"rw", type = "list", default = "read,randread", choices = {"read", "randread"},
   help = "patterns, one table row each"},
  {"numjobs", type = "ints", min = 1, default = "1,32,128", help = "threads, one column each"},
  {"bs", type = "list", default = "256k,1M,4k", help = "block sizes, one table each"},
  {"iops_below", type = "size", default = "64k",
   help = "block sizes below this are tabled in IOPS, the others in bandwidth"},
  {"unit", default = "MiB/s", choices = {"KiB/s", "MiB/s", "GiB/s", "kB/s", "MB/s", "GB/s"},
   help = "bandwidth unit (the guide's tables use MiB/s and MB/s)"},
  {"latency", default = "lat", choices = {"lat", "clat"},
   help = "latency in the tables, JSON and knee: lat (total, as fio's lat) or clat (completion)"},
}, script.CACHE_PARAMS, {
  {"out", help = "also write PREFIX.json, PREFIX.md, PREFIX.csv, PREFIX.svg and PREFIX.html"},
}, script.JOURNAL_PARAMS), {about = "The single-node fio tables of the storage guide: sequential and random " ..
             "reads of one file by 1, 32 and 128 threads, in MiB/s and IOPS."})

local PATTERN = {read = "Sequential Read", randread = "Random Read"}

local notes, note = script.notes()

for _, b in ipairs(P.bs) do
  if not pcall(prep.bytes, b) then
    script.usage_error("parameter 'bs' must be sizes like 256k,1M,4k, not '%s'", b)
  end
end

local function threads_label(n)
  return n == 1 and "Single Thread" or string.format("%d Threads", n)
end

-- ---------------------------------------------------------------- runs

local function states()
  local list, seen = {}, {}
  for _, s in ipairs(P.cache) do
    if not seen[s] then seen[s] = true; list[#list + 1] = s end
  end
  if seen.none and #list > 1 then
    script.usage_error("cache: none cannot be combined with hot or cold")
  end
  return list, seen.hot and seen.cold
end

local function run_grid(file, engine, cachest, state, J, plan)
  return sweep.run{
    journal = J or false, name = state, on_error = P.on_error, plan = plan,
    base = {name = "read_test", ioengine = engine, iodepth = P.iodepth, direct = P.direct,
            filename = file.paths[1], size = file.size, readonly = true, group_reporting = true,
            runtime = P.runtime, time_based = true, invalidate = cachest.invalidate(state)},
    vary = {{"bs", P.bs}, {"rw", P.rw}, {"numjobs", P.numjobs}},
    before_each = function() cachest.prepare(state) end,
    unit = P.unit,
  }
end

local function points_of(sw, state, cachest)
  local out = {}
  for _, p in ipairs(sw.points) do
    if p.resumed then cachest.recall(p.hooks) end
    local v = p.values
    out[#out + 1] = {cache = state, bs = p.params.bs, rw = p.params.rw, numjobs = p.params.numjobs,
                     bw_bytes = v.bw, iops = v.iops, latency = P.latency,
                     slat_share = v.slat_share}
    local k = P.latency == "clat" and "clat_" or ""
    out[#out][P.latency .. "_p50_ns"], out[#out][P.latency .. "_p99_ns"] = v[k .. "p50"], v[k .. "p99"]
    out[#out].sched_lat_p50_ns, out[#out].sched_lat_p99_ns = v.sched_p50, v.sched_p99  -- rate caps
  end
  return out
end

-- ---------------------------------------------------------------- tables

local function find(points, state, bs, rw, nj)
  for _, p in ipairs(points) do
    if p.cache == state and p.bs == bs and p.rw == rw and p.numjobs == nj then return p end
  end
end

-- One guide table: a row per pattern, a column per thread count.
local function guide_table(points, state, bs, multi)
  local iops = prep.bytes(bs) < prep.bytes(P.iops_below)
  local title = iops and string.format("IOPS (%s block size)", bs) or
                string.format("Throughput (%s block size)", bs)
  if multi then title = title .. ", " .. state .. " cache" end
  local head = {iops and "IOPS/Threads" or "Bandwidth/Threads"}
  for _, n in ipairs(P.numjobs) do head[#head + 1] = threads_label(n) end
  local lines = {"### " .. title, "", "| " .. table.concat(head, " | ") .. " |",
                 "|" .. string.rep("---|", #head)}
  for _, rw in ipairs(P.rw) do
    local cells = {PATTERN[rw]}
    for _, n in ipairs(P.numjobs) do
      local p = find(points, state, bs, rw, n)
      cells[#cells + 1] = not p and "-" or iops and report.fmt_iops(p.iops) or
                          report.fmt_bw(p.bw_bytes, P.unit)
    end
    lines[#lines + 1] = "| " .. table.concat(cells, " | ") .. " |"
  end
  return table.concat(lines, "\n") .. "\n"
end

local function tables(points, list)
  local out = {}
  for _, state in ipairs(list) do
    for _, bs in ipairs(P.bs) do out[#out + 1] = guide_table(points, state, bs, #list > 1) end
  end
  return table.concat(out, "\n")
end

-- The guide: cold is usually 10-50x slower than hot.
local function compare(points)
  local worst
  for _, h in ipairs(points) do
    if h.cache == "hot" then
      local c = find(points, "cold", h.bs, h.rw, h.numjobs)
      local ratio = c and c.bw_bytes > 0 and h.bw_bytes / c.bw_bytes
      if ratio and (not worst or ratio < worst.ratio) then worst = {ratio = ratio, p = h} end
    end
  end
  if worst and worst.ratio < 2 then
    note("hot is only %.2fx the cold throughput at bs=%s rw=%s numjobs=%d; cold is usually " ..
         "10-50x slower, so the hot runs probably hit the backend (the cache was not fully " ..
         "loaded, or there is no cache tier in front of it)", worst.ratio, worst.p.bs,
         worst.p.rw, worst.p.numjobs)
  end
end

-- Every point in one table (cache, bs, rw, numjobs, then the metrics in
-- raw units): what the CSV, the chart and the HTML page show.
local function all_table(points, partial)
  local k = P.latency == "clat" and "clat_" or ""
  local cols = {{key = "cache", title = "cache", unit = ""}, {key = "bs", title = "bs", unit = ""},
                {key = "rw", title = "rw", unit = ""}, {key = "numjobs", title = "numjobs", unit = ""},
                {key = "iops", title = "IOPS", unit = "1/s"}, {key = "bw", title = "BW", unit = "B/s"},
                {key = k .. "p50", title = P.latency .. " p50", unit = "ns"},
                {key = k .. "p99", title = P.latency .. " p99", unit = "ns"}}
  local rows = {}
  for _, p in ipairs(points) do
    rows[#rows + 1] = {cache = p.cache, bs = p.bs, rw = p.rw, numjobs = p.numjobs, iops = p.iops,
                       bw = p.bw_bytes, [k .. "p50"] = p[P.latency .. "_p50_ns"],
                       [k .. "p99"] = p[P.latency .. "_p99_ns"]}
  end
  return {columns = cols, rows = rows, partial = partial}
end

-- ---------------------------------------------------------------- main

-- The file: filename= as it is when it exists (its size unless size= is
-- given), else laid out.
local function data_file(dir)
  local path = P.filename or (dir .. "/data")
  local st = lb.stat(path)
  local size = P.size or (st and st.type == "file" and st.size > 0 and st.size) or "64m"
  local file
  for r = 0, (lb.size or 1) - 1 do
    if (lb.rank or 0) == r then file = prep.file{path = path, size = size} end
    script.barrier()
  end
  return file
end

local function main()
  script.check_out(P.out)
  local J = script.journal(P)
  local list, both = states()
  local engine, why = script.engine(P.engine)
  if why then note("%s", why) end
  local temp = P.filename == nil and P.dir == nil
  local dir = P.filename and script.dirname(P.filename) or P.dir or script.tempdir("single-node")
  local keep = P.keep
  if keep == nil then keep = not temp end
  local file
  local _ <close> = setmetatable({}, {__close = function()
    if keep or not (file or temp) then return end
    local left = script.cleanup{dir = dir, paths = not temp and file.paths or nil, rmdir = temp}
    if left then script.warn("%s", left) end
  end})
  file = data_file(dir)
  local cachest = script.cache_state(P, file, {direct = P.direct})

  local points, partial, first = {}, nil, nil
  local n = #list * #P.bs * #P.rw * #P.numjobs     -- the progress line's whole plan
  local plan = progress.plan{points = n, runs = n}
  for _, state in ipairs(list) do
    local sw = run_grid(file, engine, cachest, state, J, plan)
    first = first or sw
    for _, p in ipairs(points_of(sw, state, cachest)) do points[#points + 1] = p end
    if sw.partial then partial = sw.reason; break end
  end
  if both and not partial then compare(points) end
  if cachest.warning then notes[#notes + 1] = cachest.warning end
  if not script.rank0() then return 0 end

  local md = tables(points, list)
  local setup = string.format("%s, %s, size %s, iodepth=%d, %s, direct=%d, runtime %s, cache=%s",
                              file.paths[1], "readonly", report.fmt_bytes(file.size), P.iodepth,
                              engine, P.direct and 1 or 0, P.runtime, table.concat(list, ","))
  local mark = partial and ("**partial results: " .. partial .. "**\n\n") or ""
  print(setup .. "\n")
  print(mark .. md)
  if P.out then
    local params = {}
    for k, v in pairs(P) do params[k] = v end
    params.engine, params.filename, params.size = engine, file.paths[1], file.size
    params.cache = table.concat(P.cache, ",")
    local doc = {schema = "luabench.single_node/1", version = lb.version,
                 time = os.date("!%Y-%m-%dT%H:%M:%SZ"),
                 host = {hostname = lb.hostname(), cpus = lb.cpus()}, params = params,
                 points = points, notes = #notes > 0 and notes or nil,
                 partial = partial and true or nil, reason = partial, journal = J and J.path}
    local text = "# Single-node read: " .. setup .. "\n\n" .. mark .. md
    for _, n in ipairs(notes) do text = text .. "\nNote: " .. n .. "\n" end
    report.write(P.out .. ".md", text)
    report.write(P.out .. ".json", lb.json(doc, true) .. "\n")
    local all = all_table(points, partial)
    local sub = report.subtitle(first) .. ", cache=" .. table.concat(list, ",")
    local title = "Single-node read of " .. file.paths[1]
    local chart = report.svg(all, {x = "numjobs", y = {"bw", (P.latency == "clat" and "clat_" or "") .. "p99"},
                                   unit = P.unit, subtitle = sub,
                                   title = title .. ": bandwidth and p99 by numjobs"})
    report.write(P.out .. ".csv", report.csv(all, {unit = P.unit}))
    report.write(P.out .. ".svg", chart)
    report.write(P.out .. ".html", report.html(all, {unit = P.unit, chart = chart, title = title,
                                                     subtitle = sub}))
    print(string.format("wrote %s.json, %s.md, %s.csv, %s.svg and %s.html", P.out, P.out, P.out,
                        P.out, P.out))
  end
  return 0
end

return script.main(main)
