-- Description: luabench-lua(7) stays true to the API: every function the
-- page (cmake/lua_api.lua) names exists with that name, every field it
-- names is there, and every function and field that lb, the histograms
-- and the library's modules export is on the page or listed among the
-- shared helpers.
local T = dofile("tests/lua/lib.lua")
local check = T.check

local api = dofile("cmake/lua_api.lua")

-- The name an entry documents: "report.csv(x [, opts])" -> "csv",
-- "lb.train{dir=...}" -> "train", "h:percentile(p)" -> "percentile".
local function name_of(sig, var)
  local n = sig:match("^" .. var:gsub("%p", "%%%0") .. "[.:]([%w_]+)")
  check(n, "entry '%s' does not start with %s. or %s:", sig, var, var)
  return n
end

local seen_modules, problems = {}, {}
local function problem(fmt, ...) problems[#problems + 1] = string.format(fmt, ...) end

for _, sec in ipairs(api.sections) do
  local t
  if sec.hist then t = getmetatable(lb.hist()).__index
  elseif sec.module then t = require(sec.module); seen_modules[sec.module] = true
  else t = lb end
  check(type(t) == "table", "section %s: no table", sec.title)
  local documented = {}
  for _, it in ipairs(sec.items) do
    check(type(it[2]) == "string" and #it[2] > 5, "entry %s has no description", it[1])
    local n = name_of(it[1], sec.var)
    if type(t[n]) ~= "function" then problem("%s is on the page but %s.%s is %s", it[1], sec.var, n, type(t[n])) end
    documented[n] = true
  end
  for _, f in ipairs(sec.fields or {}) do
    local n = name_of(f[1], sec.var)
    if t[n] == nil then problem("%s is on the page but not in the API", f[1]) end
    if type(t[n]) == "function" then problem("%s is a function: list it with its arguments", f[1]) end
    documented[n] = true
  end
  for _, n in ipairs(api.internal[sec.module or ""] or {}) do
    if t[n] == nil then problem("%s.%s is listed as a helper but does not exist", sec.var, n) end
    documented[n] = true
  end
  for k in pairs(t) do
    if type(k) == "string" and not k:match("^_") and not documented[k] and
       not (sec.var == "lb" and k == "eta_newline") then
      problem("%s.%s (%s) is not on luabench-lua(7)", sec.var, k, type(t[k]))
    end
  end
end

-- every module of the library is on the page or one of the scripts' own
local mods = {}
for _, m in ipairs(api.script_modules) do seen_modules[m] = true end
local p = assert(io.popen("cd stdlib && ls luabench/*.lua luabench/*/init.lua"))
for path in p:lines() do
  local m = path:gsub("/init%.lua$", ""):gsub("%.lua$", ""):gsub("/", ".")
  if not m:match("^luabench%.fio_") then mods[#mods + 1] = m end   -- the old names of luabench.fio.*
end
p:close()
check(#mods > 10, "library modules: %d", #mods)
for _, m in ipairs(mods) do
  if not seen_modules[m] then problem("module %s has no section in luabench-lua(7)", m) end
end
check(#problems == 0, "luabench-lua(7) and the API differ:\n  %s", table.concat(problems, "\n  "))
