#!/usr/bin/env python3
"""fio's own test suite, run against fio and against luabench in one run.

  python3 tests/fio-suite/run.py [--luabench build/luabench] [--fio-tests DIR]
        [--fio fio] [--candidate EXE] [--only NAME,...] [--jobs N] [--strict]
        [--not-applicable FILE] [--work DIR] [--keep] [--json FILE] [--table FILE]

fio's suite is the t/ directory of fio's source (3.33 here): t/run-fio-tests.py
with its job files t/jobs/t0001...t0026, and the scripts that take the path of
a fio executable (readonly.py, strided.py, jsonplus2csv_test.py,
log_compression.py, latency_percentiles.py, steadystate_tests.py).  It is
looked for in --fio-tests, then $LB_FIO_TESTS, then ../shared/fio-tests beside
the source tree; a fio source tree of the same version works as well.

Every test runs twice, in separate directories: with fio itself (the
reference) and with the candidate, by default a two-line `fio` that runs
luabench-fio beside the luabench binary (`luabench fio "$@"` where there is
none).  Job tests go through run-fio-tests.py (--run-only N,
requirements checked here: it cannot see how Debian's fio was built); the
scripts run as fio's suite runs them, passing when they exit 0 with nothing
on stderr, and their own PASSED/FAILED lines give the check counts.  A test
that outlives its time limit is killed with every process it started, found
by an environment variable they inherit (fio 3.33 hangs in
io_submit_mode=offload here, ignores SIGTERM, and its job processes leave
the process group).

Prints one table: test, fio, candidate (pass, fail or skip with a short
reason).  Exit status: 0 (report mode, whatever the table says); with
--strict, 1 when the candidate fails a test or check that fio passes and that
the not-applicable list (tests/fio-suite/not-applicable.txt) does not name;
1 also when the runner cannot read a result it should have; 2 bad usage;
77 when fio's suite or fio is missing (nothing to compare).  It neither
builds luabench nor reads its sources; it changes nothing outside --work.
"""
import argparse, concurrent.futures, json, os, re, shlex, shutil, signal, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))

# run-fio-tests.py's job tests: id -> (job file, what it needs here, time limit s).
# Needs: "libaio" (fio built with it), "io_uring" (the kernel has it), "cpus4".
JOB_TESTS = {
    1: ("t0001-52c58027.fio", (), 60), 2: ("t0002-13af05ae-post.fio", ("libaio",), 300),
    3: ("t0003-0ae2c6e1-post.fio", ("libaio",), 60), 4: ("t0004-8a99fdf6.fio", ("libaio",), 60),
    5: ("t0005-f7078f7b.fio", (), 120), 6: ("t0006-82af2a7c.fio", ("libaio",), 300),
    7: ("t0007-37cf9e3c.fio", (), 60), 8: ("t0008-ae2fafc8.fio", (), 60),
    9: ("t0009-f8b0bd10.fio", ("cpus4",), 150), 10: ("t0010-b7aae4ba.fio", (), 30),
    11: ("t0011-5d2788d5.fio", (), 60), 12: ("t0012.fio", (), 60), 13: ("t0013.fio", (), 40),
    14: ("t0014.fio", (), 60), 15: ("t0015-e78980ff.fio", ("libaio",), 60),
    16: ("t0016-d54ae22.fio", (), 60), 17: ("t0017.fio", (), 60),
    18: ("t0018.fio", ("io_uring",), 60), 19: ("t0019.fio", (), 60), 20: ("t0020.fio", (), 60),
    21: ("t0021.fio", (), 60), 22: ("t0022.fio", (), 60), 23: ("t0023.fio", (), 60),
    24: ("t0024.fio", (), 60), 25: ("t0025.fio", (), 60), 26: ("t0026.fio", (), 60),
}
# The scripts: name -> (arguments, with {fio} for the executable; time limit s;
# the regular expression of one check's verdict line: group 1 PASSED/FAILED).
SCRIPTS = {
    "readonly.py": (["-f", "{fio}"], 120, r"^Test (\d+) (PASSED|FAILED)$"),
    "strided.py": (["{fio}"], 120, r"^Test (\d+) (PASSED|FAILED)$"),
    "jsonplus2csv_test.py": (["-f", "{fio}"], 120, r"^Test (\d+) (PASSED|FAILED)$"),
    "log_compression.py": (["-f", "{fio}"], 120,
                           r"^Test with (log_store_compressed=\w+) (PASSED|FAILED)$"),
    "latency_percentiles.py": (["-f", "{fio}", "-a", "artifacts"], 600,
                               r"^\*+Test (\d+) (PASSED|FAILED)\*+$"),
    "steadystate_tests.py": (["{fio}"], 600, r"^()(PASSED|FAILED) "),
}
ORDER = ["t%04d" % n for n in JOB_TESTS] + list(SCRIPTS)


def say(*a, **kw):
    print(*a, flush=True, **kw)


def usage_error(msg):
    sys.stderr.write("run.py: %s\n" % msg)
    sys.exit(2)


def skip(msg):
    say("SKIP: " + msg)
    sys.exit(77)


def find_suite(arg):
    for d in (arg, os.environ.get("LB_FIO_TESTS"), os.path.join(SRC, "..", "shared", "fio-tests")):
        if d and os.path.isfile(os.path.join(d, "t", "run-fio-tests.py")):
            return os.path.abspath(d)
        if d and d is arg:
            skip("%s has no t/run-fio-tests.py (give the root of fio's source tree)" % d)
    skip("fio's test suite not found: ../shared/fio-tests is absent; fetch fio's source "
         "(the version of the installed fio) and pass --fio-tests DIR or LB_FIO_TESTS=DIR")


def fio_version(exe):
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.TimeoutExpired):
        return None


def python_for_suite():
    """The first interpreter that has SciPy (steadystate_tests.py imports it)."""
    seen = []
    for p in (sys.executable, "/usr/bin/python3", shutil.which("python3")):
        if p and p not in seen and os.access(p, os.X_OK):
            seen.append(p)
            if subprocess.run([p, "-c", "import scipy"], capture_output=True).returncode == 0:
                return p, True
    return sys.executable, False


def machine_has():
    has = {"cpus4": os.cpu_count() is not None and os.cpu_count() >= 4}
    try:
        with open("/proc/kallsyms") as f:
            has["io_uring"] = "io_uring_setup" in f.read()
    except OSError:
        has["io_uring"] = False
    return has


def read_na(path):
    """not-applicable.txt: 'NAME reason' per line (NAME t0010, readonly.py or
    latency_percentiles.py:15); '#' starts a comment."""
    na = {}
    try:
        lines = open(path).read().splitlines()
    except OSError as e:
        usage_error("cannot read %s: %s" % (path, e.strerror))
    for n, line in enumerate(lines, 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        name, _, reason = line.partition(" ")
        if name.split(":")[0] not in ORDER or not reason.strip():
            usage_error("%s:%d: expected 'TEST reason' with TEST one of t0001..t0026 or a "
                        "script name (optionally :CHECK), got '%s'" % (path, n, line))
        na[name] = reason.strip()
    return na


def kill_marked(marker):
    """SIGKILLs every process whose environment holds marker: what a test
    started, also the children that left its process group (fio's job
    processes call setsid) or were handed to init."""
    needle = marker.encode() + b"\0"
    for _ in range(20):
        found = []
        for pid in os.listdir("/proc"):
            if pid.isdigit() and int(pid) != os.getpid():
                try:
                    with open("/proc/%s/environ" % pid, "rb") as f:
                        if needle in f.read():
                            found.append(int(pid))
                except OSError:
                    pass
        if not found:
            return
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        time.sleep(0.1)


def run_killable(cmd, cwd, limit, env):
    """Runs cmd in its own process group; after limit s kills it and all it started."""
    t0 = time.monotonic()
    marker = "LB_FIO_SUITE_UNIT=%d.%s" % (os.getpid(), cwd)
    env = dict(env, LB_FIO_SUITE_UNIT=marker.split("=", 1)[1])
    with open(os.path.join(cwd, "runner.stdout"), "w") as out, \
            open(os.path.join(cwd, "runner.stderr"), "w") as err:
        p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL,
                             env=env, start_new_session=True)
        try:
            rc = p.wait(timeout=limit)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out, rc = True, None
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        kill_marked(marker)
        p.wait()
    with open(os.path.join(cwd, "runner.stdout"), errors="replace") as f:
        stdout = f.read()
    with open(os.path.join(cwd, "runner.stderr"), errors="replace") as f:
        stderr = f.read()
    return rc, timed_out, stdout, stderr, time.monotonic() - t0


def cut(line, width):
    return line if len(line) <= width else line[:width - 3] + "..."


def first_line(text, width=110):
    """The first line of text; where a Python traceback follows, also the
    exception it ends with."""
    lines = [l.strip() for l in text.splitlines() if l.strip()]
    tb = next((i for i, l in enumerate(lines) if l.startswith("Traceback (most recent")), None)
    if tb is None:
        return cut(lines[0], width) if lines else ""
    exc = next((l for l in reversed(lines) if re.match(r"^[\w.]+(Error|Exception)\b", l)),
               lines[-1])
    return (cut(lines[0], width) + " ... " if tb > 0 else "") + cut(exc, 70)


def stderr_of_job(test_dir):
    """The first line a job test's executable wrote on stderr."""
    names = sorted(n for n in os.listdir(test_dir) if n.endswith(".stderr")) \
        if os.path.isdir(test_dir) else []
    for n in sorted(names, key=lambda n: "-pre" in n):
        with open(os.path.join(test_dir, n), errors="replace") as f:
            line = first_line(f.read())
        if line:
            return line
    return ""


def drop_big_files(d, limit=16 << 20):
    for root, _, files in os.walk(d):
        for n in files:
            p = os.path.join(root, n)
            try:
                if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) > limit:
                    os.remove(p)
            except OSError:
                pass


class Result:
    def __init__(self, verdict, reason="", checks=None, secs=0.0, noisy=False):
        self.verdict, self.reason, self.checks, self.secs = verdict, reason, checks, secs
        self.noisy = noisy   # a script that hung or wrote on stderr

    def cell(self, total=None):
        """'pass', 'fail 4/9: reason'...; total: the checks the reference ran."""
        s = self.verdict
        if self.checks is not None:
            n = max(len(self.checks), total or 0)
            s += " %d/%d" % (sum(v == "PASSED" for v in self.checks.values()), n)
        return s + (": " + self.reason if self.reason else "")


class Side:
    """One column of the table: fio, or the candidate."""

    def __init__(self, label, exe, root, scale=1.0):
        self.label, self.exe, self.root, self.scale = label, exe, root, scale


def run_job_test(ctx, side, num):
    job, _, limit = JOB_TESTS[num]
    d = os.path.join(side.root, "t%04d" % num)
    os.makedirs(d)
    cmd = [ctx.python, os.path.join(ctx.suite, "t", "run-fio-tests.py"), "-k", "-r", ctx.suite,
           "-f", side.exe, "-a", "artifacts", "-o", str(num)]
    rc, timed_out, out, err, secs = run_killable(cmd, d, limit * side.scale, ctx.env)
    test_dir = os.path.join(d, "artifacts", "%04d" % num)
    if not ctx.keep:
        drop_big_files(d)
    if timed_out:
        return Result("fail", "killed after %d s (hung)" % (limit * side.scale), secs=secs)
    m = re.search(r"^Test %d (PASSED|FAILED)(?::(.*?))? %s$" % (num, re.escape(job)), out, re.M | re.S)
    if not m:
        return Result("error", "no verdict from run-fio-tests.py (exit %s): %s"
                      % (rc, first_line(err) or first_line(out)), secs=secs)
    if m.group(1) == "PASSED":
        return Result("pass", secs=secs)
    return Result("fail", job_reason(m.group(2) or "", test_dir, job), secs=secs)


def exit_code(test_dir, job):
    try:
        with open(os.path.join(test_dir, job + ".exitcode")) as f:
            return f.read().strip() or None
    except OSError:
        return None


def job_reason(suite_reason, test_dir, job):
    """run-fio-tests.py's reason made short: 'exit 2; no test_bw.log; stderr: ...'."""
    parts = []
    for p in re.split(r",|\s(?=unable to read file)", suite_reason):
        p = p.strip()
        if not p or p == "stderr not empty":
            continue
        if p == "non-zero return code":
            codes = [exit_code(test_dir, n) for n in (job, job.replace("-post", "-pre"))]
            codes = [c for c in codes if c not in (None, "0")]
            p = "exit " + codes[0] if codes else p
        m = re.match(r"unable to read file (.*)", p)
        if m:
            p = "no " + os.path.basename(m.group(1))
        p = p.replace("precondition step failed", "pre-job failed")
        if p not in parts:
            parts.append(p)
    line = stderr_of_job(test_dir)
    if line:
        parts.append("stderr: " + line)
    elif "stderr not empty" in suite_reason:
        parts.append("stderr not empty")
    return "; ".join(parts)


def run_script(ctx, side, name):
    args, limit, verdict_re = SCRIPTS[name]
    d = os.path.join(side.root, name)
    os.makedirs(d)
    cmd = [ctx.python, os.path.join(ctx.suite, "t", name)] + [a.format(fio=side.exe) for a in args]
    rc, timed_out, out, err, secs = run_killable(cmd, d, limit * side.scale, ctx.env)
    if not ctx.keep:
        drop_big_files(d)
    checks = {}
    for line in out.splitlines():
        m = re.match(verdict_re, line.strip())
        if m:
            checks[m.group(1) or str(len(checks) + 1)] = m.group(2)
    ok = rc == 0 and not timed_out and err == "" and "FAILED" not in checks.values()
    if ok:
        return Result("pass", checks=checks, secs=secs)
    why = []
    if timed_out:
        why.append("killed after %d s (hung)" % (limit * side.scale))
    elif rc != 0:
        why.append("exit %d" % rc)
    failed = [k for k, v in checks.items() if v == "FAILED"]
    if failed:
        why.append("failed " + ",".join(failed[:12]) + (",..." if len(failed) > 12 else ""))
    if err:
        why.append("stderr: " + first_line(err))
    return Result("fail", "; ".join(why), checks=checks, secs=secs,
                  noisy=timed_out or err != "")


def unit(ctx, side, name):
    try:
        if name.startswith("t0"):
            return run_job_test(ctx, side, int(name[1:]))
        return run_script(ctx, side, name)
    except Exception as e:  # a runner bug shows in the table, it does not stop the run
        return Result("error", "%s: %s" % (type(e).__name__, e))


def applies(ctx, name):
    """None when the test applies here, else why it is skipped (both sides)."""
    if name.startswith("t0"):
        for need in JOB_TESTS[int(name[1:])][1]:
            if need == "cpus4" and not ctx.has["cpus4"]:
                return "needs 4 CPUs"
            if need == "io_uring" and not ctx.has["io_uring"]:
                return "kernel without io_uring"
            if need == "libaio" and not ctx.has["libaio"]:
                return "fio built without libaio"
        return None
    if name == "steadystate_tests.py" and not ctx.scipy:
        return "python3-scipy missing"
    if name == "jsonplus2csv_test.py" and not (
            shutil.which("fio_jsonplus_clat2csv")
            or os.path.exists(os.path.join(ctx.suite, "tools", "fio_jsonplus_clat2csv"))):
        return "fio_jsonplus_clat2csv missing"
    return None


def strict_failures(names, res, na, label):
    """What the candidate fails that fio passes, less the not-applicable list:
    job tests whole, scripts check by check (and a script whose checks all
    pass or are excused still fails on stderr output or a hang)."""
    out = []
    for name in names:
        f, c = res[name]
        if f.verdict == "skip" or name in na or c.verdict == "pass":
            continue
        if f.checks is None:
            if f.verdict == "pass":
                out.append("%s: %s" % (name, c.cell()))
            continue
        left = [k for k, v in f.checks.items() if v == "PASSED" and
                (c.checks or {}).get(k) != "PASSED" and "%s:%s" % (name, k) not in na]
        for k in left:
            out.append("%s:%s: fio passes this check, %s does not" % (name, k, label))
        if f.verdict == "pass" and not left and c.noisy:
            out.append("%s: %s" % (name, c.cell(len(f.checks))))
    return out


def table(names, res, heads, na, width):
    w0 = max(len(n) for n in names + ["test"])
    rows = [("test", heads[0], heads[1])]
    for n in names:
        f, c = res[n]
        cc = c.cell(len(f.checks or {})) + ("  [not applicable: %s]" % na[n] if n in na else "")
        rows.append((n, f.cell(), cc))
    w1 = min(max(len(r[1]) for r in rows), 40)
    out = []
    for r in rows:
        cell1 = r[1] if len(r[1]) <= w1 else r[1][:w1 - 3] + "..."
        line = "%-*s  %-*s  %s" % (w0, r[0], w1, cell1, r[2])
        out.append(line if len(line) <= width else line[:width - 3] + "...")
    return "\n".join(out)


def summary(names, res, heads):
    jobs = [n for n in names if n.startswith("t0")]
    scripts = [n for n in names if not n.startswith("t0")]
    lines = []
    for i, head in enumerate(heads):
        jr = [res[n][i] for n in jobs]
        sr = [res[n][i] for n in scripts]
        chk = [v for r in sr for v in (r.checks or {}).values()]
        total = [res[n][0] for n in scripts]   # the checks fio reports are the total
        lines.append("%s: job tests %d passed of %d run (%d skipped); scripts %d of %d; "
                     "script checks %d of %d" % (
                         head, sum(r.verdict == "pass" for r in jr),
                         sum(r.verdict != "skip" for r in jr), sum(r.verdict == "skip" for r in jr),
                         sum(r.verdict == "pass" for r in sr), sum(r.verdict != "skip" for r in sr),
                         chk.count("PASSED"),
                         sum(len(r.checks or {}) for r in total if r.verdict != "skip")))
    return "\n".join(lines)


def parse_args():
    ap = argparse.ArgumentParser(description="fio's test suite against fio and luabench.")
    ap.add_argument("--luabench", help="the luabench binary (default $LUABENCH, then build/luabench)")
    ap.add_argument("--candidate", help="a fio-compatible executable to test instead of "
                    "'luabench fio' (for instance an installed luabench-fio)")
    ap.add_argument("--fio", default="fio", help="the reference fio (default: fio on PATH)")
    ap.add_argument("--fio-tests", help="fio's source tree, or a copy of its t/ (default "
                    "$LB_FIO_TESTS, then ../shared/fio-tests)")
    ap.add_argument("--only", help="comma-separated tests: t0001..t0026, script names")
    ap.add_argument("--jobs", type=int, default=1, help="tests run at once (default 1)")
    ap.add_argument("--strict", action="store_true",
                    help="exit 1 unless the candidate passes what fio passes")
    ap.add_argument("--not-applicable", default=os.path.join(HERE, "not-applicable.txt"))
    ap.add_argument("--work", help="directory for the runs (kept); default a temporary one "
                    "under $TMPDIR or /var/tmp, removed at the end")
    ap.add_argument("--keep", action="store_true", help="keep the work directory and data files")
    ap.add_argument("--timeout-scale", type=float, default=1.0,
                    help="multiplies the candidate's time limits (sanitizer builds)")
    ap.add_argument("--json", help="also write the results as JSON to this file")
    ap.add_argument("--table", help="also write the table and its summary to this file")
    ap.add_argument("--width", type=int, default=200, help="cut table lines at this width")
    a = ap.parse_args()
    if a.jobs < 1 or a.timeout_scale <= 0:
        usage_error("--jobs and --timeout-scale must be positive")
    a.names = ORDER
    if a.only:
        a.names = [n.strip() for n in a.only.split(",") if n.strip()]
        bad = [n for n in a.names if n not in ORDER]
        if bad:
            usage_error("unknown test '%s' (t0001..t0026, %s)" % (bad[0], ", ".join(SCRIPTS)))
    if a.work and os.path.exists(a.work) and (not os.path.isdir(a.work) or os.listdir(a.work)):
        usage_error("--work %s: give an empty or new directory" % a.work)
    return a


class Ctx:
    """What every test run needs: the suite, the interpreter, the machine."""

    def __init__(self, a):
        self.suite = find_suite(a.fio_tests)
        self.fio = shutil.which(a.fio)
        if not self.fio:
            skip("fio is not installed (the reference the suite is compared with): "
                 "apt-get install fio")
        self.fio_version = fio_version(self.fio)
        if not self.fio_version:
            skip("%s does not run" % self.fio)
        self.lb = None
        if a.candidate:
            self.cand = shutil.which(a.candidate)
            if not self.cand:
                usage_error("candidate '%s' not found" % a.candidate)
            self.cand_label = os.path.basename(a.candidate)
        else:
            lb = a.luabench or os.environ.get("LUABENCH") or os.path.join(SRC, "build", "luabench")
            if not (os.path.isfile(lb) and os.access(lb, os.X_OK)):
                usage_error("luabench binary '%s' not found (build it, or pass --luabench)" % lb)
            self.lb, self.cand_label = os.path.abspath(lb), "luabench"
            entry = os.path.join(os.path.dirname(self.lb), "luabench-fio")
            self.lb_cmd = shlex.quote(entry) if os.access(entry, os.X_OK) else \
                shlex.quote(self.lb) + " fio"
            self.lb_shown = entry if os.access(entry, os.X_OK) else self.lb + " fio"
        self.python, self.scipy = python_for_suite()
        self.has = machine_has()
        self.has["libaio"] = "libaio" in subprocess.run(
            [self.fio, "--enghelp"], capture_output=True, text=True).stdout
        self.keep = a.keep

    def sides(self, work, scale):
        """The reference and the candidate, each with its directory under work;
        writes the `luabench fio` wrapper and sets the environment of the runs."""
        if self.lb:
            bindir = os.path.join(work, "candidate-bin")
            os.makedirs(bindir)
            self.cand = os.path.join(bindir, "fio")
            with open(self.cand, "w") as f:
                f.write("#!/bin/sh\nexec %s \"$@\"\n" % self.lb_cmd)
            os.chmod(self.cand, 0o755)
        # children started as '#!/usr/bin/env python3' get the same interpreter
        pybin = os.path.join(work, "python-bin")
        os.makedirs(pybin)
        os.symlink(self.python, os.path.join(pybin, "python3"))
        self.env = dict(os.environ, PATH=pybin + os.pathsep + os.environ.get("PATH", ""))
        sides = [Side(self.fio_version, self.fio, os.path.join(work, "fio")),
                 Side(self.cand_label, self.cand, os.path.join(work, "candidate"), scale)]
        for s in sides:
            os.makedirs(s.root)
        return sides


def run_all(ctx, sides, names, jobs):
    """{name: [reference Result, candidate Result]}; with jobs > 1 the
    longest tests start first so that they pack well."""
    res, todo = {}, []
    for n in names:
        why = applies(ctx, n)
        if why:
            res[n] = [Result("skip", why), Result("skip", why)]
        else:
            res[n] = [None, None]
            todo += [(n, 0), (n, 1)]
    limit = {n: (JOB_TESTS[int(n[1:])][2] if n.startswith("t0") else SCRIPTS[n][1]) for n in names}
    todo.sort(key=lambda x: -limit[x[0]] if jobs > 1 else 0)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futs = {pool.submit(unit, ctx, sides[i], n): (n, i) for n, i in todo}
        for fut in concurrent.futures.as_completed(futs):
            n, i = futs[fut]
            res[n][i] = fut.result()
            say("  %-24s %-10s %s (%.0f s)" % (n, sides[i].label, res[n][i].verdict, res[n][i].secs))
    return res


def write_json(path, ctx, names, res, secs):
    doc = {"fio": ctx.fio_version, "candidate": ctx.cand_label, "seconds": round(secs),
           "tests": {n: {side: {"verdict": r.verdict, "reason": r.reason, "checks": r.checks,
                                "seconds": round(r.secs, 1)}
                         for side, r in zip(("fio", "candidate"), res[n])}
                     for n in names}}
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def verdict(a, ctx, names, res, na):
    """The exit status: 1 on a runner error, or with --strict on a failure."""
    errors = [n for n in names if "error" in (res[n][0].verdict, res[n][1].verdict)]
    if errors:
        say("runner error (no verdict) in: " + ", ".join(errors))
        return 1
    if not a.strict:
        return 0
    bad = strict_failures(names, res, na, ctx.cand_label)
    if bad:
        say("strict: %d test(s) fio passes and %s does not:" % (len(bad), ctx.cand_label))
        for b in bad:
            say("  " + b)
        return 1
    say("strict: %s passes every test fio passes (less the not-applicable list)" % ctx.cand_label)
    return 0


def main():
    a = parse_args()
    na = read_na(a.not_applicable)
    ctx = Ctx(a)
    base = os.environ.get("TMPDIR") or ("/var/tmp" if os.path.isdir("/var/tmp") else None)
    work = os.path.abspath(a.work) if a.work else tempfile.mkdtemp(prefix="lb-fio-suite.", dir=base)
    os.makedirs(work, exist_ok=True)
    try:
        sides = ctx.sides(work, a.timeout_scale)
        say("fio's suite: %s\nreference: %s (%s)\ncandidate: %s%s\nwork: %s" % (
            ctx.suite, ctx.fio, ctx.fio_version, ctx.cand,
            " (runs %s)" % ctx.lb_shown if ctx.lb else "", work))
        if not ctx.fio_version.startswith("fio-3.33"):
            say("note: the reference is %s; the suite's expectations are fio 3.33's" % ctx.fio_version)
        t0 = time.monotonic()
        res = run_all(ctx, sides, a.names, a.jobs)
        secs = time.monotonic() - t0
        heads = (sides[0].label, sides[1].label)
        text = "%s\n\n%s\ntime: %.0f s (--jobs %d)\n" % (
            table(a.names, res, heads, na, a.width), summary(a.names, res, heads), secs, a.jobs)
        say("\n" + text, end="")
        if a.table:
            with open(a.table, "w") as f:
                f.write(text)
        if a.json:
            write_json(a.json, ctx, a.names, res, secs)
        return verdict(a, ctx, a.names, res, na)
    finally:
        if a.work or a.keep:
            say("kept: " + work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
