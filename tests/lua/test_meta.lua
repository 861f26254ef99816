-- Description: lb.meta runs mdtest-like phases over a tree of small files:
-- one operation per file in each phase, per-op rates, fio-style latency
-- objects and histograms; unlink leaves a file luabench did not create;
-- bad fields raise one line naming the field.
local T = dofile("tests/lua/lib.lua")
local check = T.check
check(lb.train and lb.meta, "lb.train/lb.meta missing: luaopen_luabench must call lb_train_open")

local dir = T.tmpdir("meta")
local ok, err = pcall(function()
  local r = lb.meta{dir = dir, files = 120, size = "1k", fanout = 50, threads = 2,
                    ops = {"create", "stat", "read", "readdir"}, seed = 3, openfiles = 4}
  check(r.files == 120 and r.dirs == 3, "files/dirs " .. r.files .. "/" .. r.dirs)
  for _, op in ipairs{"create", "stat", "read"} do
    local o = r.ops[op]
    check(o and o.count == 120, op .. " count " .. tostring(o and o.count))
    check(o.ops_per_s > 0, op .. " ops_per_s")
    check(o.lat_ns.N == 120 and o.lat_ns.percentile[99] >= o.lat_ns.percentile[50], op .. " lat_ns")
    check(o.hist:count() == 120, op .. " hist")
  end
  check(r.ops.readdir.count == 3, "readdir count")
  check(r.ops.create.bytes == 120 * 1024 and r.ops.read.bytes == 120 * 1024, "bytes")
  check(r.ops.unlink == nil, "only the ops that ran")
  check(type(r.cpu.usr_s) == "number", "cpu")

  -- a foreign file in the tree survives unlink
  local foreign = dir .. "/d0001/f0000060"
  os.remove(foreign)
  local f = io.open(foreign, "w"); f:write("not ours"); f:close()
  local r2 = lb.meta{dir = dir, files = 120, fanout = 50, threads = 3, ops = {"unlink"}}
  check(r2.ops.unlink.count == 119 and r2.ops.unlink.skipped == 1,
        "unlink " .. r2.ops.unlink.count .. " skipped " .. r2.ops.unlink.skipped)
  check(io.open(foreign) ~= nil, "foreign file deleted")
  check(io.open(dir .. "/d0000/f0000000") == nil, "file left behind")
  os.remove(foreign)

  local function bad(t, needle)
    t.dir = t.dir or dir
    local ok2, e = pcall(lb.meta, t)
    check(not ok2, "accepted: " .. needle)
    check(tostring(e):find(needle, 1, true), "message '" .. tostring(e) .. "' lacks " .. needle)
  end
  bad({files = 0}, "lb.meta: field 'files' must be a positive integer")
  bad({files = 10, ops = {"create", "chmod"}}, "unknown operation 'chmod'")
  bad({files = 10, ops = {}}, "field 'ops'")
  bad({files = 10, fanout = 0}, "field 'fanout'")
  bad({files = 10, size = "big"}, "field 'size'")
  bad({files = 10, thread = 2}, "unknown field 'thread'")
  bad({files = 10, progress = 1}, "field 'progress'")
end)
os.execute("rm -rf '" .. dir .. "'")
if not ok then error(err, 0) end
print("ok")
