-- fio's log files, written after a run from result.intervals.
--
-- write_bw_log / write_iops_log / write_lat_log give
-- <prefix>_bw.<n>.log, _iops, _lat/_clat/_slat with fio's windowed line
-- "time_ms, value, ddir, 0, 0" (one line per direction that did I/O in the
-- window); write_hist_log gives <prefix>_clat_hist.<n>.log with
-- "time_ms, ddir, bs, bin0, ..., bin1855" in fio's histogram geometry
-- (64 bins per power of two, 29 groups: what fiologparser_hist.py reads).
-- A window is log_avg_msec (log_hist_msec) long and made of whole run
-- intervals, so the run samples at the finest window asked for
-- (fio.run.spec sets `interval`).  Intervals carry completion latency
-- only, so a windowed _lat log shows clat and the _slat log stays empty.
-- Without log_avg_msec the logs hold one line per I/O, as fio's:
-- L.io_logs asks lb.run to keep every I/O (its _io_log, written by the
-- binding): "time_ms, value, ddir, bs[, offset], prio", log_offset adding
-- the offset, log_store_compressed writing <name>.fz (one zlib stream,
-- what `luabench fio --inflate-log` reads back).  Files are numbered by
-- thread as fio's (job clones counted across all jobs from 1), one for all
-- threads with per_job_logs=0.

local P = require "luabench.fio.parse"

local L = {}

local DDIRS = {"read", "write", "trim"}
local PLAT_BITS, PLAT_VAL, GROUP_NR = 6, 64, 29
L.NBINS = GROUP_NR * PLAT_VAL

-- The index of fio's histogram bin that holds ns.
function L.plat_idx(ns)
  ns = math.floor(ns)
  if ns < 2 * PLAT_VAL then return ns end
  local msb = PLAT_BITS
  while ns >> (msb + 1) ~= 0 do msb = msb + 1 end
  local eb = msb - PLAT_BITS
  local idx = (eb + 1) * PLAT_VAL + ((ns >> eb) & (PLAT_VAL - 1))
  return math.min(idx, L.NBINS - 1)
end

-- The ns value a bucket of an lb histogram stands for.
function L.bucket_ns(b)
  local lo, hi = b.lo or b[1], b.hi or b[2]
  return (lo + hi) // 2
end

-- Groups intervals into windows of ms milliseconds (each interval whole).
function L.windows(intervals, ms)
  local out, cur, bound = {}, nil, ms
  for _, iv in ipairs(intervals or {}) do
    cur = cur or {start = iv.start_ms, ivs = {}}
    cur.ivs[#cur.ivs + 1] = iv
    cur.t = iv.end_ms
    if not ms or ms <= 0 or iv.end_ms + 0.5 >= bound then
      out[#out + 1] = cur
      cur = nil
      if ms and ms > 0 then
        while bound <= iv.end_ms + 0.5 do bound = bound + ms end
      end
    end
  end
  if cur then out[#out + 1] = cur end
  return out
end

-- Sums of one direction over a window: ios, bytes, seconds, peaks and
-- the latency mean/max of the interval histograms named hist.  ji: the
-- job's index in a run of several, whose own counts the intervals keep
-- (latencies are the run's).
local function window_stats(w, d, hist, ji)
  local s = {ios = 0, bytes = 0, bw_peak = 0, iops_peak = 0, lat_sum = 0, lat_n = 0, lat_max = 0}
  for _, iv in ipairs(w.ivs) do
    local x = ji and iv.jobs and iv.jobs[ji] and iv.jobs[ji][d] or iv[d]
    local secs = (iv.end_ms - iv.start_ms) / 1000
    s.ios, s.bytes = s.ios + x.ios, s.bytes + x.bytes
    if secs > 0 then
      s.bw_peak = math.max(s.bw_peak, x.bytes / 1024 / secs)
      s.iops_peak = math.max(s.iops_peak, x.ios / secs)
    end
    local h = iv[d][hist]
    if h and h:count() > 0 then
      s.lat_sum = s.lat_sum + h:mean() * h:count()
      s.lat_n = s.lat_n + h:count()
      s.lat_max = math.max(s.lat_max, h:max())
    end
  end
  s.secs = (w.t - w.start) / 1000
  return s
end

local function value_of(kind, s, use_max)
  if kind == "bw" then
    return use_max and s.bw_peak or (s.secs > 0 and s.bytes / 1024 / s.secs or 0)
  elseif kind == "iops" then
    return use_max and s.iops_peak or (s.secs > 0 and s.ios / s.secs or 0)
  end
  return use_max and s.lat_max or (s.lat_n > 0 and s.lat_sum / s.lat_n or 0)
end

local function log_name(job, key, kind, n)
  local prefix = job[key]
  if prefix == nil or prefix == "" or prefix == "1" then prefix = job.name end
  if job.per_job_logs and not P.truthy(job.per_job_logs) then
    return prefix .. "_" .. kind .. ".log"
  end
  return prefix .. "_" .. kind .. "." .. n .. ".log"
end

local PER_IO = {write_bw_log = {"bw"}, write_iops_log = {"iops"},
                write_lat_log = {"lat", "clat", "slat"}}

-- Whether job's bw/iops/lat logs hold one line per I/O (no log_avg_msec).
function L.per_io(job)
  return (tonumber(job.log_avg_msec) or 0) <= 0
end

-- The _io_log entries of the job at index j of its run (see lua/iolog.c);
-- thread: the fio thread number of its first clone.
function L.io_logs(job, j, thread)
  local out = {}
  if job.write_iolog and job.write_iolog ~= "" then   -- fio appends, every clone to one file
    out[1] = {job = j, kind = "iolog", path = job.write_iolog, append = true}
  end
  if not L.per_io(job) then return out end
  local clones = tonumber(job.numjobs) or 1
  local compress = P.truthy(job.log_store_compressed)
  local suffix = compress and ".fz" or ""
  if compress and not (lb.have_zlib and lb.have_zlib()) then
    error("[" .. job._section .. "] unsupported option 'log_store_compressed': this build has no zlib", 0)
  end
  for _, key in ipairs{"write_bw_log", "write_iops_log", "write_lat_log"} do
    if job[key] then
      for _, kind in ipairs(PER_IO[key]) do
        local e = {job = j, kind = kind, offset = P.truthy(job.log_offset), compress = compress,
                   allow = P.truthy(job.allow_overwrite)}
        if job.per_job_logs and not P.truthy(job.per_job_logs) then
          e.path = log_name(job, key, kind) .. suffix
        else
          e.paths = {}
          for c = 1, clones do e.paths[c] = log_name(job, key, kind, thread + c - 1) .. suffix end
        end
        out[#out + 1] = e
      end
    end
  end
  return out
end

-- Atomically, and never over a file luabench did not create unless the
-- job allows overwriting (lb.write_atomic; plain io outside luabench).
local function write_file(path, text, allow)
  local lbt = rawget(_G, "lb")
  if lbt and lbt.write_atomic then
    local ok, err = lbt.write_atomic(path, text, allow)
    if not ok then error("cannot write log " .. path .. ": " .. tostring(err), 0) end
    return
  end
  local f, err = io.open(path, "w")
  if not f then error("cannot write log " .. path .. ": " .. err, 0) end
  f:write(text)
  f:close()
end

-- One windowed log: kind "bw", "iops", "lat", "clat" or "slat".
function L.windowed(result, kind, ms, use_max)
  local hist = kind == "slat" and "slat_hist" or (kind == "lat" and "lat_hist") or "clat_hist"
  local lines = {}
  for _, w in ipairs(L.windows(result._run and result._run.intervals or result.intervals, ms)) do
    for i, d in ipairs(DDIRS) do
      local s = window_stats(w, d, hist, result._jobindex)
      if kind == "lat" and s.lat_n == 0 then s = window_stats(w, d, "clat_hist", result._jobindex) end
      if s.ios > 0 and (kind ~= "slat" or s.lat_n > 0) then
        lines[#lines + 1] = string.format("%d, %d, %d, 0, 0\n", math.floor(w.t + 0.5),
                                          math.floor(value_of(kind, s, use_max) + 0.5), i - 1)
      end
    end
  end
  return table.concat(lines)
end

-- fio's bins of a window's clat histograms, coarsened by 2^c.
local function fio_bins(w, d, c)
  local bins = {}
  for i = 1, L.NBINS >> c do bins[i] = 0 end
  for _, iv in ipairs(w.ivs) do
    local h = iv[d].clat_hist
    if h and h:count() > 0 then
      for _, b in ipairs(h:buckets()) do
        local i = (L.plat_idx(L.bucket_ns(b)) >> c) + 1
        bins[i] = bins[i] + (b.count or b[3])
      end
    end
  end
  return bins
end

function L.histogram(result, ms, coarseness)
  local c = math.max(0, math.min(6, tonumber(coarseness) or 0))
  local lines = {}
  if not ms or ms <= 0 then return "" end
  for _, w in ipairs(L.windows(result._run and result._run.intervals or result.intervals, ms)) do
    for i, d in ipairs(DDIRS) do
      local ios = 0
      for _, iv in ipairs(w.ivs) do ios = ios + iv[d].ios end
      if ios > 0 then
        local bs = result[d] and result[d].bs_max or 0
        lines[#lines + 1] = string.format("%d, %d, %d, %s\n", math.floor(w.t + 0.5), i - 1, bs,
                                          table.concat(fio_bins(w, d, c), ", "))
      end
    end
  end
  return table.concat(lines)
end

-- Writes the logs job n asked for; shared: other jobs ran in the same
-- run, whose intervals hold them all.
function L.write(result, n, shared)
  local job = result._job
  local avg = tonumber(job.log_avg_msec) or 0
  local use_max = P.truthy(job.log_max_value)
  local allow = P.truthy(job.allow_overwrite)
  if shared and avg > 0 and job.write_lat_log then
    P.note("[" .. job._section .. "] latency logs hold every job of its run group: interval latencies are per run")
  end
  if avg <= 0 then
    -- per-I/O logs: lb.run wrote them (L.io_logs); only the histogram is left
  elseif job.write_bw_log then
    write_file(log_name(job, "write_bw_log", "bw", n), L.windowed(result, "bw", avg, use_max), allow)
  end
  if avg > 0 and job.write_iops_log then
    write_file(log_name(job, "write_iops_log", "iops", n), L.windowed(result, "iops", avg, use_max), allow)
  end
  if avg > 0 and job.write_lat_log then
    for _, k in ipairs{"lat", "clat", "slat"} do
      write_file(log_name(job, "write_lat_log", k, n), L.windowed(result, k, avg, use_max), allow)
    end
  end
  if job.write_hist_log then
    local ms = tonumber(job.log_hist_msec) or 0
    if ms <= 0 then P.note("[" .. job._section .. "] write_hist_log without log_hist_msec: empty, as in fio") end
    write_file(log_name(job, "write_hist_log", "clat_hist", n),
               L.histogram(result, ms, job.log_hist_coarseness))
  end
end

return L
