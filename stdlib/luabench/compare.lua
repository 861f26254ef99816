--[[
luabench.compare: is B better than A, by how much, and is it noise?

  local compare = require "luabench.compare"
  local c = compare.compare(a, b, {confidence = 0.95})
  print(compare.text(c))            -- also compare.markdown(c), compare.json(c)

a and b are what report.json wrote (a decoded document or its path), fio's
JSON output (fio --output-format=json, luabench fio, the same), or in this
process an lb.run result, a list of results or a sweep.  Each becomes a
list of points (compare.points): the parameters of the point, its values
(iops, bw in B/s, p50, p99 in ns) and the samples behind them -- the
values of each repeat, and of each interval of the representative run
(iops, bw, p50, p99 of every interval).

Points are matched by their parameters: the ones both sides name (a
sweep's varied parameters; a run's rw, bs, numjobs, iodepth), less those
in opts.ignore; opts.by names them explicitly.  Two sides of one point each
match whatever they hold.  For every matched point and metric (opts.metrics,
default iops, bw, p50, p99) the comparison holds

  a, b    the values (the mean of the repeats when the samples are repeats)
  ratio   b / a
  lo, hi  the confidence interval of the ratio at opts.confidence (0.95)
  verdict "better", "worse" or "no difference" (and "unknown" without samples)

The interval is Welch's t interval on the logarithm of the ratio (the delta
method: the relative standard errors of both means add, the degrees of
freedom are Welch-Satterthwaite's).  The samples are the repeats when both
sides have at least two, else the per-interval samples of both runs; the
intervals of one run are not independent, so their count is reduced to an
effective sample size n (1 - r) / (1 + r) from their lag-1 autocorrelation
r.  A difference counts when the interval excludes 1 and, with
opts.threshold (a fraction, default 0), also excludes 1 +- threshold.
Throughput is better higher, latency better lower.  Deterministic: no
random numbers, the same files give the same verdicts.
]]

local metrics = require "luabench.metric"

local M = {}

M.METRICS = {"iops", "bw", "p50", "p99"}
local TITLES = {iops = "IOPS", bw = "BW", p50 = "p50", p99 = "p99", ["p99.9"] = "p99.9",
                lat_mean = "lat mean"}
local LOWER_IS_BETTER = {p50 = true, p99 = true, ["p99.9"] = true, lat_mean = true}

-- ---------------------------------------------------------------- statistics

-- log Gamma(x), x > 0 (Lanczos, g = 7, 9 terms).
local LANCZOS = {0.99999999999980993, 676.5203681218851, -1259.1392167224028,
                 771.32342877765313, -176.61502916214059, 12.507343278686905,
                 -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7}
local function lgamma(x)
  if x < 0.5 then return math.log(math.pi / math.abs(math.sin(math.pi * x))) - lgamma(1 - x) end
  x = x - 1
  local s, t = LANCZOS[1], x + 7.5
  for i = 1, 8 do s = s + LANCZOS[i + 1] / (x + i) end
  return 0.5 * math.log(2 * math.pi) + (x + 0.5) * math.log(t) - t + math.log(s)
end

-- The continued fraction of the incomplete beta function (modified Lentz).
local function betacf(a, b, x)
  local tiny = 1e-300
  local c, d = 1, 1 - (a + b) * x / (a + 1)
  if math.abs(d) < tiny then d = tiny end
  d = 1 / d
  local h = d
  for m = 1, 300 do
    local m2 = 2 * m
    local num = m * (b - m) * x / ((a + m2 - 1) * (a + m2))
    d = 1 + num * d; if math.abs(d) < tiny then d = tiny end
    c = 1 + num / c; if math.abs(c) < tiny then c = tiny end
    d = 1 / d
    h = h * d * c
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1))
    d = 1 + num * d; if math.abs(d) < tiny then d = tiny end
    c = 1 + num / c; if math.abs(c) < tiny then c = tiny end
    d = 1 / d
    local del = d * c
    h = h * del
    if math.abs(del - 1) < 1e-14 then break end
  end
  return h
end

-- The regularized incomplete beta function I_x(a, b).
local function ibeta(a, b, x)
  if x <= 0 then return 0 end
  if x >= 1 then return 1 end
  local front = math.exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * math.log(x) +
                         b * math.log(1 - x))
  if x < (a + 1) / (a + b + 2) then return front * betacf(a, b, x) / a end
  return 1 - front * betacf(b, a, 1 - x) / b
end

-- P(T <= t) for Student's t with df degrees of freedom.
function M.t_cdf(t, df)
  local tail = 0.5 * ibeta(df / 2, 0.5, df / (df + t * t))
  return t >= 0 and 1 - tail or tail
end

-- The t with P(T <= t) = p, p in (0.5, 1): bisection on the cdf.
function M.t_quantile(p, df)
  local lo, hi = 0, 1
  while M.t_cdf(hi, df) < p do lo, hi = hi, hi * 2 end
  for _ = 1, 200 do
    local mid = (lo + hi) / 2
    if M.t_cdf(mid, df) < p then lo = mid else hi = mid end
    if hi - lo < 1e-12 * hi then break end
  end
  return (lo + hi) / 2
end

-- mean, variance (n - 1), count of the numbers in xs.
local function moments(xs)
  local n, sum = #xs, 0
  for _, x in ipairs(xs) do sum = sum + x end
  local mean = n > 0 and sum / n or 0
  local ss = 0
  for _, x in ipairs(xs) do ss = ss + (x - mean) ^ 2 end
  return mean, n > 1 and ss / (n - 1) or 0, n
end

-- The effective count of autocorrelated samples: n (1 - r) / (1 + r)
-- with r their lag-1 autocorrelation (not below 0, at most n).
function M.effective_n(xs)
  local mean, var, n = moments(xs)
  if n < 3 or var <= 0 then return n end
  local c = 0
  for i = 2, n do c = c + (xs[i] - mean) * (xs[i - 1] - mean) end
  local r = c / ((n - 1) * var)
  if r <= 0 then return n end
  if r >= 1 then return 1 end
  return math.max(1, math.min(n, n * (1 - r) / (1 + r)))
end

--[[ compare.mean_interval(xs [, confidence]) -> {mean=, sd=, n=, lo=, hi=,
confidence=}: the mean of the numbers in xs, their standard deviation
(n - 1) and Student's t interval of the mean at confidence (0.95); lo and
hi are nil with fewer than two numbers, sd too with none. ]]
function M.mean_interval(xs, confidence)
  confidence = confidence or 0.95
  local mean, var, n = moments(xs)
  local out = {mean = n > 0 and mean or nil, n = n, confidence = confidence,
               sd = n > 1 and math.sqrt(var) or (n == 1 and 0 or nil)}
  if n < 2 then return out end
  local h = M.t_quantile(1 - (1 - confidence) / 2, n - 1) * out.sd / math.sqrt(n)
  out.lo, out.hi = mean - h, mean + h
  return out
end

--[[ compare.ratio_interval(xa, xb, confidence [, na, nb]) -> ratio of the
means, lo, hi, df: Welch's interval for log(mean b / mean a); na, nb are
effective sample counts (default #xa, #xb).  nil when a side has fewer than
two samples or a mean is not positive. ]]
function M.ratio_interval(xa, xb, confidence, na, nb)
  local ma, va, ka = moments(xa)
  local mb, vb, kb = moments(xb)
  na, nb = na or ka, nb or kb
  if ka < 2 or kb < 2 or ma <= 0 or mb <= 0 then return nil end
  local ta, tb = va / (na * ma * ma), vb / (nb * mb * mb)
  local ratio = mb / ma
  local se = math.sqrt(ta + tb)
  if se == 0 then return ratio, ratio, ratio, math.huge end
  local df = (ta + tb) ^ 2 / ((na > 1 and ta * ta / (na - 1) or 0) + (nb > 1 and tb * tb / (nb - 1) or 0))
  if df ~= df or df < 1 then df = 1 end
  local t = M.t_quantile(1 - (1 - confidence) / 2, df)
  return ratio, ratio * math.exp(-t * se), ratio * math.exp(t * se), df
end

-- ---------------------------------------------------------------- points

local SPEC_KEYS = {"rw", "bs", "numjobs", "iodepth", "ioengine"}

local function values_of(r)
  local v = metrics.values(r)
  return {iops = v.iops, bw = v.bw, p50 = v.p50, p99 = v.p99, ["p99.9"] = v["p99.9"],
          lat_mean = v.lat_mean}
end

-- Intervals worth a sample: all but a short last one.
local function full_intervals(ivs)
  local out, durs = {}, {}
  for i, iv in ipairs(ivs or {}) do durs[i] = iv.duration_s or 0 end
  table.sort(durs)
  local typical = durs[(#durs + 1) // 2] or 0
  for _, iv in ipairs(ivs or {}) do
    if (iv.duration_s or 0) >= 0.5 * typical then out[#out + 1] = iv end
  end
  return out
end

local function interval_samples(r)
  local s = {}
  for _, m in ipairs(M.METRICS) do s[m] = setmetatable({}, {__jsontype = "array"}) end
  for _, iv in ipairs(full_intervals(r.intervals)) do
    for _, m in ipairs(M.METRICS) do
      local v = metrics.metric(iv, m)
      if v and (m == "iops" or m == "bw" or v > 0) then s[m][#s[m] + 1] = v end
    end
  end
  return s
end

local function point_of(params, names, label, rep, runs)
  local p = {params = params, names = names, label = label, values = values_of(rep),
             repeats = setmetatable({}, {__jsontype = "array"}),
             intervals = interval_samples(rep)}
  for i, r in ipairs(runs) do p.repeats[i] = values_of(r) end
  return p
end

local function result_params(r)
  local params, names = {}, {}
  for _, k in ipairs(SPEC_KEYS) do
    local v = r.options and r.options[k]
    if v ~= nil then params[k] = v; names[#names + 1] = k end
  end
  return params, names
end

--[[ compare.points(x) -> {{params=, names=, label=, values=, repeats=,
intervals=}...} of an lb.run result, a list of results or a sweep: what
report.json keeps for compare. ]]
function M.points(x)
  local out = {}
  if type(x) ~= "table" then return out end
  if x.points then
    local names = x.params or {}
    for _, p in ipairs(x.points) do
      local params = {}
      for k, v in pairs(p.params) do params[k] = v end
      out[#out + 1] = point_of(params, names, p.label, p.result, p.repeats or {p.result})
    end
  elseif x.read or x.write then
    local params, names = result_params(x)
    out[1] = point_of(params, names, x.label or x.jobname, x, {x})
  else
    for i, r in ipairs(x) do
      local params, names = result_params(r)
      out[i] = point_of(params, names, r.label or r.jobname or ("run " .. i), r, {r})
    end
  end
  return out
end

-- ---------------------------------------------------------------- reading files

local function num(v) return type(v) == "number" and v or tonumber(v) end

local function fio_pct(part, p)
  for _, key in ipairs({"lat_ns", "clat_ns"}) do
    local pc = type(part[key]) == "table" and part[key].percentile
    if type(pc) == "table" then
      local v = pc[string.format("%.6f", p)] or pc[tostring(p)]
      if v then return num(v) end
    end
  end
end

-- A job of fio's JSON output as a point: values summed over directions;
-- iops and bw carry fio's per-interval mean, deviation and count.
local function fio_point(job, global)
  local params, names = {}, {}
  local opts = {}
  for k, v in pairs(global or {}) do opts[k] = v end
  for k, v in pairs(job["job options"] or {}) do opts[k] = v end
  for _, k in ipairs(SPEC_KEYS) do
    if opts[k] ~= nil then params[k] = opts[k]; names[#names + 1] = k end
  end
  params.jobname = job.jobname
  table.insert(names, 1, "jobname")
  local v = {iops = 0, bw = 0}
  local stats = {iops = {mean = 0, var = 0, n = math.huge}, bw = {mean = 0, var = 0, n = math.huge}}
  local best, ios = nil, -1
  for _, d in ipairs(metrics.DIRS) do
    local part = job[d]
    if type(part) == "table" and (num(part.total_ios) or 0) > 0 then
      v.iops = v.iops + (num(part.iops) or 0)
      v.bw = v.bw + (num(part.bw_bytes) or (num(part.bw) or 0) * 1024)
      local s = stats.iops
      s.mean, s.var = s.mean + (num(part.iops_mean) or 0), s.var + (num(part.iops_stddev) or 0) ^ 2
      s.n = math.min(s.n, num(part.iops_samples) or 0)
      s = stats.bw
      s.mean, s.var = s.mean + (num(part.bw_mean) or 0) * 1024, s.var + ((num(part.bw_dev) or 0) * 1024) ^ 2
      s.n = math.min(s.n, num(part.bw_samples) or 0)
      if num(part.total_ios) > ios then best, ios = part, num(part.total_ios) end
    end
  end
  if best then v.p50, v.p99 = fio_pct(best, 50), fio_pct(best, 99) end
  local p = {params = params, names = names, label = job.jobname, values = v, repeats = {v},
             summary = {}}
  for m, s in pairs(stats) do
    if s.n ~= math.huge and s.n >= 2 and s.mean > 0 then p.summary[m] = s end
  end
  return p
end

local function doc_points(doc)
  if type(doc.points) == "table" and #doc.points > 0 then return doc.points end
  local out = {}
  for i, r in ipairs(doc.rows or {}) do
    local params, names = {}, {}
    for _, c in ipairs(doc.columns or {}) do
      if r[c.key] ~= nil and (c.unit == "" or c.unit == nil) and c.key ~= "mark" and
         c.key ~= "stopped_by" and c.key ~= "errors" then
        params[c.key] = r[c.key]; names[#names + 1] = c.key
      end
    end
    local v = {iops = r.iops, bw = r.bw, p50 = r.p50, p99 = r.p99}
    out[i] = {params = params, names = names, label = r.name, values = v, repeats = {v}}
  end
  return out
end

--[[ compare.load(x) -> points: x is a path, a decoded document (report.json
or fio's JSON output) or an in-process result/sweep.  Raises "cannot read"
or "not a luabench report or fio output" naming the path. ]]
function M.load(x, name)
  local doc = x
  if type(x) == "string" then
    name = name or x
    local f, err = io.open(x, "rb")
    if not f then error("cannot read " .. err, 2) end
    local s = f:read("a")
    f:close()
    local ok, d = pcall(lb.json_decode, s)
    if not ok or type(d) ~= "table" then error(x .. ": not JSON", 2) end
    doc = d
  end
  if type(doc) ~= "table" then error("compare: expected a report, fio output or result", 2) end
  if type(doc.schema) == "string" and doc.schema:match("^luabench%.report/") then
    return doc_points(doc)
  end
  if type(doc.jobs) == "table" then
    local out = {}
    for i, j in ipairs(doc.jobs) do out[i] = fio_point(j, doc["global options"]) end
    if #out > 0 then return out end
  end
  if doc.points or doc.read or doc.write or (type(doc[1]) == "table" and (doc[1].read or doc[1].write)) then
    return M.points(doc)
  end
  error((name or "compare") .. ": not a luabench report or fio JSON output", 2)
end

-- ---------------------------------------------------------------- matching

local function key_of(p, by)
  local s = {}
  for _, n in ipairs(by) do s[#s + 1] = n .. "=" .. tostring(p.params[n]) end
  return table.concat(s, " ")
end

-- The parameters points are matched by: opts.by, else the names both sides use.
local function match_names(pa, pb, opts)
  if opts.by then return opts.by end
  local ignore = {}
  for _, n in ipairs(opts.ignore or {}) do ignore[n] = true end
  local inb = {}
  for _, p in ipairs(pb) do for _, n in ipairs(p.names or {}) do inb[n] = true end end
  local seen, out = {}, {}
  for _, p in ipairs(pa) do
    for _, n in ipairs(p.names or {}) do
      if inb[n] and not seen[n] and not ignore[n] then seen[n] = true; out[#out + 1] = n end
    end
  end
  -- a parameter that takes one value on each side is no key: it is what differs
  local function distinct(list, n)
    local vals = {}
    for _, p in ipairs(list) do vals[tostring(p.params[n])] = true end
    local c = 0
    for _ in pairs(vals) do c = c + 1 end
    return c
  end
  local keep = {}
  for _, n in ipairs(out) do
    if distinct(pa, n) > 1 or distinct(pb, n) > 1 then keep[#keep + 1] = n end
  end
  return keep
end

-- ---------------------------------------------------------------- comparing

local function column(list, m)
  local out = {}
  for _, v in ipairs(list or {}) do
    local x = v[m]
    if type(x) == "number" then out[#out + 1] = x end
  end
  return out
end

local function verdict_of(m, lo, hi, threshold)
  if not lo then return "unknown" end
  local up, down = lo > 1 + threshold, hi < 1 - threshold
  if not up and not down then return "no difference" end
  if LOWER_IS_BETTER[m] then return up and "worse" or "better" end
  return up and "better" or "worse"
end

local function column_of(samples, m)
  local out = {}
  for _, x in ipairs(samples[m] or {}) do if type(x) == "number" then out[#out + 1] = x end end
  return out
end

local function compare_metric(a, b, m, opts)
  local out = {metric = m, a = a.values[m], b = b.values[m]}
  local ra, rb = column(a.repeats, m), column(b.repeats, m)
  local lo, hi, df, ratio
  if #ra >= 2 and #rb >= 2 then
    out.source, out.n_a, out.n_b = "repeats", #ra, #rb
    ratio, lo, hi, df = M.ratio_interval(ra, rb, opts.confidence)
    out.a, out.b = moments(ra), moments(rb)
  elseif a.summary and b.summary and a.summary[m] and b.summary[m] then
    -- fio's per-interval mean, deviation and count
    local sa, sb = a.summary[m], b.summary[m]
    out.source, out.n_a, out.n_b = "intervals", sa.n, sb.n
    local ta, tb = sa.var / (sa.n * sa.mean ^ 2), sb.var / (sb.n * sb.mean ^ 2)
    local se = math.sqrt(ta + tb)
    local df_ = (ta + tb) ^ 2 / (ta * ta / (sa.n - 1) + tb * tb / (sb.n - 1))
    ratio = out.b / out.a
    local t = (se > 0 and df_ == df_) and M.t_quantile(1 - (1 - opts.confidence) / 2, math.max(1, df_)) or 0
    lo, hi, df = ratio * math.exp(-t * se), ratio * math.exp(t * se), df_
  else
    local ia = a.intervals and column_of(a.intervals, m)
    local ib = b.intervals and column_of(b.intervals, m)
    if ia and ib and #ia >= 3 and #ib >= 3 and out.a and out.b and out.a > 0 then
      out.source, out.n_a, out.n_b = "intervals", M.effective_n(ia), M.effective_n(ib)
      local r0, l0, h0
      r0, l0, h0, df = M.ratio_interval(ia, ib, opts.confidence, out.n_a, out.n_b)
      if r0 then
        -- the interval's width around the ratio of the whole runs' values
        ratio = out.b / out.a
        lo, hi = ratio * l0 / r0, ratio * h0 / r0
      end
    end
  end
  if out.a and out.b and out.a > 0 then out.ratio = ratio or out.b / out.a end
  out.lo, out.hi, out.df = lo, hi, df
  out.verdict = verdict_of(m, lo, hi, opts.threshold or 0)
  return out
end

--[[ compare.step(a, b, metric, confidence) -> {ratio=, lo=, hi=, source=,
n_a=, n_b=} for two points of a sweep (sweep.run's points: repeats and the
intervals of the representative run): what sweep.knee judges a step by.
lo and hi are nil when the samples cannot give an interval. ]]
function M.step(a, b, metric, confidence)
  if not (a.result and b.result) then return {} end
  local function as_point(p)
    if not p._compare then
      p._compare = point_of(p.params, {}, p.label, p.result, p.repeats or {p.result})
    end
    local c = p._compare
    if c.values[metric] == nil then      -- clat_, sched_: only the knee asks
      c.values[metric] = metrics.metric(p.result, metric)
      for i, r in ipairs(p.repeats or {}) do c.repeats[i][metric] = metrics.metric(r, metric) end
      local s = setmetatable({}, {__jsontype = "array"})
      for _, iv in ipairs(full_intervals(p.result.intervals)) do
        local v = metrics.metric(iv, metric)
        if v and v > 0 then s[#s + 1] = v end
      end
      c.intervals[metric] = s
    end
    return c
  end
  return compare_metric(as_point(a), as_point(b), metric, {confidence = confidence or 0.95, threshold = 0})
end

local function check_opts(opts)
  opts = opts or {}
  local c = opts.confidence or 0.95
  if type(c) ~= "number" or c <= 0 or c >= 1 then
    error("compare: confidence must be a number between 0 and 1, not " .. tostring(c), 3)
  end
  local ms = opts.metrics or M.METRICS
  for _, m in ipairs(ms) do metrics.check_metric(m, 3) end
  local t = opts.threshold or 0
  if type(t) ~= "number" or t < 0 or t >= 1 then
    error("compare: threshold must be a fraction in [0, 1), not " .. tostring(t), 3)
  end
  return {confidence = c, metrics = ms, threshold = t, by = opts.by, ignore = opts.ignore}
end

--[[ compare.compare(a, b [, opts]) -> {confidence=, threshold=, by=,
points = {{label=, params=, metrics = {{metric=, a=, b=, ratio=, lo=, hi=,
verdict=, source=, n_a=, n_b=}...}}...}, only_a = {labels}, only_b = {labels}}.
a and b as compare.load takes them.  opts: confidence, metrics, threshold,
by, ignore. ]]
function M.compare(a, b, opts)
  opts = check_opts(opts)
  local pa = type(a) == "table" and a[1] and a[1].values and a or M.load(a)
  local pb = type(b) == "table" and b[1] and b[1].values and b or M.load(b)
  local by = match_names(pa, pb, opts)
  local res = {confidence = opts.confidence, threshold = opts.threshold,
               by = setmetatable(by, {__jsontype = "array"}),
               points = setmetatable({}, {__jsontype = "array"}),
               only_a = setmetatable({}, {__jsontype = "array"}),
               only_b = setmetatable({}, {__jsontype = "array"})}
  local index = {}
  for _, p in ipairs(pb) do
    local k = key_of(p, by)
    if not index[k] then index[k] = p end
  end
  local used = {}
  for _, p in ipairs(pa) do
    local k = key_of(p, by)
    local q = index[k]
    if q and not used[k] then
      used[k] = true
      local params = {}
      for _, n in ipairs(by) do params[n] = p.params[n] end
      local entry = {label = #by > 0 and k or (p.label or "run"), params = params,
                     metrics = setmetatable({}, {__jsontype = "array"})}
      for _, m in ipairs(opts.metrics) do
        if p.values[m] ~= nil or q.values[m] ~= nil then
          entry.metrics[#entry.metrics + 1] = compare_metric(p, q, m, opts)
        end
      end
      res.points[#res.points + 1] = entry
    else
      res.only_a[#res.only_a + 1] = k
    end
  end
  for _, p in ipairs(pb) do
    local k = key_of(p, by)
    if not used[k] then res.only_b[#res.only_b + 1] = k end
  end
  return res
end

-- ---------------------------------------------------------------- formats

local function fmt_value(m, v)
  if v == nil then return "-" end
  if m == "bw" then return metrics.fmt_bw(v) end
  return metrics.fmt_metric(m, v)
end

local function fmt_ratio(x) return x and string.format("%.3f", x) or "-" end

local function rows_of(c)
  local rows = {}
  for _, p in ipairs(c.points) do
    for i, e in ipairs(p.metrics) do
      rows[#rows + 1] = {
        i == 1 and p.label or "", TITLES[e.metric] or e.metric, fmt_value(e.metric, e.a),
        fmt_value(e.metric, e.b), fmt_ratio(e.ratio),
        e.lo and string.format("%s..%s", fmt_ratio(e.lo), fmt_ratio(e.hi)) or "-",
        e.verdict, e.source and string.format("%s %s/%s", e.source, metrics.num(e.n_a),
                                               metrics.num(e.n_b)) or "-",
      }
    end
  end
  return rows
end

local function head(c)
  return {"point", "metric", "A", "B", "B/A", string.format("%g%% CI", c.confidence * 100),
          "verdict", "from (n A/B)"}
end

local function summary_lines(c, names)
  local out = {}
  if names then
    out[#out + 1] = string.format("A = %s, B = %s", names[1], names[2])
  end
  out[#out + 1] = string.format("%g%% confidence, Welch's interval of the ratio%s; points matched by %s",
                                c.confidence * 100,
                                c.threshold > 0 and string.format(", differences under %g%% ignored",
                                                                  c.threshold * 100) or "",
                                #c.by > 0 and table.concat(c.by, ", ") or "position (one each)")
  if #c.only_a > 0 then out[#out + 1] = "only in A: " .. table.concat(c.only_a, "; ") end
  if #c.only_b > 0 then out[#out + 1] = "only in B: " .. table.concat(c.only_b, "; ") end
  return out
end

--[[ compare.text(c [, names]): an aligned table; names = {"a.json", "b.json"}. ]]
function M.text(c, names)
  local h, rows = head(c), rows_of(c)
  local w = {}
  for j, s in ipairs(h) do w[j] = #s end
  for _, r in ipairs(rows) do for j, s in ipairs(r) do w[j] = math.max(w[j], #s) end end
  local lines = summary_lines(c, names)
  local function line(r)
    local cs = {}
    for j, s in ipairs(r) do
      cs[j] = (j >= 3 and j <= 6) and string.rep(" ", w[j] - #s) .. s or s .. string.rep(" ", w[j] - #s)
    end
    return (table.concat(cs, "  "):gsub("%s+$", ""))
  end
  lines[#lines + 1] = line(h)
  for _, r in ipairs(rows) do lines[#lines + 1] = line(r) end
  return table.concat(lines, "\n") .. "\n"
end

--[[ compare.markdown(c [, names]): the same table in Markdown. ]]
function M.markdown(c, names)
  local lines = {}
  for _, l in ipairs(summary_lines(c, names)) do lines[#lines + 1] = l .. "  " end
  lines[#lines + 1] = ""
  local h = head(c)
  lines[#lines + 1] = "| " .. table.concat(h, " | ") .. " |"
  lines[#lines + 1] = "|---|---|---:|---:|---:|---:|---|---|"
  for _, r in ipairs(rows_of(c)) do
    local cs = {}
    for j, s in ipairs(r) do cs[j] = (s:gsub("|", "\\|")) end
    lines[#lines + 1] = "| " .. table.concat(cs, " | ") .. " |"
  end
  return table.concat(lines, "\n") .. "\n"
end

--[[ compare.json(c [, names]): {schema = "luabench.compare/1", a=, b=, ...c}. ]]
function M.json(c, names, pretty)
  local doc = {schema = "luabench.compare/1"}
  for k, v in pairs(c) do doc[k] = v end
  if names then doc.a, doc.b = names[1], names[2] end
  return lb.json(doc, pretty ~= false)
end

-- ---------------------------------------------------------------- command line

local USAGE = [[
usage: luabench compare [options] A.json B.json [C.json ...]

Compares each of B, C ... with A point by point (points matched by their
parameters): per metric the ratio B/A, its confidence interval from the
repeats or the per-interval samples, and a verdict: better, worse or no
difference.  A.json ... are what a script's out= or report.json wrote, or
fio's JSON output (luabench fio / fio --output-format=json).

options:
  --format=text|markdown|json   the form of the output (default text)
  --confidence=C                0.95 by default (0 < C < 1)
  --metrics=LIST                iops,bw,p50,p99 by default (also p99.9, lat_mean)
  --threshold=F                 a difference under F (a fraction) is none (default 0)
  --by=LIST                     the parameters points are matched by
  --ignore=LIST                 parameters not to match by
  -h, --help                    this text

exit status: 0 compared, 2 bad input (a file, an option, no point in common)
]]

local function split(s)
  local out = {}
  for x in s:gmatch("[^,%s]+") do out[#out + 1] = x end
  return out
end

local function bad(msg)
  io.stderr:write("luabench compare: " .. msg .. "\n")
  return 2
end

--[[ compare.main(argv) -> exit status: `luabench compare ...`. ]]
function M.main(argv)
  local opts, files, format = {}, {}, "text"
  for _, a in ipairs(argv) do
    local k, v = a:match("^%-%-([%w-]+)=(.*)$")
    if a == "-h" or a == "--help" then
      io.stdout:write(USAGE)
      return 0
    elseif k == "format" then
      if v ~= "text" and v ~= "markdown" and v ~= "json" then
        return bad("--format must be text, markdown or json, not '" .. v .. "'")
      end
      format = v
    elseif k == "confidence" then
      opts.confidence = tonumber(v)
      if not opts.confidence or opts.confidence <= 0 or opts.confidence >= 1 then
        return bad("--confidence must be a number between 0 and 1, not '" .. v .. "'")
      end
    elseif k == "threshold" then
      opts.threshold = tonumber(v)
      if not opts.threshold or opts.threshold < 0 or opts.threshold >= 1 then
        return bad("--threshold must be a fraction in [0, 1), not '" .. v .. "'")
      end
    elseif k == "metrics" then
      opts.metrics = split(v)
      for _, m in ipairs(opts.metrics) do
        if not metrics.known(m) then
          return bad("unknown metric '" .. m .. "' (use iops, bw, p50, p99, p99.9, lat_mean)")
        end
      end
    elseif k == "by" then
      opts.by = split(v)
    elseif k == "ignore" then
      opts.ignore = split(v)
    elseif a:sub(1, 1) == "-" and a ~= "-" then
      return bad("unknown option '" .. a .. "' (see luabench compare --help)")
    else
      files[#files + 1] = a
    end
  end
  if #files < 2 then return bad("needs two result files or more (see luabench compare --help)") end
  local loaded = {}
  for i, f in ipairs(files) do
    local ok, pts = pcall(M.load, f, f)
    if not ok then return bad((tostring(pts):gsub("^[^:]*compare%.lua:%d+: ", ""))) end
    if #pts == 0 then return bad(f .. ": holds no results") end
    loaded[i] = pts
  end
  local out = {}
  for i = 2, #files do
    local c = M.compare(loaded[1], loaded[i], opts)
    if #c.points == 0 then
      return bad(string.format("%s and %s have no point in common (matched by %s)", files[1],
                               files[i], #c.by > 0 and table.concat(c.by, ", ") or "position"))
    end
    local names = {files[1], files[i]}
    if format == "json" then out[#out + 1] = M.json(c, names)
    elseif format == "markdown" then out[#out + 1] = M.markdown(c, names)
    else out[#out + 1] = M.text(c, names) end
  end
  if format == "json" and #out > 1 then
    io.stdout:write("[", table.concat(out, ",\n"), "]\n")
  else
    io.stdout:write(table.concat(out, "\n"))
  end
  io.stdout:flush()
  return 0
end

return M
