-- The CERN procurement disk test: a random read/write job of 4k blocks,
-- half as many jobs as the machine has physical cores, iodepth=24, run 3
-- times 3 seconds apart; the IOPS of every job (read and write) are summed
-- per run and averaged over the runs, printed like the procedure does:
--
--   IOPS := (200 + 164 + 185)/3 = 183
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

local P = script.params({
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
  {"out", help = "also write PREFIX.json"},
}, {about = "The CERN fio procurement test (randrw 4k, iodepth 24, half the physical " ..
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

local function cern()
  say(string.format("cern: rw=randrw bsrange=4k-4k numjobs=%d iodepth=%d size=%s timeout=%s " ..
                      "direct=%d ioengine=%s directory=%s, %d run(s) %ss apart", R.numjobs,
                      P.iodepth, P.size, P.timeout, R.direct and 1 or 0, R.engine, R.dir, P.runs,
                      P.pause))
  local sums, runs = {}, {}
  for i = 1, P.runs do
    if i > 1 then lb.sleep(R.pause) end
    local res = run(cern_spec())
    local lines, sum = iops_lines(res)
    say(string.format("run %d:", i))
    for _, l in ipairs(lines) do say(l) end
    say(string.format("  sum of iops: %d", sum))
    sums[i] = sum
    runs[i] = {iops = sum, read_iops = res.read.iops, write_iops = res.write.iops,
               read_bytes = res.read.io_bytes, write_bytes = res.write.io_bytes,
               elapsed_s = res.elapsed}
  end
  local total = 0
  for _, s in ipairs(sums) do total = total + s end
  local avg = total / #sums
  local parts = {}
  for i, s in ipairs(sums) do parts[i] = tostring(s) end
  say(string.format("IOPS := (%s)/%d = %d", table.concat(parts, " + "), #sums, round(avg)))
  return {runs = runs, sums = sums, iops = avg, numjobs = R.numjobs, direct = R.direct}
end

local function random_test()
  local spec = {name = "random", directory = R.dir, rw = "randread", size = P.random_size,
                iodepth = 32, bs = "4k", numjobs = P.random_numjobs, nrfiles = 1,
                group_reporting = true, ioengine = R.random_engine, loops = 1}
  say(string.format("random: rw=randread size=%s iodepth=32 blocksize=4k numjobs=%d " ..
                      "nrfiles=1 ioengine=%s loops=1 directory=%s", P.random_size,
                      P.random_numjobs, R.random_engine, R.dir))
  local res = run(spec)
  local v = report.values(res)
  say(string.format("  read: IOPS=%s, BW=%s, lat p50=%s p99=%s", report.fmt_iops(v.iops),
                      report.fmt_bw(v.bw), report.fmt_ns(v.p50), report.fmt_ns(v.p99)))
  return {iops = v.iops, bw_bytes = v.bw, lat_p50_ns = v.p50, lat_p99_ns = v.p99, latency = "lat",
          numjobs = P.random_numjobs, io_bytes = res.read.io_bytes}
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
  if P.test ~= "random" then doc.cern = cern() end
  if P.test ~= "cern" then
    if P.test == "both" then say() end
    doc.random = random_test()
  end
  doc.notes = #R.notes > 0 and R.notes or nil
  if P.out and script.rank0() then
    local params = {}
    for k, v in pairs(P) do params[k] = v end
    params.numjobs, params.dir, params.engine, params.direct = R.numjobs, R.dir, R.engine, R.direct
    doc.params = params
    report.write(P.out .. ".json", lb.json(doc, true) .. "\n")
    say(string.format("wrote %s.json", P.out))
  end
  return 0
end

return script.main(main)
