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

-- Whether name is one of bw, iops, lat_mean, pNN.
function M.known(name)
  return name == "bw" or name == "iops" or name == "lat_mean" or percentile_of(name) ~= nil
end

-- Raises for a metric name that is not one of bw, iops, lat_mean, pNN.
function M.check_metric(name, level)
  if not M.known(name) then
    error(string.format("unknown metric '%s' (use bw, iops, lat_mean, p50, p99, p99.9...)",
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
  local h = part.clat_hist
  return h ~= nil and h:count() > 0
end

-- The completion-latency histogram of the directions that did I/O, merged.
function M.clat_hist(t, ddir)
  local with = {}
  for _, p in ipairs(parts(t, ddir)) do
    if has_ios(p) then with[#with + 1] = p.clat_hist end
  end
  if #with <= 1 then return with[1] end
  local h = lb.hist()
  for _, x in ipairs(with) do h:merge(x) end
  return h
end

--[[ One metric of anything with read/write/trim parts: an lb.run result,
an interval, or a stop callback's running total.  bw is bytes/s and iops
per second, summed over directions; latencies (ns) come from the merged
clat histograms.  nil when no I/O completed (latencies). ]]
function M.metric(t, name, ddir)
  if name == "bw" or name == "iops" then
    local key, sum = name == "bw" and "bw_bytes" or "iops", 0
    for _, p in ipairs(parts(t, ddir)) do sum = sum + (p[key] or 0) end
    return sum
  end
  M.check_metric(name, 2)
  local h = M.clat_hist(t, ddir)
  if h == nil then return nil end
  if name == "lat_mean" then return h:mean() end
  return h:percentile(percentile_of(name))
end

-- The row of one result: every metric key, raw units.
function M.values(r, ddir)
  local v = {
    iops = M.metric(r, "iops", ddir), bw = M.metric(r, "bw", ddir),
    p50 = M.metric(r, "p50", ddir), p99 = M.metric(r, "p99", ddir),
    ["p99.9"] = M.metric(r, "p99.9", ddir), lat_mean = M.metric(r, "lat_mean", ddir),
    usr_cpu = r.usr_cpu, sys_cpu = r.sys_cpu,
    cpu_per_gbps = r.cpu and r.cpu.pct_per_gbps,
    errors = r.errors and r.errors.count or 0,
    stopped_by = r.stopped_by,
  }
  return v
end

return M
