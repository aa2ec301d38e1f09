"""Statistics of a benchmark graph, recorded beside its timings.

Computed on the host with NumPy and SciPy, outside every timed region: size,
components, degree spread, a diameter estimate and how local the vertex ids are.
They say which shape a timing belongs to (a high diameter, a hub, ids in order)
without reading the generator.

Examples
--------
>>> from concomp.generators import path
>>> from concomp.bench.stats import graph_statistics
>>> s = graph_statistics(path(10))
>>> s["n"], s["m"], s["components"], s["diameter_estimate"], s["max_degree"]
(10, 9, 1, 9, 2)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import to_numpy
from ..graph import Graph

__all__ = ["graph_statistics", "host_csr", "bfs_depths"]


def host_csr(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` of the undirected graph on the host (both directions)."""
    indptr, indices, _ = graph.csr() if graph.symmetric else graph.undirected_csr()
    return to_numpy(indptr), to_numpy(indices)


def bfs_depths(matrix: Any, source: int) -> np.ndarray:
    """Hop distance of every vertex from ``source`` (-1 where unreachable).

    SciPy's breadth-first order gives each reached vertex its BFS parent; depths follow
    by pointer jumping (``log2(depth)`` vectorised passes), so a path of millions of
    vertices costs no Python loop per level.
    """
    from scipy.sparse.csgraph import breadth_first_order

    order, pred = breadth_first_order(matrix, source, directed=False, return_predecessors=True)
    n = matrix.shape[0]
    ids = np.arange(n, dtype=np.int64)
    has_parent = np.zeros(n, dtype=bool)
    has_parent[order] = pred[order] >= 0
    # invariant: dist[v] hops separate v from up[v]; the root and unreached vertices
    # point to themselves
    up = np.where(has_parent, pred, ids).astype(np.int64)
    dist = has_parent.astype(np.int64)
    while True:
        upper = up[up]
        if np.array_equal(upper, up):
            break
        dist = dist + dist[up]
        up = upper
    depth = np.full(n, -1, dtype=np.int64)
    depth[order] = dist[order]
    return depth


def graph_statistics(graph: Graph, sweeps: int = 2) -> dict[str, Any]:
    """Facts of ``graph`` for the result file.

    Parameters
    ----------
    graph : Graph
        Any concomp graph (on the host or the GPU; read on the host).
    sweeps : int
        BFS sweeps of the diameter estimate: from the largest component's first
        vertex, then each time from the farthest vertex found (the last eccentricity
        is a lower bound on the diameter).

    Returns
    -------
    dict
        ``n``, ``m`` (undirected edges), ``components``, ``largest_component_share``,
        ``isolated_vertices``, ``max_degree``, ``mean_degree``, ``degree_cv`` (standard
        deviation over mean), ``diameter_estimate``, ``diameter_sweeps`` and
        ``id_locality`` (mean ``|u - v| / n`` over edges: near 0 for ids in order,
        about 1/3 for random ids).
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    indptr, indices = host_csr(graph)
    n = graph.num_nodes
    deg = np.diff(indptr).astype(np.int64)
    a = sp.csr_array((np.ones(indices.shape[0], np.int8), indices, indptr), shape=(n, n))
    count, labels = connected_components(a, directed=True, connection="weak")
    sizes = np.bincount(labels, minlength=count) if n else np.zeros(0, np.int64)
    rows = np.repeat(np.arange(n, dtype=np.int64), deg)
    mean = float(deg.mean()) if n else 0.0
    out: dict[str, Any] = {
        "n": int(n),
        "m": int(indices.shape[0] // 2),
        "components": int(count),
        "largest_component_share": float(sizes.max() / n) if n else 0.0,
        "isolated_vertices": int((deg == 0).sum()),
        "max_degree": int(deg.max()) if n else 0,
        "mean_degree": mean,
        "degree_cv": float(deg.std() / mean) if mean else 0.0,
        "id_locality": float(np.abs(rows - indices).mean() / n) if indices.shape[0] else 0.0,
    }
    out["diameter_estimate"] = _diameter(a, labels, sizes, sweeps)
    out["diameter_sweeps"] = sweeps
    return out


def _diameter(a: Any, labels: np.ndarray, sizes: np.ndarray, sweeps: int) -> int:
    if sizes.shape[0] == 0:
        return 0
    source = int(np.flatnonzero(labels == int(sizes.argmax()))[0])
    best = 0
    for _ in range(sweeps):
        depth = bfs_depths(a, source)
        far = int(depth.argmax())
        best = max(best, int(depth[far]))
        source = far
    return best
