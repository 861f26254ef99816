-- fio's report formats from luabench results: json, json+ and terse v3.
--
-- Input is what fio.run.run returns (one result per job, tagged with the
-- job) or a plain lb.run result.  entries() turns that into fio's report
-- entries: one per reporting group under group_reporting, else one per job
-- (one per clone when the core kept clones).  The JSON is written here, in
-- fio's key order and number style ("%f" floats, two-space indent), so that
-- fio's own tools read it.  The human format lives in fio.text.

local P = require "luabench.fio.parse"

local O = {}

O.DDIRS = {"read", "write", "trim"}
O.PCTS = {1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99}

local function int(x)
  x = tonumber(x) or 0
  if x ~= x or x == math.huge or x == -math.huge then return 0 end
  return math.tointeger(x) or math.floor(x + 0.5)
end
local function num(x)
  x = tonumber(x) or 0
  if x ~= x or x == math.huge or x == -math.huge then return 0.0 end
  return x + 0.0
end
O.int, O.num = int, num

------------------------------------------------------------------------
-- Ordered JSON

local ORDER = setmetatable({}, {__mode = "k"})

-- A table that remembers the order its keys were first set in; pairs is
-- an optional flat list {key1, value1, key2, value2, ...} to start with.
function O.obj(pairs_)
  local keys = {}
  local t = setmetatable({}, {__newindex = function(t, k, v)
    keys[#keys + 1] = k
    rawset(t, k, v)
  end})
  ORDER[t] = keys
  for i = 1, #(pairs_ or {}), 2 do t[pairs_[i]] = pairs_[i + 1] end
  return t
end

local function esc(s)
  return '"' .. s:gsub('[%c"\\]', function(c)
    local m = {['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\t'] = '\\t', ['\r'] = '\\r'}
    return m[c] or string.format("\\u%04x", c:byte())
  end) .. '"'
end

local function encode(v, ind, out)
  local t = type(v)
  if t == "table" then
    local pad = string.rep("  ", ind + 1)
    local keys = ORDER[v]
    if not keys and (#v > 0 or next(v) == nil and getmetatable(v) == O.ARRAY) then
      if #v == 0 then out[#out + 1] = "[]"; return end
      out[#out + 1] = "[\n"
      for i, x in ipairs(v) do
        out[#out + 1] = pad
        encode(x, ind + 1, out)
        out[#out + 1] = i < #v and ",\n" or "\n"
      end
      out[#out + 1] = string.rep("  ", ind) .. "]"
      return
    end
    if not keys then
      keys = {}
      for k in pairs(v) do keys[#keys + 1] = tostring(k) end
      table.sort(keys)
    end
    if #keys == 0 then out[#out + 1] = "{}"; return end
    out[#out + 1] = "{\n"
    for i, k in ipairs(keys) do
      out[#out + 1] = pad .. esc(tostring(k)) .. " : "
      encode(v[k], ind + 1, out)
      out[#out + 1] = i < #keys and ",\n" or "\n"
    end
    out[#out + 1] = string.rep("  ", ind) .. "}"
  elseif t == "string" then out[#out + 1] = esc(v)
  elseif math.type(v) == "integer" then out[#out + 1] = string.format("%d", v)
  elseif t == "number" then out[#out + 1] = string.format("%f", num(v))
  elseif t == "boolean" then out[#out + 1] = tostring(v)
  else out[#out + 1] = "null" end
end

O.ARRAY = {}
function O.array(t) return setmetatable(t or {}, O.ARRAY) end

function O.encode(v)
  local out = {}
  encode(v, 0, out)
  return table.concat(out)
end

------------------------------------------------------------------------
-- Report entries

local function threads_of(r)
  if r._threads then return r._threads end
  local job = r._job
  if job then return tonumber(job.numjobs) or 1 end
  if type(r.clones) == "number" then return r.clones end
  return tonumber(r.options and r.options.numjobs) or 1
end
O.threads_of = threads_of

-- A view of base with a few fields replaced.
local function view(base, fields)
  return setmetatable(fields, {__index = base})
end

-- {min, max, mean, stddev, N, percentile} of a histogram.
function O.lat_summary(h, pcts)
  local n = h and h:count() or 0
  local t = {min = n > 0 and h:min() or 0, max = n > 0 and h:max() or 0,
             mean = n > 0 and h:mean() or 0, stddev = n > 1 and h:stddev() or 0, N = n}
  if n > 0 then
    t.percentile = {}
    for _, p in ipairs(pcts or O.PCTS) do t.percentile[p] = h:percentile(p) end
  end
  return t
end

local function merge_hist(list, d, k)
  local h
  for _, r in ipairs(list) do
    local x = r[d] and r[d][k]
    if x then if h then h:merge(x) else h = x:copy() end end
  end
  return h
end

-- The per-priority latencies of the results' direction d merged by
-- priority, as fio's sum_clat_prio_stats: a result without them counts all
-- its I/Os at priority 0/0 (a job without prio, prioclass or cmdprio_*).
-- nil when none of them has any.
local function merge_prios(list, d)
  local any
  for _, r in ipairs(list) do any = any or (r[d] and r[d].prios) end
  if not any then return nil end
  local out, at = {}, {}
  local function add(cls, lvl, clat, lat)
    local k = cls * 8 + lvl
    local p = at[k]
    if not p then
      p = {prioclass = cls, prio = lvl}
      at[k] = p
      out[#out + 1] = p
    end
    for key, h in pairs{clat_hist = clat, lat_hist = lat} do
      if p[key] then p[key]:merge(h) else p[key] = h:copy() end
    end
  end
  for _, r in ipairs(list) do
    local x = r[d] or {}
    if x.prios then
      for _, p in ipairs(x.prios) do add(p.prioclass, p.prio, p.clat_hist, p.lat_hist) end
    elseif x.clat_hist and x.clat_hist:count() > 0 then
      add(0, 0, x.clat_hist, x.lat_hist or x.clat_hist)
    end
  end
  return out
end
O.merge_prios = merge_prios

local SUMS = {"io_bytes", "io_kbytes", "total_ios", "short_ios", "drop_ios", "errors",
              "bw_min", "bw_max", "bw_mean", "bw_samples", "iops_min", "iops_max",
              "iops_mean", "iops_samples"}

-- The sum of squared deviations behind a stdev of n samples.
local function squares(dev, n)
  return (dev or 0) ^ 2 * math.max((n or 0) - 1, 0)
end

-- Rate samples merge as fio's group_reporting sums them (sum_stat with
-- pure_sum): min, max, mean, the squared deviations and the counts added.
local function merge_dir(list, d)
  local m = {runtime = 0, bw_dev = 0, iops_stddev = 0}
  for _, k in ipairs(SUMS) do m[k] = 0 end
  for _, r in ipairs(list) do
    local x = r[d]
    for _, k in ipairs(SUMS) do m[k] = m[k] + (x[k] or 0) end
    m.runtime = math.max(m.runtime, x.runtime or 0)
    m.bw_dev = m.bw_dev + squares(x.bw_dev, x.bw_samples)
    m.iops_stddev = m.iops_stddev + squares(x.iops_stddev, x.iops_samples)
    m.bs_min = x.bs_min and x.bs_min > 0 and math.min(m.bs_min or x.bs_min, x.bs_min) or m.bs_min
    m.bs_max = math.max(m.bs_max or 0, x.bs_max or 0)
  end
  m.bw_dev = m.bw_samples > 1 and math.sqrt(m.bw_dev / (m.bw_samples - 1)) or 0
  m.iops_stddev = m.iops_samples > 1 and math.sqrt(m.iops_stddev / (m.iops_samples - 1)) or 0
  m.bw_agg = m.bw_samples > 0 and 100.0 or 0.0
  local secs = m.runtime / 1000
  m.bw_bytes = secs > 0 and m.io_bytes / secs or 0
  m.bw = m.bw_bytes / 1024
  m.iops = secs > 0 and m.total_ios / secs or 0
  for _, k in ipairs{"slat", "clat", "lat"} do
    m[k .. "_hist"] = merge_hist(list, d, k .. "_hist")
    m[k .. "_ns"] = O.lat_summary(m[k .. "_hist"])
  end
  m.prios = merge_prios(list, d)
  m.sched_lat_hist = merge_hist(list, d, "sched_lat_hist")   -- only under a rate cap
  m.sched_lat_ns = m.sched_lat_hist and O.lat_summary(m.sched_lat_hist) or nil
  return m
end

-- The depth maps, merged weighted by each result's I/O count.
local DEPTH_MAPS = {"iodepth_level", "iodepth_submit", "iodepth_complete"}

-- group_reporting over results of different runs, merged here.
function O.merge(list)
  local first = list[1]
  local m = {jobname = first.jobname, groupid = first.groupid, error = 0, _job = first._job,
             usr_cpu = 0, sys_cpu = 0, ctx = 0, majf = 0, minf = 0, job_runtime = 0,
             iodepth_level = {}, iodepth_submit = {}, iodepth_complete = {}, _threads = 0,
             options = first.options}
  local ios = 0
  for _, r in ipairs(list) do
    if m.error == 0 then m.error = r.error or 0 end
    if r.partial or (r._run and r._run.partial) then m.partial = true end
    if r.errors and (r.errors.count or 0) > 0 then
      m.errors = m.errors or {count = 0, first_errno = r.errors.first_errno}
      m.errors.count = m.errors.count + r.errors.count
    end
    for _, k in ipairs{"ctx", "majf", "minf", "job_runtime"} do m[k] = m[k] + (r[k] or 0) end
    m.usr_cpu = m.usr_cpu + (r.usr_cpu or 0) / #list
    m.sys_cpu = m.sys_cpu + (r.sys_cpu or 0) / #list
    m._threads = m._threads + threads_of(r)
    local n = 0
    for _, d in ipairs(O.DDIRS) do n = n + (r[d].total_ios or 0) end
    for _, map in ipairs(DEPTH_MAPS) do
      for k, v in pairs(r[map] or {}) do m[map][k] = (m[map][k] or 0) + v * n end
    end
    ios = ios + n
  end
  for _, map in ipairs(DEPTH_MAPS) do
    for k, v in pairs(m[map]) do m[map][k] = ios > 0 and v / ios or 0 end
  end
  for _, d in ipairs(O.DDIRS) do m[d] = merge_dir(list, d) end
  return m
end

-- True when the run of list[1] holds exactly the jobs of list.
local function whole_run(list)
  local run = list[1]._run
  if not run then return false end
  for _, r in ipairs(list) do if r._run ~= run then return false end end
  return #(run.jobs or {1}) == #list
end

local function group_entry(list)
  if #list == 1 then return list[1] end
  local threads = 0
  for _, r in ipairs(list) do threads = threads + threads_of(r) end
  if whole_run(list) then
    return view(list[1]._run, {jobname = list[1].jobname, groupid = list[1].groupid,
                               _job = list[1]._job, _threads = threads, options = list[1].options})
  end
  return O.merge(list)
end

local function job_entries(r, out)
  if r._clones and #r._clones > 1 then
    for _, c in ipairs(r._clones) do
      out[#out + 1] = view(c, {jobname = r.jobname, groupid = r.groupid, _job = r._job,
                               _threads = 1, options = r.options, _run = r._run})
    end
  else
    out[#out + 1] = r
  end
end

-- fio's per= (convert_agg_kbytes_percent): an entry's mean bandwidth
-- sample over its group's aggregate bandwidth (the group's bytes over its
-- longest runtime, as the group line), at most 100 %.
local function set_per(entries)
  for _, d in ipairs(O.DDIRS) do
    local bytes, ms = 0, 0
    for _, e in ipairs(entries) do
      local x = e[d]
      if x and (x.total_ios or 0) > 0 then
        bytes, ms = bytes + (x.io_bytes or 0), math.max(ms, x.runtime or 0)
      end
    end
    local agg = ms > 0 and bytes * 1000 // ms or 0
    for _, e in ipairs(entries) do
      local x = e[d]
      if x and (x.bw_samples or 0) > 0 then
        x.bw_agg = agg > 1024 and math.min(100.0, math.floor(x.bw_mean) * 100 / (agg / 1024)) or 100.0
      end
    end
  end
end

-- Report entries of results (see the file's opening paragraph).
function O.entries(results)
  if results.read then results = {results} end
  local out, groups, order = {}, {}, {}
  for _, r in ipairs(results) do
    local g = r.groupid or 0
    if not groups[g] then groups[g] = {}; order[#order + 1] = g end
    table.insert(groups[g], r)
  end
  for _, g in ipairs(order) do
    local list = groups[g]
    local job = list[1]._job
    local gr = P.truthy(job and job.group_reporting or list[1].options and list[1].options.group_reporting)
    local first = #out + 1
    if gr then out[#out + 1] = group_entry(list)
    else for _, r in ipairs(list) do job_entries(r, out) end end
    set_per(table.move(out, first, #out, 1, {}))
  end
  return out
end

------------------------------------------------------------------------
-- Latency buckets, fio's way: the share of I/Os whose completion latency
-- falls below each bound (and above the previous one).

O.LAT_NS = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000}
O.LAT_MS = {2, 4, 10, 20, 50, 100, 250, 500, 750, 1000, 2000}

function O.lat_buckets(e)
  local ns, us, ms = {}, {}, {}
  for i = 1, #O.LAT_NS do ns[i], us[i] = 0, 0 end
  for i = 1, #O.LAT_MS + 1 do ms[i] = 0 end
  local total = 0
  local function put(arr, bounds, v, over)
    for i, b in ipairs(bounds) do if v < b then arr[i] = arr[i] + over; return end end
    arr[#bounds + 1] = arr[#bounds + 1] + over
  end
  for _, d in ipairs(O.DDIRS) do
    local h = e[d] and e[d].clat_hist
    if h and h:count() > 0 then
      for _, b in ipairs(h:buckets()) do
        local v, c = (b.lo + b.hi) // 2, b.count
        total = total + c
        if v < 1000 then put(ns, O.LAT_NS, v, c)
        elseif v < 1000000 then put(us, O.LAT_NS, v / 1000, c)
        else put(ms, O.LAT_MS, v / 1e6, c) end
      end
    end
  end
  local function pct(arr)
    for i, c in ipairs(arr) do arr[i] = total > 0 and 100.0 * c / total or 0.0 end
    return arr
  end
  return pct(ns), pct(us), pct(ms)
end

------------------------------------------------------------------------
-- JSON

local function pct_key(p) return string.format("%f", p) end

function O.percentile_list(e)
  local s = e._job and e._job.percentile_list
  if not s or s == "" then return nil end
  local l = {}
  for p in s:gmatch("[^:,]+") do l[#l + 1] = tonumber(p) end
  return l
end

-- want: the job's *_percentiles asks for percentiles (json+: and bins).
local function lat_json(t, h, pcts, want, bins)
  local o = O.obj{"min", int(t.min), "max", int(t.max), "mean", num(t.mean),
                  "stddev", num(t.stddev), "N", int(t.N)}
  if want and int(t.N) > 0 then
    local src = t.percentile or {}
    if pcts and h then src = O.lat_summary(h, pcts).percentile end
    local p = O.obj()
    for _, q in ipairs(pcts or O.PCTS) do
      if src[q] then p[pct_key(q)] = int(src[q]) end
    end
    o.percentile = p
    if bins and h then
      local b = O.obj()
      for _, x in ipairs(h:buckets()) do b[tostring((x.lo + x.hi) // 2)] = int(x.count) end
      o.bins = b
    end
  end
  return o
end

-- The priorities of direction x that have I/Os, when there are two or more
-- (fio shows none otherwise); nil else.
function O.prios_used(x)
  local used = {}
  for _, p in ipairs(x.prios or {}) do
    if p.clat_hist and p.clat_hist:count() > 0 then used[#used + 1] = p end
  end
  return #used >= 2 and used or nil
end

local function dir_json(x, e, plus)
  local o = O.obj{"io_bytes", int(x.io_bytes), "io_kbytes", int(x.io_kbytes or int(x.io_bytes) // 1024),
                  "bw_bytes", int(x.bw_bytes), "bw", int(x.bw), "iops", num(x.iops),
                  "runtime", int(x.runtime), "total_ios", int(x.total_ios),
                  "short_ios", int(x.short_ios), "drop_ios", int(x.drop_ios)}
  local job, pcts = e._job or {}, O.percentile_list(e)
  -- fio: clat percentiles unless clat_percentiles=0, slat and lat only when asked
  local clat = job.clat_percentiles == nil or P.truthy(job.clat_percentiles)
  o.slat_ns = lat_json(x.slat_ns or {}, x.slat_hist, pcts, P.truthy(job.slat_percentiles), plus)
  o.clat_ns = lat_json(x.clat_ns or {}, x.clat_hist, pcts, clat, plus)
  o.lat_ns = lat_json(x.lat_ns or {}, x.lat_hist, pcts, P.truthy(job.lat_percentiles), plus)
  -- fio's per-priority latencies, when at least two priorities have I/Os:
  -- lat with lat_percentiles, else clat
  local prios = O.prios_used(x)
  if prios then
    local key = P.truthy(job.lat_percentiles) and "lat" or "clat"
    local want = clat or P.truthy(job.lat_percentiles)
    local arr = O.array()
    for _, p in ipairs(prios) do
      local h = p[key .. "_hist"]
      arr[#arr + 1] = O.obj{"prioclass", int(p.prioclass), "prio", int(p.prio),
                            key .. "_ns", lat_json(O.lat_summary(h), h, pcts, want, plus)}
    end
    o.prios = arr
  end
  -- luabench's own, under a rate cap only: latency from the I/O's due time
  -- in the rate schedule, percentiles always (fio has no such key)
  if x.sched_lat_ns then
    o.sched_lat_ns = lat_json(x.sched_lat_ns, x.sched_lat_hist, pcts, true, plus)
  end
  local rest = {"bw_min", int(x.bw_min), "bw_max", int(x.bw_max), "bw_agg", num(x.bw_agg),
                "bw_mean", num(x.bw_mean), "bw_dev", num(x.bw_dev), "bw_samples", int(x.bw_samples),
                "iops_min", int(x.iops_min), "iops_max", int(x.iops_max),
                "iops_mean", num(x.iops_mean), "iops_stddev", num(x.iops_stddev),
                "iops_samples", int(x.iops_samples)}
  for i = 1, #rest, 2 do o[rest[i]] = rest[i + 1] end
  return o
end

local function buckets_json(keys, vals, last)
  local o = O.obj()
  for i, k in ipairs(keys) do o[tostring(k)] = num(vals[i]) end
  if last then o[last] = num(vals[#keys + 1]) end
  return o
end

-- The job's own options (what its section set), as fio lists them: an
-- option written bare (time_based, not time_based=1) has no value there
-- and fio leaves it out.
local function job_options(e)
  local o = O.obj()
  local job = e._job
  if job and job._own then
    for _, k in ipairs(job._own) do
      if not job["_bare_" .. k] then o[k] = tostring(job[k]) end
    end
  elseif e.options then
    local keys = {}
    for k in pairs(e.options) do if type(k) == "string" then keys[#keys + 1] = k end end
    table.sort(keys)
    for _, k in ipairs(keys) do o[k] = tostring(e.options[k]) end
  end
  return o
end

-- fio's "steadystate" object of a job with ss and ss_dur: the last ss_dur
-- one-second samples after ss_ramp (zeros where the run ended before), the
-- criterion over them (the slope per sample or the largest deviation from
-- the mean; relative limits as a percentage of the mean) and whether the
-- steady-state rule stopped the run.
function O.steady_json(e, job)
  if not job.ss or job.ss == "" or not job.ss_dur then return nil end
  local R = require "luabench.fio.run"
  local ok, a = pcall(R.steady_args, job)
  if not ok or not a.window or a.window <= 0 then return nil end
  local metric = require "luabench.metric"
  local n = math.max(1, math.floor(a.window + 0.5))
  local bw, iops = {}, {}
  local ivs = (e._run and e._run.intervals) or e.intervals or {}
  for _, iv in ipairs(ivs) do
    if iv.start_ms / 1000 >= (a.ramp or 0) - 1e-9 and iv.end_ms - iv.start_ms >= 900 then
      bw[#bw + 1] = math.floor(metric.metric(iv, "bw") + 0.5)
      iops[#iops + 1] = math.floor(metric.metric(iv, "iops") + 0.5)
    end
  end
  while #bw > n do table.remove(bw, 1); table.remove(iops, 1) end
  local full = #bw == n
  while #bw < n do table.insert(bw, 1, 0); table.insert(iops, 1, 0) end
  local ys = a.metric == "iops" and iops or bw
  local sum = 0
  for _, y in ipairs(ys) do sum = sum + y end
  local mean = sum / n
  local slope, maxdev = 0, 0
  if full then
    local xs = {}
    for i = 1, n do xs[i] = i - 1 end
    slope = math.abs(require("luabench.stop").slope(xs, ys))
    for _, y in ipairs(ys) do maxdev = math.max(maxdev, math.abs(y - mean)) end
  end
  local target = a.slope and slope or maxdev
  local criterion
  if a.absolute then criterion = string.format("%f", target)
  else criterion = string.format("%f%%", mean > 0 and target / mean * 100 or 0) end
  local limit = a.slope or a.deviation
  local why = tostring((e._run and e._run.stopped_by) or e.stopped_by or "")
  local bsum, isum = 0, 0
  for i = 1, n do bsum, isum = bsum + bw[i], isum + iops[i] end
  return O.obj{"ss", string.format(a.absolute and "%s:%f" or "%s:%f%%", job.ss:match("^%s*([%a_]+)"):lower(),
                                   a.absolute and limit or limit * 100),
               "duration", n, "attained", why:find("^steady state") and 1 or 0,
               "criterion", criterion, "max_deviation", num(maxdev), "slope", num(slope),
               "data", O.obj{"bw_mean", bsum // n, "iops_mean", isum // n,
                             "iops", iops, "bw", bw}}
end

-- fio's unified_rw_reporting: "mixed" (1) reports the directions as one,
-- "both" (2) adds that to them; nil for none (0).
local UNIFIED = {["1"] = "mixed", mixed = "mixed", ["2"] = "both", both = "both"}
function O.unified(job)
  local v = job and job.unified_rw_reporting
  return v and UNIFIED[tostring(v):lower()] or nil
end

-- The directions of e as one ("mixed"): sums, the longest runtime, the
-- latency histograms merged.
function O.mixed_dir(e)
  local list = {}
  for _, d in ipairs(O.DDIRS) do list[#list + 1] = {mixed = e[d] or {}} end
  return merge_dir(list, "mixed")
end

-- fio's elapsed: whole seconds of the run, rounded up (eta.c: (ms + 999) / 1000)
local function elapsed_s(e)
  local s = tonumber(e.elapsed or (e._run and e._run.elapsed)) or 0
  return (math.floor(s * 1000) + 999) // 1000
end


-- The error types (read, write, verify) continue_on_error goes on after,
-- as fio reads it: its value, and each type ignore_error gives a list.
local COE_TYPES = {read = {"read"}, write = {"write"}, io = {"read", "write"},
                   verify = {"verify"}, all = {"read", "write", "verify"},
                   ["1"] = {"read", "write", "verify"}}
local function coe_types(job)
  local t = {}
  for _, k in ipairs(COE_TYPES[tostring(job.continue_on_error or "none")] or {}) do t[k] = true end
  local i = 0
  for list in (tostring(job.ignore_error or "") .. ","):gmatch("([^,]*),") do
    i = i + 1
    if list:find("^[^:]") then t[({"read", "write", "verify"})[i] or ""] = true end
  end
  return t
end

-- fio's total_err and first_error: the errors of the types it goes on after.
local function counted_errors(errs, types)
  local n, first = 0, nil
  local function type_of(b) return b.errno == 84 and "verify" or b.ddir == "read" and "read" or "write" end
  for _, b in ipairs(errs and errs.by_errno or {}) do
    if types[type_of(b)] then
      n = n + (b.count or 0)
      if b.errno == errs.first_errno or not first then first = b.errno end
    end
  end
  return int(n), int(first or 0)
end

function O.job_json(e, plus)
  local o = O.obj{"jobname", tostring(e.jobname or "job"), "groupid", int(e.groupid),
                  "error", int(e.error), "eta", 0,
                  "elapsed", int(elapsed_s(e)),
                  "job options", job_options(e)}
  local unified = O.unified(e._job)
  if unified ~= "mixed" then
    for _, d in ipairs(O.DDIRS) do o[d] = dir_json(e[d] or {}, e, plus) end
  end
  if unified then o.mixed = dir_json(O.mixed_dir(e), e, plus) end
  -- not fio's: an interrupted run's numbers cover only the time it ran
  if e.partial or (e._run and e._run.partial) then o.partial = true end
  local sync = O.obj()
  sync.total_ios = int(e.fsyncs)
  local job0 = e._job or {}
  sync.lat_ns = lat_json(O.lat_summary(e.sync_hist), e.sync_hist, O.percentile_list(e),
                         job0.clat_percentiles == nil or P.truthy(job0.clat_percentiles), plus)
  o.sync = sync
  o.job_runtime = int(e.job_runtime)
  o.usr_cpu = num(e.usr_cpu)
  o.sys_cpu = num(e.sys_cpu)
  o.ctx = int(e.ctx)
  o.majf = int(e.majf)
  o.minf = int(e.minf)
  local types = coe_types(e._job or e.options or {})
  if next(types) then
    o.total_err, o.first_error = counted_errors(e.errors, types)
  end
  local lv = e.iodepth_level or {}
  o.iodepth_level = buckets_json({1, 2, 4, 8, 16, 32}, {lv["1"], lv["2"], lv["4"], lv["8"], lv["16"], lv["32"], lv[">=64"]}, ">=64")
  for _, map in ipairs{"iodepth_submit", "iodepth_complete"} do
    local m = e[map] or {}
    o[map] = buckets_json({0, 4, 8, 16, 32, 64}, {m["0"], m["4"], m["8"], m["16"], m["32"], m["64"], m[">=64"]}, ">=64")
  end
  local ns, us, ms = O.lat_buckets(e)
  o.latency_ns = buckets_json(O.LAT_NS, ns)
  o.latency_us = buckets_json(O.LAT_NS, us)
  o.latency_ms = buckets_json(O.LAT_MS, ms, ">=2000")
  local job = e._job or e.options or {}
  o.latency_depth = int(tonumber(job.iodepth) or 1)
  o.latency_target = 0
  o.latency_percentile = 100.0
  o.latency_window = 0
  local ss = O.steady_json(e, job)
  if ss then o.steadystate = ss end     -- fio has the key only with ss
  return o
end

local function version()
  local lbt = rawget(_G, "lb")
  return "luabench-" .. (lbt and lbt.version or "?")
end
O.version = version

-- fio's JSON document; opts.plus adds the json+ latency bins.
function O.json(results, opts)
  opts = opts or {}
  local now = os.time()
  local doc = O.obj()
  doc["fio version"] = version()
  doc.timestamp = now
  doc.timestamp_ms = now * 1000
  doc.time = os.date("%a %b %e %H:%M:%S %Y", now)
  -- as fio's: no "global options" without one that has a value, no
  -- "disk_util" without disk statistics (luabench keeps none)
  local g, ng = O.obj(), 0
  local gopts = results.global_options or {}
  for _, k in ipairs(results.global_order or {}) do
    if not gopts["_bare_" .. k] then g[k] = tostring(gopts[k]); ng = ng + 1 end
  end
  if ng > 0 then doc["global options"] = g end
  local jobs = O.array()
  for _, e in ipairs(O.entries(results)) do jobs[#jobs + 1] = O.job_json(e, opts.plus) end
  doc.jobs = jobs
  return O.encode(doc) .. "\n"
end

------------------------------------------------------------------------
-- terse, version 3: one line of 121 ';'-separated fields per entry (one
-- more with a description); times in usec, no disk lines.

local function us(v) return (tonumber(v) or 0) / 1000 end
local function us_int(v) return math.floor(us(v)) end

-- job: the fio job (its lat_percentiles / clat_percentiles choose the
-- percentiles written, total latency's first, as fio).
local function terse_dir(x, f, job)
  local function add(fmt, v) f[#f + 1] = string.format(fmt, v) end
  local pfrom = P.truthy(job.lat_percentiles) and "lat_ns" or
                ((job.clat_percentiles == nil or P.truthy(job.clat_percentiles)) and "clat_ns")
  add("%d", int(x.io_kbytes)); add("%d", int(x.bw)); add("%d", int(x.iops)); add("%d", int(x.runtime))
  for _, k in ipairs{"slat_ns", "clat_ns"} do
    local t = x[k] or {}
    add("%d", us_int(t.min)); add("%d", us_int(t.max)); add("%f", us(t.mean)); add("%f", us(t.stddev))
    if k == "clat_ns" then
      local p = pfrom and (x[pfrom] or {}).percentile
      local n = p and #O.PCTS or 0
      for i = 1, n do add("%s", string.format("%f%%=%d", O.PCTS[i], us_int(p[O.PCTS[i]]))) end
      for _ = n + 1, 20 do add("%s", "0%=0") end
    end
  end
  local t = x.lat_ns or {}
  add("%d", us_int(t.min)); add("%d", us_int(t.max)); add("%f", us(t.mean)); add("%f", us(t.stddev))
  add("%d", int(x.bw_min)); add("%d", int(x.bw_max)); add("%f%%", num(x.bw_agg))
  add("%f", num(x.bw_mean)); add("%f", num(x.bw_dev))
end

function O.terse_line(e)
  local f = {"3", version(), tostring(e.jobname or "job"), tostring(int(e.groupid)), tostring(int(e.error))}
  terse_dir(e.read or {}, f, e._job or {})
  terse_dir(e.write or {}, f, e._job or {})
  f[#f + 1] = string.format("%f%%", num(e.usr_cpu))
  f[#f + 1] = string.format("%f%%", num(e.sys_cpu))
  for _, k in ipairs{"ctx", "majf", "minf"} do f[#f + 1] = tostring(int(e[k])) end
  local lv = e.iodepth_level or {}
  for _, k in ipairs{"1", "2", "4", "8", "16", "32", ">=64"} do
    f[#f + 1] = string.format("%3.1f%%", num(lv[k]))
  end
  local ns, lus, lms = O.lat_buckets(e)
  -- fio's first usec bucket also holds everything below a microsecond
  local below = 0
  for _, v in ipairs(ns) do below = below + v end
  lus[1] = lus[1] + below
  for _, v in ipairs(lus) do f[#f + 1] = string.format("%3.2f%%", v) end
  for _, v in ipairs(lms) do f[#f + 1] = string.format("%3.2f%%", v) end
  local desc = e._job and e._job.description
  if desc and desc ~= "" then f[#f + 1] = desc end
  return table.concat(f, ";")
end

function O.terse(results)
  local lines = {}
  for _, e in ipairs(O.entries(results)) do lines[#lines + 1] = O.terse_line(e) end
  return table.concat(lines, "\n") .. "\n"
end

return O
