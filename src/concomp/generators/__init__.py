"""Seeded, reproducible graph generators (CPU with numba, GPU with CuPy).

R-MAT / Kronecker (:func:`rmat`, :func:`erdos_renyi_rmat`, :func:`cong`), uniform
G(n, m) (:func:`gnm`), grids and tori (:func:`grid`), random geometric graphs
(:func:`knn_geometric`, :func:`delaunay`), preferential attachment
(:func:`barabasi_albert`), paths, 3-D grids, stars and forests of small trees
(:func:`path`, :func:`grid3d`, :func:`stars`, :func:`tree_forest`), edge weights
(:func:`random_weights`, :func:`with_weights`),
the benchmark graphs of ``reference-numbers.md`` (:func:`suite`), CLI strings
(:func:`from_spec`) and the benchmark corpus (:mod:`concomp.generators.corpus`, every
graph the benchmarks time, by name).

Every random number is a counter-based hash of the seed and its position, so a graph
depends only on its arguments: not on the thread count and, for the generators that
run on the GPU, not on the device either (``device="gpu"`` returns the same arrays on
the GPU, except that k-nearest neighbours may differ where distances tie).

Unless asked for the raw edge list (``clean=False``), generators return the form the
benchmarks use: a symmetric CSR (both directions stored, rows sorted) without self
loops or duplicate edges, flagged ``symmetric=True``, so ``graph.num_edges`` is twice
the number of undirected edges.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._arrays import index_dtype_for
from ..errors import InvalidGraphError
from ..graph import Graph
from . import _xp as _gen_xp
from ._common import derive_keys, int_arg, permutation, resolve_device, xp_for
from ._common import host as _gen_cpu
from ._models import barabasi_albert, delaunay, knn_geometric
from ._shapes import grid3d, path, stars, tree_forest
from ._spec import parse_spec, suite_args
from ._weights import finish_graph, random_weights, with_weights

__all__ = [
    "rmat",
    "erdos_renyi_rmat",
    "cong",
    "gnm",
    "grid",
    "knn_geometric",
    "delaunay",
    "barabasi_albert",
    "path",
    "grid3d",
    "stars",
    "tree_forest",
    "random_weights",
    "with_weights",
    "suite",
    "from_spec",
]


def rmat(
    scale: int,
    edge_factor: float = 16,
    a: float = 0.57,
    b: float = 0.19,
    c: float = 0.19,
    d: float | None = None,
    *,
    permute: bool = True,
    clean: bool = True,
    seed: Any = 0,
    device: str = "cpu",
    weights: Any = None,
) -> Graph:
    """R-MAT (recursive matrix) graph with ``2**scale`` vertices.

    Each of the ``m = edge_factor * 2**scale`` edges descends ``scale`` levels of the
    adjacency matrix, choosing at each level the quadrant top-left, top-right,
    bottom-left, bottom-right with probabilities ``a, b, c, d``. Defaults are the
    Graph500 parameters (no noise).

    Parameters
    ----------
    scale : int
        log2 of the number of vertices (0 to 40).
    edge_factor : float
        Generated edges per vertex.
    a, b, c, d : float
        Quadrant probabilities, >= 0 and summing to 1; ``d`` defaults to ``1-a-b-c``.
    permute : bool
        Relabel vertices by a random permutation (hides the id-degree correlation).
    clean : bool
        Return the symmetric CSR without self loops and duplicates (the benchmark
        form); ``False`` returns the ``m`` raw edges as an edge list.
    seed : int or numpy.random.Generator
        Seed; equal seeds give identical graphs.
    device : {"cpu", "gpu", "auto"}
        Where to generate (and keep) the arrays.
    weights : {None, "int", "float"} or array
        Random weights (see :func:`random_weights`, same seed) or one per edge.

    Returns
    -------
    Graph

    Raises
    ------
    InvalidGraphError
        For a negative probability, probabilities not summing to 1, or a bad scale.

    Examples
    --------
    >>> from concomp.generators import rmat
    >>> g = rmat(10, seed=1)
    >>> g.num_nodes, g.num_edges, g.symmetric
    (1024, 21112, True)
    >>> rmat(4, a=0.7, b=0.2, c=0.2)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    concomp.errors.InvalidGraphError: ...(0.7, 0.2, 0.2, -0.1) must each be >= 0 and sum to 1...
    """
    scale = int_arg("scale", scale, 0, 40)
    probs = _rmat_probs(a, b, c, d)
    if not (
        isinstance(edge_factor, (int, float, np.integer, np.floating))
        and math.isfinite(edge_factor)
        and edge_factor >= 0
    ):
        raise InvalidGraphError(
            f"argument `edge_factor`: {edge_factor!r} is not a number >= 0."
            " Fix: pass edges per vertex, e.g. 16."
        )
    n = 1 << scale
    m = int(edge_factor * n)
    device = resolve_device(device)
    k_edges, k_perm, k_w = derive_keys(seed, "rmat", "perm", "weights")
    cum = np.cumsum(probs[:3])
    thresholds = tuple(min(1 << 32, int(round(x * 2**32))) for x in cum)
    dt = index_dtype_for(n, 4 * m)
    xp = xp_for(device)
    perm = permutation(xp, k_perm, n, dt) if permute else None
    if xp is np:
        src, dst = np.empty(m, dt), np.empty(m, dt)
        _gen_cpu.rmat_edges(
            np.uint64(k_edges),
            scale,
            *(np.uint64(t) for t in thresholds),
            perm if perm is not None else np.zeros(1, dt),
            perm is not None,
            src,
            dst,
        )
    else:
        src, dst = _gen_xp.rmat_edges(xp, k_edges, scale, m, thresholds, perm, dt)
    return finish_graph(xp, src, dst, n, clean, weights, k_w)


def erdos_renyi_rmat(
    scale: int,
    edge_factor: float = 16,
    *,
    permute: bool = True,
    clean: bool = True,
    seed: Any = 0,
    device: str = "cpu",
    weights: Any = None,
) -> Graph:
    """Uniform random graph as R-MAT with ``a = b = c = d = 0.25`` (the "er22" graph).

    Examples
    --------
    >>> from concomp.generators import erdos_renyi_rmat
    >>> erdos_renyi_rmat(10, seed=3).num_edges
    32236
    """
    return rmat(
        scale,
        edge_factor,
        0.25,
        0.25,
        0.25,
        0.25,
        permute=permute,
        clean=clean,
        seed=seed,
        device=device,
        weights=weights,
    )


def cong(
    scale: int,
    edge_factor: float = 16,
    *,
    permute: bool = True,
    clean: bool = True,
    seed: Any = 0,
    device: str = "cpu",
    weights: Any = None,
) -> Graph:
    """R-MAT with ``(a, b, c, d) = (0.45, 0.15, 0.15, 0.25)`` (Cong & Muzio; "cong22").

    Examples
    --------
    >>> from concomp.generators import cong
    >>> cong(10, seed=3).num_nodes
    1024
    """
    return rmat(
        scale,
        edge_factor,
        0.45,
        0.15,
        0.15,
        0.25,
        permute=permute,
        clean=clean,
        seed=seed,
        device=device,
        weights=weights,
    )


def gnm(
    n: int, m: int, *, clean: bool = True, seed: Any = 0, device: str = "cpu", weights: Any = None
) -> Graph:
    """Uniform random graph G(n, m): ``m`` edges with independent uniform endpoints.

    With ``clean=True`` self loops and repeated edges are removed, so the graph has
    slightly fewer than ``m`` undirected edges.

    Examples
    --------
    >>> from concomp.generators import gnm
    >>> g = gnm(100, 300, seed=7, clean=False)
    >>> g.num_nodes, g.num_edges
    (100, 300)
    """
    n = int_arg("n", n, 0, 1 << 32)
    m = int_arg("m", m, 0, 1 << 62)
    if n == 0 and m > 0:
        raise InvalidGraphError(
            f"argument `n`: 0 vertices cannot hold m={m} edges. Fix: pass n >= 1 or m = 0."
        )
    device = resolve_device(device)
    k_edges, k_w = derive_keys(seed, "gnm", "weights")
    dt = index_dtype_for(n, 4 * m)
    xp = xp_for(device)
    if xp is np:
        src, dst = np.empty(m, dt), np.empty(m, dt)
        _gen_cpu.uniform_edges(np.uint64(k_edges), n, src, dst)
    else:
        src, dst = _gen_xp.uniform_edges(xp, k_edges, n, m, dt)
    return finish_graph(xp, src, dst, n, clean, weights, k_w)


def grid(
    rows: int,
    cols: int,
    *,
    torus: bool = False,
    permute: bool = False,
    seed: Any = 0,
    device: str = "cpu",
    weights: Any = None,
) -> Graph:
    """2-D grid (or torus) graph; vertex ``(r, c)`` has id ``r * cols + c``.

    A grid has ``2*rows*cols - rows - cols`` undirected edges; a torus adds the
    wrap-around edges, ``2*rows*cols`` in all when both sides are at least 3 (with a
    side of 1 or 2 the wrap edges repeat grid edges or are loops, and are dropped).
    ``permute=True`` relabels the vertices randomly (``gridp4k`` is
    ``grid(4096, 4096, permute=True)``).

    Examples
    --------
    >>> from concomp.generators import grid
    >>> g = grid(3, 4)
    >>> g.num_nodes, g.num_edges // 2
    (12, 17)
    >>> grid(3, 4, torus=True).num_edges // 2
    24
    """
    rows = int_arg("rows", rows, 0, 1 << 31)
    cols = int_arg("cols", cols, 0, 1 << 31)
    device = resolve_device(device)
    k_perm, k_w = derive_keys(seed, "perm", "weights")
    n = rows * cols
    xp = xp_for(device)
    dt = index_dtype_for(n, 8 * n)
    ids = xp.arange(n, dtype=dt).reshape(rows, cols)
    parts = [(ids[:, :-1], ids[:, 1:]), (ids[:-1, :], ids[1:, :])]
    if torus and n:
        parts += [(ids[:, -1], ids[:, 0]), (ids[-1, :], ids[0, :])]
    src = xp.concatenate([p[0].ravel() for p in parts])
    dst = xp.concatenate([p[1].ravel() for p in parts])
    if permute:
        perm = permutation(xp, k_perm, n, dt)
        src, dst = perm[src], perm[dst]
    return finish_graph(xp, src, dst, n, True, weights, k_w)


def suite(name: str, *, quick: bool = False, seed: Any = 0, device: str = "cpu") -> Graph:
    """A benchmark graph of ``reference-numbers.md``: ``"rmat22"``, ``"er22"``,
    ``"gridp4k"`` or ``"cong22"``.

    ``quick=True`` gives a small version (R-MAT scale 16, 256 x 256 grid) for
    machines without a GPU.

    Examples
    --------
    >>> from concomp.generators import suite
    >>> suite("gridp4k", quick=True).num_nodes
    65536
    """
    func, args, kwargs = suite_args(name, quick)
    return globals()[func](*args, **kwargs, seed=seed, device=device)


def from_spec(spec: str, *, device: str = "cpu") -> Graph:
    """Graph from a CLI string ``"name:key=value,..."``.

    Names: ``rmat``, ``er``, ``cong``, ``gnm``, ``grid``, ``knn``, ``delaunay``, ``ba``,
    ``suite`` (``"suite:rmat22"``, ``"suite:name=er22,quick=1"``).

    Examples
    --------
    >>> from concomp.generators import from_spec
    >>> from_spec("grid:rows=10,cols=10,permute=1").num_nodes
    100
    >>> from_spec("ring:n=5")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    concomp.errors.InvalidGraphError: ...valid generators: rmat, er, cong, gnm, grid, knn, ...
    """
    func, kwargs = parse_spec(spec)
    kwargs.setdefault("device", device)
    return globals()[func](**kwargs)


def _rmat_probs(a: float, b: float, c: float, d: float | None) -> np.ndarray:
    try:
        probs = np.array([a, b, c, 1.0 - a - b - c if d is None else d], dtype=np.float64)
    except (TypeError, ValueError):
        raise InvalidGraphError(
            f"arguments `a, b, c, d`: R-MAT probabilities must be numbers, "
            f"got {(a, b, c, d)!r}. Fix: pass floats."
        ) from None
    shown = tuple(round(float(p), 12) for p in probs)
    if not (np.isfinite(probs).all() and (probs >= 0).all() and abs(probs.sum() - 1) < 1e-9):
        raise InvalidGraphError(
            f"arguments `a, b, c, d`: R-MAT probabilities {shown} must each be >= 0 and sum to "
            "1. Fix: pass a, b, c with a + b + c <= 1 (d defaults to 1 - a - b - c)."
        )
    return probs


def __getattr__(name: str) -> Any:
    # the corpus is a submodule loaded on first use: it reaches io and the testing shapes
    if name == "corpus":
        import importlib

        return importlib.import_module(f"{__name__}.corpus")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
