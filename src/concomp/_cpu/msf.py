"""Minimum spanning forest on the CPU: Kruskal, Borůvka and Prim in numba.

Every driver takes raw host arrays ``(src, dst, key, n)``, where ``key`` holds
order-preserving unsigned weight keys (see :func:`weight_keys`), and returns the
forest's input edge ids in ascending order. All three use one total order on
edges, ``(key, min(u, v), max(u, v), edge id)``, so the forest is unique and
every algorithm returns the same edge set.

Kruskal is the fast engine. When the key range and both endpoint ids fit in
one 64-bit word (integer weights, up to about 2^22 vertices for 20-bit
weights; up to 16 key bits more by splitting the edges into key bands first)
it sorts those packed words with NumPy's vectorised sort, several times
faster than an argsort, reads the endpoints straight out of the sorted words,
and afterwards finds the smallest edge id of each chosen word by matching
bucket against bucket. Otherwise (real-valued floats, very wide integers) it
argsorts the keys and orders runs of equal keys by ``(min, max, id)``.
``benchmarks/bench_msf.py`` compares it with SciPy's Kruskal.

This module holds the weight keys and the engine contract's entry point,
:func:`minimum_spanning_forest_ids`; the algorithms
live in :mod:`~concomp._cpu.msf_kruskal`, :mod:`~concomp._cpu.msf_boruvka` and
:mod:`~concomp._cpu.msf_prim`, their shared packing and union-find helpers in
:mod:`~concomp._cpu.msf_common`.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..options import Options
from .numpy_start import MSF_MAX_EDGES, numpy_msf, numpy_open

__all__ = [
    "auto_msf_ids",
    "minimum_spanning_forest_ids",
    "msf_ids_by_position",
    "weight_keys",
]

_SIGN = np.uint64(1 << 63)
_EXACT_INT = float(2**53)
#: Weights up to which float keys are made with NumPy (above it, a parallel kernel).
_NUMPY_KEYS_UP_TO = 1 << 20


def auto_msf_ids(graph: Graph, maximum: bool, options: Options) -> np.ndarray | None:
    """The forest for ``algorithm="auto"`` computed with NumPy (Borůvka over the edges
    sorted once by the tie rule) while the compiled kernels are not loaded and the
    graph is small (:func:`concomp._cpu.numpy_start.numpy_msf`), or None where Kruskal
    runs. The tie rule makes it the same edge set."""
    if not numpy_open(graph, options, MSF_MAX_EDGES):
        return None
    return numpy_msf(graph, weight_keys(graph.weights, graph.num_edges, maximum), options)


def minimum_spanning_forest_ids(
    graph: Graph, algorithm: str, maximum: bool, options: Options
) -> np.ndarray:
    """Ascending input edge ids of the minimum (``maximum``: maximum) spanning forest of a
    host graph, by ``algorithm`` ("boruvka", "prim" or "kruskal"), under the tie rule
    ``(weight, min(u, v), max(u, v), edge id)``."""
    from .msf_boruvka import boruvka
    from .msf_kruskal import kruskal
    from .msf_prim import prim

    src, dst = graph.coo()
    key = weight_keys(graph.weights, graph.num_edges, maximum)
    if algorithm == "prim":
        return prim(src, dst, key, graph.num_nodes, graph.undirected_csr())
    run = boruvka if algorithm == "boruvka" else kruskal
    return run(src, dst, key, graph.num_nodes)


def msf_ids_by_position(
    src: np.ndarray, dst: np.ndarray, weights: np.ndarray, n: int
) -> np.ndarray:
    """Ascending positions of the minimum spanning forest of the edges ``(src, dst)``
    under SciPy's tie rule (weight, then position): ``concomp.csgraph``'s order."""
    from .msf_kruskal import kruskal_by_position

    return kruskal_by_position(weight_keys(weights, weights.shape[0]), src, dst, n)


# --------------------------------------------------------------------------- keys
def weight_keys(weights: np.ndarray | None, m: int, maximum: bool = False) -> np.ndarray:
    """Unsigned 64-bit keys whose order is the order of the weights.

    Floats that are all whole numbers below 2^53 in magnitude are keyed as
    integers, so their keys span few bits and take the packed-sort fast path.
    ``-0.0`` and ``0.0`` get the same key. ``maximum`` reverses the order
    (bitwise NOT), which is exact for every dtype, unlike negating a weight.
    """
    if weights is None:
        key = np.zeros(m, dtype=np.uint64)
    elif weights.dtype.kind == "u":
        key = weights.astype(np.uint64)
    elif weights.dtype.kind in "ib":
        key = weights.astype(np.int64, copy=False).view(np.uint64) ^ _SIGN
    else:
        w = weights.astype(np.float64, copy=False)
        if bool(np.all(np.abs(w) < _EXACT_INT)) and bool(np.all(w == np.floor(w))):
            key = w.astype(np.int64).view(np.uint64) ^ _SIGN
        elif w.shape[0] <= _NUMPY_KEYS_UP_TO:
            bits = (w + 0.0).view(np.uint64)  # + 0.0 maps -0.0 to +0.0
            key = np.where(bits >> np.uint64(63), ~bits, bits | _SIGN)
        else:
            from .msf_common import float_keys

            key = float_keys((w + 0.0).view(np.uint64))
    if maximum:
        np.invert(key, out=key)
    return key
