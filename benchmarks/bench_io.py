"""Benchmark: SNAP edge-list parsing speed of :func:`concomp.io.read_graph`.

Writes a SNAP file of random edges (10 M by default) to a temporary directory,
reads it once to compile the numba scanner, then times ``read_graph`` (median of
5, ``time.perf_counter``) and reports million edges per second. The result goes
to ``benchmarks/results/io.json``.

Run ``python benchmarks/bench_io.py [--edges N] [--repeats R]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
from pathlib import Path

import numpy as np

from concomp.bench.timing import measure
from concomp.io import read_graph, write_graph


def make_file(directory: str, m: int, n: int, weights: str, seed: int = 0) -> str:
    """Write ``m`` random edges on ``n`` vertices as SNAP text.

    ``weights`` is ``"none"``, ``"int"`` (1..999), ``"float"`` (three decimals, like
    ``12.345``: converted inside the scanner) or ``"float17"`` (random doubles written
    with up to 17 significant digits: too long for the scanner's exact fast path, so
    NumPy's string-to-float cast converts them).
    """
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n, m, dtype=np.int64)
    dst = rng.integers(0, n, m, dtype=np.int64)
    w = {
        "none": None,
        "int": lambda: rng.integers(1, 1000, m, dtype=np.int64),
        "float": lambda: np.round(rng.random(m) * 100, 3),
        "float17": lambda: rng.random(m),
    }[weights]
    w = w() if w is not None else None
    path = os.path.join(directory, f"random_{weights}.txt")
    write_graph((src, dst) if w is None else (src, dst, w), path, format="snap")
    return path


def time_read(path: str, repeats: int) -> list[float]:
    # the warm-up run compiles numba (or loads its cache) and fills the page cache
    return [x / 1e3 for x in measure(lambda: read_graph(path), reps=repeats).times_ms]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edges", type=int, default=10_000_000)
    ap.add_argument("--nodes", type=int, default=5_000_000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument(
        "--weights",
        nargs="+",
        default=["none", "int", "float", "float17"],
        choices=["none", "int", "float", "float17"],
    )
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "io.json"))
    args = ap.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for weights in args.weights:
            path = make_file(tmp, args.edges, args.nodes, weights)
            size = os.path.getsize(path)
            times = time_read(path, args.repeats)
            med = statistics.median(times)
            row = {
                "format": "snap",
                "weights": weights,
                "edges": args.edges,
                "nodes": args.nodes,
                "file_bytes": size,
                "median_s": med,
                "times_s": times,
                "medges_per_s": args.edges / med / 1e6,
                "mbytes_per_s": size / med / 1e6,
            }
            rows.append(row)
            print(
                f"snap, weights={weights:7s} {args.edges:,} edges "
                f"({size / 1e6:.0f} MB): median {med * 1e3:.0f} ms = "
                f"{row['medges_per_s']:.1f} M edges/s ({row['mbytes_per_s']:.0f} MB/s)"
            )
    result = {
        "benchmark": "read_graph SNAP text",
        "machine": platform.machine(),
        "cpus": os.cpu_count(),
        "load_avg_1min": os.getloadavg()[0],
        "python": platform.python_version(),
        "numpy": np.__version__,
        "results": rows,
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
