-- The old name of luabench.fio.run, kept for one release.
return require "luabench.fio.run"
