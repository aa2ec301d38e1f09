"""The CPU ``auto`` rule: unsampled Rem on the edge list against k-out sampling on the
CSR (finished by Async with path halving or by Rem with splicing), for components and
spanning forests, around the degree threshold and above it.

For each corpus graph (prebuilt, the public calls with ``device="cpu"``): the average
degree of the undirected graph, the variants ``auto`` picks for components and for
forests, and for each candidate the median over ``--rounds`` of the medians of
``--reps`` calls after a warm-up of ``connected_components`` and ``spanning_forest``
with ``algorithm=`` that candidate (the candidates take turns within each round, so a
slow spell of the machine falls on all of them). The graphs default to 2-D grids
(degree 4, natural and permuted ids), a Delaunay triangulation (6), a
k-nearest-neighbour graph (7), a preferential-attachment graph (16) and R-MAT (16).

Usage::

    PYTHONPATH=src python benchmarks/bench_cpu_auto_degree.py \\
        --out benchmarks/results/<date>-cpu-<commit>-auto-degree.json
"""

from __future__ import annotations

import argparse
import datetime
import statistics
from pathlib import Path

import concomp
from concomp._cpu.components import auto_variant
from concomp.bench.results import machine, source_commit, write
from concomp.bench.timing import measure
from concomp.generators.corpus import CORPUS
from concomp.options import DEFAULTS

CANDIDATES = ("none-rem_cas-splice-coo", "kout-async-halve-csr", "kout-rem_cas-splice-csr")
GRAPHS = ("grid2d-natural", "gridp4k", "delaunay", "knn2d", "ba", "rmat22")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--rounds", type=int, default=3)
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
            "auto_forest": str(auto_variant(g, DEFAULTS, forest=True)),
            "round_medians_ms": {},
            "median_ms": {},
        }
        calls = (
            ("components", concomp.connected_components),
            ("forest", concomp.spanning_forest),
        )
        for _ in range(args.rounds):
            for what, call in calls:
                for variant in CANDIDATES:
                    t = measure(
                        lambda c=call, v=variant: c(g, device="cpu", algorithm=v), reps=args.reps
                    )
                    row["round_medians_ms"].setdefault(f"{what}/{variant}", []).append(t.median_ms)
        for key, medians in row["round_medians_ms"].items():
            row["median_ms"][key] = statistics.median(medians)
            print(f"{name:16s} {degree:5.2f} {key:40s} {row['median_ms'][key]:9.1f} ms", flush=True)
        rows.append(row)
    write(
        {
            "benchmark": "bench_cpu_auto_degree",
            "date": datetime.date.today().isoformat(),
            "commit": source_commit(),
            "machine": machine("cpu"),
            "reps": args.reps,
            "rounds": args.rounds,
            "candidates": list(CANDIDATES),
            "rows": rows,
        },
        args.out,
    )
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
