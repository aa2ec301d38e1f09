"""Benchmark: graph generator speed of :mod:`concomp.generators`.

Times (median of ``--repeats`` after a numba warm-up, ``time.perf_counter``; on the GPU
with a device synchronise before each clock read):

* R-MAT raw generation, scale 22, edge factor 16 (``rmat(22, clean=False)``: the
  ``m = 2**26`` edges as a validated edge-list Graph), in million edges per second;
* the full cleaned ``rmat22`` build (symmetrised, self loops and duplicates removed,
  symmetric CSR) and, once each, the other benchmark graphs of ``reference-numbers.md``
  (``er22``, ``cong22``, ``gridp4k``) with their undirected edge counts beside the
  reference generator's.

Prints a table and writes ``benchmarks/results/generators.json`` (or ``--out``).

Run ``python benchmarks/bench_generators.py [--scale 22] [--repeats 5] [--device cpu]``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import time
from pathlib import Path

import numba
import numpy as np

from concomp import generators

# undirected edge counts of the reference generator (reference-numbers.md)
REFERENCE_EDGES = {
    "rmat22": 64_155_637,
    "er22": 67_108_602,
    "gridp4k": 33_546_240,
    "cong22": 67_054_408,
}


def _sync(device: str) -> None:
    if device == "gpu":
        import cupy

        cupy.cuda.Device().synchronize()


def timed(fn, device: str, repeats: int) -> tuple[list[float], list[float], object]:
    """Wall times and process CPU times (all threads) of ``repeats`` calls of ``fn``,
    and the last result. CPU time / wall time shows how many cores the run really got."""
    times, cpu, out = [], [], None
    for _ in range(repeats):
        out = None  # free the previous graph before building the next
        _sync(device)
        t0, c0 = time.perf_counter(), time.process_time()
        out = fn()
        _sync(device)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return times, cpu, out


def row(
    case: str,
    times: list[float],
    cpu: list[float],
    edges: int,
    generated: int,
    reference: int | None = None,
) -> dict:
    wall = statistics.median(times)
    # the minimum estimates the uncontended speed where other processes share the cores
    return {
        "case": case,
        "median_s": wall,
        "min_s": min(times),
        "times_s": times,
        "median_cpu_s": statistics.median(cpu),
        "cpu_s": cpu,
        "edges": edges,
        "generated_edges": generated,
        "medges_per_s": generated / wall / 1e6,
        "medges_per_s_best": generated / min(times) / 1e6,
        "reference_edges": reference,
    }


def peak_rss_gib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu"])
    ap.add_argument("--no-suite", action="store_true", help="skip er22, cong22, gridp4k")
    ap.add_argument(
        "--out", default=str(Path(__file__).resolve().parent / "results" / "generators.json")
    )
    args = ap.parse_args()
    dev, scale, ef, reps = args.device, args.scale, args.edge_factor, args.repeats
    generators.rmat(10, seed=0, device=dev)  # warm-up: numba compile / cache load, CuPy init
    generators.rmat(10, seed=0, clean=False, device=dev)

    rows = []
    m = ef << scale
    t, c, g = timed(lambda: generators.rmat(scale, ef, seed=1, clean=False, device=dev), dev, reps)
    rows.append(row(f"rmat{scale} raw edge list", t, c, m, m))
    del g
    t, c, g = timed(lambda: generators.rmat(scale, ef, seed=0, device=dev), dev, reps)
    rows.append(
        row(
            f"rmat{scale} cleaned CSR",
            t,
            c,
            g.num_edges // 2,
            m,
            REFERENCE_EDGES.get(f"rmat{scale}"),
        )
    )
    del g
    if not args.no_suite and scale == 22 and ef == 16:
        for name in ("er22", "cong22", "gridp4k"):
            t, c, g = timed(lambda name=name: generators.suite(name, device=dev), dev, 1)
            und = g.num_edges // 2
            rows.append(
                row(
                    f"{name} cleaned CSR",
                    t,
                    c,
                    und,
                    und if name == "gridp4k" else m,
                    REFERENCE_EDGES[name],
                )
            )
            del g

    load = os.getloadavg()[0]  # other processes on a small machine skew CPU timings
    print(
        f"device={dev}  cpus={os.cpu_count()}  numba threads={numba.get_num_threads()}  "
        f"repeats={reps}  load average {load:.1f}"
    )
    print(
        f"{'case':<26} {'median s':>9} {'min s':>7} {'cpu s':>7} {'M edges/s':>10} "
        f"{'best':>7} {'edges':>12} {'reference':>12}"
    )
    for r in rows:
        ref = r["reference_edges"]
        print(
            f"{r['case']:<26} {r['median_s']:>9.3f} {r['min_s']:>7.3f} "
            f"{r['median_cpu_s']:>7.2f} {r['medges_per_s']:>10.1f} "
            f"{r['medges_per_s_best']:>7.1f} {r['edges']:>12,} "
            f"{'-' if ref is None else format(ref, ','):>12}"
        )
    print(
        f"peak RSS {peak_rss_gib():.2f} GiB. M edges/s = generated edges / median wall s "
        "(best: / min s); edges = undirected edges after cleaning; cpu s = median process "
        "CPU time, all threads."
    )

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(
        json.dumps(
            {
                "benchmark": "generators",
                "device": dev,
                "scale": scale,
                "edge_factor": ef,
                "repeats": reps,
                "cpu_count": os.cpu_count(),
                "numba_threads": numba.get_num_threads(),
                "machine": platform.machine(),
                "python": platform.python_version(),
                "numpy": np.__version__,
                "numba": numba.__version__,
                "peak_rss_gib": peak_rss_gib(),
                "load_average_1min": load,
                "rows": rows,
            },
            indent=2,
        )
        + "\n"
    )
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
