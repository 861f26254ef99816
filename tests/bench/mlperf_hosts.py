#!/usr/bin/env python3
"""scripts/mlperf.lua workload=unet3d (scaled) against DLIO's unet3d_h100 across
network-namespace hosts, on the same npz files.  Not a test: it asserts
nothing and prints the figures and their ratios.

  python3 tests/bench/mlperf_hosts.py [--luabench build/luabench] [--hosts 2]
      [--dir /dev/shm/lb-mlperf-hosts] [--rounds 2] [--epochs 3] [--files 112]
      [--where hosts,local] [--keep]

Needs root (tests/hosts/netns.sh makes the hosts: network and UTS namespaces
on a bridge, Open MPI over TCP only, its daemons started through a launch
agent in place of ssh), mpirun, a luabench built with MPI and DLIO where it
imports (DLIO_SRC, HYDRA_SRC, DLIO_PYTHON as for tests/bench/dlio_bench.py,
whose docstring says how it runs without PyPI).

DLIO's generator writes FILES npz files of one sample (record_length_bytes
8 MiB, stdev 0, resized to 2 MiB in the loader as unet3d_h100 asks) in
DIR/data/train, which every host sees (mounts are not namespaced).  Then,
round after round, for each place in --where (hosts: one rank on each of the
N netns hosts; local: N ranks under this machine's mpirun), DLIO (`mpirun -np
N python3 -m dlio_benchmark.main`, unet3d_h100's reader: batch 7,
read_threads 4, prefetch 2, file and sample shuffle by seed, compute 0.323 s
a step) and `mpirun -np N luabench scripts/mlperf.lua workload=unet3d
accelerator=h100 scaled=1 files=FILES sample_size=8388608 dir=GLOB epochs=E
runs=1 warmup=0` (one accelerator a rank; its raw reads of each whole file)
run back to back, which first alternating by round.  AU, samples/s and MB/s
are each tool's own (DLIO's summary.json, mlperf.lua's run line); CPU is the
user + system time of the whole process tree (mpirun, the ranks and DLIO's
loader workers; across the hosts each rank's own as tests/bench/rank_cpu.py
reports it, the hosts' daemons not counted) over the samples the steps
consumed.
"""
import argparse, os, re, shutil, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dlio_bench as db                  # noqa: E402

SAMPLE = 8388608
BATCH = 7


def run_dlio(py, env, conf, data, files, epochs, k, generate=False):
    """DLIO with unet3d_h100's reader on FILES files of SAMPLE bytes (dlio_bench's run)."""
    return db.run_dlio(py, env, conf, "u3h", (1, SAMPLE, files, BATCH, 4, 0.323), epochs, 0.323,
                       k, data, generate=generate, shuffle="seed", resize=2097152)


def run_mlperf(lb, launcher, data, files, epochs, cwd):
    script = os.path.join(db.HERE, "..", "..", "scripts", "mlperf.lua")
    out, wall, cpu = db.run_tree(launcher + [
        lb, "-q", script, "workload=unet3d", "accelerator=h100", "scaled=1", f"files={files}",
        f"sample_size={SAMPLE}", f"dir={data}/train/*.npz", f"epochs={epochs}", "runs=1",
        "warmup=0", "accelerators=1"], cwd=cwd)
    m = re.search(r"^\s+1\s+([\d.]+)%\s+[\d.]+\s+([\d.]+)\s+([\d.]+)", out, re.M)
    if not m:
        sys.stderr.write(out[-2000:])
        raise RuntimeError("no run line in mlperf.lua's output")
    return {"au": float(m.group(1)), "sps": float(m.group(2)), "mbs": float(m.group(3)),
            "wall": wall, "cpu": cpu}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--luabench", default=os.path.join(db.HERE, "..", "..", "build", "luabench"))
    ap.add_argument("--hosts", type=int, default=2)
    ap.add_argument("--dir", default="/dev/shm/lb-mlperf-hosts")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--files", type=int, default=112)
    ap.add_argument("--where", default="hosts,local")
    ap.add_argument("--keep", action="store_true", help="keep the dataset")
    a = ap.parse_args()
    lb = os.path.abspath(a.luabench)
    py, env, torch_v = db.find_dlio()
    if py is None:
        sys.exit(f"DLIO does not import here ({env}): set DLIO_SRC and HYDRA_SRC")
    if subprocess.run([lb, "-q", "/dev/stdin"], text=True,
                      input="os.exit(lb.mpi_support and 0 or 3)").returncode != 0:
        sys.exit(f"{lb} has no MPI support")
    where = a.where.split(",")
    os.makedirs(a.dir, exist_ok=True)
    data = os.path.join(os.path.abspath(a.dir), "data")
    conf = tempfile.mkdtemp(prefix="dlio-conf-", dir=a.dir)
    db.CPU_DIR = tempfile.mkdtemp(prefix="rank-cpu-", dir=a.dir)
    bed = tempfile.mkdtemp(prefix="lb-mlperf-bed-")
    r = subprocess.run(["bash", db.NETNS, "start", bed, str(a.hosts)]) if "hosts" in where \
        else None
    try:
        if r is not None and r.returncode != 0:
            sys.exit(f"the {a.hosts} netns hosts cannot be made here (exit {r.returncode})")
        print(f"DLIO {db.dlio_version()} with {py} (torch {torch_v}); dftracer: "
              f"{'stand-in' if 'dlio_shim' in env['PYTHONPATH'] else 'installed'}")
        load = os.getloadavg()
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}, load average "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} CPUs, dir {a.dir}, "
              f"{a.hosts} ranks, {a.files} files, {a.epochs} epochs", flush=True)
        n = a.hosts
        if len([f for f in os.listdir(os.path.join(data, "train"))
                if f.endswith(".npz")] if os.path.isdir(os.path.join(data, "train")) else []) \
                < a.files:
            run_dlio(py, env, conf, data, a.files, 1, min(2, os.cpu_count()), generate=True)
        samples = a.epochs * (a.files // BATCH // n) * BATCH * n
        rows = {}
        for rnd in range(a.rounds):
            for w in where:
                db.BED = bed if w == "hosts" else None
                pair = [("DLIO", lambda: run_dlio(py, env, conf, data, a.files, a.epochs, n)),
                        ("mlperf.lua", lambda: run_mlperf(lb, db.mpirun(n), data, a.files,
                                                          a.epochs, conf))]
                for tool, f in (pair if rnd % 2 == 0 else pair[::-1]):
                    x = f()
                    x["us"] = x["cpu"] / samples * 1e6
                    rows.setdefault((w, tool), []).append(x)
                    print(f"  round {rnd + 1} {w:5s} {tool:10s} AU {x['au']:6.2f}% "
                          f"{x['sps']:7.2f} samples/s {x['mbs']:8.2f} MB/s wall {x['wall']:6.1f} s "
                          f"CPU {x['cpu']:6.1f} s ({x['us']:,.0f} us/sample)", flush=True)
        db.BED = None
        print("\n| where | ranks | AU DLIO | AU lb | samples/s DLIO | samples/s lb | lb/DLIO | "
              "MB/s DLIO | MB/s lb | CPU/sample DLIO | CPU/sample lb | lb/DLIO |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for w in where:
            d, l = rows[(w, "DLIO")], rows[(w, "mlperf.lua")]

            def f(xs, k, p=2):
                v = [x[k] for x in xs]
                return f"{' / '.join(f'{y:,.{p}f}' for y in v)}"
            def ratio(k):
                m = db.mean([x[k] for x in d])
                return db.mean([x[k] for x in l]) / m if m else float("nan")
            print(f"| {w} | {n} | {f(d, 'au')} | {f(l, 'au')} | {f(d, 'sps')} | {f(l, 'sps')} | "
                  f"{ratio('sps'):.3f} | "
                  f"{f(d, 'mbs', 1)} | {f(l, 'mbs', 1)} | {f(d, 'us', 0)} us | {f(l, 'us', 0)} us | "
                  f"{ratio('us'):.3f} |")
        print("(each cell: the rounds in order; ratios: of the means)")
    finally:
        db.BED = None
        subprocess.run(["bash", db.NETNS, "stop", bed])
        shutil.rmtree(bed, ignore_errors=True)
        shutil.rmtree(conf, ignore_errors=True)
        if not a.keep:
            shutil.rmtree(a.dir, ignore_errors=True)


if __name__ == "__main__":
    main()
