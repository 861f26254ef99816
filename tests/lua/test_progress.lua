-- Description: fio's status line as fio writes it: jobs and letters, the
-- share done (of the runtime, else of the bytes), the interval's rates of
-- each direction in 4 significant figures, and the ETA as 00m:33s,
-- 01h:02m:03s or 1d:01h:01m:01s.
local progress = require "luabench.progress"
local check = dofile("tests/lua/lib.lua").check

for s, want in pairs({[33] = "00m:33s", [0] = "00m:00s", [3723] = "01h:02m:03s",
                      [90061] = "1d:01h:01m:01s"}) do
  check(progress.eta_text(s) == want, "eta %d: %s", s, progress.eta_text(s))
end
local function dir(ios, bw, iops) return {total_ios = ios, io_bytes = ios * 4096, bw_bytes = bw, iops = iops} end
local none = dir(0, 0, 0)
local iv = {elapsed_s = 27, interval = {read = dir(10, 1234 * 1048576, 9876), write = none, trim = none},
            total = {read = dir(100, 0, 0), write = none, trim = none}}
local line = progress.fio_line(iv, {jobs = 1, letters = "R(1)", total_s = 60})
check(line == "Jobs: 1 (f=1): [R(1)][45.0%][r=1234MiB/s][r=9876 IOPS][eta 00m:33s]", "line: %s", line)
iv.interval.write = dir(5, 12.34 * 1073741824, 316000)
line = progress.fio_line(iv, {jobs = 4, letters = "m(4)", total_bytes = 409600 * 4})
check(line == "Jobs: 4 (f=4): [m(4)][25.0%][r=1234MiB/s,w=12.3GiB/s][r=9876,w=316k IOPS][eta 01m:21s]",
      "mixed line: %s", line)
check(progress.letter("randread") == "r" and progress.letter("rw") == "M" and progress.letter(nil) == "R",
      "letters")
