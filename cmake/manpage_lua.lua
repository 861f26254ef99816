-- Writes luabench-lua(7), the Lua API, from cmake/lua_api.lua (which
-- tests/lua/test_lua_api.lua holds to the API itself):
--   luabench cmake/manpage_lua.lua api=cmake/lua_api.lua out=FILE
local api_path, out = assert(args.api, "api= is required"), assert(args.out, "out= is required")
local api = dofile(api_path)
local function roff(s)
  s = s:gsub("\\", "\\e"):gsub("%-", "\\-")
  if s:sub(1, 1) == "." or s:sub(1, 1) == "'" then s = "\\&" .. s end
  return s
end
local o = {
  string.format('.TH LUABENCH-LUA 7 "%s" "luabench %s" "luabench"', os.date("!%Y-%m-%d"), lb.version),
  ".SH NAME", "luabench-lua \\- the Lua API of luabench scripts",
  ".SH SYNOPSIS", ".nf",
  roff("luabench SCRIPT.lua [key=value ...]"), "", roff('local report = require "luabench.report"'),
  roff('local r = lb.run{rw = "randread", bs = "4k", size = "1g", ioengine = "io_uring",'),
  roff('                 iodepth = 32, direct = 1, runtime = "30s", time_based = true}'),
  roff("lb.report(r)"),
  roff('report.write("lat.svg", report.timeline(r))'),
  ".fi", ".SH DESCRIPTION",
}
for i, p in ipairs(api.intro) do
  if i > 1 then o[#o + 1] = ".PP" end
  o[#o + 1] = roff(p)
end
for _, sec in ipairs(api.sections) do
  o[#o + 1] = ".SH " .. roff(sec.title)
  if sec.module then
    o[#o + 1] = roff(string.format('local %s = require "%s"', sec.var, sec.module))
    o[#o + 1] = ".PP"
  end
  for _, p in ipairs(sec.text or {}) do
    o[#o + 1] = roff(p)
    o[#o + 1] = ".PP"
  end
  for _, it in ipairs(sec.items) do
    o[#o + 1] = ".TP"
    o[#o + 1] = "\\fB" .. roff(it[1]) .. "\\fR"
    o[#o + 1] = roff(it[2])
  end
  for _, f in ipairs(sec.fields or {}) do
    o[#o + 1] = ".TP"
    o[#o + 1] = "\\fB" .. roff(f[1]) .. "\\fR"
    o[#o + 1] = roff(f[2])
  end
end
o[#o + 1] = ".SH OTHER MODULES"
local names = {}
for _, m in ipairs(api.script_modules) do names[#names + 1] = "\\fB" .. roff(m) .. "\\fR" end
o[#o + 1] = table.concat(names, ", ") .. roff(" hold the rules of the ready scripts that use them " ..
            "(scripts/scaleout.lua, scripts/mlperf.lua). Functions of the modules above that this page " ..
            "does not name are helpers the library shares, not a stable interface.")
o[#o + 1] = ".SH FILES"
o[#o + 1] = roff("The library is installed under share/luabench/stdlib (lb.stdlib names the one in use; " ..
                 "LUABENCH_STDLIB overrides it), the ready scripts under share/luabench/scripts.")
o[#o + 1] = ".SH SEE ALSO"
o[#o + 1] = "\\fBluabench\\fR(1), \\fBfio\\fR(1)"
local f = assert(io.open(out, "w"))
f:write(table.concat(o, "\n"), "\n")
f:close()
