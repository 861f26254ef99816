-- Writes luabench(1) from `luabench --help` (the usage text and the option
-- table the parser uses) and `luabench compare --help`:
--   luabench cmake/manpage.lua bin=PATH out=FILE
local bin, out = assert(args.bin, "bin= is required"), assert(args.out, "out= is required")
local function run(cmd)
  local p = assert(io.popen(cmd))
  local s = p:read("a")
  p:close()
  return s
end
local function roff(s)
  s = s:gsub("\\", "\\e"):gsub("%-", "\\-")
  if s:sub(1, 1) == "." or s:sub(1, 1) == "'" then s = "\\&" .. s end
  return s
end
local help = run("'" .. bin .. "' --help")
local cmp = run("'" .. bin .. "' compare --help")
local version = run("'" .. bin .. "' --version"):match("^luabench (%S+)") or "?"
local o = {
  string.format('.TH LUABENCH 1 "%s" "luabench %s" "User Commands"', os.date("!%Y-%m-%d"), version),
  ".SH NAME", "luabench \\- storage benchmarks scripted in Lua, with fio's options and numbers",
  ".SH SYNOPSIS",
}
local lines = {}
for l in (help .. "\n"):gmatch("(.-)\n") do lines[#lines + 1] = l end
local i = 1
while lines[i] and lines[i]:match("^%s*usage:") or lines[i] and lines[i]:match("^%s+luabench") do
  o[#o + 1] = ".nf"
  o[#o + 1] = roff((lines[i]:gsub("^%s*usage:%s*", ""):gsub("^%s+", "")))
  o[#o + 1] = ".fi"
  i = i + 1
end
o[#o + 1] = ".SH DESCRIPTION"
local section
for j = i, #lines do
  local l = lines[j]
  local opt, text = l:match("^  (%-[^ ].-)%s%s+(.*)$")
  local wopt, wtype, wtext = l:match("^  ([%w_, ]-)%s%s+(%S+)%s%s+(.*)$")
  if l:match("^options:") then
    o[#o + 1] = ".SH OPTIONS"; section = "opts"
  elseif l:match("^exit status:") then
    o[#o + 1] = ".SH EXIT STATUS"; o[#o + 1] = roff(l:gsub("^exit status:%s*", ""))
  elseif l:match("^workload options") then
    o[#o + 1] = ".SH WORKLOAD OPTIONS"; o[#o + 1] = roff(l); section = "work"
  elseif section == "opts" and opt then
    o[#o + 1] = ".TP"; o[#o + 1] = "\\fB" .. roff(opt) .. "\\fR"; o[#o + 1] = roff(text)
  elseif section == "work" and wopt and not l:match("^    ") then
    o[#o + 1] = ".TP"
    o[#o + 1] = "\\fB" .. roff(wopt) .. "\\fR \\fI" .. roff(wtype) .. "\\fR"
    o[#o + 1] = roff(wtext)
  elseif section == "work" and l:match("^%S.*:$") then
    o[#o + 1] = ".SS " .. roff(l:sub(1, -2))
  elseif l:match("^%s*$") then
    o[#o + 1] = ".PP"
  else
    o[#o + 1] = roff((l:gsub("^%s+", "")))
  end
end
o[#o + 1] = ".SH LUABENCH COMPARE"
o[#o + 1] = ".nf"
for l in cmp:gmatch("[^\n]*") do o[#o + 1] = roff(l) end
o[#o + 1] = ".fi"
o[#o + 1] = ".SH FILES"
o[#o + 1] = "The Lua library (\\fBluabench.sweep\\fR, \\fBluabench.report\\fR, \\fBluabench.compare\\fR, ...) " ..
            "and the ready scripts are installed under \\fIshare/luabench/\\fR; README.md describes their API."
o[#o + 1] = ".SH SEE ALSO"
o[#o + 1] = "\\fBluabench-lua\\fR(7), \\fBfio\\fR(1)"
local f = assert(io.open(out, "w"))
f:write(table.concat(o, "\n"), "\n")
f:close()
