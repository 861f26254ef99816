"""Checks the result tests/hosts/who.lua wrote: one host row per rank with
N distinct hostnames lbhost1..N, rows that add up to the cluster's I/Os and
bytes, and each row's bytes equal to its file's size on the shared
directory.  Host rows name their counts as a result does (total_ios, io_bytes).

    python3 rows.py RESULT.json SHARED_DIR N [OTHER_RESULT.json]

With OTHER_RESULT.json (the same run under another launcher), the two
results must be equal."""
import json
import os
import sys


def check(path, share, n):
    d = json.load(open(path))
    rows = d["hosts"]
    names = sorted(h["hostname"] for h in rows)
    assert names == ["lbhost%d" % i for i in range(1, n + 1)], names
    assert sorted(h["rank"] for h in rows) == list(range(n)), rows
    assert sum(h["total_ios"] for h in rows) == d["total_ios"], (rows, d["total_ios"])
    assert sum(h["io_bytes"] for h in rows) == d["io_bytes"], (rows, d["io_bytes"])
    assert d["io_bytes"] == sum(range(1, n + 1)) << 20, d["io_bytes"]
    for h in rows:
        on_disk = os.path.getsize(os.path.join(share, "w." + h["hostname"]))
        assert h["io_bytes"] == on_disk == (h["rank"] + 1) << 20, (h, on_disk)
    return d


def merged(d):
    """What two launchers must agree on: the totals and the rows' counts."""
    rows = sorted((h["rank"], h["hostname"], h["total_ios"], h["io_bytes"]) for h in d["hosts"])
    return d["total_ios"], d["io_bytes"], rows


if __name__ == "__main__":
    doc = check(sys.argv[1], sys.argv[2], int(sys.argv[3]))
    if len(sys.argv) > 4:
        other = json.load(open(sys.argv[4]))
        assert merged(doc) == merged(other), (merged(doc), merged(other))
