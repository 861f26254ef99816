-- The old name of luabench.fio.logs, kept for one release.
return require "luabench.fio.logs"
