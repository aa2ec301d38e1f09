"""The CPU ``auto`` rule's degree threshold: unsampled Rem on the edge list against k-out
sampling on the CSR, for components and spanning forests, around the threshold.

For each corpus graph (prebuilt, the public calls with ``device="cpu"``): the average
degree of the undirected graph, the variant ``auto`` picks, and the medians of
``--reps`` calls after a warm-up of ``connected_components`` and ``spanning_forest``
with ``algorithm=`` each candidate. The graphs default to 2-D grids (degree 4, natural
and permuted ids), a Delaunay triangulation (6) and a k-nearest-neighbour graph (7).

Usage::

    PYTHONPATH=src python benchmarks/bench_cpu_auto_degree.py \\
        --out benchmarks/results/<date>-cpu-<commit>-auto-degree.json
"""

from __future__ import annotations

import argparse
import datetime
from pathlib import Path

import concomp
from concomp._cpu.components import auto_variant
from concomp.bench.results import machine, source_commit, write
from concomp.bench.timing import measure
from concomp.generators.corpus import CORPUS
from concomp.options import DEFAULTS

CANDIDATES = ("none-rem_cas-splice-coo", "kout-async-halve-csr")
GRAPHS = ("grid2d-natural", "gridp4k", "delaunay", "knn2d")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    rows = []
    for name in args.graphs:
        g = CORPUS[name].build()
        degree = (1.0 if g.symmetric else 2.0) * g.num_edges / max(g.num_nodes, 1)
        row = {
            "graph": name,
            "num_nodes": g.num_nodes,
            "num_edges_stored": g.num_edges,
            "degree": degree,
            "auto": str(auto_variant(g, DEFAULTS)),
            "median_ms": {},
        }
        for what, call in (
            ("components", concomp.connected_components),
            ("forest", concomp.spanning_forest),
        ):
            for variant in CANDIDATES:
                t = measure(
                    lambda c=call, v=variant: c(g, device="cpu", algorithm=v), reps=args.reps
                )
                row["median_ms"][f"{what}/{variant}"] = t.median_ms
                print(
                    f"{name:16s} {degree:5.2f} {what:10s} {variant:26s} {t.median_ms:9.1f} ms",
                    flush=True,
                )
        rows.append(row)
    write(
        {
            "benchmark": "bench_cpu_auto_degree",
            "date": datetime.date.today().isoformat(),
            "commit": source_commit(),
            "machine": machine("cpu"),
            "reps": args.reps,
            "candidates": list(CANDIDATES),
            "rows": rows,
        },
        args.out,
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
