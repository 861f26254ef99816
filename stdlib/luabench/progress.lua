--[[
luabench.progress: one live line on stderr while runs go on -- elapsed
time, ETA, the latest interval's IOPS, bandwidth and p99, and "point 3/10"
inside a sweep -- redrawn after each interval and cleared at the end.  It
draws only when stderr is a terminal and --quiet was not given; otherwise
every function here is a no-op, so scripts and logs stay clean.

It is driven by lb.run's per-interval callback: progress.wrap(rule, line)
returns a stop rule that updates the line and then asks the wrapped rule.

  local line = progress.new{label = "numjobs=4", total_s = 60}
  local r = lb.run{..., stop = progress.wrap(my_rule, line)}
  line:clear()
  -- or simply: progress.run(spec [, {label=...}])
]]

local metrics = require "luabench.metric"

local M = {}

function M.enabled()
  return not lb.quiet and lb.isatty ~= nil and lb.isatty(2) == true
end

-- ---------------------------------------------------------------- plans

local Plan = {}
Plan.__index = Plan

--[[ progress.plan{points=, runs=, expected_s=} -> plan: the whole of what
a script will run, for its lines' elapsed time (from the plan's start)
and ETA (the runs left times the mean wall time of a run so far, hooks
included; expected_s, the spec's runtime, until one has finished).
plan:add(points, runs) counts more, plan:drop(points, runs) takes out
what will not run (a resumed point, a sweep stopped at its knee),
plan:next_point() numbers a point, plan:ran(runs, seconds) books time. ]]
function M.plan(o)
  o = o or {}
  return setmetatable({t0 = lb.now(), points = o.points or 0, runs = o.runs or 0, point = 0,
                       done = 0, spent = 0, expected_s = o.expected_s}, Plan)
end

function Plan:add(points, runs)
  self.points, self.runs = self.points + points, self.runs + runs
end

function Plan:drop(points, runs)
  self.points, self.runs = math.max(0, self.points - points), math.max(0, self.runs - runs)
end

function Plan:expect(s) self.expected_s = self.expected_s or s end

function Plan:next_point()
  self.point = self.point + 1
  return self.point
end

function Plan:ran(runs, seconds) self.done, self.spent = self.done + runs, self.spent + seconds end

function Plan:elapsed() return lb.now() - self.t0 end

-- Seconds left when the run in progress has run for el seconds (nil: no idea).
function Plan:eta(el)
  local per = self.done > 0 and self.spent / self.done or self.expected_s
  if not per then return nil end
  local left = self.runs - self.done - 1
  return math.max(0, left) * per + math.max(0, per - el)
end

-- ---------------------------------------------------------------- lines

local Line = {}
Line.__index = Line

--[[ progress.new{label=, total_s=, point=, points=, eta=function(elapsed),
plan=}: a line.  total_s is the expected length of the run (ETA = total_s -
elapsed), eta a function for anything smarter; with a plan (progress.plan)
the elapsed time, the ETA and "point N/M" are the whole plan's. ]]
function M.new(o)
  o = o or {}
  local self = setmetatable({label = o.label, total_s = o.total_s, point = o.point,
                             points = o.points, eta = o.eta, unit = o.unit, plan = o.plan,
                             on = o.enabled == nil and M.enabled() or o.enabled,
                             t0 = lb.now(), shown = false}, Line)
  return self
end

local function columns()
  local c = tonumber(os.getenv("COLUMNS") or "")
  return c and c > 20 and c or 100
end

function Line:text(iv)
  local el = iv and iv.elapsed_s or (lb.now() - self.t0)
  local eta, shown, points = nil, el, self.points
  if self.plan then
    eta, shown, points = self.plan:eta(el), self.plan:elapsed(), self.plan.points
  elseif self.eta then eta = self.eta(el)
  elseif self.total_s then eta = math.max(0, self.total_s - el) end
  local s = "[" .. metrics.fmt_s(shown) .. (eta and (" ETA " .. metrics.fmt_s(eta)) or "") .. "]"
  if points then s = s .. string.format(" point %d/%d", self.point or 0, points) end
  if self.label and self.label ~= "" then s = s .. " " .. self.label end
  local x = iv and iv.interval
  if x then
    s = s .. string.format(": %s IOPS, %s, p99 %s", metrics.fmt_iops(metrics.metric(x, "iops")),
                           metrics.fmt_bw(metrics.metric(x, "bw"), self.unit),
                           metrics.fmt_ns(metrics.metric(x, "p99")))
  end
  return s
end

-- Redraws the line for interval iv (nil: just the label and time).
function Line:update(iv)
  if not self.on then return end
  local s = self:text(iv)
  local w = columns() - 1
  if #s > w then s = s:sub(1, w) end
  io.stderr:write("\r", s, "\27[K")
  io.stderr:flush()
  self.shown = true
end

-- Prints a line above the live one (a finished point, a note).
function Line:note(text)
  if not self.on then return end
  io.stderr:write("\r\27[K", text, "\n")
  self.shown = false
end

function Line:clear()
  if self.on and self.shown then
    io.stderr:write("\r\27[K")
    io.stderr:flush()
  end
  self.shown = false
end

-- A stop rule that draws the line, then asks rule (may be nil).
function M.wrap(rule, line)
  if line == nil or not line.on then return rule end
  return function(iv)
    line:update(iv)
    if rule then return rule(iv) end
    return false
  end
end

-- Expected length of a spec's run in seconds, when it says (nil otherwise).
function M.expected_s(spec)
  local stop = require "luabench.stop"
  local ok, rt = pcall(stop.seconds, spec.runtime or 0)
  local ok2, ramp = pcall(stop.seconds, spec.ramp_time or 0)
  if ok and rt > 0 then return rt + (ok2 and ramp or 0) end
  return nil
end

-- ---------------------------------------------------------------- fio's line

-- fio's letters for what a job does: R/W/M sequential read/write/mixed,
-- r/w/m random, D/d trim.
local LETTER = {read = "R", randread = "r", write = "W", randwrite = "w", rw = "M",
                readwrite = "M", randrw = "m", trim = "D", randtrim = "d", trimwrite = "M",
                randtrimwrite = "m"}

-- A number as fio's num2str writes it with 4 significant figures:
-- 9876, 12.3k, 316k; base 1024 with units for sizes (1234MiB).
local function sig4(v, base, units)
  local i = 1
  while v >= 9999.5 and i < #units do v = v / base; i = i + 1 end
  local s
  if v >= 999.5 or v == math.floor(v) then s = string.format("%.0f", v)
  elseif v >= 99.95 then s = string.format("%.0f", v)
  elseif v >= 9.995 then s = string.format("%.1f", v)
  else s = string.format("%.2f", v) end
  return s .. units[i]
end
local BW_UNITS = {"B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"}
local N_UNITS = {"", "k", "M", "G", "T"}

-- fio's ETA: 00m:33s, 01h:02m:03s, 1d:02h:03m:04s.
local function eta_text(s)
  s = math.max(0, math.floor(s + 0.5))
  local d, h, m = s // 86400, s // 3600 % 24, s // 60 % 60
  local out = d > 0 and string.format("%dd:", d) or ""
  if d > 0 or h > 0 then out = out .. string.format("%02dh:", h) end
  return out .. string.format("%02dm:%02ds", m, s % 60)
end
M.eta_text = eta_text

-- fio's letter for rw= (R for an unknown or missing one, fio's default read).
function M.letter(rw) return LETTER[rw or "read"] or "R" end

-- The rates of the directions that did I/O: "r=1234MiB/s,w=...".
local function rates(x, key, fmt)
  local out = {}
  for _, d in ipairs(metrics.DIRS) do
    local p = x[d]
    if p and (p.total_ios or 0) > 0 then out[#out + 1] = d:sub(1, 1) .. "=" .. fmt(p[key] or 0) end
  end
  return table.concat(out, ",")
end

--[[ progress.fio_line(iv, o) -> fio's status line for interval record iv:
"Jobs: 1 (f=1): [R(1)][45.0%][r=1234MiB/s][r=9876 IOPS][eta 00m:33s]";
o = {jobs=, files=, letters= ("R(1)"), total_s= or total_bytes=}. ]]
function M.fio_line(iv, o)
  local x = iv.interval
  local el = iv.elapsed_s or 0
  local frac, eta
  if o.total_s and o.total_s > 0 then
    frac, eta = math.min(1, el / o.total_s), o.total_s - el
  elseif o.total_bytes and o.total_bytes > 0 then
    local done = 0
    for _, d in ipairs(metrics.DIRS) do done = done + (iv.total[d].io_bytes or 0) end
    frac = math.min(1, done / o.total_bytes)
    eta = frac > 0 and el * (1 - frac) / frac or nil
  end
  local s = string.format("Jobs: %d (f=%d): [%s]", o.jobs, o.files or o.jobs, o.letters)
  s = s .. (frac and string.format("[%.1f%%]", frac * 100) or "[-.-%]")
  local bw = rates(x, "bw_bytes", function(v) return sig4(v, 1024, BW_UNITS) end)
  local io = rates(x, "iops", function(v) return sig4(v, 1000, N_UNITS) end)
  if bw ~= "" then s = s .. "[" .. bw .. "][" .. io .. " IOPS]" end
  return s .. "[eta " .. (eta and eta_text(eta) or "--m:--s") .. "]"
end

--[[ progress.fio_eta{mode="auto"|"always"|"never", newline=seconds|nil}
-> eta or nil: fio's status line on stdout, redrawn after each interval
(--eta: auto draws it when stdout is a terminal; --eta-newline: a new line
every that many seconds instead of redrawing).  eta:wrap(rule, o) returns
the stop rule of a run that draws it (o as for fio_line); eta:finish()
ends the line. ]]
function M.fio_eta(o)
  o = o or {}
  local mode = o.mode or "auto"
  local on = mode == "always" or (mode == "auto" and not lb.quiet and lb.isatty ~= nil and
                                  lb.isatty(1) == true)
  if not on then return nil end
  local E = {newline = o.newline, shown = false, last = 0}
  -- Draws text, el seconds into the run: redrawn, or a new line every
  -- E.newline seconds.
  function E.draw(_, text, el)
    local nl = E.newline and el - E.last >= E.newline - 1e-3
    if nl then E.last = el end
    io.stdout:write(text, nl and "\n" or "\r")
    io.stdout:flush()
    E.shown = not nl
  end
  function E.wrap(_, rule, lo)
    E.last = 0                      -- the run's time of the last new line
    return function(iv)
      E:draw(M.fio_line(iv, lo), iv.elapsed_s or 0)
      if rule then return rule(iv) end
      return false
    end
  end
  function E.finish()
    if E.shown then io.stdout:write("\n"); io.stdout:flush() end
    E.shown = false
  end
  return E
end

-- Set while a line of luabench's own is drawn (a sweep, luabench fio):
-- plain lb.run then draws none.
M.busy = 0

-- What fio's line says of an lb.run spec.
local function spec_info(spec)
  local jobs = type(spec.jobs) == "table" and spec.jobs or {spec}
  local n, letters, t = 0, {}, 0
  for _, j in ipairs(jobs) do
    local nj = tonumber(j.numjobs or spec.numjobs) or 1
    n = n + nj
    local rw = tostring(j.rw or j.readwrite or spec.rw or "read"):match("^[a-z]+")
    letters[#letters + 1] = string.format("%s(%d)", M.letter(rw), nj)
  end
  t = M.expected_s(spec) or 0
  return {jobs = n, letters = table.concat(letters, ""), total_s = t > 0 and t or nil}
end

-- lb.run for the library's own runs (laying out, warming): no fio line.
function M.own_run(spec)
  M.busy = M.busy + 1
  local ok, r = pcall(lb.run, spec)
  M.busy = M.busy - 1
  if not ok then error(r, 0) end
  return r
end

--[[ progress.plain(run) -> lb.run as scripts see it: run itself, unless
fio's status line is wanted (--eta=always, or stdout a terminal without
--eta=never or --quiet); then a run that draws it (not while a sweep or
luabench fio draws a line of its own). ]]
function M.plain(run)
  local ok, secs = pcall(require("luabench.stop").seconds, lb.eta_newline)
  local E = M.fio_eta{mode = lb.eta, newline = lb.eta_newline and ok and secs or nil}
  if not E then return run end
  return function(spec, ...)
    local rule = type(spec) == "table" and spec.stop
    local callable = rule == nil or type(rule) == "function" or
                     (getmetatable(rule) or {}).__call ~= nil
    if M.busy > 0 or type(spec) ~= "table" or not callable then return run(spec, ...) end
    local s = {}
    for k, v in pairs(spec) do s[k] = v end
    s.stop = E:wrap(rule, spec_info(spec))
    local _ <close> = setmetatable({}, {__close = function() E:finish() end})
    return run(s, ...)
  end
end

-- ---------------------------------------------------------------- lb.train, lb.meta

-- The mean of a size as lb.train takes it: "4k", 4096, {mean=}, {min=, max=}.
local function mean_size(v, default)
  local prep = require "luabench.prep"
  local function b(x)
    local ok, n = pcall(prep.bytes, x)
    return ok and n or nil
  end
  if type(v) == "table" then
    if v.mean then return b(v.mean) or default end
    local lo, hi = b(v.min), b(v.max)
    return lo and hi and (lo + hi) / 2 or default
  end
  return v ~= nil and b(v) or default
end

local function plural(n, word) return string.format("%d %s%s", n, word, n == 1 and "" or "s") end

--[[ What the line of lb.train says: "Train: 4 accelerators: [epoch 2/3]
[45.0%][r=1234MiB/s][9876 samples/s][eta 00m:33s]"; during an evaluation
"[eval]"; while the dataset is laid out "[layout]" and files/s, w=.  MiB/s is the items' rate times their
mean size (the spec's sample_size). ]]
local function train_words(spec)
  local acc, epochs = tonumber(spec.accelerators) or 1, tonumber(spec.epochs) or 1
  local sample = mean_size(spec.sample_size, 128 * 1024)
  local per_file = tonumber(spec.samples_per_file) or 1
  local function words(phase, done, total)
    local w = {head = "Train: " .. plural(acc, "accelerator")}
    if phase == "train" then
      local per = total // math.max(1, epochs)          -- samples read per epoch
      local e = per > 0 and math.max(1, math.min(epochs, (done + per - 1) // per)) or 1
      w.where, w.item, w.dir, w.bytes = string.format("epoch %d/%d", e, epochs), "samples", "r", sample
    elseif phase == "eval" then                         -- DLIO's evaluation (do_eval)
      w.where, w.item, w.dir, w.bytes = "eval", "samples", "r", sample
    else
      w.where, w.item, w.dir, w.bytes = phase, "files", "w", sample * per_file
    end
    return w
  end
  -- The last line, from the result: done, rate, bytes/s.
  local function final(r)
    local w = words("train", r.samples or 0, r.samples or 0)
    w.where = string.format("epoch %d/%d", #(r.epochs or {}), epochs)
    return w, r.samples or 0, r.samples_per_s, r.bw_bytes
  end
  return words, final
end

-- lb.meta's: "Meta: 8 threads: [create][45.0%][w=12.3MiB/s][12.3k ops/s][eta ...]".
local META_DIR = {create = "w", read = "r"}
local function meta_words(spec)
  local threads = tonumber(spec.threads) or 1
  local size = mean_size(spec.size, 4096)
  local head = "Meta: " .. plural(threads, "thread")
  local function words(phase)
    return {head = head, where = phase, item = "ops", dir = META_DIR[phase], bytes = size}
  end
  local function final(r)
    local n, t, bytes, names = 0, 0, 0, {}
    for name, o in pairs(r.ops or {}) do
      n, t, bytes = n + (o.count or 0), t + (o.time_s or 0), bytes + (o.bytes or 0)
      names[#names + 1] = name
    end
    if type(spec.ops) == "table" then names = spec.ops else table.sort(names) end
    local w = {head = head, where = table.concat(names, ","), item = "ops",
               dir = bytes > 0 and "rw" or nil, bytes = 0}
    return w, n, t > 0 and n / t or nil, t > 0 and bytes / t or nil
  end
  return words, final
end

--[[ progress.work_line(words, done, total, rate, eta [, bw]) -> text: the
line of lb.train and lb.meta; bw (bytes/s) defaults to the rate of items
times their mean size. ]]
function M.work_line(w, done, total, rate, eta, bw)
  local s = string.format("%s: [%s]", w.head, w.where)
  s = s .. (total > 0 and string.format("[%.1f%%]", math.min(1, done / total) * 100) or "[-.-%]")
  if rate then
    bw = bw or rate * w.bytes
    if w.dir then s = s .. string.format("[%s=%s]", w.dir, sig4(bw, 1024, BW_UNITS)) end
    s = s .. string.format("[%s %s/s]", sig4(rate, 1000, N_UNITS), w.item)
  end
  return s .. "[eta " .. (eta and eta_text(eta) or "--m:--s") .. "]"
end

-- fn (lb.train or lb.meta) drawing its line when one is wanted: the
-- spec's progress function gets the core's calls (done, total, phase)
-- first drawn, then passed on to the user's own progress, if any.
-- An error of fn raised inside this file names the line of the caller of
-- lb.train/lb.meta, as every other lb function's error does, not this file.
local HERE = debug.getinfo(1, "S").short_src
local function relocated(caller, ok, ...)
  if ok then return ... end
  local e = ...
  if type(e) == "string" and e:sub(1, #HERE + 1) == HERE .. ":" then
    local rest = e:match("^:%d+: (.*)$", #HERE + 1)
    if rest then
      e = (caller and caller.currentline > 0 and
           string.format("%s:%d: ", caller.short_src, caller.currentline) or "") .. rest
    end
  end
  error(e, 0)
end

local function with_line(fn, words_of)
  local drawn = function(spec, ...)
    local ok, secs = pcall(require("luabench.stop").seconds, lb.eta_newline)
    local E = M.busy == 0 and type(spec) == "table" and (lb.rank or 0) == 0 and
              M.fio_eta{mode = lb.eta, newline = lb.eta_newline and ok and secs or nil}
    local user = type(spec) == "table" and spec.progress
    if not E or (user ~= nil and type(user) ~= "function") then return fn(spec, ...) end
    local words, final = words_of(spec)
    local s = {}
    for k, v in pairs(spec) do s[k] = v end
    local t0 = lb.now()
    local phase, base_t, base_done, last_total
    s.progress = function(done, total, ph)
      local now = lb.now()
      if ph ~= phase then    -- a new phase: its rate from its own start
        phase, base_t, base_done = ph, base_t or t0, (base_done or 0) <= done and base_done or 0
      end
      local rate = now > base_t and (done - (base_done or 0)) / (now - base_t) or nil
      if rate and rate <= 0 then rate = nil end
      base_t, base_done, last_total = now, done, total
      E:draw(M.work_line(words(ph, done, total), done, total, rate,
                         rate and (total - done) / rate or nil), now - t0)
      if user then return user(done, total, ph) end
    end
    local _ <close> = setmetatable({}, {__close = function() E:finish() end})
    local r = fn(s, ...)
    if type(r) == "table" then       -- the whole run's line, also for one under a second
      local w, done, rate, bw = final(r)
      local total = r.stopped and (last_total or 0) or done
      E:draw(M.work_line(w, done, total, rate, not r.stopped and 0 or nil, bw), lb.now() - t0)
    end
    return r
  end
  return function(spec, ...)
    return relocated(debug.getinfo(2, "Sl"), pcall(drawn, spec, ...))
  end
end

--[[ progress.train(lb.train), progress.meta(lb.meta): the functions as
scripts see them: fio's rules for its status line (--eta, --eta-newline,
stdout a terminal, never with --quiet or inside a sweep's own line) and a
line of their own (see train_words, meta_words). ]]
function M.train(fn) return with_line(fn, train_words) end
function M.meta(fn) return with_line(fn, meta_words) end

--[[ progress.run(spec [, o]) -> result: lb.run with a progress line (o as
for progress.new; total_s defaults to the spec's runtime).  The line is
cleared even when the run raises. ]]
function M.run(spec, o)
  o = o or {}
  local line = M.new{label = o.label or spec.label or spec.name, total_s = o.total_s or M.expected_s(spec),
                     point = o.point, points = o.points, eta = o.eta, unit = o.unit,
                     enabled = o.enabled}
  local s = {}
  for k, v in pairs(spec) do s[k] = v end
  s.stop = M.wrap(require("luabench.stop").rule(spec.stop), line)
  M.busy = M.busy + 1
  local _ <close> = setmetatable({}, {__close = function()
    line:clear()
    M.busy = M.busy - 1
  end})
  line:update(nil)
  return lb.run(s)
end

return M
