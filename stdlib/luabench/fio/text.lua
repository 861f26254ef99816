-- fio's human report ("normal" output format) from luabench results.
--
-- Per report entry (fio.output.entries): the "name: (groupid=0, jobs=N)"
-- header, an IOPS/BW line per direction that did I/O, slat/clat/lat lines
-- in the unit fio would pick (and under a rate cap luabench's "sched lat"
-- line), the clat percentile block, bw/iops sample
-- lines, latency buckets, cpu, IO depths and issued counts; then one "Run
-- status group" paragraph per reporting group.  Numbers are shortened the
-- way fio does (4 significant digits, k/Ki prefixes).  fio's disk
-- statistics have no counterpart here.

local O = require "luabench.fio.output"
local P = require "luabench.fio.parse"

local T = {}

local int, num = O.int, O.num

-- v shortened: divided by base while at least limit, then shown with
-- about four significant digits; units[i] follows after i-1 divisions.
local function shorten(v, base, units, limit)
  v = num(v)
  local i = 1
  while v >= limit and i < #units do v = v / base; i = i + 1 end
  if i == 1 then return string.format("%d", int(v)) .. units[1] end
  local digits = #string.format("%d", math.floor(v))
  return string.format("%." .. math.max(0, 3 - digits) .. "f", v) .. units[i]
end

local SI = {"", "k", "M", "G", "T", "P"}
local KIB = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
local KB = {"B", "kB", "MB", "GB", "TB", "PB"}

function T.iops(v) return shorten(v, 1000, SI, 10000) end
function T.bytes(v) return shorten(v, 1024, KIB, 10000) end
function T.bytes_si(v) return shorten(v, 1000, KB, 10000) end
local function bw_pair(bps) return T.bytes(bps) .. "/s", T.bytes_si(bps) .. "/s" end

-- fio's unit for a latency summary: scale nsec to usec (usec to msec)
-- only when min, max and stddev are all large in the smaller unit.
local UNITS = {{"nsec", 1}, {"usec", 1e3}, {"msec", 1e6}}
local function lat_unit(t)
  local u = 1
  while u < #UNITS do
    local d = UNITS[u][2]
    if not (num(t.min) / d > 2000 and num(t.max) / d > 99999 and num(t.stddev) / d > 1000) then break end
    u = u + 1
  end
  return UNITS[u][1], UNITS[u][2]
end

-- fio's unit for a percentile block, from its smallest and largest values.
local function pct_unit(minv, maxv)
  if minv > 2e6 and maxv > 99999999 then return "msec", 1e6 end
  if minv > 2000 and maxv > 99999 then return "usec", 1e3 end
  return "nsec", 1
end

local function lat_line(out, label, t)
  if int(t.N) == 0 then return end
  local unit, div = lat_unit(t)
  local function mm(v) return shorten(num(v) / div, 1000, SI, 100000) end
  out[#out + 1] = string.format("%8s (%s): min=%s, max=%s, avg=%5.2f, stdev=%5.2f", label, unit,
                                mm(t.min), mm(t.max), num(t.mean) / div, num(t.stddev) / div)
end

-- luabench's line under a rate cap: the latency from each I/O's due time
-- in the rate schedule (the open-loop latency), with its tail.
local function sched_line(out, t)
  if not t or int(t.N) == 0 then return end
  local f, p = require("luabench.metric").fmt_ns, t.percentile or {}
  out[#out + 1] = string.format("   sched lat: min=%s, max=%s, avg=%s, stdev=%s, p50=%s, p99=%s, p99.9=%s",
                                f(num(t.min)), f(num(t.max)), f(num(t.mean)), f(num(t.stddev)),
                                f(p[50]), f(p[99]), f(p[99.9]))
end

local function percentile_block(out, e, t, name)
  if int(t.N) == 0 or not t.percentile then return end
  local custom = O.percentile_list(e)
  local pcts, src = custom or O.PCTS, t.percentile
  if custom and t._hist then src = O.lat_summary(t._hist, pcts).percentile end
  local unit, div = pct_unit(num(src[pcts[1]]), num(src[pcts[#pcts]]))
  local vals, width = {}, 1
  for i, p in ipairs(pcts) do
    vals[i] = string.format("%d", int(num(src[p]) // div))
    width = math.max(width, #vals[i])
  end
  local per_line = width > 5 and 3 or 4
  out[#out + 1] = string.format("    %s percentiles (%s):", name or "clat", unit)
  local line = "     |"
  for i, p in ipairs(pcts) do
    line = line .. string.format(" %5.2fth=[%" .. width .. "s]", p, vals[i])
    if i < #pcts then line = line .. "," end
    if i % per_line == 0 or i == #pcts then out[#out + 1] = line; line = "     |" end
  end
end

local function samples_lines(out, x)
  if int(x.bw_samples) > 0 then
    out[#out + 1] = string.format(
      "   bw (  KiB/s): min=%5d, max=%5d, per=%3.2f%%, avg=%5.2f, stdev=%5.2f, samples=%d",
      int(x.bw_min), int(x.bw_max), num(x.bw_agg), num(x.bw_mean), num(x.bw_dev), int(x.bw_samples))
  end
  if int(x.iops_samples) > 0 then
    out[#out + 1] = string.format(
      "   iops        : min=%5d, max=%5d, avg=%5.2f, stdev=%5.2f, samples=%d",
      int(x.iops_min), int(x.iops_max), num(x.iops_mean), num(x.iops_stddev), int(x.iops_samples))
  end
end

-- Run time in ms for display: fio never shows 0msec for a job that did I/O.
local function runtime_ms(e, x)
  local ms = num(x.runtime)
  if e.runtime_ns and num(e.runtime_ns) > 0 then ms = num(e.runtime_ns) / 1e6 end
  return ms > 0 and math.ceil(ms) or ms
end

local function dir_block(out, e, d)
  local x = e[d]
  if not x or int(x.total_ios) == 0 then return end
  local bw, bw_si = bw_pair(x.bw_bytes)
  -- fio's write line ends in its zoned-device count (zbd_write_status),
  -- "; 0 zone resets" on any other device
  out[#out + 1] = string.format("  %s: IOPS=%s, BW=%s (%s)(%s/%dmsec)%s", d, T.iops(x.iops), bw, bw_si,
                                T.bytes(x.io_bytes), runtime_ms(e, x),
                                d == "write" and "; 0 zone resets" or "")
  lat_line(out, "slat", x.slat_ns or {})
  lat_line(out, "clat", x.clat_ns or {})
  lat_line(out, "lat", x.lat_ns or {})
  sched_line(out, x.sched_lat_ns)
  local prios = O.prios_used(x)
  local job = e._job or {}
  local kind = P.truthy(job.lat_percentiles) and "lat" or "clat"
  for _, p in ipairs(prios or {}) do
    lat_line(out, string.format("    %s prio %d/%d", kind, p.prioclass, p.prio),
             O.lat_summary(p[kind .. "_hist"]))
  end
  local t = setmetatable({_hist = x.clat_hist}, {__index = x.clat_ns or {}})
  percentile_block(out, e, t)
  -- fio's per-priority blocks, with clat_percentiles or lat_percentiles
  local want = job.clat_percentiles == nil or P.truthy(job.clat_percentiles) or
               P.truthy(job.lat_percentiles)
  local total = int((x[kind .. "_ns"] or {}).N)
  for _, p in ipairs(want and prios or {}) do
    local h = p[kind .. "_hist"]
    local pt = setmetatable({_hist = h}, {__index = O.lat_summary(h)})
    percentile_block(out, e, pt, string.format("%s prio %d/%d (%.2f%% of IOs)", kind,
                     p.prioclass, p.prio, total > 0 and 100 * h:count() / total or 0))
  end
  samples_lines(out, x)
end

local function bucket_lines(out, label, keys, vals, last)
  local items = {}
  for i, v in ipairs(vals) do
    if v > 0 then
      items[#items + 1] = string.format("%s=%3.2f%%", keys[i] and tostring(keys[i]) or last,
                                        math.max(v, 0.01))
    end
  end
  for i = 1, #items, 5 do
    out[#out + 1] = string.format("  lat (%s)   : %s", label,
                                  table.concat(items, ", ", i, math.min(i + 4, #items)))
  end
end

local function pid()
  local f = io.open("/proc/self/stat")
  local s = f and f:read("l"); if f then f:close() end
  return tonumber(s and s:match("^(%d+)")) or 0
end

local function entry_text(out, e, when)
  out[#out + 1] = string.format("%s: (groupid=%d, jobs=%d): err=%2d: pid=%d: %s", tostring(e.jobname),
                                int(e.groupid), O.threads_of(e), int(e.error), pid(), when)
  for _, d in ipairs(O.DDIRS) do dir_block(out, e, d) end
  local ns, us, ms = O.lat_buckets(e)
  bucket_lines(out, "nsec", O.LAT_NS, ns)
  bucket_lines(out, "usec", O.LAT_NS, us)
  bucket_lines(out, "msec", O.LAT_MS, ms, ">=2000")
  out[#out + 1] = string.format("  cpu          : usr=%3.2f%%, sys=%3.2f%%, ctx=%d, majf=%d, minf=%d",
                                num(e.usr_cpu), num(e.sys_cpu), int(e.ctx), int(e.majf), int(e.minf))
  local lv, parts = e.iodepth_level or {}, {}
  for _, k in ipairs{"1", "2", "4", "8", "16", "32", ">=64"} do
    parts[#parts + 1] = string.format("%s=%3.1f%%", k, num(lv[k]))
  end
  out[#out + 1] = "  IO depths    : " .. table.concat(parts, ", ")
  for _, m in ipairs{{"submit", e.iodepth_submit}, {"complete", e.iodepth_complete}} do
    local map, items = m[2] or {}, {}
    for _, k in ipairs{"0", "4", "8", "16", "32", "64", ">=64"} do
      items[#items + 1] = string.format("%s=%3.1f%%", k, num(map[k]))
    end
    out[#out + 1] = string.format("     %-10s: %s", m[1], table.concat(items, ", "))
  end
  local t, s = {}, {}
  for i, d in ipairs(O.DDIRS) do
    t[i], s[i] = int(e[d] and e[d].total_ios), int(e[d] and e[d].short_ios)
  end
  out[#out + 1] = string.format("     issued rwts: total=%d,%d,%d,0 short=%d,%d,%d,0 dropped=0,0,0,0",
                                t[1], t[2], t[3], s[1], s[2], s[3])
  local job = e._job or e.options or {}
  out[#out + 1] = string.format("     latency   : target=0, window=0, percentile=100.00%%, depth=%d",
                                int(tonumber(job.iodepth) or 1))
end

local function status_group(out, gid, list)
  out[#out + 1] = ""
  out[#out + 1] = string.format("Run status group %d (all jobs):", gid)
  for _, d in ipairs(O.DDIRS) do
    local bytes, rmin, rmax, secs, bmin, bmax, any = 0, math.huge, 0, 0, math.huge, 0, false
    for _, e in ipairs(list) do
      local x = e[d]
      if x and int(x.total_ios) > 0 then
        any = true
        bytes = bytes + num(x.io_bytes)
        local ms = runtime_ms(e, x)
        rmin, rmax = math.min(rmin, ms), math.max(rmax, ms)
        secs = math.max(secs, e.runtime_ns and num(e.runtime_ns) / 1e9 or num(x.runtime) / 1000)
        bmin, bmax = math.min(bmin, num(x.bw_bytes)), math.max(bmax, num(x.bw_bytes))
      end
    end
    if any then
      local agg = secs > 0 and bytes / secs or 0
      local a, asi = bw_pair(agg)
      local lo, lo_si = bw_pair(bmin)
      local hi, hi_si = bw_pair(bmax)
      out[#out + 1] = string.format("%7s: bw=%s (%s), %s-%s (%s-%s), io=%s (%s), run=%d-%dmsec",
                                    d:upper(), a, asi, lo, hi, lo_si, hi_si, T.bytes(bytes),
                                    T.bytes_si(bytes), rmin, rmax)
    end
  end
end

-- fio's normal report of results.
function T.normal(results)
  local out, when = {}, os.date("%a %b %e %H:%M:%S %Y")
  local entries = O.entries(results)
  local groups, order = {}, {}
  for _, e in ipairs(entries) do
    entry_text(out, e, when)
    local g = int(e.groupid)
    if not groups[g] then groups[g] = {}; order[#order + 1] = g end
    table.insert(groups[g], e)
  end
  for _, g in ipairs(order) do status_group(out, g, groups[g]) end
  return table.concat(out, "\n") .. "\n"
end

-- The lines fio prints before it starts: one per job, then the version.
function T.preamble(jobs)
  local out = {}
  for _, j in ipairs(jobs) do
    out[#out + 1] = string.format("%s: (g=%d): rw=%s, bs=%s, ioengine=%s, iodepth=%s", j.name,
                                  j._groupid or 0, j.rw or "read", j.bs or "4096B",
                                  j.ioengine or "psync", j.iodepth or "1")
  end
  out[#out + 1] = O.version()
  local n = 0
  for _, j in ipairs(jobs) do n = n + (tonumber(j.numjobs) or 1) end
  out[#out + 1] = string.format("Starting %d thread%s", n, n == 1 and "" or "s")
  return table.concat(out, "\n") .. "\n"
end

return T
