"""Wang et al.'s GPU Prim against CPU Prim on the paper's random graphs.

Wang, Huang and Guo (2011) time Prim's algorithm on GTgraph random graphs of 2^7 to
2^14 vertices with twice as many edges and integer weights 1..1000, on the GPU with
and without their min-reduction primitive and on the CPU (BGL). This script times, on
uniform random graphs G(n, 2n) with seeded integer weights 1..1000 and n = 2^7 ..
2^``--max-scale``:

- ``gpu_prim``: ``minimum_spanning_forest(g, algorithm="prim")`` on a device graph
  (concomp's GPU Prim: one tree at a time, each step a min-reduction over candidates);
- ``gpu_auto``: the same call with ``algorithm="auto"`` (Borůvka on the GPU);
- ``cpu_prim``: ``algorithm="prim"`` on the CPU engine (binary heap), host graph;
- ``cpu_auto``: the CPU engine's ``auto`` (Kruskal).

concomp has no GPU Prim without the min-reduction, so the paper's third curve has no
counterpart here. Medians of ``--reps`` runs after a warm-up (CUDA events on the GPU,
perf_counter on the CPU); all four must agree on the forest's weight. Writes JSON.

    PYTHONPATH=src python benchmarks/bench_prim.py --out prim.json [--max-scale 16]
"""

from __future__ import annotations

import argparse
import json
import platform
from pathlib import Path

import numpy as np

from concomp.bench.results import source_commit
from concomp.bench.timing import measure


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--min-scale", type=int, default=7)
    ap.add_argument("--max-scale", type=int, default=16)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--no-gpu", action="store_true", help="CPU columns only")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    import concomp
    from concomp.generators import gnm

    gpu = not args.no_gpu
    rows = []
    for scale in range(args.min_scale, args.max_scale + 1):
        n = 1 << scale
        host = gnm(n, 2 * n, seed=scale)
        src, dst = host.coo()
        keep = src < dst  # each undirected edge once, one weight
        src, dst = src[keep], dst[keep]
        w = np.random.default_rng(scale).integers(1, 1001, size=src.shape[0]).astype(np.float64)
        hg = concomp.Graph.from_edges(src, dst, n, weights=w)
        row: dict = {"n": n, "m": int(src.shape[0])}
        calls = {
            "cpu_prim": (hg, "prim", "cpu"),
            "cpu_auto": (hg, "auto", "cpu"),
        }
        if gpu:
            import cupy as cp

            su, sv, sw = cp.asarray(src), cp.asarray(dst), cp.asarray(w)
            dg = concomp.Graph.from_edges(su, sv, n, weights=sw)
            calls["gpu_prim"] = (dg, "prim", "gpu")
            calls["gpu_auto"] = (dg, "auto", "gpu")
        weights = {}
        for name, (g, algo, dev) in calls.items():

            def fn(g=g, a=algo, d=dev):
                return concomp.minimum_spanning_forest(g, algorithm=a, device=d)

            weights[name] = float(fn().total_weight)
            row[name + "_ms"] = measure(fn, device=dev, reps=args.reps).median_ms
        if len(set(weights.values())) != 1:
            raise SystemExit(f"n={n}: forest weights differ: {weights}")
        row["msf_weight"] = next(iter(weights.values()))
        if gpu:
            row["cpu_prim_over_gpu_prim"] = row["cpu_prim_ms"] / row["gpu_prim_ms"]
        rows.append(row)
        print(json.dumps(row), flush=True)
    doc = {
        "benchmark": "bench_prim",
        "commit": source_commit(),
        "machine": platform.node(),
        "reps": args.reps,
        "rows": rows,
    }
    args.out.write_text(json.dumps(doc, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
