-- Shards read with Zipf popularity: a custom operation generator in Lua.
--
--   luabench examples/zipf_shards.lua [engine=null] [dir=/var/tmp] [size=1g]
--            [shards=64] [theta=1.1] [bs=128k] [numjobs=1] [runtime=5s]
--
-- The job's space (one file under dir, or the null engine's offsets) is
-- cut into equal shards.  Each worker picks a shard with Zipf popularity
-- (the shard of rank k with weight 1/k^theta), reads it whole, bs at a
-- time, and picks again: a data loader that revisits a few hot shards far
-- more often than the cold ones.  The generator keeps its state across
-- calls in ctx: the popularity table built once in init, the shard being
-- read and the position in it, which often carry over from one batch to
-- the next.
--
-- A generator runs in a Lua state of its worker thread: it sees its own
-- globals and ctx, not the locals of this script, so everything it needs
-- comes in through generator_args (copied by value).
local report = require "luabench.report"

local engine = args.engine or "null"
local dir = args.dir or "/var/tmp"
local shards, theta = tonumber(args.shards or 64), tonumber(args.theta or 1.1)

local zipf = {
  init = function(ctx)
    local a = ctx.args
    local n = a.shards
    ctx.shard_len = ctx.file_size(1) // n // ctx.bs * ctx.bs
    assert(ctx.shard_len > 0, "the file is too small for this many shards of bs bytes")
    -- cumulative popularity of the ranks
    local cdf, sum = {}, 0.0
    for k = 1, n do
      sum = sum + 1 / k ^ a.theta
      cdf[k] = sum
    end
    for k = 1, n do cdf[k] = cdf[k] / sum end
    -- which shard has which rank: a shuffle from a seed every worker shares
    -- (ctx.rand differs per worker), so all agree on the hot shards
    local order, x = {}, a.layout_seed
    for i = 1, n do order[i] = i - 1 end
    for i = n, 2, -1 do
      x = (x * 6364136223846793005 + 1442695040888963407)
      local j = (x >> 33) % i + 1
      order[i], order[j] = order[j], order[i]
    end
    ctx.cdf, ctx.order, ctx.pos = cdf, order, ctx.shard_len
  end,

  next = function(ctx)
    local read, rand = ctx.read, ctx.rand
    local cdf, order, len, bs = ctx.cdf, ctx.order, ctx.shard_len, ctx.bs
    local shard, pos = ctx.shard, ctx.pos
    for _ = 1, ctx.batch do
      if pos == len then            -- this shard is done: pick the next one
        local u, lo, hi = rand(), 1, #cdf
        while lo < hi do
          local mid = (lo + hi) // 2
          if cdf[mid] < u then lo = mid + 1 else hi = mid end
        end
        shard, pos = order[lo], 0
      end
      read(shard * len + pos, bs)
      pos = pos + bs
    end
    ctx.shard, ctx.pos = shard, pos
    return true
  end,
}

local spec = {
  name = "zipf-shards", engine = engine, rw = "read", bs = args.bs or "128k",
  size = args.size or "1g", numjobs = tonumber(args.numjobs or 1), group_reporting = true,
  time_based = true, runtime = args.runtime or "5s",
  generator = zipf,
  generator_args = {shards = shards, theta = theta, layout_seed = 42},
}
local tmp
if engine ~= "null" then
  tmp = io.popen("mktemp -d " .. dir .. "/luabench-zipf.XXXXXX"):read("l")
  assert(tmp and tmp ~= "", "cannot make a temporary directory in " .. dir)
  spec.filename = tmp .. "/shards"
end
local _ <close> = setmetatable({}, {__close = function()
  if tmp then os.execute("rm -rf '" .. tmp .. "'") end
end})
local r = lb.run(spec)
lb.report(r)

-- what the popularity means: the share of reads the hottest shards get
local sum, w = 0.0, {}
for k = 1, shards do w[k] = 1 / k ^ theta; sum = sum + w[k] end
local top, top_n = 0.0, math.max(1, shards // 10)
for k = 1, top_n do top = top + w[k] / sum end
print(string.format("%d shards, theta %.2f: the hottest %d take %.0f%% of the reads; %s, %s",
                    shards, theta, top_n, top * 100, report.fmt_bw(report.metric(r, "bw")),
                    report.fmt_iops(report.metric(r, "iops"))))
