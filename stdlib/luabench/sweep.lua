--[[
luabench.sweep: run one workload over a grid of parameters -- the numjobs
sweep of the storage guide -- in this process, with cache hooks before
each run, repeats, and rules that stop the sweep at the knee.

  local sw = sweep.run{
    base = {engine = "psync", rw = "randread", bs = "4k", runtime = "60s", time_based = true},
    vary = {{"numjobs", {1, 2, 4, 8, 16, 32}}},     -- ordered pairs ...
    -- vary = {numjobs = {1, 2, 4}, bs = {"4k", "1M"}}  -- ... or keyed: ordered by name
    before_each = function(point) cache.drop(files) end,
    after_each = function(point, result) end,
    stop = sweep.knee{bw_gain = 0.05, p99_growth = 2.0},
    repeat_n = 1, progress = true,
    journal = "sweep.journal.jsonl",   -- each finished point, appended and fsynced
    resume = nil,                      -- a journal: run only the points it lacks
    plan = nil,                        -- a progress.plan several sweeps share
    on_error = "stop",                 -- or "skip": go on past a failing point
  }
  -> {points = {{params=, label=, result=, repeats=, spread=, values=, hooks=}...},
      params = {"numjobs"}, knee = point|nil, peak = point, series = {...},
      stopped_by = string|nil, partial = true|nil, reason = string|nil,
      failed = {{params=, label=, error=}...}, journal = path|nil, resumed = n}

The grid is the cartesian product of vary, first parameter outermost.  A
keyed vary table has no order in Lua, so its parameters are taken in name
order; use the array form to choose.  before_each(point) and
after_each(point, result) are called around every run (point.rep is the
repeat number); the cache hooks they run (luabench.cache's log) are kept in
point.hooks.  With repeat_n > 1 a point's result is the run with the median
of the sweep metric and spread holds (max - min) / mean of bw, iops, p99.
A per-run stop rule goes in base.stop.

A sweep never dies with what it measured.  SIGINT, SIGTERM or SIGHUP, a
hook that raises or a run that fails end it there (under MPI with several
ranks the error goes on, ending every rank, except for a lost host, which
ends the sweep as partial on every rank): sweep.run returns the
points finished so far with partial = true and reason (the signal, or the
point and its error); the point in progress is dropped.  on_error = "skip"
records a failing point in failed and goes on.  After an error (not a
signal) the process exits 1 once the script has printed what it has
(lb.fail).  journal = PATH (or a luabench.journal object, shared by several
sweeps with name = ...) appends every finished point to a JSON-lines file;
resume = JOURNAL reads one back, refuses it (bad input) when a parameter
that defines the sweep -- base, vary, repeat_n, metric, define -- changed,
and runs only the points it lacks: the result is the same as an
uninterrupted sweep's.  Without journal or resume nothing is written.

The progress line's elapsed time and ETA are the plan's: plan =
progress.plan{points=, runs=} shared by the sweeps of a script (each counted
in it beforehand) makes them cover every sweep, hooks' time included.

Sweep stop rules are called as rule(points, ctx) after each point, where
ctx = {point, series, axis, run = function(params, lo, hi)}; a truthy
return stops (a string is the reason).  A plain function stops the whole
sweep.  A rule table with an axis (sweep.knee, sweep.plateau) works per
series -- the points that differ only on the axis -- so with vary = {rw =
{...}, numjobs = {...}} each rw value gets its own knee; its finish(series,
ctx) names the series' knee.

sweep.search_max(pass, kmax) finds the largest k in 1..kmax for which
pass(k) holds, pass being true up to some k and false above it: doubling
from 1, then bisecting; each k is tried at most once.
]]

local metrics = require "luabench.metric"
local stop = require "luabench.stop"
local progress = require "luabench.progress"
local cache = require "luabench.cache"
local journal = require "luabench.journal"

local M = {}

-- ---------------------------------------------------------------- the grid

local function as_list(v)
  if type(v) == "table" then return v end
  return {v}
end

--[[ sweep.dims(vary) -> {{name=, values=}...} in sweep order. ]]
function M.dims(vary, level)
  level = (level or 1) + 1
  if type(vary) ~= "table" then error("sweep: 'vary' must be a table", level) end
  local dims = {}
  if #vary > 0 then
    for i, pair in ipairs(vary) do
      if type(pair) ~= "table" or type(pair[1]) ~= "string" or pair[2] == nil then
        error(string.format("sweep: vary[%d] must be {name, values}", i), level)
      end
      dims[i] = {name = pair[1], values = as_list(pair[2])}
    end
  else
    local names = {}
    for k in pairs(vary) do
      if type(k) ~= "string" then error("sweep: vary keys must be option names", level) end
      names[#names + 1] = k
    end
    table.sort(names)
    for i, k in ipairs(names) do dims[i] = {name = k, values = as_list(vary[k])} end
  end
  for _, d in ipairs(dims) do
    if #d.values == 0 then error("sweep: no values for '" .. d.name .. "'", level) end
  end
  return dims
end

-- The parameter sets of dims, first dimension outermost.
function M.grid(dims)
  local out = {{}}
  for _, d in ipairs(dims) do
    local nxt = {}
    for _, partial in ipairs(out) do
      for _, v in ipairs(d.values) do
        local p = {}
        for k, x in pairs(partial) do p[k] = x end
        p[d.name] = v
        nxt[#nxt + 1] = p
      end
    end
    out = nxt
  end
  return out
end

local function label(params, names)
  local s = {}
  for _, n in ipairs(names) do s[#s + 1] = n .. "=" .. tostring(params[n]) end
  return table.concat(s, " ")
end

local function series_key(params, names, axis)
  local s = {}
  for _, n in ipairs(names) do
    if n ~= axis then s[#s + 1] = n .. "=" .. tostring(params[n]) end
  end
  return table.concat(s, " ")
end

local function axis_value(p, axis) return tonumber(p.params[axis]) end

local function by_axis(axis)
  return function(a, b)
    local x, y = axis_value(a, axis), axis_value(b, axis)
    if x and y then return x < y end
    return (a.order or 0) < (b.order or 0)
  end
end

-- ---------------------------------------------------------------- running

-- The representative of repeats: the run with the median metric.
local function median_run(runs, metric)
  local sorted = {}
  for i, r in ipairs(runs) do sorted[i] = r end
  table.sort(sorted, function(a, b)
    return (metrics.metric(a, metric) or 0) < (metrics.metric(b, metric) or 0)
  end)
  return sorted[(#sorted + 1) // 2]
end

local function spread(runs)
  local out = {}
  for _, m in ipairs({"bw", "iops", "p99"}) do
    local lo, hi, sum, n = math.huge, -math.huge, 0, 0
    for _, r in ipairs(runs) do
      local v = metrics.metric(r, m)
      if v then lo, hi, sum, n = math.min(lo, v), math.max(hi, v), sum + v, n + 1 end
    end
    out[m] = (n > 0 and sum > 0) and (hi - lo) / (sum / n) or 0
  end
  return out
end

local function make_spec(S, params, point, line)
  local spec = {}
  for k, v in pairs(S.base) do spec[k] = v end
  for k, v in pairs(params) do spec[k] = v end
  spec.name = spec.name or "sweep"
  spec.label = point.label
  spec.stop = progress.wrap(stop.rule(S.base.stop), line)
  return spec
end

local function run_once(S, point, params, idx)
  local enabled = nil
  if not S.progress then enabled = false end
  local line = progress.new{label = point.label .. (point.refined and " (refine)" or ""),
                            point = idx, plan = S.plan, unit = S.unit, enabled = enabled}
  local spec = make_spec(S, params, point, line)
  progress.busy = progress.busy + 1
  local _ <close> = setmetatable({}, {__close = function()
    line:clear()
    progress.busy = progress.busy - 1
  end})
  line:update(nil)
  local res = lb.run(spec)
  if res.partial and lb.interrupted() then error(S.INTERRUPTED, 0) end
  res.label = res.label or point.label
  return res, line
end

-- A point the resumed journal holds: its results, no run, no hook.
local function restored_point(S, point)
  local r = S.journal and S.journal.restore and S.journal:restore(S.name, point.params)
  if not r then return nil end
  point.repeats, point.result, point.hooks = r.repeats, r.result, r.hooks
  point.started, point.ended, point.resumed = r.started, r.ended, true
  point.spread = spread(point.repeats)
  point.values = metrics.values(point.result)
  S.points[#S.points + 1] = point
  S.plan:drop(1, S.repeat_n)
  S.left_points, S.left_runs = S.left_points - 1, S.left_runs - S.repeat_n
  S.resumed = S.resumed + 1
  return point
end

local function run_point(S, params, order, refined)
  local point = {params = params, label = label(params, S.params), repeats = {},
                 order = order, refined = refined or nil, seq = #S.points + 1,
                 started = os.date("!%Y-%m-%dT%H:%M:%SZ")}
  S.current = point
  if restored_point(S, point) then return point end
  if lb.interrupted() then error(S.INTERRUPTED, 0) end
  local idx = S.plan:next_point()
  S.left_points = S.left_points - 1
  local mark = #cache.log()
  local line
  for rep = 1, S.repeat_n do
    local t0 = lb.now()                -- hooks count: the plan's ETA is wall time
    point.rep = rep
    if S.before_each then S.before_each(point) end
    local res
    res, line = run_once(S, point, params, idx)
    point.repeats[rep] = res
    point.result = res
    if S.after_each then S.after_each(point, res) end
    S.plan:ran(1, lb.now() - t0)
    S.left_runs = S.left_runs - 1
  end
  point.rep = nil
  point.result = median_run(point.repeats, S.metric)
  point.spread = spread(point.repeats)
  point.values = metrics.values(point.result)
  point.hooks = {}
  local log = cache.log()
  for i = mark + 1, #log do point.hooks[#point.hooks + 1] = log[i] end
  if S.journal then S.journal:point(S.name, point) end
  S.points[#S.points + 1] = point
  if line then
    local v = point.values
    line:note(string.format("%s: %s IOPS, %s, p99 %s", point.label, metrics.fmt_iops(v.iops),
                            metrics.fmt_bw(v.bw, S.unit), metrics.fmt_ns(v.p99)))
  end
  return point
end

-- The axis series run along: the rule's, else numjobs when varied, else
-- the innermost parameter.
local function rule_axis(rule, names)
  local has = {}
  for _, n in ipairs(names) do has[n] = true end
  if type(rule) == "table" and rule.axis then
    if not has[rule.axis] then
      error("sweep: the stop rule's axis '" .. rule.axis .. "' is not in vary", 3)
    end
    return rule.axis
  end
  return has.numjobs and "numjobs" or names[#names]
end

local function new_state(o)
  local dims = M.dims(o.vary, 3)
  local names = {}
  for i, d in ipairs(dims) do names[i] = d.name end
  local rule = o.stop
  if rule ~= nil and type(rule) ~= "function" and not (getmetatable(rule) or {}).__call then
    error("sweep: 'stop' must be a sweep rule (sweep.knee{...}, sweep.plateau{...} or a function)", 3)
  end
  local grid = M.grid(dims)
  local repeat_n = o.repeat_n or 1
  assert(math.type(repeat_n) == "integer" and repeat_n >= 1, "sweep: repeat_n must be a positive integer")
  local on_error = o.on_error or "stop"
  if on_error ~= "stop" and on_error ~= "skip" then
    local msg = "sweep: on_error must be 'stop' or 'skip', not '" .. tostring(on_error) .. "'"
    lb.usage_error(msg, 3)                            -- bad input: exit 2
  end
  return {
    name = o.name or "sweep", on_error = on_error, failed = {}, resumed = 0,
    INTERRUPTED = {},
    base = o.base or {}, params = names, grid = grid, points = {}, series = {},
    rule = rule, axis = rule_axis(rule, names), repeat_n = repeat_n,
    per_series = type(rule) == "table", finds_knee = type(rule) == "table" and rule.finish ~= nil,
    before_each = o.before_each, after_each = o.after_each,
    metric = metrics.check_metric(o.metric or (type(rule) == "table" and rule.metric) or "bw", 3),
    progress = o.progress ~= false, unit = o.unit,
    total_points = #grid, left_points = #grid, left_runs = #grid * repeat_n,
    plan = o.plan or progress.plan{points = #grid, runs = #grid * repeat_n},
  }
end

-- The parameters that define a sweep, flat, for a resumed journal to match.
local function define_of(o, S)
  local d = {repeat_n = S.repeat_n, metric = S.metric}
  for k, v in pairs(o.base or {}) do
    if type(v) ~= "function" and k ~= "stop" then d["base." .. k] = journal.show(v) end
  end
  for _, dim in ipairs(M.dims(o.vary, 3)) do d["vary." .. dim.name] = journal.show(dim.values) end
  for k, v in pairs(o.define or {}) do d[k] = journal.show(v) end
  return d
end

-- The journal: a luabench.journal object given, or one opened on a path.
local function open_journal(o, S)
  local j = o.journal
  if type(j) == "table" then return j end
  if j == false or (j == nil and o.resume == nil) then return nil end
  if j ~= nil and type(j) ~= "string" then error("sweep: 'journal' must be a path", 3) end
  if o.resume ~= nil and type(o.resume) ~= "string" then error("sweep: 'resume' must be a path", 3) end
  local J = journal.open{path = j, resume = o.resume, define = define_of(o, S), what = "sweep"}
  if not lb.quiet and (lb.rank or 0) == 0 then
    io.stderr:write("luabench: sweep journal: ", J.path, "\n")
  end
  return J
end

local function series_of(S, key, params)
  for _, s in ipairs(S.series) do
    if s.key == key then return s end
  end
  local fixed = {}
  for k, v in pairs(params) do if k ~= S.axis then fixed[k] = v end end
  local s = {key = key, params = fixed, points = {}}
  S.series[#S.series + 1] = s
  return s
end

local function context(S, s, point)
  table.sort(s.points, by_axis(S.axis))
  local ctx = {point = point, series = s.points, axis = S.axis, points = S.points, sweep = S}
  function ctx.run(params, lo, hi)
    local frac = 0.5
    local a, b, m = axis_value(lo, S.axis), axis_value(hi, S.axis), tonumber(params[S.axis])
    if a and b and m and b > a then frac = (m - a) / (b - a) end
    S.total_points = S.total_points + 1
    S.plan:add(1, S.repeat_n)
    S.left_points, S.left_runs = S.left_points + 1, S.left_runs + S.repeat_n
    local p = run_point(S, params, lo.order + frac * math.min(1, hi.order - lo.order), true)
    s.points[#s.points + 1] = p
    table.sort(s.points, by_axis(S.axis))
    return p
  end
  return ctx
end

local function finish(S)
  local rule = S.rule
  if S.finds_knee then
    for _, s in ipairs(S.series) do
      s.knee = rule.finish(s.points, context(S, s, s.points[#s.points]))
    end
  end
  table.sort(S.points, function(a, b) return a.order < b.order end)
  for _, p in ipairs(S.points) do
    local v = metrics.metric(p.result, S.metric) or 0
    if not S.peak or v > (metrics.metric(S.peak.result, S.metric) or 0) then S.peak = p end
  end
  if #S.series == 1 then S.knee = S.series[1].knee end
end

--[[ sweep.run{base=, vary=, before_each=, after_each=, stop=, repeat_n=,
progress=, metric=, unit=} -> sweep (see the top of this file). ]]
-- After a point raised: true when the sweep ends here.  A signal ends it;
-- an error ends it (on_error=stop) or is recorded and passed (skip).
local function failed_point(S, err)
  -- Several ranks: one that stopped alone would leave the others waiting
  -- at the next run's barrier, so the error goes on to the host, which
  -- ends them all (the journal keeps the points finished so far).  A lost
  -- host is the exception: every rank knows it and no collective can wait
  -- any more, so the sweep ends partial, the script writes what it has
  -- (rank 0), and the host then exits 1.
  if (lb.size or 1) > 1 then
    local lost = lb.lost and lb.lost()
    if not lost then error(err == S.INTERRUPTED and "interrupted" or err, 0) end
    S.partial, S.reason = true, lost
    return true
  end
  local p = S.current or {}
  local sig = select(2, lb.interrupted())
  if err == S.INTERRUPTED or sig then
    S.partial, S.reason = true, "interrupted by " .. (sig or "a signal")
    return true
  end
  local msg = tostring(err):gsub("^[^\n:]*%.lua:%d+: ", "")
  S.failed[#S.failed + 1] = {params = p.params, label = p.label, error = msg}
  if S.journal then S.journal:failed(S.name, p, msg) end
  lb.fail()
  local why = string.format("%s failed: %s", p.label or "a point", msg)
  if S.on_error == "skip" then
    io.stderr:write("luabench: sweep: ", why, " (skipped)\n")
    return false
  end
  S.partial, S.reason = true, why
  return true
end

local function sweep_grid(S)
  for i, params in ipairs(S.grid) do
    local key = series_key(params, S.params, S.axis)
    local s = series_of(S, key, params)
    if not s.stopped_by then
      local ok, p = pcall(run_point, S, params, i)
      if not ok then
        if failed_point(S, p) then return end
      else
        s.points[#s.points + 1] = p
        local v = S.rule and S.rule(S.points, context(S, s, p))
        if v then
          local why = type(v) == "string" and v or "sweep rule"
          S.stopped_by, s.stopped_by = why, why
          if not S.per_series then return end
        end
      end
    end
  end
end

function M.run(o)
  if type(o) ~= "table" then error("sweep.run expects a table", 2) end
  local S = new_state(o)
  S.plan:expect(progress.expected_s(S.base))
  S.journal = open_journal(o, S)
  sweep_grid(S)
  if not S.partial then
    local ok, err = pcall(finish, S)
    if not ok then failed_point(S, err) end
  end
  if S.partial then
    -- finish again without refining: only what was measured
    S.finds_knee = S.finds_knee and not S.rule.refine
    local ok = pcall(finish, S)
    if not ok then S.knee = nil end
  end
  S.total_points = #S.points
  S.plan:drop(S.left_points, S.left_runs)     -- stopped early: not to come
  if S.journal then
    S.journal:finish(S.name, {stopped_by = S.stopped_by, partial = S.partial, reason = S.reason})
  end
  -- A failure is said also with --quiet; a signal the host names anyway.
  if S.partial and (lb.rank or 0) == 0 and not (lb.quiet and lb.interrupted()) then
    io.stderr:write(string.format("luabench: sweep: %s; %d point%s kept (partial)\n", S.reason,
                                  #S.points, #S.points == 1 and "" or "s"))
  end
  S.journal_path = S.journal and S.journal.path
  S.grid, S.current, S.INTERRUPTED, S.journal, S.plan = nil, nil, nil, S.journal_path, nil
  S.journal_path = nil
  return S
end

-- ---------------------------------------------------------------- rules

local function gain_of(a, b, metric)
  local va, vb = a.values[metric] or 0, b.values[metric] or 0
  if va <= 0 then return math.huge end
  return vb / va - 1
end

-- How many doublings of the axis lie between a and b (1 when not numbers).
local function doublings(a, b, axis)
  local x, y = axis_value(a, axis), axis_value(b, axis)
  if x and y and x > 0 and y > x then return math.log(y / x, 2) end
  return 1
end

local function pct(x) return string.format("%.1f%%", x * 100) end

local function predecessor(ctx)
  local prev
  for _, p in ipairs(ctx.series) do
    if p == ctx.point then return prev end
    prev = p
  end
end

local function rule_table(t)
  return setmetatable(t, {__call = function(self, points, ctx)
    local prev = ctx.series and predecessor(ctx)
    if not prev then return false end
    return self.compare(prev, ctx.point, ctx.axis or "numjobs") or false
  end})
end

--[[ sweep.knee{bw_gain=0.05, p99_growth=2.0, metric="bw", latency="p99",
confidence=0.95, refine=false, axis="numjobs"}: stops a series at its
knee.  Going from a to b (normally a doubling of numjobs) has passed the
knee when b adds less than bw_gain of a's throughput (metric: bw or iops),
or when b's p99 grows more than p99_growth x while throughput grows by a
smaller factor.  For steps other than a doubling both bounds scale with
log2(b/a).  The knee is a: the last point before the latency degraded or
the throughput stopped growing.

Both are judged at the stated confidence from the samples (the repeats,
else the per-interval samples of both runs: luabench.compare's interval of
the ratio): a step gains only when the lower end of the throughput
ratio's interval is above 1 + bw_gain, so noise around a plateau is no
gain; p99 grew only when the lower end of the p99 ratio's interval is
above p99_growth.  Without samples (or confidence = false) the measured
values decide.  refine=true bisects the integer axis values between the
knee and the next point (extra runs) to place it exactly.  A series that
never degrades has no knee.
The latency is total latency (fio's lat: submission and completion) unless
latency names completion latency ("clat_p99", or "clat" for its p99) or,
under a rate cap, open-loop latency ("sched_p99", or "sched": from each
I/O's due time, so a stall's delay of the I/Os due during it counts). ]]
function M.knee(o)
  o = o or {}
  local conf = o.confidence
  if conf == nil then conf = 0.95 end
  if conf ~= false and (type(conf) ~= "number" or conf <= 0 or conf >= 1) then
    error("sweep.knee: confidence must be a number between 0 and 1, or false", 2)
  end
  local K = {axis = o.axis, metric = metrics.check_metric(o.metric or "bw", 2),
             latency = metrics.check_metric(metrics.latency_metric(o.latency or "p99"), 2),
             bw_gain = o.bw_gain or 0.05, p99_growth = o.p99_growth or 2.0,
             refine = o.refine or false, confidence = conf}
  local function interval(a, b, m)
    if not K.confidence then return nil end
    local e = require("luabench.compare").step(a, b, m, K.confidence)
    if e.lo then return e end
  end
  local function range(e)
    return string.format("%g%% interval %s..%s", K.confidence * 100, pct(e.lo - 1), pct(e.hi - 1))
  end
  function K.compare(a, b, axis)
    local d = doublings(a, b, axis)
    local gain = gain_of(a, b, K.metric)
    local la, lb_ = a.values[K.latency], b.values[K.latency]
    local growth = (la and lb_ and la > 0) and lb_ / la or 1
    local step = string.format("%s %s -> %s", axis, tostring(a.params[axis]), tostring(b.params[axis]))
    local eg = interval(a, b, K.metric)
    if eg and eg.lo <= 1 + K.bw_gain * d then
      return string.format("knee: %s added %s %s (%s, not above %s)", step, pct(gain), K.metric,
                           range(eg), pct(K.bw_gain * d))
    elseif not eg and gain < K.bw_gain * d then
      return string.format("knee: %s added %s %s (under %s)", step, pct(gain), K.metric,
                           pct(K.bw_gain * d))
    end
    local el = interval(a, b, K.latency)
    local grew
    if el then grew = el.lo > K.p99_growth ^ d else grew = growth > K.p99_growth ^ d end
    if grew and 1 + gain < growth then
      local kind, base = metrics.kind_of(K.latency)
      return string.format("knee: %s grew %s %s %.2fx for %s more %s%s", step, kind, base, growth,
                           pct(gain), K.metric, el and " (" .. range(el) .. ")" or "")
    end
    return nil
  end
  function K.finish(series, ctx)
    local axis = ctx.axis or "numjobs"
    local at
    for i = 2, #series do
      if K.compare(series[i - 1], series[i], axis) then at = i - 1; break end
    end
    if not at then return nil end
    local lo, hi = series[at], series[at + 1]
    local a, b = axis_value(lo, axis), axis_value(hi, axis)
    while K.refine and a and b and math.type(a) == "integer" and math.type(b) == "integer"
          and b - a > 1 do
      local params = {}
      for k, v in pairs(lo.params) do params[k] = v end
      params[axis] = (a + b) // 2
      local p = ctx.run(params, lo, hi)
      if K.compare(lo, p, axis) then hi = p else lo = p end
      a, b = axis_value(lo, axis), axis_value(hi, axis)
    end
    return lo
  end
  return rule_table(K)
end

--[[ sweep.plateau{metric="bw", gain=0.05, axis=}: stops a series when a
step along the axis adds less than gain (relative) of the metric. ]]
function M.plateau(o)
  o = o or {}
  local P = {axis = o.axis, metric = metrics.check_metric(o.metric or "bw", 2), gain = o.gain or 0.05}
  function P.compare(a, b, axis)
    local g = gain_of(a, b, P.metric)
    if g < P.gain then
      return string.format("plateau: %s %s -> %s added %s %s (under %s)", axis,
                           tostring(a.params[axis]), tostring(b.params[axis]), pct(g), P.metric,
                           pct(P.gain))
    end
  end
  return rule_table(P)
end

-- ------------------------------------------------------- the largest pass

--[[ sweep.search_max(pass, kmax) -> good, bad: good the largest k tried
with pass(k) true (0 when pass(1) is false), bad the smallest tried with
pass(k) false (nil when kmax passed); bad = good + 1 unless good = kmax.
k doubles from 1 while it passes, then bisects between good and bad. ]]
function M.search_max(pass, kmax)
  local known = {}
  local function ok(k)
    if known[k] == nil then known[k] = pass(k) and true or false end
    return known[k]
  end
  if kmax < 1 then return 0, nil end
  if not ok(1) then return 0, 1 end
  local good, bad = 1, nil
  while not bad and good < kmax do
    local k = math.min(good * 2, kmax)
    if ok(k) then good = k else bad = k end
  end
  while bad and bad - good > 1 do
    local mid = (good + bad) // 2
    if ok(mid) then good = mid else bad = mid end
  end
  return good, bad
end

return M
