-- The old name of luabench.fio.text, kept for one release.
return require "luabench.fio.text"
