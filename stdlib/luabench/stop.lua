--[[
luabench.stop: per-run stop rules for lb.run{..., stop = rule}.

A rule is a function rule(iv) that lb.run calls on the main thread after
each interval (iv = {index, elapsed_s, interval, intervals, total}); a
truthy return stops the run and a string return is the reason kept in
result.stopped_by.  The rules here look only at iv, so one rule value can
be reused for many runs (a sweep does).

  stop.steady{metric="bw", window="10s", slope=0.01 | deviation=0.05, ramp="5s"}
  stop.ci{metric="iops", rel=0.02, confidence=0.95, min="5s", max="60s"}
  stop.latency{p=99, above="5ms", window="5s", latency="lat"}
  stop.any{rule, ...}, stop.all{rule, ...}

Metrics: "bw" (bytes/s), "iops", "lat_mean", or a percentile "pNN" ("p50",
"p99", "p99.9") of total latency (fio's lat; "clat_p99", "clat_lat_mean":
completion latency; "sched_p99": open-loop latency, from each I/O's due
time under a rate cap), summed or merged over the directions unless
ddir="read"|"write"|"trim" is given.  Durations take fio's units ("500ms",
"10s", "5m"); stop.seconds parses them.  These rules do not measure or
print anything; the core's intervals are their only input.
]]

local metrics = require "luabench.metric"

local M = {}

local TIME_UNITS = {
  ns = 1e-9, us = 1e-6, usec = 1e-6, ms = 1e-3, msec = 1e-3, s = 1, sec = 1,
  m = 60, min = 60, h = 3600, d = 86400,
}

--[[ stop.seconds(v [, unit]) -> seconds.  v is a number (in units of
`unit` seconds, default 1) or a string with fio's time suffixes. ]]
function M.seconds(v, unit, level)
  level = (level or 1) + 1
  if type(v) == "number" then return v * (unit or 1) end
  if type(v) ~= "string" then
    error("expected a duration like '10s', got a " .. type(v), level)
  end
  local n, u = v:lower():match("^%s*(%d*%.?%d+)%s*(%a*)%s*$")
  n = tonumber(n)
  if n == nil or (u ~= "" and not TIME_UNITS[u]) then
    error(string.format("bad duration '%s' (use fio's units: 500ms, 10s, 5m, 1h)", v), level)
  end
  return u == "" and n * (unit or 1) or n * TIME_UNITS[u]
end

-- ---------------------------------------------------------------- windows

local function elapsed(iv)
  local last = iv.interval or (iv.intervals and iv.intervals[#iv.intervals])
  if last and last.end_ms then return last.end_ms / 1000 end
  return iv.elapsed_s or 0
end

local function dur(x) return ((x.end_ms or 0) - (x.start_ms or 0)) / 1000 end

--[[ The trailing intervals, oldest first, that cover window_s seconds and
start at or after ramp_s; nil while the run is too short for that.  Half
an interval of slack absorbs clock jitter in interval lengths. ]]
local function window_of(ivs, window_s, ramp_s)
  local out, span = {}, 0
  for i = #ivs, 1, -1 do
    local x = ivs[i]
    if x.start_ms / 1000 < ramp_s - 1e-9 then return nil end
    table.insert(out, 1, x)
    span = span + dur(x)
    if span + dur(ivs[#ivs]) / 2 >= window_s then return out end
  end
  return nil
end

local function samples(ws, metric, ddir)
  local xs, ys = {}, {}
  for i, x in ipairs(ws) do
    local v = metrics.metric(x, metric, ddir)
    if v == nil then return nil end
    xs[i] = (x.start_ms + x.end_ms) / 2000
    ys[i] = v
  end
  return xs, ys
end

local function mean(ys)
  local s = 0
  for _, y in ipairs(ys) do s = s + y end
  return s / #ys
end

local function stddev(ys, m)
  local s = 0
  for _, y in ipairs(ys) do s = s + (y - m) ^ 2 end
  return math.sqrt(s / (#ys - 1))
end

-- Least-squares slope of ys over xs (units of y per second).
function M.slope(xs, ys)
  local mx, my = mean(xs), mean(ys)
  local sxy, sxx = 0, 0
  for i = 1, #xs do
    sxy = sxy + (xs[i] - mx) * (ys[i] - my)
    sxx = sxx + (xs[i] - mx) ^ 2
  end
  return sxx > 0 and sxy / sxx or 0
end

local function pct(x)
  x = x * 100
  return string.format(x >= 10 and "%.0f%%" or "%.2g%%", x)
end

-- ---------------------------------------------------------------- rules

local function opt_metric(o, default)
  return metrics.check_metric(o.metric or default, 4)
end

--[[ stop.steady{metric=, window="10s", slope=, deviation=, ramp=}: fio's
steady state.  Over the last window of intervals after the ramp, the
least-squares slope of the metric (per second, relative to the window's
mean) stays within slope, and/or every sample stays within deviation of the
mean (max |x - mean| / mean).  With neither bound, slope = 0.01.  With
absolute = true the bounds are in the metric's own units (bytes/s or IOPS,
slope per second), as fio's ss=iops:10. ]]
function M.steady(o)
  o = o or {}
  local metric = opt_metric(o, "bw")
  local window = M.seconds(o.window or "10s", 1, 2)
  local ramp = M.seconds(o.ramp or 0, 1, 2)
  local slope, dev = o.slope, o.deviation
  if slope == nil and dev == nil then slope = 0.01 end
  assert(window > 0, "stop.steady: window must be positive")
  return function(iv)
    local ws = window_of(iv.intervals or {}, window, ramp)
    if not ws or #ws < 2 then return false end
    local xs, ys = samples(ws, metric, o.ddir)
    if not xs then return false end
    local m = mean(ys)
    if m <= 0 then return false end
    local why = {}
    local scale = o.absolute and 1 or m
    local show = o.absolute and function(x) return metrics.fmt_metric(metric, x) end or pct
    if slope then
      local s = math.abs(M.slope(xs, ys)) / scale
      if s > slope then return false end
      why[#why + 1] = "slope " .. show(s) .. "/s"
    end
    if dev then
      local d = 0
      for _, y in ipairs(ys) do d = math.max(d, math.abs(y - m) / scale) end
      if d > dev then return false end
      why[#why + 1] = "deviation " .. show(d)
    end
    return string.format("steady state: %s %s, %s over %s", metric,
                         metrics.fmt_metric(metric, m), table.concat(why, ", "),
                         metrics.fmt_s(window))
  end
end

-- Student's t with df degrees of freedom (an integer): the density's
-- constant from Gamma(x+1) = x Gamma(x), the distribution by Simpson's rule.
local function t_density_const(df)
  local r = df % 2 == 1 and 1 / math.sqrt(math.pi) or math.sqrt(math.pi) / 2
  for k = 2 - df % 2, df - 2, 2 do r = r * (k + 1) / k end
  return r / math.sqrt(df * math.pi)
end

local function t_cdf(t, df, c)
  local n = 1000
  local h = t / n
  local e = -(df + 1) / 2
  local sum = 1 + (1 + t * t / df) ^ e
  for i = 1, n - 1 do
    local x = i * h
    sum = sum + (i % 2 == 1 and 4 or 2) * (1 + x * x / df) ^ e
  end
  return 0.5 + c * sum * h / 3
end

-- The p-quantile (p > 0.5) of Student's t with df degrees of freedom.
function M.t_quantile(p, df)
  local c = t_density_const(df)
  local lo, hi = 0, 1
  while t_cdf(hi, df, c) < p do hi = hi * 2 end
  for _ = 1, 50 do
    local mid = (lo + hi) / 2
    if t_cdf(mid, df, c) < p then lo = mid else hi = mid end
  end
  return (lo + hi) / 2
end

--[[ stop.ci{metric="iops", rel=0.02, confidence=0.95, min="5s", max="60s",
ramp=}: stops once the Student-t confidence interval of the per-interval
mean is within +-rel of the mean (and min has passed); at max it stops
anyway with a reason that says it did not converge. ]]
function M.ci(o)
  o = o or {}
  local metric = opt_metric(o, "iops")
  local rel = o.rel or 0.02
  local conf = o.confidence or 0.95
  local min = M.seconds(o.min or "5s", 1, 2)
  local max = o.max ~= false and M.seconds(o.max or "60s", 1, 2) or math.huge
  local ramp = M.seconds(o.ramp or 0, 1, 2)
  assert(conf > 0 and conf < 1, "stop.ci: confidence must be between 0 and 1")
  local tq = {}
  return function(iv)
    local t = elapsed(iv)
    local ys = {}
    for _, x in ipairs(iv.intervals or {}) do
      if x.start_ms / 1000 >= ramp - 1e-9 then
        local v = metrics.metric(x, metric, o.ddir)
        if v then ys[#ys + 1] = v end
      end
    end
    local n, half = #ys, math.huge
    local m = n > 0 and mean(ys) or 0
    if n >= 2 and m > 0 then
      tq[n] = tq[n] or M.t_quantile((1 + conf) / 2, n - 1)
      half = tq[n] * stddev(ys, m) / math.sqrt(n) / m
    end
    local what = string.format("%s %s +-%s (%g%% confidence, n=%d)", metric,
                               metrics.fmt_metric(metric, m), half < math.huge and pct(half) or "?",
                               conf * 100, n)
    if t >= min - 1e-9 and half <= rel then return "ci: " .. what end
    if t >= max - 1e-9 then
      return string.format("ci: did not converge in %s: %s, wanted +-%s",
                           metrics.fmt_s(max), what, pct(rel))
    end
    return false
  end
end

--[[ stop.latency{p=99, above="5ms", window="5s", ddir=, latency="lat"}:
aborts when the percentile of the last window's merged latency histograms
is above the bound (a bare number is microseconds, as fio's
latency_target).  The latency is total latency (fio's lat) unless
latency="clat" (completion latency) or "sched" (open-loop latency, from
each I/O's due time under a rate cap: a stall's delay of the I/Os due
during it counts; intervals without a rate cap have none, and the rule
never fires). ]]
function M.latency(o)
  o = o or {}
  local p = o.p or 99
  local kind = o.latency or "lat"
  assert(metrics.HIST_KIND[kind], "stop.latency: latency must be 'lat', 'clat' or 'sched'")
  assert(type(p) == "number" and p > 0 and p <= 100, "stop.latency: p must be in (0, 100]")
  assert(o.above, "stop.latency: 'above' (a latency such as '5ms') is required")
  local above = M.seconds(o.above, 1e-6, 2) * 1e9
  local window = M.seconds(o.window or "5s", 1, 2)
  return function(iv)
    local ws = window_of(iv.intervals or {}, window, 0)
    if not ws then return false end
    local h = lb.hist()
    for _, x in ipairs(ws) do
      local hx = metrics.hist(x, o.ddir, metrics.HIST_KIND[kind])
      if hx then h:merge(hx) end
    end
    if h:count() == 0 then return false end
    local v = h:percentile(p)
    if v <= above then return false end
    return string.format("latency: %s p%g %s over the last %s is above %s", kind, p,
                         metrics.fmt_ns(v), metrics.fmt_s(window), metrics.fmt_ns(above))
  end
end

--[[ stop.rule(x): a rule from a function, a callable table, or an array
of rules (any of them). ]]
function M.rule(x)
  if x == nil then return nil end
  if type(x) == "function" then return x end
  if type(x) == "table" then
    local mt = getmetatable(x)
    if mt and mt.__call then return x end
    if #x > 0 then return M.any(x) end
  end
  error("a stop rule must be a function or a list of rules, not a " .. type(x), 2)
end

local function rules_of(list, who)
  assert(type(list) == "table" and #list > 0, who .. ": expects a list of rules")
  local out = {}
  for i, r in ipairs(list) do out[i] = M.rule(r) end
  return out
end

-- stop.any{...}: the first rule (in order) that fires stops the run; every
-- rule sees every interval.
function M.any(list)
  local rs = rules_of(list, "stop.any")
  return function(iv)
    local hit = false
    for _, r in ipairs(rs) do
      local v = r(iv)
      if v and not hit then hit = v end
    end
    return hit
  end
end

-- stop.all{...}: stops when every rule fires on the same interval; the
-- reasons are joined.
function M.all(list)
  local rs = rules_of(list, "stop.all")
  return function(iv)
    local why = {}
    for i, r in ipairs(rs) do
      local v = r(iv)
      if not v then return false end
      why[#why + 1] = type(v) == "string" and v or ("rule " .. i)
    end
    return table.concat(why, "; ")
  end
end

return M
