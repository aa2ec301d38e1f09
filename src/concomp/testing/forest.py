"""Checker for spanning forests (static and incremental).

Independent of the engines it checks: SciPy for the components, and a plain
Python union-find for acyclicity.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import to_numpy
from .._input import as_graph

__all__ = ["assert_spanning_forest", "scipy_labels"]


def scipy_labels(src: np.ndarray, dst: np.ndarray, n: int) -> tuple[int, np.ndarray]:
    """``(count, labels)`` of the undirected graph by SciPy (the oracle)."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    a = sp.coo_matrix((np.ones(len(src), np.int8), (src, dst)), shape=(n, n)).tocsr()
    return connected_components(a, directed=True, connection="weak")


def assert_spanning_forest(graph: Any, forest: Any) -> None:
    """Raise ``AssertionError`` unless ``forest`` is a spanning forest of ``graph``.

    Checks that the forest has ``n - c`` edges (``c`` components, by SciPy) and
    says so in ``num_components``; that it is acyclic (a union-find over its
    edges never meets two vertices already connected, self loops included);
    that every forest edge is an input edge with matching endpoints in either
    orientation (by edge id when ``forest.batch_ids`` is None, else by the
    endpoint pair, as incremental forests number edges per batch); and that the
    forest's components equal the graph's.

    Parameters
    ----------
    graph : graph-like
        Anything :func:`concomp.as_graph` accepts (for an incremental forest:
        every inserted edge).
    forest : SpanningForest
        NumPy or CuPy arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.forest import spanning_forest
    >>> g = (np.array([0, 1, 0]), np.array([1, 2, 2]))
    >>> assert_spanning_forest(g, spanning_forest(g, device="cpu"))
    """
    g = as_graph(graph, forest.num_nodes)
    n = g.num_nodes
    src, dst = (to_numpy(a).astype(np.int64) for a in g.coo())
    fs, fd = to_numpy(forest.src).astype(np.int64), to_numpy(forest.dst).astype(np.int64)
    ids = to_numpy(forest.edge_ids).astype(np.int64)
    assert fs.shape == fd.shape == ids.shape, "src, dst and edge_ids differ in length"
    count, labels = scipy_labels(src, dst, n)
    assert forest.num_components == count, f"num_components {forest.num_components} != {count}"
    assert ids.size == n - count, f"{ids.size} forest edges, expected n - c = {n - count}"
    if forest.batch_ids is None:
        _assert_edges_by_id(src, dst, fs, fd, ids)
    else:
        _assert_edges_by_pair(src, dst, fs, fd)
    _assert_acyclic(fs, fd, n)
    fcount, flabels = scipy_labels(fs, fd, n)
    assert fcount == count and np.array_equal(flabels, labels), (
        "the forest's components differ from the graph's"
    )


def _assert_edges_by_id(src, dst, fs, fd, ids) -> None:
    m = src.shape[0]
    assert ids.size == 0 or (ids.min() >= 0 and ids.max() < m), "edge id out of range"
    assert np.unique(ids).size == ids.size, "an edge id appears twice"
    same = (fs == src[ids]) & (fd == dst[ids])
    swapped = (fs == dst[ids]) & (fd == src[ids])
    bad = np.flatnonzero(~(same | swapped))
    assert bad.size == 0, (
        f"forest edge {bad[0]} ({fs[bad[0]]}, {fd[bad[0]]}) does not match input edge {ids[bad[0]]}"
    )


def _assert_edges_by_pair(src, dst, fs, fd) -> None:
    n = int(max(src.max(initial=0), dst.max(initial=0), fs.max(initial=0), fd.max(initial=0))) + 1
    key = np.minimum(src, dst) * n + np.maximum(src, dst)
    fkey = np.minimum(fs, fd) * n + np.maximum(fs, fd)
    bad = np.flatnonzero(~np.isin(fkey, key))
    assert bad.size == 0, f"forest edge ({fs[bad[0]]}, {fd[bad[0]]}) is not an input edge"


def _assert_acyclic(fs: np.ndarray, fd: np.ndarray, n: int) -> None:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, (u, v) in enumerate(zip(fs.tolist(), fd.tolist())):
        a, b = find(u), find(v)
        assert a != b, f"forest edge {i} ({u}, {v}) closes a cycle (or is a self loop)"
        parent[a] = b
