-- Description: a journal keeps a point whole: histograms come back exact
-- (count, min, max, mean, every percentile), the text form refuses what it
-- did not write, a point restores by its parameters, a changed defining
-- parameter is refused naming both values, and a journal is never
-- overwritten.
local journal = require "luabench.journal"
local T = dofile("tests/lua/lib.lua")
local check = T.check

local h = lb.hist()
for v = 1, 5000, 7 do h:record(v * 37, v % 5 + 1) end
h:record(0)
h:record(1 << 40)
local d = assert(lb.hist_decode(h:encode()))
check(d:count() == h:count() and d:min() == h:min() and d:max() == h:max() and d:mean() == h:mean(),
      "decoded histogram: count %d/%d min %d/%d max %d/%d", d:count(), h:count(), d:min(), h:min(),
      d:max(), h:max())
for _, p in ipairs({1, 50, 90, 99, 99.9, 99.99, 100}) do
  check(d:percentile(p) == h:percentile(p), "p%s: %d, expected %d", p, d:percentile(p), h:percentile(p))
end
check(d:encode() == h:encode(), "encode(decode(x)) == x")
check(lb.hist_decode(lb.hist():encode()):count() == 0, "an empty histogram")
for _, bad in ipairs({"", "zz", "1,0,0,0,0,0;zz:1", "2,1,1,1,0,0;1:1", "1,1,1,1,0,0;ffffff:1"}) do
  local x, msg = lb.hist_decode(bad)
  check(x == nil and msg == "not an encoded histogram", "'%s' decoded: %s", bad, tostring(msg))
end

local dir, _ <close> = T.tmpdir("journal")
local path = dir .. "/j.jsonl"
local J = journal.open{path = path, define = {runtime = "1s", bs = {"4k", "1M"}}}
check(J.path == path, "journal path %s", J.path)
local res = {read = {bw_bytes = 1048576, iops = 256.5, clat_hist = h}, partial = false}
J:point("shared", {params = {numjobs = 4}, label = "numjobs=4", seq = 1, order = 1,
                   repeats = {res}, result = res, hooks = {{kind = "drop", residency = 0}}})
J:finish("shared", {})
local K = journal.open{resume = path, define = {runtime = "1s", bs = {"4k", "1M"}}}
check(K.held == 1, "points held: %d", K.held)
check(K:restore("shared", {numjobs = 8}) == nil and K:restore("independent", {numjobs = 4}) == nil,
      "restore of a point the journal lacks")
local r = K:restore("shared", {numjobs = 4})
check(r and r.result.read.bw_bytes == 1048576 and r.result.read.iops == 256.5 and
      r.result.read.clat_hist:percentile(99) == h:percentile(99) and r.hooks[1].kind == "drop",
      "restored point")
local ok, err = pcall(journal.open, {resume = path, define = {runtime = "2s", bs = {"4k", "1M"}}})
check(not ok and err:find("parameter 'runtime' was 1s in " .. path .. ", now 2s", 1, true),
      "changed parameter: %s", tostring(err))
ok, err = pcall(journal.open, {resume = path, define = {runtime = "1s"}})
check(not ok and err:find("parameter 'bs' was 4k,1M in " .. path .. ", now (not set)", 1, true),
      "dropped parameter: %s", tostring(err))
local L = journal.open{path = path, define = {}}
check(L.path ~= path and L.path:find("%.1%.jsonl$"), "a second journal beside: %s", L.path)
