"""CPU connected components: concomp's CPU engine against SciPy, side by side in one run.

    PYTHONPATH=src python benchmarks/bench_cpu_cc.py [--scale 22] [--reps 5] [--out DIR]

Graphs: R-MAT scale 22, edge factor 16 (cleaned, symmetric CSR; both engines get the
same arrays already in memory) and the road graphs of ``../shared/data/real/``.
Medians of ``--reps`` runs (SciPy: fewer on the large graph, it is slow) with
``time.perf_counter``, after a warm-up that also compiles the numba kernels.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import concomp
from concomp import generators
from concomp.io import read_graph

REAL = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"
ROADS = [
    "road_usa-NY_pace.gr.xz",
    "road_usa-BAY_pace.gr.xz",
    "road_usa-COL_pace.gr.xz",
    "road_usa-FLA_pace.gr.xz",
    "road_usa-NW_pace.gr.xz",
    "road_luxembourg-osm.mtx.gz",
    "road_tiger-VT_dimacs.gr.gz",
]


def median_time(fn, reps: int) -> float:
    fn()
    out = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return statistics.median(out) * 1e3


def scipy_matrix(g: concomp.Graph) -> sp.csr_matrix:
    indptr, indices, _ = g.csr()
    return sp.csr_matrix(
        (np.ones(indices.shape[0], np.int8), indices, indptr), shape=(g.num_nodes, g.num_nodes)
    )


def bench(name: str, g: concomp.Graph, reps: int, scipy_reps: int) -> dict:
    a = scipy_matrix(g)
    t_scipy = median_time(lambda: scipy_cc(a, directed=True, connection="weak"), scipy_reps)
    t_ours = median_time(lambda: concomp.connected_components(g, device="cpu"), reps)
    n_ref = scipy_cc(a, directed=True, connection="weak")[0]
    n_ours = concomp.connected_components(g, device="cpu")[0]
    assert n_ref == n_ours, (name, n_ref, n_ours)
    from concomp._cpu.components import auto_variant
    from concomp.options import DEFAULTS

    row = {
        "graph": name,
        "n": g.num_nodes,
        "entries": int(a.nnz),
        "components": int(n_ours),
        "variant": str(auto_variant(g, DEFAULTS)),
        "scipy_ms": t_scipy,
        "concomp_cpu_ms": t_ours,
        "speedup": t_scipy / t_ours,
    }
    print(
        f"{name:32s} n={g.num_nodes:>9,} nnz={a.nnz:>11,} scipy {t_scipy:9.1f} ms  concomp "
        f"{t_ours:8.1f} ms  x{t_scipy / t_ours:5.1f}  ({row['variant']})",
        flush=True,
    )
    return row


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results"))
    args = ap.parse_args(argv)
    rows = []
    g = generators.rmat(args.scale, 16, seed=1)
    rows.append(bench(f"rmat{args.scale}", g, args.reps, scipy_reps=2))
    del g
    for f in ROADS:
        if (REAL / f).exists():
            # the road files list each edge once: the engines see the same CSR
            rows.append(bench(f, read_graph(REAL / f), args.reps, args.reps))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cpu_cc.json").write_text(
        json.dumps({"machine": "2-core CI-class VM", "rows": rows}, indent=1)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
