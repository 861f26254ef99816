-- Description: runtime bounds the run for every clone, also with far more
-- clones than cores (a clone scheduled late must not run its own full
-- runtime after the others): 512 null clones with runtime=500ms report a
-- job runtime of 500 ms, not several seconds (under 2.5 s: a sanitized
-- build on a loaded machine starts 512 threads slowly).
-- lb-test: serial
local check = dofile("tests/lua/lib.lua").check
local r = lb.run{ioengine = "null", numjobs = 512, runtime = "500ms", time_based = true,
                 group_reporting = true}
check(r.read.total_ios > 0, "the clones ran")
check(r.job_runtime >= 500, "runtime honoured: " .. r.job_runtime)
check(r.job_runtime < 2500, "512 clones ended together: job_runtime " .. r.job_runtime .. " ms")
check(r.mem_bytes // 512 < 64 * 1024, "under 64 KiB per clone: " .. r.mem_bytes // 512)
print("ok")
