-- The old name of luabench.fio.output, kept for one release.
return require "luabench.fio.output"
