#!/usr/bin/env python3
"""lb.train's CPU per sample against a bare pread loop doing the same work:
the same raw files (one sample a file) in /dev/shm, the same open / pread /
close per sample, the same number of threads reading, the same samples.
Not a test: it asserts nothing and prints the figures.

  python3 tests/bench/train_cpu.py [--luabench build/luabench] [--dir /dev/shm/lb-train-cpu]
      [--rounds 5] [--threads 2] [--only 4k,110k,4m,4k-b256] [--strace] [--keep]

CPU is user + system time of the whole process (os.wait4 of the command,
every thread).  Each side's start-up (luabench's Lua state, the glob and a
stat per file; the loop's list) is measured by a run of about no sample
(lb.train: one step of one epoch; the loop: 0 epochs) in the same round and
taken off, so the figure is the marginal CPU per sample:
(cpu(N samples) - cpu(start-up)) / (N - samples of the start-up run).
Each round runs every workload, lb.train and the loop back to back (which
of them first alternates by round); each round prints its ratios and the
table the medians.  lb.train runs one accelerator,
compute_time 0, no shuffle, prefetch 16 (DLIO's prefetch_size: 8 batches
ahead for each of 2 readers, so that they seldom wait for the other's batch
to be taken in order, which the loop does not do); its reader threads are --threads,
and the loop runs as many threads.  --strace prints, per side, the open,
pread and close calls per sample of a small run under strace -f -c.
"""
import argparse, glob, os, shutil, statistics, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name: (sample bytes, files, batch size, epochs)
WORKLOADS = {
    "4k": (4096, 8192, 32, 16),
    "110k": (110 * 1024, 2048, 32, 24),
    "4m": (4 << 20, 64, 4, 40),
    "4k-b256": (4096, 8192, 256, 16),   # 4k with a batch's cost over 8x the samples
}


def run_tree(cmd):
    """Runs cmd; returns (stdout, wall s, CPU s of the process); notes the
    last run's user, system and context switches in LAST."""
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = p.stdout.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.stderr.write(out[-3000:])
        raise RuntimeError(f"{' '.join(cmd[:3])} ... exited {os.waitstatus_to_exitcode(status)}")
    LAST.update(usr=ru.ru_utime, sys=ru.ru_stime, csw=ru.ru_nvcsw + ru.ru_nivcsw)
    return out, wall, ru.ru_utime + ru.ru_stime


LAST = {}


def lb_cmd(lb, data, w, threads, epochs, steps=0):
    size, files, batch, _ = w
    cmd = [lb, "-q", os.path.join(HERE, "dlio_train.lua"), f"dir={data}/img_*.dat",
           "format=raw", f"files={files}", "samples_per_file=1", f"batch_size={batch}",
           f"read_threads={threads}", "compute_time=0", f"epochs={epochs}",
           "accelerators=1", "prefetch=16"]
    return cmd + ([f"total_training_steps={steps}"] if steps else [])


def bare_cmd(loop, listfile, w, threads, epochs):
    size = w[0]
    return [loop, listfile, "1", str(threads), str(epochs), str(size), "0", str(size)]


def run_lb(lb, data, w, threads, epochs, steps=0):
    out, wall, cpu = run_tree(lb_cmd(lb, data, w, threads, epochs, steps))
    v = dict(l.split("=", 1) for l in out.split() if "=" in l)
    return int(float(v["samples"])), wall, cpu


def run_bare(loop, listfile, w, threads, epochs):
    out, wall, cpu = run_tree(bare_cmd(loop, listfile, w, threads, epochs))
    return int(out.split()[0].split("=")[1]), wall, cpu


def lay_out(lb, data, w):
    size, files, _, _ = w
    if len(glob.glob(f"{data}/img_*.dat")) == files and \
            all(os.path.getsize(p) == size for p in glob.glob(f"{data}/img_*.dat")):
        return
    shutil.rmtree(data, ignore_errors=True)
    os.makedirs(data)
    script = (f"lb.train{{dir='{data}', files={files}, samples_per_file=1, sample_size={size},"
              f" batch_size=1, read_threads=2, compute_time='0s', total_training_steps=1,"
              f" epochs=1}}\n")
    with tempfile.NamedTemporaryFile("w", suffix=".lua", delete=False) as fh:
        fh.write(script)
    try:
        run_tree([lb, "-q", fh.name])
    finally:
        os.unlink(fh.name)


def strace_counts(cmd, samples, size):
    """Under strace -f: the openat, pread64 and close calls per sample, the
    futex calls per sample, and how many threads made the preads of size
    bytes (lb.train's readers live across the epochs)."""
    with tempfile.NamedTemporaryFile("r", suffix=".strace") as fh:
        subprocess.run(["strace", "-f", "-o", fh.name, "-e", "trace=openat,pread64,close,futex"]
                       + cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        calls, readers = {}, {}
        for line in fh.read().splitlines():
            f = line.split(None, 1)
            if len(f) < 2 or not f[0].isdigit():
                continue
            name = f[1].split("(", 1)[0]
            if name in ("openat", "pread64", "close", "futex"):
                calls[name] = calls.get(name, 0) + 1
            if "pread64" in f[1] and f"., {size}, " in f[1]:  # whole or resumed
                readers[f[0]] = readers.get(f[0], 0) + 1
    out = {k: round(v / samples, 3) for k, v in sorted(calls.items())}
    out["threads reading"] = len(readers)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--luabench", default=os.path.join(ROOT, "build", "luabench"))
    ap.add_argument("--dir", default="/dev/shm/lb-train-cpu")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--only", default="4k,110k,4m")
    ap.add_argument("--strace", action="store_true")
    ap.add_argument("--keep", action="store_true")
    a = ap.parse_args()
    loop = os.path.join(tempfile.gettempdir(), f"pread_loop-{os.getpid()}")
    subprocess.run(["cc", "-O2", "-pthread", "-o", loop, os.path.join(HERE, "pread_loop.c")],
                   check=True)
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load {os.getloadavg()}")
    names = a.only.split(",")
    sets = {}
    for name in names:                  # lay out, warm, trace
        w = WORKLOADS[name]
        size, files = w[0], w[1]
        data = os.path.join(a.dir, name.split("-")[0])
        lay_out(a.luabench, data, w)
        listfile = os.path.join(a.dir, f"{name.split('-')[0]}.list")
        with open(listfile, "w") as fh:
            fh.write("\n".join(sorted(glob.glob(f"{data}/img_*.dat"))) + "\n")
        for p in sorted(glob.glob(f"{data}/img_*.dat")):  # the page cache warm
            with open(p, "rb") as fh:
                fh.read()
        sets[name] = (w, data, listfile)
        if a.strace:
            e = max(1, 1024 // files)           # ld.so's preads well under 1 %
            print(f"{name} strace lb  :", strace_counts(
                lb_cmd(a.luabench, data, w, a.threads, e), files * e, size))
            print(f"{name} strace bare:", strace_counts(
                bare_cmd(loop, listfile, w, a.threads, e), files * e, size))
    res = {name: ([], [], []) for name in names}    # lb, bare, ratio
    try:
        for rnd in range(a.rounds):     # each round runs every workload
            for name in names:
                w, data, listfile = sets[name]
                epochs = w[3]
                sides = [("lb", lambda: run_lb(a.luabench, data, w, a.threads, 1, steps=1),
                          lambda: run_lb(a.luabench, data, w, a.threads, epochs)),
                         ("bare", lambda: run_bare(loop, listfile, w, a.threads, 0),
                          lambda: run_bare(loop, listfile, w, a.threads, epochs))]
                got = {}
                for side, start, full in sides[::1 if rnd % 2 == 0 else -1]:  # either first
                    n0, _, c0 = start()
                    n1, wall, c1 = full()
                    got[side] = ((c1 - c0) / (n1 - n0) * 1e6, n1, wall, c0, c1, dict(LAST))
                (lbu, n1, wall1, c0, c1, lbl), (bu, m1, wall2, d0, d1, bl) = got["lb"], got["bare"]
                if n1 != m1:
                    raise RuntimeError(f"samples differ: lb {n1}, loop {m1}")
                for lst, v in zip(res[name], (lbu, bu, lbu / bu)):
                    lst.append(v)
                print(f"{name} round {rnd + 1}: lb {lbu:.2f} us/sample ({c1:.2f} s - {c0:.2f} s,"
                      f" {n1} samples, {wall1:.2f} s wall), bare {bu:.2f} us/sample ({d1:.2f} s -"
                      f" {d0:.2f} s, {wall2:.2f} s wall), lb/bare {lbu / bu:.3f}; usr+sys lb"
                      f" {lbl['usr']:.2f}+{lbl['sys']:.2f} bare {bl['usr']:.2f}+{bl['sys']:.2f},"
                      f" switches/sample lb {lbl['csw'] / n1:.3f} bare {bl['csw'] / m1:.3f},"
                      f" load {os.getloadavg()[0]:.1f}", flush=True)
        table = []
        for name in names if a.rounds else []:
            (size, files, batch, epochs), (lbs, bares, ratios) = WORKLOADS[name], res[name]
            table.append((name, size, files, batch, epochs, statistics.median(lbs),
                          statistics.median(bares), statistics.median(ratios),
                          min(ratios), max(ratios)))
    finally:
        os.unlink(loop)
        if not a.keep:
            shutil.rmtree(a.dir, ignore_errors=True)
    print(f"\n| workload | files x bytes | batch | samples | lb us/sample | bare us/sample"
          f" | lb/bare median | min-max |")
    print("|---|---|---:|---:|---:|---:|---:|---|")
    for name, size, files, batch, epochs, lbu, bu, r, lo, hi in table:
        print(f"| {name} | {files} x {size} | {batch} | {files * epochs} | {lbu:.2f} | {bu:.2f}"
              f" | {r:.3f} | {lo:.3f}-{hi:.3f} |")


if __name__ == "__main__":
    main()
