"""Deterministic shapes for the benchmark corpus (re-exported by :mod:`concomp.generators`):
:func:`path`, :func:`grid3d`, :func:`stars` and :func:`tree_forest`.

They cover what the random models miss: the longest diameter (a path), a 3-D mesh,
the largest degree (hubs), and a graph of very many small components. Each runs on
the array module of its device (NumPy or CuPy, the same arrays on both) and returns
the symmetric CSR without self loops or duplicate edges, like every generator.
"""

from __future__ import annotations

from typing import Any

from .._arrays import index_dtype_for
from ..graph import Graph
from . import _xp as _gen_xp
from ._common import derive_keys, int_arg, permutation, resolve_device, xp_for
from ._weights import finish_graph

__all__ = ["path", "grid3d", "stars", "tree_forest"]


def _relabel(xp: Any, src: Any, dst: Any, n: int, permute: bool, key: int, dt: Any) -> tuple:
    if not permute:
        return src, dst
    perm = permutation(xp, key, n, dt)
    return perm[src], perm[dst]


def path(
    n: int, *, permute: bool = False, seed: Any = 0, device: str = "cpu", weights: Any = None
) -> Graph:
    """A path through all ``n`` vertices: edges ``(i, i + 1)`` for ``i < n - 1`` (ids along
    the path), or through a random permutation of them with ``permute=True``.

    Its diameter is ``n - 1``: the worst case of every rule whose work grows with it.

    Examples
    --------
    >>> from concomp.generators import path
    >>> g = path(5)
    >>> g.num_nodes, g.num_edges // 2, g.csr()[1].tolist()
    (5, 4, [1, 0, 2, 1, 3, 2, 4, 3])
    """
    n = int_arg("n", n, 1, 1 << 40)
    device = resolve_device(device)
    k_perm, k_w = derive_keys(seed, "perm", "weights")
    xp = xp_for(device)
    dt = index_dtype_for(n, 4 * n)
    ids = xp.arange(n, dtype=dt)
    src, dst = _relabel(xp, ids[:-1], ids[1:], n, permute, k_perm, dt)
    return finish_graph(xp, src, dst, n, True, weights, k_w)


def grid3d(
    nx: int,
    ny: int,
    nz: int,
    *,
    permute: bool = False,
    seed: Any = 0,
    device: str = "cpu",
    weights: Any = None,
) -> Graph:
    """3-D grid (6-neighbour mesh); vertex ``(x, y, z)`` has id ``(x * ny + y) * nz + z``.

    ``3*nx*ny*nz - nx*ny - ny*nz - nx*nz`` undirected edges; ``permute=True`` relabels
    the vertices randomly.

    Examples
    --------
    >>> from concomp.generators import grid3d
    >>> g = grid3d(2, 3, 4)
    >>> g.num_nodes, g.num_edges // 2
    (24, 46)
    """
    nx = int_arg("nx", nx, 1, 1 << 20)
    ny = int_arg("ny", ny, 1, 1 << 20)
    nz = int_arg("nz", nz, 1, 1 << 20)
    device = resolve_device(device)
    k_perm, k_w = derive_keys(seed, "perm", "weights")
    n = nx * ny * nz
    xp = xp_for(device)
    dt = index_dtype_for(n, 12 * n)
    ids = xp.arange(n, dtype=dt).reshape(nx, ny, nz)
    parts = [
        (ids[:-1, :, :], ids[1:, :, :]),
        (ids[:, :-1, :], ids[:, 1:, :]),
        (ids[:, :, :-1], ids[:, :, 1:]),
    ]
    src = xp.concatenate([a.ravel() for a, _ in parts])
    dst = xp.concatenate([b.ravel() for _, b in parts])
    src, dst = _relabel(xp, src, dst, n, permute, k_perm, dt)
    return finish_graph(xp, src, dst, n, True, weights, k_w)


def stars(
    num_stars: int,
    leaves: int,
    *,
    permute: bool = True,
    seed: Any = 0,
    device: str = "cpu",
    weights: Any = None,
) -> Graph:
    """``num_stars`` disjoint stars, each a hub joined to ``leaves`` leaves.

    One star is the extreme hub (degree ``n - 1``); many are many components with one
    high-degree vertex each. Star ``s`` has hub ``s * (leaves + 1)`` and the ids after
    it, unless ``permute`` (the default) relabels all vertices randomly.

    Examples
    --------
    >>> from concomp.generators import stars
    >>> g = stars(3, 4, permute=False)
    >>> g.num_nodes, g.num_edges // 2, int(g.csr()[0][1])
    (15, 12, 4)
    """
    num_stars = int_arg("num_stars", num_stars, 1, 1 << 40)
    leaves = int_arg("leaves", leaves, 1, 1 << 40)
    device = resolve_device(device)
    k_perm, k_w = derive_keys(seed, "perm", "weights")
    size = leaves + 1
    n = num_stars * size
    xp = xp_for(device)
    dt = index_dtype_for(n, 4 * n)
    leaf = xp.arange(n, dtype=dt).reshape(num_stars, size)[:, 1:].ravel()
    hub = (leaf // size) * size
    src, dst = _relabel(xp, hub.astype(dt), leaf, n, permute, k_perm, dt)
    return finish_graph(xp, src, dst, n, True, weights, k_w)


def tree_forest(
    num_trees: int,
    size: int,
    *,
    permute: bool = True,
    seed: Any = 0,
    device: str = "cpu",
    weights: Any = None,
) -> Graph:
    """A forest of ``num_trees`` random recursive trees of ``size`` vertices each.

    In each tree the ``j``-th vertex (``j >= 1``) hangs off a uniformly chosen earlier
    one, so the trees are shallow (depth about ``ln size``) and the graph has exactly
    ``num_trees`` components. ``permute`` (the default) spreads each tree over random
    ids, as data with many small components arrives.

    Examples
    --------
    >>> from concomp.generators import tree_forest
    >>> from concomp import connected_components
    >>> g = tree_forest(50, 8, seed=1)
    >>> g.num_nodes, g.num_edges // 2, connected_components(g, return_labels=False)
    (400, 350, 50)
    """
    num_trees = int_arg("num_trees", num_trees, 1, 1 << 40)
    size = int_arg("size", size, 1, 1 << 40)
    device = resolve_device(device)
    k_tree, k_perm, k_w = derive_keys(seed, "tree", "perm", "weights")
    n = num_trees * size
    xp = xp_for(device)
    dt = index_dtype_for(n, 4 * n)
    child = xp.arange(n, dtype=xp.uint64).reshape(num_trees, size)[:, 1:].ravel()
    pos = child % xp.uint64(size)  # j >= 1: the child's rank in its tree
    parent = child - pos + _gen_xp.words(xp, k_tree, child) % pos
    src, dst = _relabel(xp, parent.astype(dt), child.astype(dt), n, permute, k_perm, dt)
    return finish_graph(xp, src, dst, n, True, weights, k_w)
