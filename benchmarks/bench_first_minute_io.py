"""I/O at library speed: gzip read/write (ISA-L against the standard library), METIS read
with its symmetry check, labels and float weights written as text.

CPU only; medians of ``--repeats`` runs (>= 5) after one untimed run that compiles the
numba kernels. The ``.gz`` read runs in ``--read-rounds`` rounds of ISA-L then the
standard library, and its speed-up is the median of the rounds' ratios. Writes
``benchmarks/results/<date>-cpu-<commit>-io.json``.

    python benchmarks/bench_first_minute_io.py [--edges 10000000] [--repeats 5]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import concomp
from concomp.bench.timing import measure
from concomp.cli._common import write_labels
from concomp.io import _files, read_graph, write_graph
from concomp.io._emit import float_tokens

ROOT = Path(__file__).resolve().parents[1]


def _median(fn: Callable[[], object], repeats: int) -> dict:
    t = measure(fn, reps=repeats)
    return {"median_s": t.median_ms / 1e3, "runs_s": [x / 1e3 for x in t.times_ms]}


def _with_backend(backend: str, fn: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        saved = _files._isal_gzip
        if backend == "stdlib":
            _files._isal_gzip = lambda: None
        try:
            return fn()
        finally:
            _files._isal_gzip = saved

    return run


def bench_gzip(tmp: Path, m: int, repeats: int, read_rounds: int) -> dict:
    g = concomp.generators.gnm(max(m // 8, 2), m, clean=False, seed=1)
    src, dst = g.coo()
    out: dict = {"edges": m}
    for backend in ("isal", "stdlib"):
        path = tmp / f"{backend}.txt.gz"
        write = _with_backend(backend, lambda p=path: write_graph((src, dst), p))
        out[f"write_{backend}"] = _median(write, repeats)
        out[f"write_{backend}"]["bytes"] = path.stat().st_size
    read_path = tmp / "stdlib.txt.gz"  # the same file for both readers
    # rounds of (ISA-L, stdlib) so that load from other processes falls on both alike;
    # the speed-up is the median of the rounds' ratios
    rounds: list[dict] = []
    for _ in range(read_rounds):
        rounds.append(
            {
                backend: _median(_with_backend(backend, lambda: read_graph(read_path)), repeats)
                for backend in ("isal", "stdlib")
            }
        )
    for backend in ("isal", "stdlib"):
        runs = [x for r in rounds for x in r[backend]["runs_s"]]
        out[f"read_{backend}"] = {"median_s": statistics.median(runs), "runs_s": runs}
    ratios = [r["stdlib"]["median_s"] / r["isal"]["median_s"] for r in rounds]
    out["read_speedup_rounds"] = ratios
    out["read_speedup"] = statistics.median(ratios)
    out["write_speedup"] = out["write_stdlib"]["median_s"] / out["write_isal"]["median_s"]
    return out


def bench_metis(tmp: Path, entries: int, repeats: int) -> dict:
    g = concomp.generators.gnm(max(entries // 20, 2), entries // 2, seed=1)
    path = tmp / "g.graph"
    write_graph(g, path)
    got = read_graph(path)
    assert got.symmetric
    return {
        "entries": int(got.num_edges),
        "bytes": path.stat().st_size,
        "read": _median(lambda: read_graph(path), repeats),
    }


def bench_text(tmp: Path, n: int, repeats: int) -> dict:
    rng = np.random.default_rng(1)
    labels = rng.integers(0, n, n).astype(np.int32)
    weights = rng.random(n)
    path = tmp / "labels.txt"
    return {
        "values": n,
        "labels_txt": _median(lambda: write_labels(labels, str(path)), repeats),
        "float_tokens": _median(lambda: float_tokens(weights), repeats),
    }


def _commit() -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return out.stdout.strip() or "unknown"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--edges", type=int, default=10_000_000, help="edges of the .gz file")
    p.add_argument("--metis-entries", type=int, default=20_000_000)
    p.add_argument("--labels", type=int, default=5_000_000)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--read-rounds", type=int, default=3, help="rounds of the .gz read A/B")
    p.add_argument("--out", type=Path)
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="concomp-io-") as d:
        tmp = Path(d)
        result = {
            "date": time.strftime("%Y-%m-%d"),
            "commit": _commit(),
            "cpus": os.cpu_count(),
            "python": sys.version.split()[0],
            "load_average_before": list(os.getloadavg()),
            "gzip": bench_gzip(tmp, args.edges, args.repeats, args.read_rounds),
            "metis": bench_metis(tmp, args.metis_entries, args.repeats),
            "text": bench_text(tmp, args.labels, args.repeats),
            "load_average_after": list(os.getloadavg()),
        }
    out = args.out or ROOT / "benchmarks" / "results" / (
        f"{result['date']}-cpu-{result['commit']}-io.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    gz, me, tx = result["gzip"], result["metis"], result["text"]
    print(f"wrote {out}")
    for k in ("read_isal", "read_stdlib", "write_isal", "write_stdlib"):
        extra = f"  {gz[k]['bytes']} bytes" if "bytes" in gz[k] else ""
        print(f"gzip {k:<14}{gz[k]['median_s']:8.3f} s{extra}")
    rounds = ", ".join(f"{x:.2f}" for x in gz["read_speedup_rounds"])
    print(
        f"gzip read speed-up {gz['read_speedup']:.2f}x (rounds {rounds}), write "
        f"{gz['write_speedup']:.2f}x"
    )
    print(f"METIS read, {me['entries']} entries {me['read']['median_s']:8.3f} s")
    for k in ("labels_txt", "float_tokens"):
        print(f"{k:<18}{tx[k]['median_s']:8.3f} s  ({tx['values']} values)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
