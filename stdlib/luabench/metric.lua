--[[
luabench.metric: the numbers of a result and how they read.  One metric
(bw, iops, lat_mean, pNN) of anything with read/write/trim parts (an
lb.run result, an interval, a stop rule's running total), the row of
metrics of one result, and numbers, rates, latencies, durations and sizes
written in fio's style.  stop, progress, sweep, cache, prep and report
build on it; report re-exports it (report.fmt_bw, report.metric...).
Pure Lua over result tables: it measures nothing and prints nothing.
]]

local M = {}

-- The directions of a result, in fio's order.
M.DIRS = {"read", "write", "trim"}
local DIRS = M.DIRS

-- Bandwidth units: bytes per second in each.
M.UNITS = {
  ["KiB/s"] = 1024, ["MiB/s"] = 1024 ^ 2, ["GiB/s"] = 1024 ^ 3,
  ["kB/s"] = 1e3, ["MB/s"] = 1e6, ["GB/s"] = 1e9,
}
local UNITS = M.UNITS

-- ---------------------------------------------------------------- numbers

-- Three significant digits without exponents: 9056, 48.1, 2.34, 0.123.
function M.num(v)
  if v == nil or v ~= v then return "-" end
  local a = math.abs(v)
  if a >= 99.95 or a == math.floor(a) and a < 1e15 then return string.format("%.0f", v) end
  if a >= 9.995 then return string.format("%.1f", v) end
  if a >= 0.9995 then return string.format("%.2f", v) end
  return string.format("%.3f", v)
end

-- fio's IOPS style: 950, 2.3k, 55.9k, 253k, 1.2M.
function M.fmt_iops(v)
  if v == nil then return "-" end
  if v >= 1e6 then return M.num(v / 1e6) .. "M" end
  if v >= 1e3 then
    local k = v / 1e3
    return (k >= 99.95 and string.format("%.0f", k) or string.format("%.1f", k)) .. "k"
  end
  return string.format("%.0f", v)
end

function M.fmt_bw(bytes_per_s, unit)
  unit = unit or "MiB/s"
  local div = UNITS[unit] or error("unknown bandwidth unit '" .. tostring(unit) .. "'", 2)
  if bytes_per_s == nil then return "-" end
  return M.num(bytes_per_s / div) .. " " .. unit
end

function M.fmt_ns(ns)
  if ns == nil then return "-" end
  if ns < 1e3 then return string.format("%.0fns", ns) end
  if ns < 1e6 then return M.num(ns / 1e3) .. "us" end
  if ns < 1e9 then return M.num(ns / 1e6) .. "ms" end
  return M.num(ns / 1e9) .. "s"
end

-- Seconds as fio writes durations: 250ms, 10s, 1.5s, 2m30s, 1h5m.
function M.fmt_s(s)
  if s == nil then return "-" end
  if s < 1 then return string.format("%.0fms", s * 1000) end
  if s < 60 then return M.num(s) .. "s" end
  if s < 3600 then
    local m = math.floor(s / 60)
    local r = math.floor(s - m * 60 + 0.5)
    return r > 0 and string.format("%dm%ds", m, r) or string.format("%dm", m)
  end
  local h = math.floor(s / 3600)
  return string.format("%dh%dm", h, math.floor((s - h * 3600) / 60 + 0.5))
end

function M.fmt_bytes(b)
  local units = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"}
  local i = 1
  while b >= 1024 and i < #units do b = b / 1024; i = i + 1 end
  return M.num(b) .. units[i]
end

-- Metric values are formatted by kind: throughput, latency or plain.
function M.fmt_metric(name, v, unit)
  if name == "bw" then return M.fmt_bw(v, unit) end
  if name == "iops" then return M.fmt_iops(v) end
  if type(name) == "string" then name = name:gsub("^clat_", ""):gsub("^sched_", "") end
  if name == "lat_mean" or (type(name) == "string" and name:match("^p%d")) then
    return M.fmt_ns(v)
  end
  return M.num(v)
end

-- ---------------------------------------------------------------- metrics

local function percentile_of(name)
  local p = type(name) == "string" and tonumber(name:match("^p(%d+%.?%d*)$"))
  if p and p > 0 and p <= 100 then return p end
end

-- The latency kind of a metric name and its base: "clat_p99" is clat's
-- p99, "sched_p99" the open-loop latency's (from each I/O's due time, under
-- a rate cap), "p99" (and "lat_mean") total latency's, as fio's lat (slat +
-- clat).
local function kind_of(name)
  if type(name) == "string" and name:sub(1, 5) == "clat_" then return "clat", name:sub(6) end
  if type(name) == "string" and name:sub(1, 6) == "sched_" then return "sched", name:sub(7) end
  return "lat", name
end
M.kind_of = kind_of
-- The histogram kind (M.hist) of a latency kind: "sched" is kept as
-- sched_lat_hist.
local HIST_KIND = {lat = "lat", clat = "clat", sched = "sched_lat"}
M.HIST_KIND = HIST_KIND

-- A latency kind ("lat", "clat", "sched") as the metric of its p99; a
-- metric name is returned as it is.
function M.latency_metric(x)
  if x == "lat" then return "p99" end
  if x == "clat" or x == "sched" then return x .. "_p99" end
  return x
end

-- Whether name is one of bw, iops, lat_mean, pNN (clat_lat_mean, clat_pNN,
-- sched_lat_mean, sched_pNN).
function M.known(name)
  local _, base = kind_of(name)
  if base ~= name and (base == "bw" or base == "iops") then return false end
  return base == "bw" or base == "iops" or base == "lat_mean" or percentile_of(base) ~= nil
end

-- Raises for a metric name that is not one of those.
function M.check_metric(name, level)
  if not M.known(name) then
    error(string.format("unknown metric '%s' (use bw, iops, lat_mean, p50, p99, p99.9..., " ..
                        "clat_p99... for completion latency, sched_p99... for open-loop latency)",
                        tostring(name)), (level or 1) + 1)
  end
  return name
end

local function parts(t, ddir)
  if ddir then return {t[ddir]} end
  local out = {}
  for _, d in ipairs(DIRS) do
    if type(t[d]) == "table" then out[#out + 1] = t[d] end
  end
  return out
end

local function has_ios(part)
  local h = rawget(part, "clat_hist")
  return h ~= nil and h:count() > 0
end

-- The histogram of one latency kind ("lat", "clat", "slat" or "sched_lat")
-- of the directions that did I/O, merged.  A record without lat_hist (an
-- interval keeps clat and lat only; one built by hand may have clat alone)
-- asked for lat gives clat (second value: the kind given).
function M.hist(t, ddir, kind)
  kind = kind or "lat"
  local with, key = {}, kind .. "_hist"
  for _, p in ipairs(parts(t, ddir)) do
    if has_ios(p) and rawget(p, key) == nil and kind == "lat" then key = "clat_hist"; kind = "clat" end
  end
  for _, p in ipairs(parts(t, ddir)) do
    if has_ios(p) and rawget(p, key) then with[#with + 1] = rawget(p, key) end
  end
  if #with <= 1 then return with[1], kind end
  local h = lb.hist()
  for _, x in ipairs(with) do h:merge(x) end
  return h, kind
end

-- The completion-latency histogram of the directions that did I/O, merged.
function M.clat_hist(t, ddir) return (M.hist(t, ddir, "clat")) end

--[[ One metric of anything with read/write/trim parts: an lb.run result,
an interval, or a stop callback's running total.  bw is bytes/s and iops
per second, summed over directions; latencies (ns) come from the merged
histograms: total latency (lat, fio's slat + clat) for p99, lat_mean...,
completion latency for clat_p99, clat_lat_mean (an interval has both),
open-loop latency for sched_p99, sched_lat_mean (under a rate cap: the
result and its intervals have it).  nil when no I/O completed
(latencies), or none had a due time (sched_). ]]
function M.metric(t, name, ddir)
  if name == "bw" or name == "iops" then
    local key, sum = name == "bw" and "bw_bytes" or "iops", 0
    for _, p in ipairs(parts(t, ddir)) do sum = sum + (p[key] or 0) end
    return sum
  end
  M.check_metric(name, 2)
  local kind, base = kind_of(name)
  local h = M.hist(t, ddir, HIST_KIND[kind])
  if h == nil or h:count() == 0 then return nil end
  if base == "lat_mean" then return h:mean() end
  return h:percentile(percentile_of(base))
end

-- The row of one result: every metric key, raw units; p50, p99, p99.9 and
-- lat_mean of total latency (latency = "lat"), the same of completion
-- latency under clat_p50..., under a rate cap sched_p50, sched_p99 and
-- sched_p99.9 of the open-loop latency (from each I/O's due time), and
-- slat_share, the part of the mean total latency spent in submission.
function M.values(r, ddir)
  local v = {
    iops = M.metric(r, "iops", ddir), bw = M.metric(r, "bw", ddir),
    usr_cpu = r.usr_cpu, sys_cpu = r.sys_cpu,
    cpu_per_gbps = r.cpu and r.cpu.pct_per_gbps,
    errors = r.errors and r.errors.count or 0,
    stopped_by = r.stopped_by,
  }
  local _, kind = M.hist(r, ddir, "lat")
  v.latency = kind
  for _, k in ipairs{"p50", "p99", "p99.9", "lat_mean"} do
    v[k] = M.metric(r, k, ddir)
    v["clat_" .. k] = M.metric(r, "clat_" .. k, ddir)
  end
  local sh = M.hist(r, ddir, "sched_lat")   -- only under a rate cap
  if sh and sh:count() > 0 then
    v.sched_p50, v.sched_p99, v["sched_p99.9"] = sh:percentile(50), sh:percentile(99), sh:percentile(99.9)
  end
  local s = M.hist(r, ddir, "slat")
  if s and s:count() > 0 and v.lat_mean and v.lat_mean > 0 then
    v.slat_share = s:mean() / v.lat_mean
  end
  return v
end

-- What a report says when submission took most of the latency (an engine
-- that does the I/O inside submission, as on FUSE), else nil; slat_note is
-- the line with its "note: " (script.note adds its own to slat_text).
function M.slat_text(share)
  if share and share > 0.5 then
    return string.format("slat is %.0f%% of lat (the I/O is done at submission): " ..
                         "clat alone misses it", share * 100)
  end
end

function M.slat_note(share)
  local s = M.slat_text(share)
  return s and "note: " .. s
end

return M
