"""Peak memory of ``concomp.read_graph`` on a compressed text graph (issue 20, item 11).

Writes a highly compressible SNAP edge list, or with ``--format metis`` a METIS file of a
long cycle (``--mb`` MB decompressed), as ``.gz``, then
reads it in a fresh interpreter per measurement and reports the growth of the peak
resident set (``ru_maxrss``) over the interpreter's peak after a warm-up read of a tiny
file (imports and numba compilation), next to the size of the arrays produced.

``--src`` points at another checkout's ``src`` folder to measure it the same way (for
a before/after comparison, e.g. ``git archive <commit> src | tar -x -C /tmp/old``).

    PYTHONPATH=src python benchmarks/bench_io_memory.py --mb 200 \
        --out benchmarks/results/io_memory_cpu.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import subprocess
import sys
import tempfile

CHILD = r"""
import resource, sys, json
import numpy as np
import concomp
small, big = sys.argv[1], sys.argv[2]
concomp.read_graph(small)  # imports and numba compilation, outside the measurement
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
g = concomp.read_graph(big)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
arrays = g.csr()[:2] if sys.argv[3] == "metis" else g.coo()  # what the reader produced
print(json.dumps({"base_kib": base, "peak_kib": peak, "edges": int(g.num_edges),
                  "array_bytes": int(sum(a.nbytes for a in arrays))}))
"""


def write_file(path: str, mb: int) -> int:
    """A SNAP body of ``mb`` MB: the same ~25 KB of edge lines repeated (inside gzip's
    32 KB window, so the file compresses several hundred times, like the issue's
    675 KB file that expands to 200 MB)."""
    lines = b"".join(b"%d\t%d\n" % (i, (i * 7919 + 1) % 100000) for i in range(2000))
    reps = max(1, (mb << 20) // len(lines))
    with gzip.open(path, "wb", compresslevel=9) as f:
        for _ in range(reps):
            f.write(lines)
    return reps * len(lines)


def write_metis(path: str, mb: int) -> int:
    """A METIS file of a cycle through ``n`` vertices, ``mb`` MB of vertex lines."""
    n = max(3, (mb << 20) // 16)
    with gzip.open(path, "wb", compresslevel=1) as f:
        f.write(b"%d %d\n" % (n, n))
        step = 1 << 16
        for lo in range(1, n + 1, step):
            v = range(lo, min(lo + step, n + 1))
            f.write(b"".join(b"%d %d\n" % ((x - 2) % n + 1, x % n + 1) for x in v))
    return os.path.getsize(path)


def measure(src_dir: str, small: str, big: str, fmt: str) -> dict:
    env = dict(os.environ, PYTHONPATH=src_dir)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, small, big, fmt],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mb", type=int, default=200, help="decompressed size in MB")
    ap.add_argument(
        "--src",
        action="append",
        default=None,
        help="src folder(s) to measure (default: this checkout's src)",
    )
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--format", choices=("snap", "metis"), default="snap")
    ap.add_argument("--out", default=None, help="write the results as JSON here")
    args = ap.parse_args()
    here = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    srcs = args.src or [here]
    with tempfile.TemporaryDirectory() as tmp:
        metis = args.format == "metis"
        big = os.path.join(tmp, "big.graph.gz" if metis else "big.txt.gz")
        small = os.path.join(tmp, "small.graph" if metis else "small.txt")
        with open(small, "w") as f:
            f.write("3 3\n2 3\n1 3\n1 2\n" if metis else "0 1\n1 2\n")
        if metis:
            write_metis(big, args.mb)
            with gzip.open(big, "rb") as f:
                raw = sum(len(b) for b in iter(lambda: f.read(1 << 24), b""))
        else:
            raw = write_file(big, args.mb)
        results = []
        for s in srcs:
            runs = [measure(s, small, big, args.format) for _ in range(args.repeat)]
            growth = sorted((r["peak_kib"] - r["base_kib"]) * 1024 for r in runs)
            row = {
                "format": args.format,
                "src": s,
                "decompressed_bytes": raw,
                "compressed_bytes": os.path.getsize(big),
                "edges": runs[0]["edges"],
                "array_bytes": runs[0]["array_bytes"],
                "peak_growth_bytes_median": growth[len(growth) // 2],
                "peak_growth_bytes_all": growth,
            }
            row["peak_over_decompressed"] = row["peak_growth_bytes_median"] / raw
            row["peak_over_arrays"] = row["peak_growth_bytes_median"] / row["array_bytes"]
            results.append(row)
            print(json.dumps(row))
    doc = {
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
        },
        "results": results,
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
