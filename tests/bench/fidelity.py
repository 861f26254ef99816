#!/usr/bin/env python3
"""Fidelity benchmark: `luabench fio` against fio on identical command lines,
interleaved fio, luabench, fio, luabench... (fio against fio gives the
noise), on a file on the disk (direct and buffered), in /dev/shm and on a
FUSE mount (bindfs over a directory on the disk, mounted and unmounted
here).  Not a test: it asserts nothing and prints markdown tables.

  python3 tests/bench/fidelity.py [--quick] [--luabench build/luabench]
      [--targets disk,shm,fuse] [--modes direct,buffered]
      [--engines psync,libaio,io_uring] [--qd 1,8,32,128]
      [--patterns rand4k,seq128k,seq1m] [--runtime 5] [--pairs 2]
      [--disk-dir /var/tmp] [--size 1g] [--blktrace] [--blk] [--thread]
      [--out FILE.md]

Each case runs fio, luabench, fio, luabench, ... (--pairs pairs).  Per case
and tool (means over the pairs; "spread" is (max-min)/mean of the same
tool's runs; "lb/fio" is luabench's mean over fio's; "fio/fio" is the mean
of fio's second, fourth, ... runs over its first, third, ...: the ratio two
runs of the same tool give, the noise lb/fio is to be read against): IOPS, bandwidth, mean/p50/p99/p99.9 of clat and lat,
the in-flight count by Little's law (sum over directions of IOPS x mean
lat), the share of I/Os submitted at the job's depth (iodepth_level), CPU
per I/O (usr+sys of the job over its I/Os).  On the disk also the kernel's
counts for the device that holds the file (/sys/dev/block/M:m/stat, M:m the
file system's device: the partition's own counts where it is one, the same
file as /sys/class/block/PART/stat; requests and sectors) and the
bytes the kernel charged to the tool's processes (getrusage ru_inblock /
ru_oublock), against the tool's total_ios and io_bytes; other users of the
disk show in the device counts, not in the per-process ones.  --blktrace
adds the block layer's own request latency (insert to complete, from the
block tracepoints in tracefs) for the requests of the tool's processes;
keep runs short with it (the trace buffer holds a few hundred thousand
requests).  --blk adds the device's own request latency (block_rq_issue to
block_rq_complete, from bpftrace; each request charged to the process that
queued its bio) under each tool: mean, p50 and p99; where bpftrace is
missing or cannot attach the run says so and leaves that table out.

--thread puts thread=1 on both command lines: fio then runs its job as a
thread of its one process, in the session the suite started it in, as
luabench runs every clone (luabench accepts the option and changes
nothing); without it fio's job is a process that calls setsid().

CPU by thread: every thread of the tool's processes (and of the bindfs
daemon on FUSE) is sampled from /proc/PID/task/TID/schedstat over the
middle of each run: CPU per I/O of the tool's own threads, of its io-wq
workers (iou-wrk: the kernel threads that run io_uring requests that
cannot complete inline, every buffered tmpfs read among them), of the FUSE
daemon, their sum, and the share of time the busiest own thread sat
runnable waiting for a CPU.  The job thread's usr+sys (the JSON's usr_cpu
and sys_cpu, RUSAGE_THREAD in both tools) leaves the io-wq workers out.

Patterns: rand4k (randread 4k), seq128k (read 128k), seq1m (read 1m),
randrw4k (randrw 4k, the CERN job), randwrite4k, write128k.  psync runs at
QD1 only (iodepth means nothing to it).  --quick: disk direct, shm buffered
and FUSE direct, QD 1 and 32, rand4k and seq128k (FUSE: rand4k), 1 s runs,
two pairs (about 3 minutes); the whole matrix at 3 s and two pairs takes
about 40 minutes, the disk direct part (--targets disk --modes direct)
about 7.  Each tool runs in a session of its own (see run_tool).  The files are laid out by fio before the runs and the
FUSE mount and the files are removed at the end; --blktrace needs tracefs
(mounted here for the run when it is not).
"""
import argparse, json, os, re, shutil, struct, subprocess, sys, tempfile, time

PATTERNS = {
    "rand4k": ("randread", "4k"), "seq128k": ("read", "128k"), "seq1m": ("read", "1m"),
    "randrw4k": ("randrw", "4k"), "randwrite4k": ("randwrite", "4k"),
    "write128k": ("write", "128k"),
}
BUCKETS = (1, 2, 4, 8, 16, 32, 64)
TRACE = "/sys/kernel/tracing"


def split(s):
    return [x for x in s.split(",") if x]


def depth_key(qd):
    """fio's iodepth_level key for the bucket that holds qd."""
    k = max(b for b in BUCKETS if b <= qd)
    return ">=64" if k == 64 else str(k)


# ---- the kernel's counts ----

def dev_of(path):
    st = os.stat(path)
    return os.major(st.st_dev), os.minor(st.st_dev)


def dev_name(dev):
    """The kernel's name of a block device (vda, nvme0n1p2), or None."""
    path = "/sys/dev/block/%d:%d" % dev
    return os.path.basename(os.path.realpath(path)) if os.path.exists(path) else None


def dev_stat(dev):
    """reads, read sectors, writes, write sectors of a block device, or None."""
    try:
        with open("/sys/dev/block/%d:%d/stat" % dev) as fh:
            f = [int(x) for x in fh.read().split()]
    except OSError:
        return None
    return f[0], f[2], f[4], f[6]


class BlockTrace:
    """The block layer's request latency for chosen processes: block_rq_insert
    (its tgid names the submitter), block_rq_issue, block_rq_complete."""
    EVENTS = ("block_rq_insert", "block_rq_issue", "block_rq_complete")
    LINE = re.compile(r"^\s*(\S+)-\d+\s+\(\s*(\d+)\)\s+\[\d+\]\s+\S+\s+([\d.]+): (block_rq_\w+): "
                      r"\d+,\d+ (\S+) (?:\d+ )?\(\S*\) (\d+) \+ (\d+)")

    def __init__(self, dev):
        self.mounted = False
        if not os.path.isdir(os.path.join(TRACE, "events/block")):
            if subprocess.run(["mount", "-t", "tracefs", "nodev", TRACE]).returncode:
                raise OSError("tracefs cannot be mounted")
            self.mounted = True
        self.filter = "dev == %d" % ((dev[0] << 20) | dev[1])
        self.w("options/record-tgid", "1")
        self.w("buffer_size_kb", "65536")

    def w(self, name, val):
        with open(os.path.join(TRACE, name), "w") as fh:
            fh.write(val)

    def start(self):
        self.w("tracing_on", "0")
        self.w("trace", "")
        for e in self.EVENTS:
            self.w("events/block/%s/filter" % e, self.filter)
            self.w("events/block/%s/enable" % e, "1")
        self.w("tracing_on", "1")

    def stop(self, tgids):
        """Mean and p99 (us) of insert-to-complete of the requests tgids
        inserted, their number, and how many of them a kernel worker
        dispatched (the device queue was full or busy when they came)."""
        self.w("tracing_on", "0")
        ins, lat, deferred = {}, [], 0
        with open(os.path.join(TRACE, "trace")) as fh:
            for line in fh:
                m = self.LINE.match(line)
                if not m:
                    continue
                comm, tgid, t, ev, sector = (m.group(1), int(m.group(2)), float(m.group(3)),
                                             m.group(4), m.group(6))
                if ev == "block_rq_insert" and tgid in tgids:
                    ins[sector] = t
                elif ev == "block_rq_issue" and sector in ins and comm.startswith("kworker"):
                    deferred += 1
                elif ev == "block_rq_complete" and sector in ins:
                    lat.append(t - ins.pop(sector))
        for e in self.EVENTS:
            self.w("events/block/%s/enable" % e, "0")
        self.w("trace", "")
        if not lat:
            return None
        lat.sort()
        return {"n": len(lat), "mean": sum(lat) / len(lat) * 1e6,
                "p99": lat[int(0.99 * (len(lat) - 1))] * 1e6, "deferred": deferred}

    def close(self):
        for e in self.EVENTS:
            self.w("events/block/%s/filter" % e, "0")
        self.w("options/record-tgid", "0")
        self.w("buffer_size_kb", "1408")
        if self.mounted:
            subprocess.run(["umount", TRACE])


def descendants(pid, seen):
    """Adds pid's live descendants to seen (fio runs each job in a child)."""
    try:
        for task in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/children" % (pid, task)) as fh:
                for c in fh.read().split():
                    if int(c) not in seen:
                        seen.add(int(c))
                        descendants(int(c), seen)
    except OSError:
        pass


def buffer_segments(pids, length):
    """Physically contiguous runs (the segments a request needs) in the I/O
    buffers of pids: the populated anonymous mapping of about length bytes
    (depth x bs), cut into bs pieces from its first page on; the total over
    the pieces, or None when no such mapping is found."""
    best = None
    for pid in pids:
        try:
            with open("/proc/%d/maps" % pid) as fh:
                maps = fh.read().splitlines()
            pm = open("/proc/%d/pagemap" % pid, "rb")
        except OSError:
            continue
        with pm:
            for line in maps:
                f = line.split()
                a, b = (int(x, 16) for x in f[0].split("-"))
                if len(f) > 5 or "rw" not in f[1] or not length <= b - a <= length + (4 << 20):
                    continue
                pm.seek(a // 4096 * 8)
                raw = pm.read((b - a) // 4096 * 8)
                pfn = [e & ((1 << 55) - 1) if e >> 63 else None
                       for e in struct.unpack("%dQ" % (len(raw) // 8), raw)]
                segs = count_segments(pfn, length)
                if segs is not None and (best is None or segs < best):
                    best = segs
    return best


def count_segments(pfn, length):
    """Segments of the populated length-byte stretch of pfn that starts on
    one of its first pages (fio and glibc put the buffers one page in)."""
    n = length // 4096
    for off in range(0, min(len(pfn) - n, 512) + 1):
        run = pfn[off:off + n]
        if None not in run:
            return 1 + sum(1 for x, y in zip(run, run[1:]) if y != x + 1)
    return None


class BpfBlock:
    """The device's own request latency (block_rq_issue to block_rq_complete)
    of the requests of chosen processes, from bpftrace: block_bio_queue runs
    in the submitter's context and names its process even where a kernel
    worker issues the request later.  One bpftrace per run."""
    PROG = """
tracepoint:block:block_bio_queue /%(devs)s/ { @who[args->sector] = pid; }
tracepoint:block:block_rq_issue /%(rqdev)s/ { @t[args->sector] = nsecs; }
tracepoint:block:block_rq_complete /%(rqdev)s && @t[args->sector]/ {
  printf("L %%d %%d\\n", @who[args->sector], nsecs - @t[args->sector]);
  delete(@t[args->sector]); delete(@who[args->sector]);
}
END { clear(@t); clear(@who); }
"""

    def __init__(self, dev):
        whole = whole_disk(dev)
        enc = lambda d: (d[0] << 20) | d[1]
        self.prog = self.PROG % {
            "devs": " || ".join("args->dev == %d" % enc(d) for d in sorted({dev, whole})),
            "rqdev": "args->dev == %d" % enc(whole)}
        self.proc = None
        why = self.probe()
        if why:
            raise OSError(why)

    def probe(self):
        if not shutil.which("bpftrace"):
            return "bpftrace is not installed (apt-get install bpftrace)"
        self.start()
        time.sleep(0.2)
        lat = self.stop(set(), raw=True)
        return None if lat is not None else "bpftrace cannot attach to the block tracepoints: " + self.err

    def start(self):
        self.out = tempfile.TemporaryFile("w+")
        self.errf = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen(["bpftrace", "-e", self.prog], stdout=self.out, stderr=self.errf,
                                     text=True, start_new_session=True)
        t0 = time.time()
        while time.time() - t0 < 30 and self.proc.poll() is None:
            self.out.seek(0)
            if "Attaching" in self.out.read():
                return
            time.sleep(0.1)

    def stop(self, tgids, raw=False):
        """mean, p50 and p99 (us) and the count of the requests of tgids."""
        self.proc.send_signal(2)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.out.seek(0)
        text = self.out.read()
        self.errf.seek(0)
        errs = [l for l in self.errf.read().splitlines() if "ERROR" in l and "MEMLOCK" not in l]
        self.err = errs[0].strip() if errs else "exit %d" % self.proc.returncode
        if "Attaching" not in text:
            return None
        lat = sorted(int(f[2]) for f in (l.split() for l in text.splitlines())
                     if len(f) == 3 and f[0] == "L" and int(f[1]) in tgids)
        if raw:
            return lat
        if not lat:
            return None
        q = lambda x: lat[min(len(lat) - 1, int(x * len(lat)))] / 1e3
        return {"n": len(lat), "mean": sum(lat) / len(lat) / 1e3, "p50": q(0.5), "p99": q(0.99)}

    def close(self):
        pass


def whole_disk(dev):
    """The disk that holds a partition (its own number for a whole disk)."""
    path = "/sys/dev/block/%d:%d" % dev
    if os.path.exists(os.path.join(path, "partition")):
        with open(os.path.join(path, "..", "dev")) as fh:
            return tuple(int(x) for x in fh.read().split(":"))
    return dev


# ---- the tools' threads ----

def thread_times(pids):
    """{tid: (name, run ns, runqueue wait ns)} of every thread of pids, from
    /proc/PID/task/TID/schedstat."""
    out = {}
    for pid in pids:
        try:
            tasks = os.listdir("/proc/%d/task" % pid)
        except OSError:
            continue
        for t in tasks:
            try:
                with open("/proc/%d/task/%s/comm" % (pid, t)) as fh:
                    name = fh.read().strip()
                with open("/proc/%d/task/%s/schedstat" % (pid, t)) as fh:
                    run, wait = (int(x) for x in fh.read().split()[:2])
            except (OSError, ValueError):
                continue
            out[int(t)] = (name, run, wait)
    return out


def thread_share(first, last, daemon):
    """CPU (s per s) of the tool's own threads, of its io-wq workers (iou-wrk,
    the kernel threads that do io_uring's work the submitter could not do
    inline) and of the FUSE daemon's threads, each thread from the first to
    the last sample that saw it; the runqueue wait (s per s) of the busiest
    own thread, and how many io-wq workers ran."""
    s = {"own": 0.0, "iowq": 0.0, "daemon": 0.0, "wait": 0.0, "nwq": 0}
    busiest = 0
    for tid, (t1, name, run1, wait1) in last.items():
        t0, _, run0, wait0 = first[tid]
        if t1 - t0 < 0.2:
            continue
        run, wait = (run1 - run0) / (t1 - t0) / 1e9, (wait1 - wait0) / (t1 - t0) / 1e9
        if tid in daemon:
            s["daemon"] += run
        elif name.startswith("iou-wrk"):
            s["iowq"] += run
            s["nwq"] += run > 0.001
        else:
            s["own"] += run
            if run > busiest:
                busiest, s["wait"] = run, wait
    return s


# ---- one run ----

def run_tool(cmd, dev, btrace, buflen=0, runtime=0, daemon=None, bpf=None):
    """Runs cmd; its JSON report, the device's counts over the run, the bytes
    the kernel charged to it, the CPU of its threads (and of the FUSE daemon,
    pid daemon) over the middle of the run; with btrace also the block
    layer's latency of its requests and, when buflen is set, the segments of
    its buffers; with bpf the device's latency of its requests."""
    out, err = tempfile.TemporaryFile("w+"), tempfile.TemporaryFile("w+")
    if btrace:
        btrace.start()
    if bpf:
        bpf.start()
    d0 = dev_stat(dev) if dev else None
    # Each tool in a session of its own: fio's job processes call setsid(),
    # so under autogroup scheduling a fio job gets a CPU share of its own;
    # luabench's workers are threads of the process started here, which
    # would otherwise share this script's session (and whatever else runs
    # in it) on a loaded machine.
    p = subprocess.Popen(cmd, stdout=out, stderr=err, text=True, start_new_session=True)
    tgids, segs, t0 = {p.pid}, None, time.time()
    dpids = [daemon] if daemon else []
    first, last = {}, {}
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        descendants(p.pid, tgids)
        now = time.time()
        if buflen and segs is None and now - t0 > 0.4 * runtime + 0.3:
            segs = buffer_segments(sorted(tgids), buflen)
        if now - t0 > 0.15 * runtime + 0.2 and now - t0 < 0.9 * runtime + 0.2:
            for tid, v in thread_times(sorted(tgids) + dpids).items():
                first.setdefault(tid, (now,) + v)
                last[tid] = (now,) + v
        time.sleep(0.05)
    p.returncode = os.waitstatus_to_exitcode(status)
    d1 = dev_stat(dev) if dev else None
    blk = btrace.stop(tgids) if btrace else None
    dlat = bpf.stop(tgids) if bpf else None
    out.seek(0)
    err.seek(0)
    text = out.read()
    if p.returncode:
        raise RuntimeError("%s: exit %d: %s" % (cmd[0], p.returncode, err.read().strip()[-300:]))
    doc = json.loads(text[text.find("{"):])
    kern = [b - a for a, b in zip(d0, d1)] if d0 and d1 else None
    if blk:
        blk["segments"] = segs
    dtids = set(thread_times(dpids)) if dpids else set()
    thr = thread_share(first, last, dtids) if last else None
    return stats(doc, kern, ru, blk, thr, dlat)


def pct(lat, p):
    return lat.get("percentile", {}).get("%.6f" % p, 0)


def stats(doc, kern, ru, blk, thr, dlat):
    j = doc["jobs"][0]
    s = {"iops": 0, "bw": 0, "ios": 0, "bytes": 0, "inflight": 0.0}
    dirs = [j[d] for d in ("read", "write") if j[d]["total_ios"]]
    for d in dirs:
        s["iops"] += d["iops"]
        s["bw"] += d["bw_bytes"]
        s["ios"] += d["total_ios"]
        s["bytes"] += d["io_bytes"]
        s["inflight"] += d["iops"] * d["lat_ns"]["mean"] / 1e9
    main = max(dirs, key=lambda d: d["total_ios"])     # latency of the main direction
    for kind in ("clat", "lat"):
        l = main[kind + "_ns"]
        s[kind] = [l["mean"], pct(l, 50), pct(l, 99), pct(l, 99.9)]
    s["level"] = j["iodepth_level"]
    rt = j.get("job_runtime", 0) / 1000.0
    s["cpu_ns"] = (j["usr_cpu"] + j["sys_cpu"]) / 100.0 * rt * 1e9 / s["ios"] if s["ios"] else 0
    s["kern"] = kern
    s["proc_bytes"] = (ru.ru_inblock + ru.ru_oublock) * 512
    s["blk"] = blk
    s["dlat"] = dlat
    # CPU per I/O of each kind of thread: its CPU share over the sampled
    # middle of the run over the job's IOPS over the whole run
    s["thr"] = ({k: (v / s["iops"] * 1e9 if k in ("own", "iowq", "daemon") else v)
                 for k, v in thr.items()} if thr and s["iops"] else None)
    return s


# ---- cases ----

def mean(xs):
    return sum(xs) / len(xs) if xs else 0.0


def spread(xs):
    m = mean(xs)
    return (max(xs) - min(xs)) / m if m and len(xs) > 1 else 0.0


def halves(xs):
    """Mean of the second, fourth, ... runs over the first, third, ...: what
    two runs of one tool differ by; None with a single run."""
    a, b = xs[0::2], xs[1::2]
    return mean(b) / mean(a) if b and mean(a) else None


def ratio(x, y):
    return "%.3f" % (x / y) if x is not None and y else "-"


def cases(a):
    quick_modes = {"disk": ["direct"], "shm": ["buffered"], "fuse": ["direct"]}
    for target in a.targets:
        for mode in quick_modes[target] if a.quick else a.modes:
            for pat in a.patterns:
                if target == "fuse" and a.quick and pat != "rand4k":
                    continue
                for eng in a.engines:
                    for qd in a.qd:
                        if eng == "psync" and qd != 1:
                            continue
                        yield target, mode, pat, eng, qd


def run_case(a, lb, files, c, btrace, bpf=None, daemon=None):
    target, mode, pat, eng, qd = c
    rw, bs = PATTERNS[pat]
    f = files[target]
    opts = ["--name=fid", "--filename=" + f, "--size=" + a.size, "--ioengine=" + eng,
            "--iodepth=%d" % qd, "--rw=" + rw, "--bs=" + bs,
            "--direct=%d" % (mode == "direct"), "--runtime=%s" % a.runtime, "--time_based",
            "--lat_percentiles=1", "--output-format=json"] + (["--thread"] if a.thread else [])
    lbcmd = [lb, "--quiet"] + (["--allow-overwrite"] if "write" in rw or rw == "randrw" else [])
    dev = dev_of(f) if target == "disk" else None
    size = int(bs[:-1]) << (10 if bs[-1] == "k" else 20)
    buflen = qd * size if size >= 65536 else 0      # smaller buffers are one page
    bt = btrace if target == "disk" else None
    bp = bpf if target == "disk" else None
    dpid = daemon if target == "fuse" else None
    runs = {"fio": [], "luabench": []}
    for _ in range(a.pairs):
        for tool, cmd in (("fio", ["fio"]), ("luabench", lbcmd + ["fio"])):
            runs[tool].append(run_tool(cmd + opts, dev, bt, buflen, float(a.runtime), dpid, bp))
    return runs


def summary(runs, qd):
    out = {}
    for tool, rs in runs.items():
        s = {k: mean([r[k] for r in rs]) for k in ("iops", "bw", "inflight", "cpu_ns", "ios", "bytes",
                                                    "proc_bytes")}
        s["iops_spread"] = spread([r["iops"] for r in rs])
        s["halves"] = {k: halves([r[k] if k != "p99" else r["lat"][2] for r in rs])
                       for k in ("iops", "p99")}
        for kind in ("clat", "lat"):
            s[kind] = [mean([r[kind][i] for r in rs]) for i in range(4)]
        s["at_depth"] = mean([r["level"].get(depth_key(qd), 0) for r in rs])
        ks = [r["kern"] for r in rs if r["kern"]]
        s["kern"] = [mean([k[i] for k in ks]) for i in range(4)] if ks else None
        bl = [r["blk"] for r in rs if r["blk"]]
        s["blk"] = {k: mean([b[k] for b in bl]) for k in ("n", "mean", "p99", "deferred")} if bl else None
        if bl:
            s["blk"]["segments"] = [b["segments"] for b in bl]
        th = [r["thr"] for r in rs if r["thr"]]
        s["thr"] = {k: mean([t[k] for t in th]) for k in th[0]} if th else None
        dl = [r["dlat"] for r in rs if r["dlat"]]
        s["dlat"] = {k: mean([d[k] for d in dl]) for k in dl[0]} if dl else None
        if dl:
            s["dlat"]["halves"] = {k: halves([d[k] for d in dl]) for k in ("mean", "p99")}
        out[tool] = s
    return out


# ---- tables ----

def label(c):
    target, mode, pat, eng, qd = c
    return "%s %s %s %s QD%d" % (target, mode, pat, eng, qd)


def us(ns):
    return "%.0f" % (ns / 1000) if ns >= 10000 else "%.1f" % (ns / 1000)


def table_queue(rows):
    t = ["| case | IOPS fio | IOPS luabench | lb/fio | fio/fio | spread fio / lb | in flight fio / lb | "
         "lb/fio | at depth % fio / lb | lat p99 lb/fio | fio/fio | CPU/IO ns fio / lb |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c, s in rows:
        f, l = s["fio"], s["luabench"]
        t.append("| %s | %.0f | %.0f | %s | %s | %.1f%% / %.1f%% | %.2f / %.2f | %s | %.1f / %.1f | "
                 "%s | %s | %.0f / %.0f |" % (
                     label(c), f["iops"], l["iops"], ratio(l["iops"], f["iops"]),
                     ratio(f["halves"]["iops"], 1), 100 * f["iops_spread"], 100 * l["iops_spread"],
                     f["inflight"], l["inflight"], ratio(l["inflight"], f["inflight"]),
                     f["at_depth"], l["at_depth"], ratio(l["lat"][2], f["lat"][2]),
                     ratio(f["halves"]["p99"], 1), f["cpu_ns"], l["cpu_ns"]))
    return t


def table_latency(rows):
    t = ["| case | MB/s fio / lb | lat mean | lat p50 | lat p99 | lat p99.9 | clat mean | clat p50 | "
         "clat p99 | clat p99.9 |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c, s in rows:
        f, l = s["fio"], s["luabench"]
        cells = ["%s / %s" % (us(f[k][i]), us(l[k][i])) for k in ("lat", "clat") for i in range(4)]
        t.append("| %s | %.0f / %.0f | %s |" % (label(c), f["bw"] / 1e6, l["bw"] / 1e6, " | ".join(cells)))
    return t


def table_kernel(rows):
    t = ["| case | tool | total_ios | device requests | io_bytes | device bytes / io_bytes | "
         "process bytes / io_bytes | block layer lat us (mean / p99, n) | dispatched by a worker | "
         "buffer segments per I/O, each run |",
         "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c, s in rows:
        if c[0] != "disk":
            continue
        for tool in ("fio", "luabench"):
            x = s[tool]
            k = x["kern"]
            dev_b = (k[1] + k[3]) * 512 if k else 0
            blk = x["blk"]
            t.append("| %s | %s | %.0f | %s | %.0f | %s | %.4f | %s | %s | %s |" % (
                label(c), tool, x["ios"], "%.0f" % (k[0] + k[2]) if k else "-", x["bytes"],
                "%.4f" % (dev_b / x["bytes"]) if k and x["bytes"] else "-",
                x["proc_bytes"] / x["bytes"] if x["bytes"] else 0,
                "%.0f / %.0f (%d)" % (blk["mean"], blk["p99"], blk["n"]) if blk else "-",
                "%.0f" % blk["deferred"] if blk else "-",
                ", ".join("-" if g is None else "%.1f" % (g / c[4]) for g in blk["segments"])
                if blk else "-"))
    return t


def table_cpu(rows):
    t = ["| case | CPU/IO ns job thread fio / lb | own threads fio / lb | io-wq fio / lb | "
         "FUSE daemon fio / lb | all fio / lb | lb/fio | runqueue wait of the job thread fio / lb | "
         "io-wq workers fio / lb |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c, s in rows:
        f, l = s["fio"]["thr"], s["luabench"]["thr"]
        if not f or not l:
            continue
        tot = lambda x: x["own"] + x["iowq"] + x["daemon"]
        t.append("| %s | %.0f / %.0f | %.0f / %.0f | %.0f / %.0f | %s | %.0f / %.0f | %s | "
                 "%.0f%% / %.0f%% | %.1f / %.1f |" % (
                     label(c), s["fio"]["cpu_ns"], s["luabench"]["cpu_ns"], f["own"], l["own"],
                     f["iowq"], l["iowq"],
                     "%.0f / %.0f" % (f["daemon"], l["daemon"]) if c[0] == "fuse" else "-",
                     tot(f), tot(l), ratio(tot(l), tot(f)), 100 * f["wait"], 100 * l["wait"],
                     f["nwq"], l["nwq"]))
    return t


def table_dlat(rows):
    t = ["| case | requests fio / lb | mean us fio / lb | lb/fio | fio/fio | p50 fio / lb | lb/fio | "
         "p99 fio / lb | lb/fio | fio/fio |", "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for c, s in rows:
        f, l = s["fio"]["dlat"], s["luabench"]["dlat"]
        if not f or not l:
            continue
        t.append("| %s | %.0f / %.0f | %s / %s | %s | %s | %s / %s | %s | %s / %s | %s | %s |" % (
            label(c), f["n"], l["n"], us(f["mean"] * 1e3), us(l["mean"] * 1e3), ratio(l["mean"], f["mean"]),
            ratio(f["halves"]["mean"], 1), us(f["p50"] * 1e3), us(l["p50"] * 1e3), ratio(l["p50"], f["p50"]),
            us(f["p99"] * 1e3), us(l["p99"] * 1e3), ratio(l["p99"], f["p99"]),
            ratio(f["halves"]["p99"], 1)))
    return t


# ---- set-up ----

def lay_out(path, size):
    subprocess.run(["fio", "--name=layout", "--filename=" + path, "--size=" + size, "--rw=write",
                    "--bs=1m", "--ioengine=psync", "--end_fsync=1"], check=True, capture_output=True)


def mount_fuse(src, mnt):
    """Mounts bindfs src on mnt; None or why not.  bindfs is started in a
    session of its own (libfuse's daemon mode calls setsid() as well), so
    its CPU share is neither the script's nor a tool's."""
    if not os.path.exists("/dev/fuse") or not shutil.which("bindfs"):
        return "no /dev/fuse or no bindfs"
    r = subprocess.run(["bindfs", src, mnt], capture_output=True, text=True, start_new_session=True)
    return None if r.returncode == 0 else "bindfs: " + r.stderr.strip()


def fuse_daemon(mnt):
    """The pid and session id of the bindfs process that serves mnt, or None."""
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as fh:
                argv = fh.read().split(b"\0")
        except OSError:
            continue
        if argv and os.path.basename(argv[0]) == b"bindfs" and os.fsencode(mnt) in argv:
            return int(d), os.getsid(int(d))
    return None


def parse():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--luabench", default=os.path.join(os.path.dirname(__file__), "../../build/luabench"))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--targets", default="disk,shm,fuse")
    ap.add_argument("--modes", default="direct,buffered")
    ap.add_argument("--engines", default="psync,libaio,io_uring")
    ap.add_argument("--qd", default="1,8,32,128")
    ap.add_argument("--patterns", default="rand4k,seq128k,seq1m")
    ap.add_argument("--runtime", default=None)
    ap.add_argument("--pairs", type=int, default=None)
    ap.add_argument("--disk-dir", default="/var/tmp")
    ap.add_argument("--size", default="1g")
    ap.add_argument("--blktrace", action="store_true")
    ap.add_argument("--thread", action="store_true",
                    help="thread=1 on both command lines: fio's job a thread of its process, "
                         "as luabench's always are")
    ap.add_argument("--blk", action="store_true",
                    help="the device's request latency under each tool, from bpftrace")
    ap.add_argument("--out", default=None, help="also write the tables to this file")
    a = ap.parse_args()
    a.targets, a.modes, a.engines, a.patterns = (split(a.targets), split(a.modes), split(a.engines),
                                                 split(a.patterns))
    a.qd = [int(x) for x in split(a.qd)]
    if a.quick:
        a.qd = [q for q in a.qd if q in (1, 32)] or [1, 32]
        a.patterns = [p for p in a.patterns if p in ("rand4k", "seq128k")] or ["rand4k"]
    a.runtime = a.runtime or ("1" if a.quick else "3")
    a.pairs = a.pairs or 2
    for p in a.patterns:
        if p not in PATTERNS:
            ap.error("unknown pattern '%s' (%s)" % (p, ", ".join(PATTERNS)))
    return a


def main():
    a = parse()
    lb = os.path.abspath(a.luabench)
    if not shutil.which("fio"):
        sys.exit("fio is not installed (apt-get install fio)")
    tmp, files, mnt, notes = [], {}, None, []
    btrace = bpf = daemon = None
    try:
        if "disk" in a.targets:
            tmp.append(tempfile.mkdtemp(dir=a.disk_dir, prefix="lbfid."))
            files["disk"] = os.path.join(tmp[-1], "data")
        if "shm" in a.targets:
            tmp.append(tempfile.mkdtemp(dir="/dev/shm", prefix="lbfid."))
            files["shm"] = os.path.join(tmp[-1], "data")
        if "fuse" in a.targets:
            src = tempfile.mkdtemp(dir=a.disk_dir, prefix="lbfid.src.")
            m = tempfile.mkdtemp(prefix="lbfid.mnt.")
            tmp += [src, m]
            why = mount_fuse(src, m)
            if why:
                notes.append("FUSE cases skipped: " + why)
                a.targets.remove("fuse")
            else:
                mnt = m
                files["fuse"] = os.path.join(m, "data")
                dm = fuse_daemon(m)
                daemon = dm[0] if dm else None
                notes.append("FUSE: bindfs pid %d in session %d (the script's: %d)" % (
                    dm[0], dm[1], os.getsid(0)) if dm else "FUSE: the bindfs process was not found")
        for t, f in files.items():
            lay_out(f, a.size)
        if "disk" in files:
            d = dev_of(files["disk"])
            notes.append("disk: %s on %s (%d:%d)" % (a.disk_dir, dev_name(d), *d) if dev_name(d) else
                         "disk: %s is on no block device (%d:%d): no device counts" % (a.disk_dir, *d))
        if a.blktrace and "disk" in files:
            btrace = BlockTrace(dev_of(files["disk"]))
        if a.blk and "disk" in files:
            try:
                bpf = BpfBlock(dev_of(files["disk"]))
            except OSError as e:
                notes.append("device latency columns skipped: %s" % e)
        stamp = time.strftime("%Y-%m-%d %H:%M")
        head = ["# fidelity, %s, %s, %d CPUs, kernel %s, %s, load average %.1f at the start" % (
            stamp, os.uname().nodename, os.cpu_count(), os.uname().release,
            subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip(),
            os.getloadavg()[0]), "", "`%s`" % " ".join(["fidelity.py"] + sys.argv[1:]), ""] + notes + [""]
        print("\n".join(head), flush=True)
        rows = []
        for c in cases(a):
            try:
                s = summary(run_case(a, lb, files, c, btrace, bpf, daemon), c[4])
            except (RuntimeError, ValueError) as e:
                print("%s: %s" % (label(c), e), file=sys.stderr, flush=True)
                continue
            rows.append((c, s))
            f, l = s["fio"], s["luabench"]
            print("%-40s IOPS %9.0f / %9.0f  lb/fio %s fio/fio %s  in flight %6.2f / %6.2f  "
                  "lat %7s / %7s us" % (
                      label(c), f["iops"], l["iops"], ratio(l["iops"], f["iops"]),
                      ratio(f["halves"]["iops"], 1), f["inflight"], l["inflight"], us(f["lat"][0]),
                      us(l["lat"][0])), file=sys.stderr, flush=True)
        out = head + ["## Throughput and queue", ""] + table_queue(rows) + [
            "", "## Latency (us, fio / luabench)", ""] + table_latency(rows) + [
            "", "## Kernel counts (disk)", ""] + table_kernel(rows) + [
            "", "## CPU per I/O by thread (ns; schedstat over the middle of each run)", ""] + table_cpu(rows)
        if bpf:
            out += ["", "## The device's request latency (block_rq_issue to block_rq_complete, us)",
                    ""] + table_dlat(rows)
        out += ["", "load average %.1f at the end (%s)" % (os.getloadavg()[0], time.strftime("%H:%M"))]
        print("\n".join(out[len(head):]))
        if a.out:
            with open(a.out, "w") as fh:
                fh.write("\n".join(out) + "\n")
    finally:
        if btrace:
            btrace.close()
        if mnt:
            subprocess.run(["fusermount", "-u", mnt])
        for d in tmp:
            shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
