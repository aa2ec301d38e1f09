"""The benchmark suite behind ``concomp bench``: concomp against its peers, in one run.

Graphs are the suite of ``reference-numbers.md`` (rmat22, er22, gridp4k, cong22;
``quick=True`` gives scale-16 / 256x256 versions for machines without a GPU),
generated with fixed seeds. Each graph is timed, already in memory, with:

- concomp on the chosen device (CPU: ``time.perf_counter``; GPU: CUDA events around
  the call, graph already on the device, repeat calls replay a captured CUDA graph);
- SciPy (``scipy.sparse.csgraph.connected_components`` on the same CSR);
- NetworkX on graphs of at most :data:`NETWORKX_MAX_EDGES` edges;
- igraph and NetworKit when they are installed.

Every peer's component count is checked against concomp's. Medians of ``reps``
runs after one warm-up (which also compiles numba / NVRTC kernels).

The full GPU design-space sweep lives in ``benchmarks/bench_gpu_cc.py``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["run_suite", "SUITE", "NETWORKX_MAX_EDGES"]

SUITE = ("rmat22", "er22", "gridp4k", "cong22")
#: NetworkX builds Python objects per edge: beyond this it would dominate the run.
NETWORKX_MAX_EDGES = 2_000_000


def _median_ms(fn: Callable[[], Any], reps: int) -> float:
    fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def gpu_median_ms(fn: Callable[[], Any], reps: int = 5) -> float:
    """Median GPU time of ``fn`` in ms: CUDA events around each call, one warm-up call
    first (compiles kernels, captures CUDA graphs). The benchmark scripts use it too."""
    from ._gpu._compat import cupy_or_raise

    cupy = cupy_or_raise()
    fn()
    cupy.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def _host_edges(graph) -> tuple[np.ndarray, np.ndarray]:
    from ._arrays import to_numpy

    src, dst = graph.coo()
    return to_numpy(src), to_numpy(dst)


def _peers(graph, reps: int) -> dict[str, tuple[float, int]]:
    """``{peer: (median ms, components)}`` for every peer available here."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    src, dst = _host_edges(graph)
    n = graph.num_nodes
    a = sp.csr_matrix((np.ones(src.shape[0], np.int8), (src, dst)), shape=(n, n))
    out = {
        "scipy": (
            _median_ms(lambda: connected_components(a, directed=True, connection="weak"), reps),
            int(connected_components(a, directed=True, connection="weak")[0]),
        )
    }
    if src.shape[0] <= NETWORKX_MAX_EDGES and importlib.util.find_spec("networkx"):
        import networkx as nx

        g = nx.Graph()
        g.add_nodes_from(range(n))
        g.add_edges_from(zip(src.tolist(), dst.tolist()))
        out["networkx"] = (
            _median_ms(lambda: sum(1 for _ in nx.connected_components(g)), max(1, reps // 2)),
            nx.number_connected_components(g),
        )
    if importlib.util.find_spec("igraph"):
        import igraph

        ig = igraph.Graph(n=n, edges=np.column_stack([src, dst]).tolist(), directed=False)
        out["igraph"] = (
            _median_ms(lambda: ig.connected_components(), reps),
            len(ig.connected_components()),
        )
    if importlib.util.find_spec("networkit"):
        import networkit as nk

        gk = nk.GraphFromCoo(
            (np.ones(src.shape[0]), (src.astype(np.uint64), dst.astype(np.uint64))),
            n,
            weighted=False,
            directed=False,
        )

        def run_nk():
            cc = nk.components.ConnectedComponents(gk)
            cc.run()
            return cc.numberOfComponents()

        out["networkit"] = (_median_ms(run_nk, reps), run_nk())
    return out


def run_suite(
    graphs=SUITE,
    *,
    quick: bool = False,
    device: str = "cpu",
    reps: int = 5,
    peers: bool = True,
    algorithm: str = "auto",
) -> list[dict]:
    """Time concomp and its peers on the suite graphs; one row per (graph, engine).

    Examples
    --------
    >>> from concomp.benchsuite import run_suite
    >>> rows = run_suite(["gridp4k"], quick=True, reps=1, peers=False)
    >>> rows[0]["engine"], rows[0]["components"]
    ('concomp-cpu', 1)
    """
    from . import generators
    from .components import connected_components

    rows = []
    for name in graphs:
        g = generators.suite(name, quick=quick, device=device)
        count = connected_components(g, device=device, algorithm=algorithm, return_labels=False)
        call = lambda g=g: connected_components(g, device=device, algorithm=algorithm)  # noqa: E731
        ms = gpu_median_ms(call, reps) if device == "gpu" else _median_ms(call, reps)
        edges = g.num_edges // 2 if g.symmetric else g.num_edges  # undirected edges
        base = {"graph": name, "n": g.num_nodes, "edges": edges}
        rows.append({**base, "engine": f"concomp-{device}", "ms": ms, "components": count})
        if peers:
            for peer, (peer_ms, peer_count) in _peers(g, reps).items():
                if peer_count != count:
                    raise AssertionError(
                        f"{peer} finds {peer_count} components on {name}, concomp {count}"
                    )
                rows.append({**base, "engine": peer, "ms": peer_ms, "components": peer_count})
    return rows


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The ``concomp bench`` arguments."""
    p.add_argument(
        "--graphs", default=",".join(SUITE), help="comma-separated suite graphs (default: all four)"
    )
    p.add_argument(
        "--quick",
        action="store_true",
        help="small versions of the graphs (scale 16), for machines without a GPU",
    )
    p.add_argument(
        "--device", default="cpu", choices=("cpu", "gpu"), help="engine to time (default cpu)"
    )
    p.add_argument("--algorithm", default="auto", help="variant to time (default auto)")
    p.add_argument("--reps", type=int, default=5, help="timed runs per measurement")
    p.add_argument("--no-peers", action="store_true", help="time concomp only")
    p.add_argument("-o", "--output", metavar="FILE.json", help="write the rows as JSON")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run(args: argparse.Namespace) -> int:
    """``concomp bench``: print a table (or JSON) of median times per graph and engine."""
    names = [x.strip() for x in args.graphs.split(",") if x.strip()]
    unknown = sorted(set(names) - set(SUITE))
    if unknown:
        raise ValueError(
            f"argument `--graphs`: unknown graph(s) {unknown}; choose from {list(SUITE)}"
        )
    if args.reps < 1:
        raise ValueError(f"argument `--reps`: {args.reps} must be >= 1")
    rows = run_suite(
        names,
        quick=args.quick,
        device=args.device,
        reps=args.reps,
        peers=not args.no_peers,
        algorithm=args.algorithm,
    )
    if args.output:
        with open(args.output, "w") as f:
            json.dump(rows, f, indent=1)
    if args.json:
        print(json.dumps({"command": "bench", "rows": rows}))
        return 0
    print(f"{'graph':10s} {'engine':14s} {'n':>10s} {'edges':>12s} {'ms':>11s} {'components':>11s}")
    for r in rows:
        print(
            f"{r['graph']:10s} {r['engine']:14s} {r['n']:>10,} {r['edges']:>12,} "
            f"{r['ms']:>11.3f} {r['components']:>11,}"
        )
    return 0
