"""CPU minimum spanning forest: concomp's engines against SciPy on the same graphs.

Run from the repository root::

    PYTHONPATH=src python benchmarks/bench_msf.py [--repeats 5] [--quick] [--out FILE.json]

Graphs (plain NumPy, fixed seeds): a 1024 x 1024 grid and a uniform random graph
with 2^20 vertices and average degree 8 (4,194,304 edges, self loops and
duplicates kept), both with uniform integer weights in [0, 1e6]. Each engine is
timed with ``time.perf_counter`` as the median of ``--repeats`` runs after a
warm-up (numba compiles on the first call): concomp gets a validated
:class:`concomp.Graph` (edge list), SciPy gets a CSR array built beforehand
entry by entry (so it neither sums duplicates nor sees a stored zero: weights
are shifted by +1 for it, which moves every forest's weight equally). SciPy and
concomp run interleaved, one repeat each in turn, so that other load on the
machine hits both alike. The table gives each time and SciPy / concomp. NetworkX
(pure Python, a MultiGraph so parallel edges compete too) joins on two small graphs
(a 128 x 128 grid, 16,384 vertices of degree 8); every engine's forest weight is
checked against SciPy's and NetworkX's.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import numba
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

from concomp.graph import Graph
from concomp.msf import minimum_spanning_forest


def grid(k: int, rng) -> tuple:
    idx = np.arange(k * k, dtype=np.int32).reshape(k, k)
    s = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    d = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return s, d, rng.integers(0, 1_000_001, s.size), k * k


def random_graph(n: int, avg_degree: int, rng) -> tuple:
    m = n * avg_degree // 2
    return (
        rng.integers(0, n, m, dtype=np.int32),
        rng.integers(0, n, m, dtype=np.int32),
        rng.integers(0, 1_000_001, m),
        n,
    )


def scipy_csr(s, d, w, n) -> sp.csr_array:
    order = np.argsort(s, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(s, minlength=n))])
    return sp.csr_array(((w + 1.0)[order], d[order], indptr), shape=(n, n))


def networkx_graph(s, d, w, n):
    """A NetworkX MultiGraph of the same edges (parallel edges kept), or None."""
    try:
        import networkx as nx
    except ImportError:
        return None
    G = nx.MultiGraph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(s.tolist(), d.tolist(), w.tolist()))
    return G


def bench_graph(
    name: str, graph: tuple, repeats: int, algorithms: tuple[str, ...], with_networkx: bool = False
) -> dict:
    s, d, w, n = graph
    g = Graph.from_edges(s, d, n, weights=w)
    A = scipy_csr(s, d, w, n)
    runs = {"scipy": lambda: minimum_spanning_tree(A)}
    G = networkx_graph(s, d, w, n) if with_networkx else None
    if G is not None:
        import networkx as nx

        runs["networkx"] = lambda: nx.minimum_spanning_tree(G)  # Kruskal, pure Python
    for a in algorithms:
        runs[a] = lambda a=a: minimum_spanning_forest(g, algorithm=a, device="cpu")
    for fn in runs.values():
        fn()  # warm-up: numba compilation, CSR caches
    times: dict[str, list[float]] = {k: [] for k in runs}
    for _ in range(repeats):
        for label, fn in runs.items():
            t0 = time.perf_counter()
            fn()
            times[label].append(time.perf_counter() - t0)
    med = {k: statistics.median(v) for k, v in times.items()}
    forest = minimum_spanning_forest(g, device="cpu")
    tree = minimum_spanning_tree(A)
    assert forest.num_edges == tree.nnz
    assert forest.total_weight == round(tree.sum()) - tree.nnz  # undo SciPy's +1 shift
    if G is not None:
        import networkx as nx

        nx_tree = nx.minimum_spanning_tree(G)
        assert nx_tree.size(weight="weight") == forest.total_weight
    return {
        "graph": name,
        "n": n,
        "m": int(s.size),
        "median_s": med,
        "speedup_vs_scipy": {k: med["scipy"] / v for k, v in med.items() if k != "scipy"},
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="graphs 16x smaller")
    ap.add_argument("--out", help="write the results as JSON here")
    args = ap.parse_args()
    rng = np.random.default_rng(0)
    k, n = (256, 1 << 16) if args.quick else (1024, 1 << 20)
    graphs = {f"grid{k}": grid(k, rng), f"random_n{n}_deg8": random_graph(n, 8, rng)}
    rows = [
        bench_graph(name, g, args.repeats, ("kruskal", "boruvka", "prim"))
        for name, g in graphs.items()
    ]
    # NetworkX (pure Python) side by side on small graphs only
    small = {"grid128": grid(128, rng), "random_n16384_deg8": random_graph(1 << 14, 8, rng)}
    rows += [
        bench_graph(name, g, args.repeats, ("kruskal", "boruvka", "prim"), with_networkx=True)
        for name, g in small.items()
    ]
    print(
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, numba "
        f"{numba.__version__} threads={numba.get_num_threads()}; median of {args.repeats}"
    )
    print(
        f"{'graph':22s} {'m':>10s} {'SciPy s':>8s} "
        + " ".join(f"{a + ' s':>10s} {'x':>5s}" for a in ("kruskal", "boruvka", "prim"))
    )
    for r in rows:
        t, x = r["median_s"], r["speedup_vs_scipy"]
        print(
            f"{r['graph']:22s} {r['m']:>10,d} {t['scipy']:>8.3f} "
            + " ".join(f"{t[a]:>10.3f} {x[a]:>5.1f}" for a in ("kruskal", "boruvka", "prim"))
            + (
                f"  NetworkX {t['networkx']:.3f} s (Kruskal {t['networkx'] / t['kruskal']:.0f}x "
                "faster)"
                if "networkx" in t
                else ""
            )
        )
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
