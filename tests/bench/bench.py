#!/usr/bin/env python3
"""Side-by-side benchmarks: luabench and fio on the same workloads in one
run, printed as luabench/fio ratios.  Not a test: it asserts nothing.

  python3 tests/bench/bench.py [--luabench build/luabench] [--only NAME,...]
                               [--runtime 5] [--disk-dir /var/tmp]

Each case runs fio with --output-format=json and luabench with the same
options through `luabench fio ... --output-format=json`, so both sides parse
the same job description.  CPU per I/O is (usr+sys)/total_ios.
"""
import argparse, json, os, shutil, subprocess, sys, tempfile, time

def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    start = out.find("{")
    return json.loads(out[start:])

def job_stats(doc):
    ios = bw = cpu_s = rt = 0
    for j in doc["jobs"]:
        for d in ("read", "write"):
            ios += j[d]["total_ios"]
            bw += j[d]["bw_bytes"]
        rt = max(rt, j.get("job_runtime", 0) / 1000.0)
        cpu_s += (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * (j.get("job_runtime", 0) / 1000.0)
    iops = sum(j["read"]["iops"] + j["write"]["iops"] for j in doc["jobs"])
    return {"iops": iops, "bw": bw, "ios": ios, "cpu_ns_per_io": cpu_s * 1e9 / ios if ios else 0}

def case(name, opts, lb, results, fio_extra=()):
    fio_cmd = ["fio", "--output-format=json"] + opts + list(fio_extra)
    lb_cmd = [lb, "--quiet", "fio", "--output-format=json"] + opts
    f = job_stats(run_json(fio_cmd))
    l = job_stats(run_json(lb_cmd))
    ratio = l["iops"] / f["iops"] if f["iops"] else float("nan")
    cpu_ratio = (l["cpu_ns_per_io"] / f["cpu_ns_per_io"]) if f["cpu_ns_per_io"] else float("nan")
    results.append((name, f, l, ratio, cpu_ratio))
    print(f"{name:38s} fio {f['iops']:>12,.0f} IOPS {f['cpu_ns_per_io']:8.0f} ns CPU/IO | "
          f"luabench {l['iops']:>12,.0f} IOPS {l['cpu_ns_per_io']:8.0f} ns CPU/IO | "
          f"IOPS x{ratio:.2f}  CPU/IO x{cpu_ratio:.2f}", flush=True)

def startup(lb, n=20):
    def t(cmd):
        best = 1e9
        for _ in range(n):
            s = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            best = min(best, time.perf_counter() - s)
        return best
    job = ["--name=t", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=4k"]
    f = t(["fio", "--output-format=json"] + job)
    l = t([lb, "--quiet", "fio", "--output-format=json"] + job)
    print(f"{'start-up (null 4k job, best of %d)' % n:38s} fio {f*1e3:8.1f} ms | luabench {l*1e3:8.1f} ms | "
          f"x{f/l:.1f} faster", flush=True)

def sweep(lb, rt):
    points = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    job = ["--name=s", "--ioengine=null", "--rw=randread", "--bs=4k", "--size=4k"]
    s = time.perf_counter()
    for nj in points:
        subprocess.run(["fio", "--output-format=json", f"--numjobs={nj}"] + job, check=True,
                       capture_output=True)
    f = time.perf_counter() - s
    script = ("local sweep = require 'luabench.sweep'\n"
              "sweep.run{base={name='s', ioengine='null', rw='randread', bs='4k', size='4k'},"
              " vary={{'numjobs', {1,2,4,8,16,32,64,128,256,512}}}}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(script)
    s = time.perf_counter()
    subprocess.run([lb, "--quiet", fh.name], check=True, capture_output=True)
    l = time.perf_counter() - s
    os.unlink(fh.name)
    print(f"{'10-point numjobs sweep (1..512)':38s} fio {f*1e3:8.0f} ms | luabench {l*1e3:8.0f} ms | "
          f"per point {f/10*1e3:.1f} vs {l/10*1e3:.1f} ms", flush=True)

GENERATOR_SCRIPT = """
local r = lb.run{name = "g", ioengine = "null", bs = "4k", size = "1g", time_based = true,
  runtime = "%s", generator = function(ctx)
    local read, rand, n = ctx.read, ctx.rand, ctx.file_size(1) // 4096
    for _ = 1, ctx.batch do read((rand(n) - 1) * 4096, 4096) end
  end}
print(lb.json{jobs = {{read = r.read, write = r.write, usr_cpu = r.usr_cpu, sys_cpu = r.sys_cpu,
                       job_runtime = r.job_runtime}}})
"""

def generator(lb, rt):
    """4k random reads from a Lua generator (ctx.read per op) on the null
    engine against fio's own null engine doing 4k random reads."""
    f = job_stats(run_json(["fio", "--output-format=json", "--name=n", "--ioengine=null",
                            "--rw=randread", "--bs=4k", "--size=1g", f"--runtime={rt}",
                            "--time_based", "--clocksource=cpu"]))
    rts = rt if rt[-1].isalpha() else rt + "s"
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(GENERATOR_SCRIPT % rts)
    try:
        l = job_stats(run_json([lb, "--quiet", fh.name]))
    finally:
        os.unlink(fh.name)
    ratio = l["iops"] / f["iops"] if f["iops"] else float("nan")
    cpu_ratio = (l["cpu_ns_per_io"] / f["cpu_ns_per_io"]) if f["cpu_ns_per_io"] else float("nan")
    print(f"{'Lua generator 4k randread vs fio null':38s} fio {f['iops']:>12,.0f} IOPS "
          f"{f['cpu_ns_per_io']:8.0f} ns CPU/IO | luabench {l['iops']:>12,.0f} IOPS "
          f"{l['cpu_ns_per_io']:8.0f} ns CPU/IO | IOPS x{ratio:.2f}  CPU/IO x{cpu_ratio:.2f}",
          flush=True)

TRAIN_SCRIPT = r"""
local r = lb.train{dir = %r, files = 16, samples_per_file = 4096, sample_size = "4k",
                   file_format = "packed", batch_size = 64, read_threads = 1, epochs = 3,
                   shuffle = "sample", seed = 1, compute_time = "0s", prefetch = 8}
print(string.format("%%.0f %%.3f", r.samples_per_s, r.au))
"""

def train(lb, shm):
    """One reader thread of lb.train: 4 KiB samples, packed, shuffled."""
    d = os.path.join(shm, "train")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(TRAIN_SCRIPT % d)
    try:
        subprocess.run([lb, "--quiet", fh.name], check=True, capture_output=True)  # lays out
        out = subprocess.run([lb, "--quiet", fh.name], check=True, capture_output=True,
                             text=True).stdout.split()
    finally:
        os.unlink(fh.name)
    print(f"{'lb.train 1 reader, 4 KiB shuffled':38s} {float(out[0]):>12,.0f} samples/s "
          f"(target 200,000)", flush=True)

def smallfiles(lb, shm, rt, n=100000):
    """Random 4k reads over n small files in /dev/shm: fio with nrfiles and
    openfiles against lb.meta's read phase (open, read whole, close)."""
    d = os.path.join(shm, "small")
    os.makedirs(d)
    job = ["--name=sf", f"--directory={d}", f"--nrfiles={n}", "--filesize=4k",
           f"--size={4 * n}k", "--bs=4k", "--rw=randread", "--openfiles=64",
           "--file_service_type=random", f"--runtime={rt}", "--time_based"]
    s = time.perf_counter()
    subprocess.run(["fio", "--name=lay", f"--directory={d}", f"--nrfiles={n}", "--filesize=4k",
                    f"--size={4 * n}k", "--bs=4k", "--rw=write", "--openfiles=64",
                    "--filename_format=sf.0.$filenum"],
                   check=True, capture_output=True)
    lay = time.perf_counter() - s
    f = job_stats(run_json(["fio", "--output-format=json"] + job))
    script = ("local r = lb.meta{dir=%r, files=%d, size='4k', fanout=%d, threads=1, "
              "ops={'create','read','unlink'}}\n"
              "print(string.format('%%.0f %%.3f', r.ops.read.ops_per_s, r.ops.create.ops_per_s))\n"
              % (os.path.join(shm, "meta"), n, n))
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(script)
    try:
        out = subprocess.run([lb, "--quiet", fh.name], check=True, capture_output=True,
                             text=True).stdout.split()
    finally:
        os.unlink(fh.name)
    rd, cr = float(out[0]), float(out[1])
    print(f"{'%dk small files 4k random reads' % (n // 1000):38s} fio {f['iops']:>12,.0f} IOPS "
          f"(openfiles=64) | luabench lb.meta {rd:>12,.0f} open+read+close/s | x{rd / f['iops']:.2f}; "
          f"layout: fio {n / lay:,.0f} files/s, lb.meta create {cr:,.0f} files/s", flush=True)

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--luabench", default=os.path.join(os.path.dirname(__file__), "../../build/luabench"))
    ap.add_argument("--only", default="")
    ap.add_argument("--runtime", default="5")
    ap.add_argument("--disk-dir", default="/var/tmp")
    a = ap.parse_args()
    lb = os.path.abspath(a.luabench)
    if not shutil.which("fio"):
        sys.exit("fio is not installed (apt-get install fio)")
    only = set(x for x in a.only.split(",") if x)
    want = lambda n: not only or n in only
    rt = a.runtime
    res = []
    shm = tempfile.mkdtemp(dir="/dev/shm", prefix="lbbench.")
    disk = tempfile.mkdtemp(dir=a.disk_dir, prefix="lbbench.")
    try:
        print(f"# {time.strftime('%Y-%m-%d %H:%M')} on {os.uname().nodename}, {os.cpu_count()} CPUs, "
              f"fio {subprocess.run(['fio','--version'],capture_output=True,text=True).stdout.strip()}")
        if want("startup"):
            startup(lb)
        if want("null"):
            case("null 4k randread QD1", ["--name=n", "--ioengine=null", "--rw=randread", "--bs=4k",
                 "--size=1g", f"--runtime={rt}", "--time_based"], lb, res, ["--clocksource=cpu"])
        if want("randmap"):
            # one pass with the random map and a varying block size: every
            # byte once on both sides (fio's map rule), equal work
            case("null bsrange 4k-64k randread map 16G", ["--name=m", "--ioengine=null",
                 "--rw=randread", "--bsrange=4k-64k", "--filesize=16g"], lb, res,
                 ["--clocksource=cpu"])
        if want("null256"):
            case("null 4k randread 256 jobs", ["--name=n", "--ioengine=null", "--rw=randread", "--bs=4k",
                 "--size=1g", f"--runtime={rt}", "--time_based", "--numjobs=256", "--group_reporting"],
                 lb, res, ["--clocksource=cpu"])
        if want("psync"):
            f = os.path.join(shm, "f")
            subprocess.run(["fio", "--name=prep", "--rw=write", "--bs=1m", "--size=512m",
                            f"--filename={f}"], check=True, capture_output=True)
            case("psync 4k randread QD1 /dev/shm 512M", ["--name=p", "--ioengine=psync",
                 "--rw=randread", "--bs=4k", "--size=512m", f"--filename={f}", f"--runtime={rt}",
                 "--time_based"], lb, res)
            case("io_uring 4k randread QD32 /dev/shm 512M", ["--name=u", "--ioengine=io_uring",
                 "--rw=randread", "--bs=4k", "--iodepth=32", "--size=512m", f"--filename={f}",
                 f"--runtime={rt}", "--time_based"], lb, res)
        if want("uring"):
            f = os.path.join(disk, "f")
            subprocess.run(["fio", "--name=prep", "--rw=write", "--bs=1m", "--size=1g",
                            f"--filename={f}", "--direct=1"], check=True, capture_output=True)
            for qd in (32, 128):
                case(f"io_uring direct 4k randread QD{qd} disk", ["--name=u", "--ioengine=io_uring",
                     "--direct=1", "--rw=randread", "--bs=4k", f"--iodepth={qd}", "--size=1g",
                     f"--filename={f}", f"--runtime={rt}", "--time_based"], lb, res)
        if want("sweep"):
            sweep(lb, rt)
        if want("train"):
            train(lb, shm)
        if want("smallfiles"):
            smallfiles(lb, shm, rt)
        if want("generator"):
            generator(lb, rt)
    finally:
        shutil.rmtree(shm, ignore_errors=True)
        shutil.rmtree(disk, ignore_errors=True)

if __name__ == "__main__":
    main()
