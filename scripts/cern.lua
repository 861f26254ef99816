-- The CERN procurement disk test: a random read/write job of 4k blocks,
-- half as many jobs as the machine has physical cores, iodepth=24, run 3
-- times 3 seconds apart; the IOPS of every job (read and write) are summed
-- per run and averaged over the runs, printed like the procedure does,
-- with the spread (luabench.compare's standard deviation and t interval):
--
--   IOPS := (200 + 164 + 185)/3 = 183, sd 18 (9.9%), 95% confidence interval 138 to 228
--
-- Every finished run goes to a journal (named in the first line printed);
-- SIGINT, SIGTERM or SIGHUP end the test with the runs finished, printed
-- and written (out=: json, md, csv, svg, html), marked partial;
-- resume=JOURNAL runs only the runs the journal lacks.
--
-- It replaces this job file, the loop and the grep | awk over the logs:
--   [global]                          for i in {1..3}; do
--   direct=1                            fio --output=fio-bench.$i.log fio-bench
--   bsrange=4k-4k                       sleep 3
--   numjobs=<physical cores / 2>      done
--   directory=/srv/castor/04          grep -i iops fio-bench.1.log | sed -e 's/=/ /g' \
--   iodepth=24                          -e 's/:/ /g' | awk '{sum=sum+$8} END {print sum}'
--   timeout=3600
--   [f1]
--   size=10000MB
--   rw=randrw
--
-- test=random (or both) runs the document's simple IOPS test instead (or
-- as well): [random] rw=randread size=4g iodepth=32 blocksize=4k
-- numjobs=16 nrfiles=1 group_reporting ioengine=sync loops=1.
--
--   luabench scripts/cern.lua [dir=/srv/castor/04 size=10000MB timeout=3600]
--   luabench scripts/cern.lua help=1
local script = require "luabench.script"
local report = require "luabench.report"

local function half_cores()
  return math.max(1, (lb.physical_cores() or lb.cpus() or 2) // 2)
end

local P = script.params(script.spec({
  {"test", default = "cern", choices = {"cern", "random", "both"}, help = "which test to run"},
  {"dir", help = "directory the job files go in (default: a temporary directory under the " ..
                 "current one)"},
  {"keep", type = "bool", shown = "0 for the temporary directory, 1 for dir=",
   help = "1: keep the job files at the end"},
  {"size", type = "size", default = "16m", help = "bytes per job (document: 10000MB)"},
  {"timeout", type = "time", default = "2s", help = "longest time of a run (document: 3600)"},
  {"runs", type = "int", min = 1, default = 3, help = "runs to average"},
  {"pause", type = "time", default = "3", help = "seconds between two runs"},
  {"numjobs", type = "int", min = 1, shown = "half the physical cores, at least 1 (here " ..
               half_cores() .. ")", help = "jobs of the cern test"},
  {"iodepth", type = "int", min = 1, default = 24, help = "I/O depth of the cern test"},
  {"engine", default = "psync",
   help = "I/O engine of the cern test (the job file names none: fio's default, where " ..
          "iodepth has no effect; libaio makes it count)"},
  {"direct", type = "bool", default = true,
   help = "1: O_DIRECT, when the file system supports it (else a note and buffered I/O)"},
  {"random_size", type = "size", default = "16m", help = "bytes per job of the random test " ..
                                                       "(document: 4g)"},
  {"random_numjobs", type = "int", min = 1, default = 16, help = "jobs of the random test"},
  {"random_engine", default = "sync", help = "I/O engine of the random test"},
  {"confidence", type = "number", min = 0.5, default = 0.95,
   help = "the confidence of the interval of the mean IOPS"},
  {"out", help = "write PREFIX.json, PREFIX.md, PREFIX.csv, PREFIX.svg and PREFIX.html"},
}, script.JOURNAL_PARAMS), {about = "The CERN fio procurement test (randrw 4k, iodepth 24, half the physical " ..
            "cores as jobs, IOPS summed per run and averaged over runs) and the simple " ..
            "[random] IOPS test of the same document."})

local function round(x) return math.floor(x + 0.5) end

-- Prints on rank 0 (under MPI every rank runs the jobs, one prints).
local function say(...)
  if script.rank0() then print(...) end
end

-- ---------------------------------------------------------------- runs

local notes, note = script.notes()
local R = {notes = notes}

-- lb.run; direct=1 refused by the file system -> a note and buffered I/O.
local function run(spec)
  local ok, res = pcall(lb.run, spec)
  if ok and not (res.errors and tostring(res.errors.message):find("O_DIRECT", 1, true)) then
    return res
  end
  local msg = ok and res.errors.message or res
  if spec.direct and tostring(msg):find("O_DIRECT", 1, true) then
    note("O_DIRECT is not supported in %s; running with direct=0 (buffered I/O)", R.dir)
    R.direct = false
    spec.direct = false
    return lb.run(spec)
  end
  if ok then return res end
  error(res, 0)
end

-- fio 2's per-job lines, the ones the procedure greps: one per job and
-- direction.  Returns the lines and the sum of their iops= values.
local function iops_lines(res)
  local lines, sum = {}, 0
  local jobs = res.clones or {res}
  for i, j in ipairs(jobs) do
    for _, d in ipairs({"read", "write"}) do
      local x = j[d]
      if x and (x.total_ios or 0) > 0 then
        local iops = round(x.iops)
        sum = sum + iops
        lines[#lines + 1] = string.format("  %s.%d %-5s: io=%dKB, bw=%d B/s, iops=%d , runt=%dmsec",
                                          res.jobname or "f1", i - 1, d, x.io_kbytes,
                                          round(x.bw_bytes), iops, x.runtime)
      end
    end
  end
  return lines, sum
end

local function cern_spec()
  return {name = "f1", directory = R.dir, rw = "randrw", bsrange = "4k-4k", numjobs = R.numjobs,
          iodepth = P.iodepth, size = P.size, runtime = P.timeout, direct = R.direct,
          ioengine = R.engine, group_reporting = false}
end

-- One run of a test, a point of the journal: restored from a resumed one
-- (true as second value), else run after before() (nil when a signal
-- stopped it: a partial run is not kept).  A failing run raises.
local function point(name, params, spec, before)
  local old = R.journal and R.journal:restore(name, params)
  if old then return old.result, true end
  if before then before() end
  if lb.interrupted() then return nil end
  local p = {params = params, label = name .. (params.run and (" run " .. params.run) or ""),
             seq = params.run or 1, started = os.date("!%Y-%m-%dT%H:%M:%SZ"), hooks = {}}
  p.result = run(spec)
  if p.result.partial and lb.interrupted() then return nil end
  if R.journal then R.journal:point(name, p) end
  return p.result
end

-- After a run that raised: the reason the test stops, or nil to go on
-- (on_error=skip).  The process exits 1 either way.
local function failed(name, params, err)
  local msg = tostring(err):gsub("^[^\n:]*%.lua:%d+: ", "")
  local usage = debug.getregistry()["luabench.usage"]      -- bad options: exit 2
  local bad = type(usage) == "string" and tostring(err):find(usage, 1, true)
  if bad or (lb.size or 1) > 1 then error(err, 0) end   -- every rank ends (see sweep.run)
  if R.journal then R.journal:failed(name, {params = params, label = name}, msg) end
  lb.fail()
  local why = string.format("%s%s failed: %s", name, params.run and (" run " .. params.run) or "", msg)
  if P.on_error == "skip" then
    script.warn("%s (skipped)", why)
    return nil
  end
  return why
end

-- Why the test holds only part of what was asked, after a stop.
local function stop_reason()
  local sig = select(2, lb.interrupted())
  return sig and ("interrupted by " .. sig) or nil
end

-- The runs' sums through luabench.compare: mean, sd and the t interval.
local function average(sums)
  return require("luabench.compare").mean_interval(sums, P.confidence)
end

-- "IOPS := (a + b + c)/3 = N", the procedure's line, with the spread.
function R.iops_line(c)
  if #c.sums == 0 then return "IOPS := no run finished" end
  local parts = {}
  for i, s in ipairs(c.sums) do parts[i] = tostring(s) end
  local line = string.format("IOPS := (%s)/%d = %d", table.concat(parts, " + "), #c.sums,
                             round(c.iops))
  if not c.ci then return line .. " (one run: no spread)" end
  return line .. string.format(", sd %d (%.1f%%), %g%% confidence interval %d to %d", round(c.sd),
                               c.iops > 0 and c.sd / c.iops * 100 or 0, c.confidence * 100,
                               round(c.ci[1]), round(c.ci[2]))
end

local function cern()
  say(string.format("cern: rw=randrw bsrange=4k-4k numjobs=%d iodepth=%d size=%s timeout=%s " ..
                      "direct=%d ioengine=%s directory=%s, %d run(s) %ss apart", R.numjobs,
                      P.iodepth, P.size, P.timeout, R.direct and 1 or 0, R.engine, R.dir, P.runs,
                      P.pause))
  local sums, runs, why = {}, {}, nil
  local ran = false                -- a run of this process: the next one pauses first
  for i = 1, P.runs do
    local params = {run = i}
    local ok, res, again = pcall(point, "cern", params, cern_spec(), function()
      if ran then lb.sleep(R.pause) end
      ran = true
    end)
    if not ok then
      why = failed("cern", params, res)
      if why then break end
    elseif not res then
      why = stop_reason() or "interrupted"
      break
    else
      local lines, sum = iops_lines(res)
      say(string.format("run %d:%s", i, again and " (from the journal)" or ""))
      for _, l in ipairs(lines) do say(l) end
      say(string.format("  sum of iops: %d", sum))
      sums[#sums + 1] = sum
      runs[#runs + 1] = {run = i, iops = sum, read_iops = res.read.iops,
                         write_iops = res.write.iops, read_bytes = res.read.io_bytes,
                         write_bytes = res.write.io_bytes, elapsed_s = res.elapsed,
                         resumed = again or nil}
    end
  end
  local m = average(sums)
  local c = {runs = setmetatable(runs, {__jsontype = "array"}),
             sums = setmetatable(sums, {__jsontype = "array"}), iops = m.mean, sd = m.sd,
             ci = m.lo and {m.lo, m.hi} or nil, confidence = m.confidence, runs_asked = P.runs,
             numjobs = R.numjobs, direct = R.direct, partial = why and true or nil, reason = why}
  say(R.iops_line(c))
  return c, why
end

local function random_test()
  local spec = {name = "random", directory = R.dir, rw = "randread", size = P.random_size,
                iodepth = 32, bs = "4k", numjobs = P.random_numjobs, nrfiles = 1,
                group_reporting = true, ioengine = R.random_engine, loops = 1}
  say(string.format("random: rw=randread size=%s iodepth=32 blocksize=4k numjobs=%d " ..
                      "nrfiles=1 ioengine=%s loops=1 directory=%s", P.random_size,
                      P.random_numjobs, R.random_engine, R.dir))
  local params = {test = "random"}
  local ok, res, again = pcall(point, "random", params, spec)
  if not ok then
    local why = failed("random", params, res)
    return {partial = true, reason = why or tostring(res)}, why
  end
  if not res then
    local why = stop_reason() or "interrupted"
    return {partial = true, reason = why}, why
  end
  local v = report.values(res)
  say(string.format("  read: IOPS=%s, BW=%s, lat p50=%s p99=%s%s", report.fmt_iops(v.iops),
                      report.fmt_bw(v.bw), report.fmt_ns(v.p50), report.fmt_ns(v.p99),
                      again and " (from the journal)" or ""))
  return {iops = v.iops, bw_bytes = v.bw, lat_p50_ns = v.p50, lat_p99_ns = v.p99, latency = "lat",
          numjobs = P.random_numjobs, io_bytes = res.read.io_bytes, resumed = again or nil}
end

-- ---------------------------------------------------------------- output

-- The runs as one table (a row per cern run, one for the random test):
-- what the CSV, Markdown, SVG and HTML show.
local function runs_table(doc)
  local cols = {{key = "test", title = "test", unit = ""}, {key = "run", title = "run", unit = ""},
                {key = "iops", title = "IOPS", unit = "1/s"},
                {key = "read_iops", title = "read IOPS", unit = "1/s"},
                {key = "write_iops", title = "write IOPS", unit = "1/s"},
                {key = "bw", title = "BW", unit = "B/s"},
                {key = "p50", title = "lat p50", unit = "ns"},
                {key = "p99", title = "lat p99", unit = "ns"}}
  local rows = {}
  for _, r in ipairs(doc.cern and doc.cern.runs or {}) do
    rows[#rows + 1] = {test = "cern", run = r.run, iops = r.iops, read_iops = r.read_iops,
                       write_iops = r.write_iops,
                       bw = (r.read_bytes + r.write_bytes) / math.max(r.elapsed_s or 0, 1e-9)}
  end
  local x = doc.random
  if x and x.iops then
    rows[#rows + 1] = {test = "random", run = 1, iops = x.iops, read_iops = x.iops, bw = x.bw_bytes,
                       p50 = x.lat_p50_ns, p99 = x.lat_p99_ns}
  end
  return {columns = cols, rows = rows, partial = doc.reason}
end

local function subtitle(doc)
  return string.format("rw=randrw, bs=4k, ioengine=%s, iodepth=%d, numjobs=%d, direct=%d, " ..
                       "size=%s, runtime=%s, %s, %s", R.engine, P.iodepth, R.numjobs,
                       R.direct and 1 or 0, P.size, P.timeout, doc.host.hostname or "?", doc.time)
end

local function svg(doc, t)
  local rows = {}
  for _, r in ipairs(t.rows) do
    if r.test == "cern" or not doc.cern then rows[#rows + 1] = r end
  end
  local c = {columns = t.columns, rows = rows, partial = t.partial}
  return report.svg(c, {x = "run", y = {"iops"}, subtitle = subtitle(doc),
                        title = "CERN procurement test: IOPS per " .. (doc.cern and "run" or "test")})
end

local function markdown(doc, t)
  local out = {"# CERN procurement test", ""}
  if doc.reason then out[#out + 1] = "**partial results: " .. doc.reason .. "**\n" end
  if doc.cern then
    out[#out + 1] = subtitle(doc) .. "  "
    out[#out + 1] = "`" .. R.iops_line(doc.cern) .. "`"
    out[#out + 1] = ""
  end
  out[#out + 1] = report.markdown(t)
  for _, n in ipairs(doc.notes or {}) do out[#out + 1] = "Note: " .. n .. "\n" end
  return table.concat(out, "\n")
end

local function write_out(doc)
  local t = runs_table(doc)
  report.write(P.out .. ".json", lb.json(doc, true) .. "\n")
  report.write(P.out .. ".md", markdown(doc, t))
  report.write(P.out .. ".csv", report.csv(t))
  local chart = svg(doc, t)
  report.write(P.out .. ".svg", chart)
  report.write(P.out .. ".html", report.html(t, {chart = chart, subtitle = subtitle(doc),
                                                 title = "CERN procurement test"}))
  say(string.format("wrote %s.json, %s.md, %s.csv, %s.svg and %s.html", P.out, P.out, P.out,
                    P.out, P.out))
end

-- ---------------------------------------------------------------- main

-- The files the jobs made in dir: NAME.JOB.FILE, luabench's (and fio's) names.
local function job_files(dir)
  local out = {}
  local p = io.popen("ls -A '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null", "r")
  for name in (p and p:lines() or function() end) do
    if name:match("^f1%.%d+%.%d+$") or name:match("^random%.%d+%.%d+$") then
      out[#out + 1] = dir .. "/" .. name
    end
  end
  if p then p:close() end
  return out
end

local function main()
  script.check_out(P.out)
  if P.confidence >= 1 then script.usage_error("confidence must be below 1, not %g", P.confidence) end
  R.journal = script.journal(P, nil, {pause = true})      -- the pause changes no number
  local why
  R.engine, why = script.engine(P.engine)
  if why then note("%s", why) end
  R.random_engine, why = script.engine(P.random_engine)
  if why then note("%s", why) end
  R.numjobs = P.numjobs or half_cores()
  R.direct = P.direct
  R.pause = require("luabench.stop").seconds(P.pause, 1)
  local temp = P.dir == nil
  R.dir = P.dir or script.tempdir("cern")
  if not temp then
    local ok, msg = lb.mkdir(R.dir)
    if not ok then error(msg, 0) end
  end
  local keep = P.keep
  if keep == nil then keep = not temp end
  local _ <close> = setmetatable({}, {__close = function()
    if keep then return end
    local left = script.cleanup{dir = R.dir, paths = not temp and job_files(R.dir) or nil,
                                rmdir = temp}
    if left then script.warn("%s", left) end
  end})

  local doc = {schema = "luabench.cern/1", version = lb.version,
               time = os.date("!%Y-%m-%dT%H:%M:%SZ"),
               host = {hostname = lb.hostname(), cpus = lb.cpus(),
                       physical_cores = lb.physical_cores()}}
  local why
  if P.test ~= "random" then doc.cern, why = cern() end
  if P.test ~= "cern" and not why then
    if P.test == "both" then say() end
    doc.random, why = random_test()
  end
  doc.partial, doc.reason = why and true or nil, why
  doc.journal = R.journal and R.journal.path
  if why then say("partial results: " .. why) end
  doc.notes = #R.notes > 0 and R.notes or nil
  if P.out and script.rank0() then
    local params = {}
    for k, v in pairs(P) do params[k] = v end
    params.numjobs, params.dir, params.engine, params.direct = R.numjobs, R.dir, R.engine, R.direct
    doc.params = params
    write_out(doc)
  end
  return 0
end

return script.main(main)
