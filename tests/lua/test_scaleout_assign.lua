-- Description: the independent-file mode of scripts/scaleout.lua deals
-- files to jobs by the storage guide's rule: numjobs <= files -> numjobs
-- jobs of one thread, job s getting files s, s+nj, s+2nj... (Python's
-- files[s::nj]); numjobs > files -> one job per file with numjobs // files
-- threads, the remainder left out.  The lb.run specs of both modes carry
-- it: one shared job over the colon list, one section per job.
local scaleout = require "luabench.scaleout"

local check = dofile("tests/lua/lib.lua").check

local function files(n)
  local out = {}
  for i = 0, n - 1 do out[#out + 1] = string.format("file%02d", i) end
  return out
end

-- Python's all_files[s::nj] for s in range(nj), written out independently.
local function slice(all, s, nj)
  local out = {}
  local i = s
  while i < #all do out[#out + 1] = all[i + 1]; i = i + nj end
  return out
end

local function same(a, b)
  if #a ~= #b then return false end
  for i = 1, #a do if a[i] ~= b[i] then return false end end
  return true
end

local all = files(20)

-- numjobs below the file count: 8 jobs, round-robin.
local jobs, dropped = scaleout.assign(all, 8)
check(#jobs == 8 and dropped == 0, "nj=8: %d jobs, %d dropped", #jobs, dropped)
check(same(jobs[1].files, {"file00", "file08", "file16"}), "nj=8: job 0 gets files 0,8,16, got %s",
      table.concat(jobs[1].files, ","))
check(same(jobs[5].files, {"file04", "file12"}), "nj=8: job 4 gets files 4,12")
check(same(jobs[8].files, {"file07", "file15"}), "nj=8: job 7 gets files 7,15")
local seen = {}
for s, j in ipairs(jobs) do
  check(j.numjobs == 1, "nj=8: one thread per job")
  check(same(j.files, slice(all, s - 1, 8)), "nj=8: job %d is files[%d::8]", s - 1, s - 1)
  for _, f in ipairs(j.files) do
    check(not seen[f], "nj=8: %s in two jobs", f)
    seen[f] = true
  end
end
for _, f in ipairs(all) do check(seen[f], "nj=8: %s in no job", f) end

-- Every numjobs up to the file count follows files[s::nj].
for nj = 1, 20 do
  local js = scaleout.assign(all, nj)
  check(#js == nj, "nj=%d: %d jobs", nj, #js)
  for s, j in ipairs(js) do
    check(j.numjobs == 1 and same(j.files, slice(all, s - 1, nj)), "nj=%d: job %d", nj, s - 1)
  end
end

-- numjobs equal to the file count: one file each.
jobs = scaleout.assign(all, 20)
for i, j in ipairs(jobs) do
  check(#j.files == 1 and j.files[1] == all[i] and j.numjobs == 1, "nj=20: job %d has file %d", i - 1, i - 1)
end

-- numjobs above: one job per file, numjobs // files threads each.
jobs, dropped = scaleout.assign(all, 40)
check(#jobs == 20 and dropped == 0, "nj=40: 20 jobs, got %d", #jobs)
for i, j in ipairs(jobs) do
  check(j.numjobs == 2 and #j.files == 1 and j.files[1] == all[i], "nj=40: job %d = file %d x 2", i - 1, i - 1)
end
jobs, dropped = scaleout.assign(all, 512)
check(#jobs == 20 and jobs[1].numjobs == 25 and dropped == 12, "nj=512: 20 jobs of 25, 12 left out")
jobs, dropped = scaleout.assign(all, 30)
check(#jobs == 20 and jobs[20].numjobs == 1 and dropped == 10, "nj=30: 20 jobs of 1, 10 left out")

check(not pcall(scaleout.assign, all, 0), "numjobs 0 is refused")
check(not pcall(scaleout.assign, {}, 4), "no files is refused")

-- The specs: shared = one job over all files; independent = the sections.
local o = {engine = "io_uring", direct = true, rw = "read", bs = "256k", runtime = "60s",
           files = {"/d/file00", "/d/file01", "/d/file02"}, readonly = true}
local sh = scaleout.shared_spec(o)
check(sh.iodepth == 1 and sh.filename == "/d/file00:/d/file01:/d/file02" and sh.time_based and
      sh.group_reporting and sh.jobs == nil, "shared spec")
local spec, threads, left = scaleout.independent_spec(o, 2)
check(spec.iodepth == 32 and #spec.jobs == 2 and threads == 2 and left == 0, "independent spec, nj=2")
check(spec.jobs[1].filename == "/d/file00:/d/file02" and spec.jobs[2].filename == "/d/file01" and
      spec.jobs[1].name == "section-0" and spec.jobs[1].numjobs == 1, "independent sections, nj=2")
spec, threads, left = scaleout.independent_spec(o, 7)
check(#spec.jobs == 3 and spec.jobs[1].numjobs == 2 and threads == 6 and left == 1, "independent, nj=7")

-- Units and efficiency: Gbps is bits / 1e9.
check(math.abs(scaleout.gbps(14 * 2 ^ 30) - 120.259) < 0.001, "14 GiB/s = 120.26 Gbps")
check(scaleout.topology(3, 3) == "3W/3C", "topology label")
check(math.abs(scaleout.efficiency(3 * 0.96e9, 3, 1e9) - 0.96) < 1e-9, "efficiency")
check(scaleout.efficiency(1e9, 3, 0) == nil, "no baseline bandwidth, no efficiency")
local md = scaleout.peak_table({{topology = "1W/1C", modes = {shared = {peak_bw_bytes = 14 * 2 ^ 30},
                                                              independent = {peak_bw_bytes = 2 ^ 30}}}})
check(md:find("| Topology | Shared-file peak (GiB/s / Gbps) | Independent-file peak (GiB/s / Gbps) |", 1, true) and
      md:find("| 1W/1C | 14.0 / 120.3 | 1.0 / 8.6 |", 1, true), "peak table: %s", md)
print("ok")
