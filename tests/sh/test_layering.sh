#!/usr/bin/env bash
# Description: core/ keeps its floors apart.  Every include inside core/
# names a core file by its folder ("run/gen.h") and reaches only its own
# folder or a floor below it; the include graph of core/ and the call graph
# of lbcore's objects (nm: which object calls a function another defines)
# have no circle and no arrow to a floor above; the private headers
# (run/run_int.h, run/stats_int.h, engines/internal.h) are included by the
# files of their own folder only, nowhere in lua/ or tests/.  Prints each
# defect as "file: what"; exit 1 when there is one.
set -u
LB_SRC=${LB_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
LB_BUILD=${LB_BUILD:-$LB_SRC/build}
lib=$LB_BUILD/liblbcore.a
command -v python3 >/dev/null || { echo "SKIP: python3 missing" >&2; exit 77; }
command -v nm >/dev/null || { echo "SKIP: nm missing" >&2; exit 77; }
[ -f "$lib" ] || { echo "FAIL: $lib not built" >&2; exit 1; }
nm -A "$lib" > "${TMPDIR:-/tmp}/lb-layering.$$" 2>/dev/null ||
  { rm -f "${TMPDIR:-/tmp}/lb-layering.$$"; echo "FAIL: nm $lib" >&2; exit 1; }
trap 'rm -f "${TMPDIR:-/tmp}/lb-layering.$$"' EXIT
exec python3 - "$LB_SRC" "${TMPDIR:-/tmp}/lb-layering.$$" <<'PY'
import glob, os, re, sys

src, nmout = sys.argv[1], sys.argv[2]
# Each floor and the floors it may see (README.md, "How the code is laid out").
FLOORS = {
    "base": set(),
    "job": {"base"},
    "engines": {"base", "job"},
    "run": {"base", "job", "engines"},
    "meta": {"base"},
    "train": {"base"},
}
PRIVATE = {"run/run_int.h": "run", "run/stats_int.h": "run", "engines/internal.h": "engines"}
INCLUDE = re.compile(r'\s*#\s*include\s+"([^"]+)"')
defects = []

def rel(path):
    return os.path.relpath(path, os.path.join(src, "core"))

core = sorted(rel(p) for p in glob.glob(os.path.join(src, "core", "*", "*.[ch]")))
known = set(core)

def may_see(folder, target_folder):
    return target_folder == folder or target_folder in FLOORS.get(folder, set())

def cycle(graph):
    """One circle of graph (a list of nodes), or None."""
    state, stack = {}, []
    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph.get(n, ())):
            if state.get(m) == 1:
                return stack[stack.index(m):] + [m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None
    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None

# 1. includes inside core/
includes = {f: set() for f in core}
for f in core:
    folder = f.split("/")[0]
    if folder not in FLOORS:
        defects.append(f"core/{f}: folder '{folder}' is not a floor")
        continue
    with open(os.path.join(src, "core", f)) as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            t = m.group(1)
            where = f"core/{f}:{n}"
            if t not in known:
                defects.append(f"{where}: includes \"{t}\", not a core file named by its folder")
                continue
            tfolder = t.split("/")[0]
            if not may_see(folder, tfolder):
                defects.append(f"{where}: {folder}/ includes {t}, a floor it may not see")
            if t in PRIVATE and PRIVATE[t] != folder:
                defects.append(f"{where}: includes {t}, private to {PRIVATE[t]}/")
            includes[f].add(t)
c = cycle(includes)
if c:
    defects.append("include circle: " + " -> ".join(c))

# 2. nobody outside a private header's folder includes it
outside = glob.glob(os.path.join(src, "lua", "*.[ch]")) + \
          glob.glob(os.path.join(src, "tests", "*", "*.[ch]"))
private_names = {os.path.basename(p): p for p in PRIVATE}
for path in sorted(outside):
    with open(path) as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if m and (m.group(1) in PRIVATE or m.group(1) in private_names):
                defects.append(f"{os.path.relpath(path, src)}:{n}: includes the private "
                               f"header {m.group(1)}")

# 3. the call graph of lbcore's objects
by_base = {}
for f in core:
    if f.endswith(".c"):
        by_base.setdefault(os.path.basename(f) + ".o", []).append(f)
for b, fs in by_base.items():
    if len(fs) > 1:
        defects.append(f"{' and '.join(fs)}: one object name for two files")
defined, wanted = {}, {}
with open(nmout) as fh:
    for line in fh:
        parts = line.split(":", 2)
        if len(parts) < 3:
            continue
        obj = parts[1]
        fields = parts[2].split()
        if len(fields) == 3 and fields[1] in "TW":
            defined[fields[2]] = obj
        elif len(fields) == 2 and fields[0] == "U":
            wanted.setdefault(obj, set()).add(fields[1])
calls = {}
for obj, syms in wanted.items():
    for s in syms:
        to = defined.get(s)
        if to and to != obj and obj in by_base and to in by_base:
            a, b = by_base[obj][0], by_base[to][0]
            calls.setdefault(a, set()).add(b)
            if not may_see(a.split("/")[0], b.split("/")[0]):
                defects.append(f"core/{a}: calls {s} of core/{b}, a floor it may not see")
c = cycle(calls)
if c:
    defects.append("call circle: " + " -> ".join(c))
if not calls:
    defects.append(f"no calls read from the objects of lbcore: nm gave nothing useful")

for d in defects:
    print("FAIL:", d, file=sys.stderr)
narrows = sum(len(v) for v in includes.values())
ncalls = sum(len(v) for v in calls.values())
print(f"{len(core)} files, {narrows} include arrows, {ncalls} call arrows between "
      f"{len(calls)} objects: {len(defects)} defects")
sys.exit(1 if defects else 0)
PY
