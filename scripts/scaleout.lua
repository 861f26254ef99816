-- The storage guide's scale-out benchmark: sequential reads of a set of
-- files (file00..fileNN) in its two file access modes, each swept over
-- numjobs, with the cache state set up before every point.
--
--   shared-file mode       one job, iodepth=1, numjobs threads that all read
--                          all files (fio's filename=a:b:c list)
--   independent-file mode  iodepth=32, every thread (or group of threads)
--                          pinned to its own files: numjobs <= files ->
--                          numjobs jobs of 1 thread, files dealt round-robin;
--                          numjobs > files -> one job per file with
--                          numjobs // files threads (the remainder is left
--                          out, as the guide's job file generator does)
--
-- Per point: bandwidth, IOPS, lat (or clat, latency=clat) p50 and p99; per
-- mode: the peak and the knee (numjobs); the headline is the higher peak of
-- the two modes.  Every finished point goes to a journal (named in the
-- first line printed); SIGINT, SIGTERM, SIGHUP or a failing point end the
-- run with the points finished so far, printed and written, marked
-- partial; resume=JOURNAL runs only the points the journal lacks.  The
-- peak table has the guide's layout (topology xW/yC, GiB/s / Gbps, where
-- Gbps = bits / 1e9).  Under MPI (mpirun luabench ...) every rank is a
-- client and the numbers are the cluster's; only rank 0 prints and writes.
--
--   luabench scripts/scaleout.lua [files=20 file_size=10G direct=1 runtime=60 ...]
--   luabench scripts/scaleout.lua help=1
local script = require "luabench.script"
local scaleout = require "luabench.scaleout"
local sweep = require "luabench.sweep"
local report = require "luabench.report"
local prep = require "luabench.prep"
local progress = require "luabench.progress"

local P = script.params(script.spec({
  {"dir", help = "directory of the data files (default: a temporary directory under the " ..
                 "current one); under MPI give a path every client sees"},
  {"keep", type = "bool", shown = "0 for the temporary directory, 1 for dir=",
   help = "1: keep the data files at the end"},
  {"files", type = "int", min = 1, default = 4, help = "number of data files (guide: 20)"},
  {"file_size", type = "size", default = "16m", help = "size of each file (guide: 5G-10G)"},
  {"bs", type = "size", default = "256k", help = "block size"},
  {"rw", default = "read", choices = {"read", "randread"}, help = "I/O pattern"},
  {"engine", default = "io_uring", help = "I/O engine (io_uring falls back to libaio)"},
  {"direct", type = "bool", default = false, help = "1: O_DIRECT (guide: 1)"},
  {"runtime", type = "time", default = "1s", help = "time per point (guide: 60)"},
  {"modes", type = "list", default = "shared,independent", choices = {"shared", "independent"},
   help = "file access modes to run"},
  {"numjobs_shared", type = "ints", min = 1, default = "1,2,4,8",
   help = "numjobs of the shared-file sweep (guide: 1,2,4,...,512)"},
  {"numjobs_independent", type = "ints", min = 1, default = "1,2,4,8",
   help = "numjobs of the independent-file sweep (guide: 1,2,4,8,16,...)"},
  {"iodepth_shared", type = "int", min = 1, default = 1, help = "iodepth of the shared-file mode"},
  {"iodepth_independent", type = "int", min = 1, default = 32,
   help = "iodepth of the independent-file mode"},
  {"stop", default = "full", choices = {"full", "knee"},
   help = "full: run every numjobs; knee: end a mode's sweep at its knee"},
  {"bw_gain", type = "number", min = 0, default = 0.05,
   help = "knee: a doubling of numjobs adding less bandwidth than this share"},
  {"p99_growth", type = "number", min = 1, default = 2.0,
   help = "knee: or p99 growing more than this factor per doubling"},
  {"confidence", type = "number", min = 0.5, default = 0.95,
   help = "knee: the confidence a step's gain or p99 growth is judged at (1: the values alone)"},
  {"repeat", type = "int", min = 1, default = 1,
   help = "runs of every point (the median is shown; the knee uses them all)"},
}, script.CACHE_PARAMS, {
  {"workers", default = "1", help = "x in the topology label xW/yC (cache workers)"},
  {"clients", type = "int", min = 1, shown = "lb.size: the MPI ranks, 1 without MPI",
   help = "y in the topology label xW/yC (client nodes)"},
  {"baseline", help = "JSON of a one-client run (out=...) to compute scaling efficiency"},
  {"out", help = "write PREFIX.json, PREFIX.md, PREFIX.csv, PREFIX.svg and PREFIX.html"},
  {"unit", default = "MiB/s", choices = {"KiB/s", "MiB/s", "GiB/s", "kB/s", "MB/s", "GB/s"},
   help = "bandwidth unit of the text tables"},
  {"latency", default = "lat", choices = {"lat", "clat"},
   help = "latency in the tables, JSON and knee: lat (total, as fio's lat) or clat (completion)"},
}, script.JOURNAL_PARAMS), {about = "The scale-out fio procedure of the storage guide: a numjobs sweep in " ..
             "shared-file and independent-file mode, peak and knee per mode."})

local notes, note = script.notes()

-- ---------------------------------------------------------------- input

local function load_baseline(path)
  local f, err = io.open(path, "r")
  if not f then script.usage_error("baseline: %s", err) end
  local text = f:read("a")
  f:close()
  local ok, doc = pcall(lb.json_decode, text)
  if not ok or type(doc) ~= "table" or type(doc.modes) ~= "table" then
    script.usage_error("baseline: %s is not a JSON written by scaleout.lua out=...", path)
  end
  return doc
end

-- The state the sweeps run in, and whether to compare hot with cold.
local function cache_states()
  local states = {}
  for _, s in ipairs(P.cache) do states[s] = true end
  if states.none and (states.hot or states.cold) then
    script.usage_error("cache: none cannot be combined with hot or cold")
  end
  return states.hot and "hot" or states.cold and "cold" or "none", states.hot and states.cold
end

-- ---------------------------------------------------------------- runs

-- The context of the measurement: files, engine, cache state.
local R = {}

local function knee_rule()
  local k = sweep.knee{bw_gain = P.bw_gain, p99_growth = P.p99_growth,
                       confidence = P.confidence < 1 and P.confidence or false,
                       latency = P.latency == "clat" and "clat_p99" or "p99"}
  if P.stop == "knee" then return k end
  -- The knee is still named at the end, but every point runs.
  return setmetatable({axis = "numjobs", metric = k.metric, finish = k.finish},
                      {__call = function() return false end})
end

-- The spec of one point of a mode; threads that ran and threads left out.
local function spec_of(mode, nj, st)
  local o = {engine = R.engine, direct = P.direct, rw = P.rw, bs = P.bs, runtime = P.runtime,
             files = R.files.paths, readonly = true, invalidate = R.cache.invalidate(st),
             iodepth = mode == "shared" and P.iodepth_shared or P.iodepth_independent}
  if mode == "shared" then
    local s = scaleout.shared_spec(o)
    s.numjobs = nj
    return s, nj, 0
  end
  return scaleout.independent_spec(o, nj)
end

local dropped_noted = {}
local function note_dropped(nj, threads, dropped)
  if dropped > 0 and not dropped_noted[nj] then
    dropped_noted[nj] = true
    local n = #R.files.paths
    note("independent mode, numjobs=%d with %d files: %d jobs of %d threads (%d threads); " ..
         "the guide's numjobs/files division leaves %d out", nj, n, n, nj // n, threads, dropped)
  end
end

local function run_mode(mode)
  local base = spec_of(mode, 1, R.state)
  return sweep.run{
    journal = R.journal or false, name = mode, on_error = P.on_error, plan = R.plan,
    base = base,
    vary = {{"numjobs", mode == "shared" and P.numjobs_shared or P.numjobs_independent}},
    before_each = function(point)
      if mode == "independent" then
        base.jobs = spec_of(mode, point.params.numjobs, R.state).jobs  -- runs are built from base
      end
      R.cache.prepare(R.state)
    end,
    stop = knee_rule(),
    repeat_n = P["repeat"],
    unit = P.unit,
  }
end

-- The prefix of the chosen latency's keys in a sweep point's values.
local LKEY = P.latency == "clat" and "clat_" or ""

-- A mode's part of the JSON document; nil when no point of it finished.
local function mode_doc(mode, sw)
  local pts = {}
  if #sw.points == 0 then return nil end
  for i, p in ipairs(sw.points) do
    local v = p.values
    local nj = p.params.numjobs
    local _, threads, dropped = spec_of(mode, nj, R.state)
    if mode == "independent" then note_dropped(nj, threads, dropped) end
    if p.resumed then R.cache.recall(p.hooks) end
    pts[i] = {numjobs = nj, threads = threads,
              bw_bytes = v.bw, iops = v.iops, cache = #p.hooks > 0 and p.hooks or nil,
              latency = P.latency, slat_share = v.slat_share}
    pts[i][P.latency .. "_p50_ns"] = v[LKEY .. "p50"]
    pts[i][P.latency .. "_p99_ns"] = v[LKEY .. "p99"]
    pts[i].sched_lat_p50_ns, pts[i].sched_lat_p99_ns = v.sched_p50, v.sched_p99  -- rate caps
  end
  local knee = sw.knee or sw.points[#sw.points]
  return {points = pts, peak = sw.peak.params.numjobs, peak_bw_bytes = sw.peak.values.bw,
          knee = knee.params.numjobs, knee_found = sw.knee ~= nil, stopped_by = sw.stopped_by,
          iodepth = mode == "shared" and P.iodepth_shared or P.iodepth_independent,
          partial = sw.partial, failed = #sw.failed > 0 and sw.failed or nil}
end

-- Each mode's peak again with a cold cache.  The guide: cold is usually
-- 10-50x slower than hot; a small gap means the hot run probably read from
-- the backend.
local function hot_vs_cold(modes)
  local out = {}
  for _, mode in ipairs(P.modes) do
    local m = modes[mode]
    if not m then break end
    R.cache.prepare("cold")
    local cold = report.metric(lb.run((spec_of(mode, m.peak, "cold"))), "bw")
    local ratio = cold > 0 and m.peak_bw_bytes / cold or nil
    out[mode] = {numjobs = m.peak, hot_bw_bytes = m.peak_bw_bytes, cold_bw_bytes = cold,
                 ratio = ratio}
    if ratio and ratio < 2 then
      note("%s mode, numjobs=%d: hot is only %.2fx the cold bandwidth (%s vs %s); cold is " ..
           "usually 10-50x slower, so the hot run probably hit the backend (the cache was not " ..
           "fully loaded, or there is no cache tier in front of it)", mode, m.peak, ratio,
           report.fmt_bw(m.peak_bw_bytes, P.unit), report.fmt_bw(cold, P.unit))
    end
  end
  return out
end

local function headline_of(modes)
  local h
  for _, mode in ipairs(P.modes) do
    local m = modes[mode]
    if m and (not h or m.peak_bw_bytes > h.bw_bytes) then
      h = {mode = mode, numjobs = m.peak, bw_bytes = m.peak_bw_bytes}
    end
  end
  if not h then return nil end
  h.gib_s, h.gbps = scaleout.gib(h.bw_bytes), scaleout.gbps(h.bw_bytes)
  return h
end

-- Sweeps every mode; the JSON document.
local function measure(compare, baseline)
  local modes, partial = {}, nil
  local n = 0                  -- the progress line's plan: every point of every mode
  for _, mode in ipairs(P.modes) do
    n = n + #(mode == "shared" and P.numjobs_shared or P.numjobs_independent)
  end
  R.plan = progress.plan{points = n, runs = n}
  for _, mode in ipairs(P.modes) do
    local sw = run_mode(mode)
    modes[mode] = mode_doc(mode, sw)
    if sw.partial then partial = sw.reason; break end
  end
  local params = {}
  for k, v in pairs(P) do params[k] = v end
  params.engine, params.clients, params.dir, params.keep = R.engine, R.clients, R.dir, R.keep
  params.cache = table.concat(P.cache, ",")
  local doc = {
    schema = "luabench.scaleout/1", version = lb.version, time = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    host = {hostname = lb.hostname(), cpus = lb.cpus()},
    topology = scaleout.topology(P.workers, R.clients), workers = tonumber(P.workers) or P.workers,
    clients = R.clients, cache_state = R.state, modes = modes, headline = headline_of(modes),
    params = params, hot_vs_cold = compare and not partial and hot_vs_cold(modes) or nil,
    partial = partial and true or nil, reason = partial,
    journal = R.journal and R.journal.path,
  }
  if baseline then doc.efficiency = scaleout.efficiencies(doc, baseline) end
  if R.cache.warning then notes[#notes + 1] = R.cache.warning end
  local share = 0
  for _, m in pairs(modes) do
    for _, x in ipairs(m.points) do share = math.max(share, x.slat_share or 0) end
  end
  local sn = require("luabench.metric").slat_text(share)
  if sn then note("%s", sn) end
  doc.latency = P.latency
  doc.notes = #notes > 0 and notes or nil
  return doc
end

-- ---------------------------------------------------------------- output

local GBPS_NOTE = "Gbps = bytes/s x 8 / 1e9 (decimal, as NICs are rated); GiB/s = bytes/s / 2^30."

local COLUMNS = {
  {key = "numjobs", title = "numjobs", unit = ""},
  {key = "threads", title = "threads", unit = ""},
  {key = "bw", title = "BW", unit = "B/s"},
  {key = "gbps", title = "Gbps", unit = ""},
  {key = "iops", title = "IOPS", unit = "1/s"},
  {key = "p50", title = P.latency .. " p50", unit = "ns"},
  {key = "p99", title = P.latency .. " p99", unit = "ns"},
  {key = "eff", title = "efficiency", unit = "ratio"},
  {key = "mark", title = "", unit = ""},
}

local function mode_table(doc, mode)
  local m, rows, eff = doc.modes[mode], {}, {}
  local e = doc.efficiency and doc.efficiency[mode]
  for _, x in ipairs(e and e.points or {}) do eff[x.numjobs] = x.efficiency end
  for i, p in ipairs(m.points) do
    local mark = {}
    if p.numjobs == m.knee and m.knee_found then mark[#mark + 1] = "knee" end
    if p.numjobs == m.peak then mark[#mark + 1] = "peak" end
    rows[i] = {numjobs = p.numjobs, threads = mode == "independent" and p.threads or nil,
               bw = p.bw_bytes, gbps = string.format("%.1f", scaleout.gbps(p.bw_bytes)),
               iops = p.iops, p50 = p[P.latency .. "_p50_ns"], p99 = p[P.latency .. "_p99_ns"], eff = eff[p.numjobs],
               mark = table.concat(mark, ",")}
  end
  return {columns = COLUMNS, rows = rows}
end

local function mode_title(doc, mode)
  local n = #R.files.paths
  local how = mode == "shared" and string.format("%d files read by every thread", n) or
              string.format("%d files, each thread or thread group on its own", n)
  return string.format("%s mode (%s): iodepth=%d, %s, bs=%s, rw=%s, direct=%d, cache=%s, %s",
                       scaleout.TITLES[mode], how, doc.modes[mode].iodepth, R.engine, P.bs, P.rw,
                       P.direct and 1 or 0, R.state, doc.topology)
end

local function mode_summary(doc, mode)
  local m = doc.modes[mode]
  local s = string.format("peak: numjobs=%d, %.2f GiB/s, %.1f Gbps; knee: numjobs=%d%s", m.peak,
                          scaleout.gib(m.peak_bw_bytes), scaleout.gbps(m.peak_bw_bytes), m.knee,
                          m.knee_found and "" or
                          " (none found: throughput still grew at the last point)")
  local e = doc.efficiency and doc.efficiency[mode]
  if e and e.peak then
    s = s .. string.format("; scaling efficiency at the peak %.0f%%", e.peak * 100)
  end
  return s
end

local function headline_line(doc)
  local h = doc.headline
  if not h then return "headline: none (no point finished)" end
  return string.format("headline: %s mode, numjobs=%d: %.2f GiB/s (%.1f Gbps)", h.mode,
                       h.numjobs, h.gib_s, h.gbps)
end

local function peak_md(doc)
  return scaleout.peak_table({{topology = doc.topology, modes = doc.modes}})
end

-- The modes the document holds, in the order run.
local function modes_of(doc)
  local out = {}
  for _, mode in ipairs(P.modes) do
    if doc.modes[mode] then out[#out + 1] = mode end
  end
  return out
end

local function partial_line(doc)
  return doc.partial and ("partial results: " .. doc.reason) or nil
end

local function text(doc)
  local out = {}
  for _, mode in ipairs(modes_of(doc)) do
    out[#out + 1] = mode_title(doc, mode)
    out[#out + 1] = report.text_table(mode_table(doc, mode), {unit = P.unit})
    out[#out + 1] = mode_summary(doc, mode)
    out[#out + 1] = ""
  end
  out[#out + 1] = peak_md(doc)
  out[#out + 1] = headline_line(doc)
  out[#out + 1] = GBPS_NOTE
  out[#out + 1] = partial_line(doc)
  return table.concat(out, "\n")
end

local function md_mode(doc, mode, out)
  local indep, eff = mode == "independent", doc.efficiency ~= nil
  local head = "| numjobs |" .. (indep and " threads |" or "") ..
               " GiB/s | Gbps | IOPS | " .. P.latency .. " p50 | " .. P.latency .. " p99 |" ..
               (eff and " efficiency |" or "") .. " |"
  out[#out + 1] = "## " .. mode_title(doc, mode)
  out[#out + 1] = ""
  out[#out + 1] = head
  out[#out + 1] = (head:gsub("[^|]+", "---"))
  for _, r in ipairs(mode_table(doc, mode).rows) do
    local cs = {tostring(r.numjobs)}
    if indep then cs[#cs + 1] = tostring(r.threads) end
    cs[#cs + 1] = string.format("%.2f", scaleout.gib(r.bw))
    cs[#cs + 1] = r.gbps
    cs[#cs + 1] = report.fmt_iops(r.iops)
    cs[#cs + 1] = report.fmt_ns(r.p50)
    cs[#cs + 1] = report.fmt_ns(r.p99)
    if eff then cs[#cs + 1] = r.eff and string.format("%.0f%%", r.eff * 100) or "" end
    cs[#cs + 1] = r.mark
    out[#out + 1] = "| " .. table.concat(cs, " | ") .. " |"
  end
  local cold = doc.hot_vs_cold and doc.hot_vs_cold[mode]
  if cold then
    local cs = {tostring(cold.numjobs)}
    if indep then cs[#cs + 1] = "" end
    cs[#cs + 1] = string.format("%.2f", scaleout.gib(cold.cold_bw_bytes))
    cs[#cs + 1] = string.format("%.1f", scaleout.gbps(cold.cold_bw_bytes))
    cs[#cs + 1] = ""
    cs[#cs + 1] = ""
    cs[#cs + 1] = ""
    if eff then cs[#cs + 1] = "" end
    cs[#cs + 1] = "cold cache"
    out[#out + 1] = "| " .. table.concat(cs, " | ") .. " |"
  end
  out[#out + 1] = ""
  out[#out + 1] = mode_summary(doc, mode) .. "."
  out[#out + 1] = ""
end

local function markdown(doc)
  local what = P.rw == "read" and "sequential read" or "random read"
  local out = {"# Scale-out " .. what .. ": " .. doc.topology, ""}
  if doc.partial then out[#out + 1] = "**" .. partial_line(doc) .. "**\n" end
  for _, line in ipairs({peak_md(doc), headline_line(doc) .. ".", "", GBPS_NOTE, ""}) do
    out[#out + 1] = line
  end
  for _, mode in ipairs(modes_of(doc)) do md_mode(doc, mode, out) end
  for _, n in ipairs(doc.notes or {}) do out[#out + 1] = "Note: " .. n .. "\n" end
  return table.concat(out, "\n")
end

-- Every mode's points in one table (a mode and a cache column), the
-- cold-cache runs as rows of their own: what the CSV and HTML show.  Every
-- row names its threads (in shared-file mode numjobs, one job's threads).
local function all_table(doc)
  local cols = {{key = "mode", title = "mode", unit = ""}, {key = "cache", title = "cache", unit = ""}}
  for _, c in ipairs(COLUMNS) do cols[#cols + 1] = c end
  local rows = {}
  local function threads_of(mode, nj) return select(2, spec_of(mode, nj, R.state)) end
  for _, mode in ipairs(modes_of(doc)) do
    for _, r in ipairs(mode_table(doc, mode).rows) do
      r.mode, r.cache, r.threads = mode, R.state, threads_of(mode, r.numjobs)
      rows[#rows + 1] = r
    end
    local cold = doc.hot_vs_cold and doc.hot_vs_cold[mode]
    if cold then
      rows[#rows + 1] = {mode = mode, cache = "cold", numjobs = cold.numjobs,
                         threads = threads_of(mode, cold.numjobs), bw = cold.cold_bw_bytes,
                         gbps = string.format("%.1f", scaleout.gbps(cold.cold_bw_bytes)), mark = ""}
    end
  end
  return {columns = cols, rows = rows, partial = doc.reason}
end

local function subtitle(doc)
  return string.format("rw=%s, bs=%s, ioengine=%s, direct=%d, runtime=%s, cache=%s, %s, %s, %s",
                       P.rw, P.bs, R.engine, P.direct and 1 or 0, tostring(P.runtime), R.state,
                       doc.topology, lb.hostname(), doc.time)
end

local function svg(doc)
  local rows = {}
  for _, mode in ipairs(modes_of(doc)) do
    local m = doc.modes[mode]
    for _, p in ipairs(m.points) do
      rows[#rows + 1] = {mode = mode, numjobs = p.numjobs, bw = p.bw_bytes, p99 = p[P.latency .. "_p99_ns"],
                         mark = (m.knee_found and p.numjobs == m.knee) and "knee" or ""}
    end
  end
  local t = {columns = {{key = "mode", title = "mode", unit = ""},
                        {key = "numjobs", title = "numjobs", unit = ""},
                        {key = "bw", title = "BW", unit = "B/s"},
                        {key = "p99", title = P.latency .. " p99", unit = "ns"},
                        {key = "mark", title = "", unit = ""}}, rows = rows,
             partial = doc.reason}
  return report.svg(t, {x = "numjobs", y = {"bw", "p99"}, unit = "GiB/s",
                        title = "Scale-out read " .. doc.topology ..
                                ": bandwidth and p99 by numjobs", subtitle = subtitle(doc)})
end

-- ---------------------------------------------------------------- main

local function main()
  script.check_out(P.out)
  if P.confidence > 1 then script.usage_error("confidence must be at most 1, not %g", P.confidence) end
  R.journal = script.journal(P)
  local baseline = P.baseline and load_baseline(P.baseline)
  local compare
  R.state, compare = cache_states()
  local why
  R.engine, why = script.engine(P.engine)
  if why then note("%s", why) end
  R.clients = P.clients or lb.size or 1

  local temp = P.dir == nil
  R.dir = P.dir or script.tempdir("scaleout")
  R.keep = P.keep
  if R.keep == nil then R.keep = not temp end
  local _ <close> = setmetatable({}, {__close = function()
    if R.keep or (not temp and not R.files) then return end
    -- The temporary directory goes whole; in dir= only the data files.
    local left = script.cleanup{dir = R.dir, paths = not temp and R.files.paths or nil,
                                rmdir = temp}
    if left then script.warn("%s", left) end
  end})

  -- Data prep once.  The ranks lay out in turn: a shared directory is
  -- written once, a local one on every client.
  for r = 0, (lb.size or 1) - 1 do
    if (lb.rank or 0) == r then
      R.files = prep.files{dir = R.dir, count = P.files, size = P.file_size, name = "file%02d"}
    end
    script.barrier()
  end
  R.cache = script.cache_state(P, R.files, {direct = P.direct})

  local doc = measure(compare, baseline)
  if not script.rank0() then return 0 end
  print(text(doc))
  if P.out then
    report.write(P.out .. ".json", lb.json(doc, true) .. "\n")
    report.write(P.out .. ".md", markdown(doc))
    report.write(P.out .. ".svg", svg(doc))
    local all = all_table(doc)
    report.write(P.out .. ".csv", report.csv(all, {unit = "GiB/s"}))
    report.write(P.out .. ".html", report.html(all, {unit = "GiB/s", chart = svg(doc),
                                                     title = "Scale-out read " .. doc.topology,
                                                     subtitle = subtitle(doc)}))
    print(string.format("wrote %s.json, %s.md, %s.csv, %s.svg and %s.html", P.out, P.out, P.out,
                        P.out, P.out))
  end
  return 0
end

return script.main(main)
