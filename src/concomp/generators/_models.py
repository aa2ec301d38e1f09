"""Geometric and preferential-attachment generators (re-exported by
:mod:`concomp.generators`): :func:`knn_geometric`, :func:`delaunay`,
:func:`barabasi_albert`. They return the symmetric CSR without self loops or
duplicate edges, like the other generators.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import index_dtype_for
from ..graph import Graph
from . import _xp as _gen_xp
from ._common import derive_keys, int_arg, resolve_device, xp_for
from ._weights import finish_graph

__all__ = ["knn_geometric", "delaunay", "barabasi_albert"]


def knn_geometric(
    n: int, k: int = 6, *, dim: int = 2, seed: Any = 0, device: str = "cpu", weights: Any = None
) -> Graph:
    """Random geometric graph: ``n`` uniform points in the unit cube, each joined to its
    ``k`` nearest neighbours, symmetrised (every vertex has degree >= ``k``).

    The CPU uses :class:`scipy.spatial.cKDTree`; the GPU ``cupyx.scipy.spatial.KDTree``
    on the same points (or the CPU and a copy, on CuPy versions without it).

    Examples
    --------
    >>> from concomp.generators import knn_geometric
    >>> g = knn_geometric(200, k=4, seed=2)
    >>> int(min(g.csr()[0][1:] - g.csr()[0][:-1]))
    4
    """
    n = int_arg("n", n, 2, 1 << 31)
    k = int_arg("k", k, 1, n - 1)
    dim = int_arg("dim", dim, 1, 16)
    device = resolve_device(device)
    k_pts, k_w = derive_keys(seed, "points", "weights")
    xp = xp_for(device)
    points = _gen_xp.uniform_points(xp, k_pts, n, dim)
    idx = _knn_query(xp, points, k)
    me = xp.arange(n, dtype=xp.int64)[:, None]
    keep = idx != me
    # with duplicate points a vertex may not find itself: drop its farthest instead
    full = xp.flatnonzero(keep.all(axis=1))
    keep[full, -1] = False
    dt = index_dtype_for(n, 4 * n * k)
    src = xp.broadcast_to(me, idx.shape)[keep].astype(dt)
    return finish_graph(xp, src, idx[keep].astype(dt), n, True, weights, k_w)


def delaunay(n: int, *, seed: Any = 0, device: str = "cpu", weights: Any = None) -> Graph:
    """Edges of the Delaunay triangulation of ``n`` uniform points in the unit square.

    About ``3n`` undirected edges. Triangulation runs on the CPU
    (:class:`scipy.spatial.Delaunay`) for every device; ``device="gpu"`` copies the
    result to the GPU.

    Examples
    --------
    >>> from concomp.generators import delaunay
    >>> delaunay(100, seed=0).num_edges // 2
    284
    """
    from scipy.spatial import Delaunay

    n = int_arg("n", n, 3, 1 << 31)
    device = resolve_device(device)
    xp_for(device)  # fail before the work when the GPU is asked for but missing
    k_pts, k_w = derive_keys(seed, "points", "weights")
    tri = Delaunay(_gen_xp.uniform_points(np, k_pts, n, 2)).simplices
    dt = index_dtype_for(n, 12 * n)
    src = tri[:, [0, 1, 2]].ravel().astype(dt)
    dst = tri[:, [1, 2, 0]].ravel().astype(dt)
    g = finish_graph(np, src, dst, n, True, weights, k_w)
    return g.to("gpu") if device == "gpu" else g


def barabasi_albert(
    n: int, m_attach: int, *, seed: Any = 0, device: str = "cpu", weights: Any = None
) -> Graph:
    """Preferential-attachment graph (Barabási–Albert) with exactly
    ``m_attach * (n - m_attach)`` undirected edges.

    Vertices ``0..m_attach`` start as a star; every later vertex joins ``m_attach``
    distinct earlier vertices chosen with probability proportional to their degree.
    Vectorised over all edges (see :func:`concomp.generators._xp.barabasi_albert`).

    Examples
    --------
    >>> from concomp.generators import barabasi_albert
    >>> barabasi_albert(50, 3, seed=1).num_edges // 2
    141
    """
    m_attach = int_arg("m_attach", m_attach, 1, 1 << 20)
    n = int_arg("n", n, m_attach + 1, 1 << 31)
    device = resolve_device(device)
    k_ba, k_w = derive_keys(seed, "ba", "weights")
    xp = xp_for(device)
    dt = index_dtype_for(n, 4 * n * m_attach)
    src, dst = _gen_xp.barabasi_albert(xp, k_ba, n, m_attach, dt)
    return finish_graph(xp, src, dst, n, True, weights, k_w)


def _knn_query(xp: Any, points: Any, k: int) -> Any:
    if xp is np:
        from scipy.spatial import cKDTree

        return cKDTree(points).query(points, k=k + 1, workers=-1)[1].astype(np.int64)
    try:
        from .._gpu._compat import cupyx_module

        KDTree = cupyx_module("scipy.spatial").KDTree
    except ImportError:  # CuPy < 13 has no KDTree: search on the host, copy the result
        from scipy.spatial import cKDTree

        host = points.get()
        return xp.asarray(cKDTree(host).query(host, k=k + 1, workers=-1)[1].astype(np.int64))
    return KDTree(points).query(points, k=k + 1)[1].astype(xp.int64)
