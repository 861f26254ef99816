-- The old name of luabench.fio.parse, kept for one release.
return require "luabench.fio.parse"
