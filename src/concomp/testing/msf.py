"""Oracle and checker for minimum spanning forests.

:func:`kruskal_reference` is deliberately plain: Python's sort on the tie key
``(weight, min(u, v), max(u, v), edge id)`` and a dictionary-free union-find
over Python ints. It shares no code with the engines it checks, so it is slow
(about a second per 300,000 edges) and meant for test-sized graphs.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._arrays import to_numpy
from .._input import as_graph

__all__ = ["assert_minimum_spanning_forest", "kruskal_reference"]


def kruskal_reference(
    src: Any, dst: Any, weights: Any, num_nodes: int, *, maximum: bool = False
) -> np.ndarray:
    """Edge ids (ascending) of the minimum spanning forest, by textbook Kruskal.

    Parameters
    ----------
    src, dst : array of int
        Endpoints of each edge; edge ``i`` is ``(src[i], dst[i])``, undirected.
    weights : array or None
        One weight per edge; ``None`` means every weight is 1.
    num_nodes : int
        Number of vertices.
    maximum : bool
        Maximum spanning forest: the order uses ``-weight``.

    Returns
    -------
    numpy.ndarray of int64

    Examples
    --------
    >>> kruskal_reference([0, 1, 0], [1, 2, 2], [1, 1, 1], 3).tolist()  # (0, 2) before (1, 2)
    [0, 2]
    """
    src, dst = to_numpy(src).tolist(), to_numpy(dst).tolist()
    w = [1] * len(src) if weights is None else to_numpy(weights).tolist()
    sign = -1 if maximum else 1
    order = sorted(
        (e for e in range(len(src)) if src[e] != dst[e]),
        key=lambda e: (sign * w[e], min(src[e], dst[e]), max(src[e], dst[e]), e),
    )
    parent = list(range(num_nodes))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    chosen = []
    for e in order:
        a, b = find(src[e]), find(dst[e])
        if a != b:
            parent[a] = b
            chosen.append(e)
    return np.array(sorted(chosen), dtype=np.int64)


def assert_minimum_spanning_forest(
    graph: Any, result: Any, *, weights: Any = None, maximum: bool = False
) -> None:
    """Raise ``AssertionError`` unless ``result`` is the graph's tie-broken MSF.

    Checks that ``result`` (a :class:`concomp.MinimumSpanningForest`, NumPy or CuPy)
    names valid non-loop edges with their input endpoints and weights, that it
    is acyclic and spans every component, that its total weight is the sum of
    its weights, and that its edge set is exactly the one the tie rule
    ``(weight, min(u, v), max(u, v), edge id)`` defines (which also proves it
    minimal).

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.msf import minimum_spanning_forest
    >>> g = (np.array([0, 1, 0]), np.array([1, 2, 2]), np.array([2.0, 1.0, 3.0]))
    >>> assert_minimum_spanning_forest(g, minimum_spanning_forest(g))
    """
    g = as_graph(graph, weights=weights)
    src, dst = (to_numpy(a).astype(np.int64) for a in g.coo())
    w = None if g.weights is None else to_numpy(g.weights)
    ids = to_numpy(result.edge_ids).astype(np.int64)
    assert result.num_nodes == g.num_nodes, f"num_nodes {result.num_nodes} != {g.num_nodes}"
    assert ids.size == 0 or (ids.min() >= 0 and ids.max() < g.num_edges), "edge id out of range"
    assert np.all(np.diff(ids) > 0), "edge ids must be strictly ascending (no repeats)"
    assert np.array_equal(to_numpy(result.src), src[ids]), "src differs from the input edges"
    assert np.array_equal(to_numpy(result.dst), dst[ids]), "dst differs from the input edges"
    expect_w = np.ones(ids.size, dtype=np.int64) if w is None else w[ids]
    assert np.array_equal(to_numpy(result.weights), expect_w), "weights differ from the input"
    _assert_spanning_forest(src, dst, ids, g.num_nodes)
    _assert_total(result.total_weight, expect_w)
    expected = kruskal_reference(src, dst, w, g.num_nodes, maximum=maximum)
    if not np.array_equal(ids, expected):
        extra = np.setdiff1d(ids, expected)[:5].tolist()
        missing = np.setdiff1d(expected, ids)[:5].tolist()
        raise AssertionError(
            f"edge set differs from the tie-broken MSF: extra ids {extra}, missing ids {missing}"
        )


def _assert_spanning_forest(src: np.ndarray, dst: np.ndarray, ids: np.ndarray, n: int) -> None:
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in ids.tolist():
        a, b = find(int(src[e])), find(int(dst[e]))
        assert a != b, f"edge {e} ({src[e]}, {dst[e]}) closes a cycle (or is a self loop)"
        parent[a] = b
    for u, v in zip(src.tolist(), dst.tolist()):
        assert find(u) == find(v), f"vertices {u} and {v} are connected but not by the forest"


def _assert_total(total: Any, w: np.ndarray) -> None:
    # integer totals are exact (Python ints), never wrapped at int64
    expect = (w.sum(dtype=np.float64) if w.dtype.kind == "f" else sum(w.tolist())) if w.size else 0
    if w.dtype.kind == "f":
        ok = (
            math.isclose(float(total), float(expect), rel_tol=1e-9, abs_tol=1e-9)
            or (float(total) == float(expect))
            or (math.isnan(total) and math.isnan(expect))
        )
    else:
        ok = int(total) == int(expect)
    assert ok, f"total_weight {total!r} != sum of forest weights {expect!r}"
