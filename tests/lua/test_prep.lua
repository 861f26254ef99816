-- Description: prep lays out files of exactly the asked size through the
-- core, reuses them on a second call (mtime unchanged), builds the colon
-- list and trees, and refuses to overwrite a file it did not create.
local prep = require "luabench.prep"

local T = dofile("tests/lua/lib.lua")
local check = T.check

local dir, _ <close> = T.tmpdir("prep")

local function stat(path)
  local st = lb.stat(path)
  check(st, "%s is missing", path)
  return st
end

-- a set of files: exact sizes, names, colon list
local fs = prep.files{dir = dir .. "/set", count = 3, size = "64k"}
check(#fs.paths == 3 and fs.count == 3 and fs.size == 65536 and fs.created == 3 and fs.reused == 0,
      "first layout: %d paths, created %d", #fs.paths, fs.created)
check(fs.paths[1] == dir .. "/set/file00" and fs.paths[3] == dir .. "/set/file02", "names: %s", fs.paths[1])
check(fs.colon == table.concat(fs.paths, ":") and fs.dir == dir .. "/set", "colon: %s", fs.colon)
local mtime = {}
for i, path in ipairs(fs.paths) do
  local st = stat(path)
  check(st.type == "file" and st.size == 65536, "%s has %d bytes", path, st.size)
  mtime[i] = st.mtime
end

-- the second call reuses them untouched
local again = prep.files{dir = dir .. "/set", count = 3, size = "64k"}
check(again.created == 0 and again.reused == 3, "second layout created %d", again.created)
for i, path in ipairs(again.paths) do
  check(stat(path).mtime == mtime[i], "%s was rewritten", path)
end

-- one file in a directory that does not exist yet, a size that is not a
-- multiple of 1M, and an empty file
local one = prep.file{path = dir .. "/a/b/one", size = "1536k"}
check(stat(one.paths[1]).size == 1536 * 1024 and one.colon == dir .. "/a/b/one", "prep.file")
local zero = prep.file{path = dir .. "/zero", size = 0}
check(stat(zero.paths[1]).size == 0 and zero.created == 1, "empty file")

-- a tree: 20 files, at most 4 entries per directory
local tree = prep.tree{dir = dir .. "/tree", files = 20, size = "4k", fanout = 4}
check(#tree.paths == 20 and tree.paths[8] == dir .. "/tree/d0/d1/f07", "tree path %s", tree.paths[8])
local per_dir = {}
for _, path in ipairs(tree.paths) do
  check(stat(path).size == 4096, "%s size", path)
  local d = path:match("^(.*)/")
  per_dir[d] = (per_dir[d] or 0) + 1
  check(per_dir[d] <= 4, "more than 4 files in %s", d)
end

-- a file of ours with the wrong size is laid out again
local f = assert(io.open(fs.paths[2], "r+b"))
f:write("x")
f:close()
os.execute("truncate -s 100 '" .. fs.paths[2] .. "'")
local fixed = prep.files{dir = dir .. "/set", count = 3, size = "64k"}
check(fixed.created == 1 and stat(fs.paths[2]).size == 65536, "resized file: created %d", fixed.created)

-- a file we did not create is not overwritten (unless --allow-overwrite)
if not lb.allow_overwrite then
  local foreign = dir .. "/foreign"
  f = assert(io.open(foreign, "wb"))
  f:write("not ours")
  f:close()
  local ok, err = pcall(prep.file, {path = foreign, size = "64k"})
  check(not ok, "a foreign file was overwritten")
  f = assert(io.open(foreign, "rb"))
  check(f:read("a") == "not ours", "the foreign file changed (%s)", tostring(err))
  f:close()
end

-- size parsing, the colon list, and bad input
check(prep.colon{"a:b", "c"} == "a\\:b:c", "colon escape")
check(prep.bytes("4k") == 4096 and prep.bytes("5G") == 5 << 30 and prep.bytes("1MiB") == 1 << 20 and
      prep.bytes(512) == 512, "prep.bytes")
local ok, err = pcall(prep.files, {dir = dir, size = "lots"})
check(not ok and err:find("bad size 'lots'"), "bad size: %s", tostring(err))
ok, err = pcall(prep.file, {size = "4k"})
check(not ok and err:find("'path' is required"), "missing path: %s", tostring(err))
