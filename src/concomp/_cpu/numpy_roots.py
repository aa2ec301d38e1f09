"""Component roots with NumPy alone, for ``algorithm="auto"`` before numba is loaded.

Importing numba and loading concomp's cached kernels costs a fresh process more than
half a second (``benchmarks/bench_first_call.py`` measures it as ``numba_floor``),
while a graph of a few hundred thousand edges takes tens of milliseconds with NumPy's
vectorised passes. So, while concomp's compiled CPU kernels are not loaded, the CPU
engine's ``auto`` answers small graphs here, and keeps count of the seconds it spent:
once they reach :data:`RENT_SECONDS` (about what loading numba costs), the next call
loads the kernels. This is the ski-rental rule: a process that calls many times never
spends more than about twice what loading numba up front would have cost, and a
process that calls once never loads numba at all. Explicit ``algorithm=`` variants
always run their compiled kernels.

The algorithm hooks roots to smaller roots and compresses fully after each round:
every edge whose endpoints have different roots lowers the larger root's parent to the
smaller root (``numpy.minimum.at``), then pointer jumping makes every parent a root
again. Parents only decrease and a root is always the smallest vertex of its tree, so
the final roots are the smallest vertex ids of the components, exactly what the
compiled kernels return. A round leaves as roots only those that no smaller root
touches (in a path of roots, at most half of them); a run that needs more than
:func:`round_limit` rounds stops and the compiled kernels take the graph.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from ..graph import Graph

__all__ = ["MAX_EDGES", "MAX_NODES", "RENT_SECONDS", "numpy_roots", "round_limit"]

#: Edges and vertices up to which ``auto`` may answer with NumPy (larger graphs load
#: the compiled kernels at once: one NumPy run would cost as much as loading them).
MAX_EDGES = 1 << 20
MAX_NODES = 1 << 20
#: Seconds of NumPy runs after which the compiled kernels are loaded (about what
#: importing numba and loading cached kernels costs a fresh process).
RENT_SECONDS = 0.5
#: A module the compiled union-find kernels live in: once it is loaded, they are used.
_KERNELS = "concomp._cpu.unionfind"

_spent = 0.0


def round_limit(n: int) -> int:
    """Rounds a NumPy run may take before the compiled kernels take over."""
    return 2 * math.ceil(math.log2(n + 1)) + 8


def numpy_roots(graph: Graph) -> np.ndarray | None:
    """Smallest vertex id of each vertex's component, or None where the compiled
    kernels should run instead: they are loaded already, the graph is larger than
    :data:`MAX_EDGES` / :data:`MAX_NODES`, the NumPy runs of this process have spent
    :data:`RENT_SECONDS`, or this run needs more than :func:`round_limit` rounds.

    Examples
    --------
    >>> from concomp import Graph
    >>> from concomp._cpu.numpy_roots import _roots
    >>> _roots(*Graph.from_edges([3, 1], [2, 0], num_nodes=5).coo(), 5).tolist()
    [0, 0, 2, 2, 4]
    """
    global _spent
    n, m = graph.num_nodes, graph.num_edges
    if _KERNELS in sys.modules or _spent >= RENT_SECONDS or m > MAX_EDGES or n > MAX_NODES:
        return None
    start = time.perf_counter()
    try:
        src, dst = _edges(graph)
        return _roots(src, dst, n)
    finally:
        _spent += time.perf_counter() - start


def _edges(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """The graph's edge list without compiled code (a CSR's rows expanded by repeat)."""
    if graph._src is not None:
        return graph._src, graph._dst
    indptr, indices, _ = graph.csr()
    rows = np.repeat(np.arange(graph.num_nodes, dtype=indices.dtype), np.diff(indptr))
    return rows, indices


def _roots(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray | None:
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    parent = np.arange(n, dtype=dt)
    u, v = src.astype(dt, copy=False), dst.astype(dt, copy=False)
    for _ in range(round_limit(n)):
        pu, pv = parent[u], parent[v]
        apart = pu != pv
        if not apart.any():
            return parent
        # only edges whose roots differ can change anything again
        u, v, pu, pv = u[apart], v[apart], pu[apart], pv[apart]
        np.minimum.at(parent, np.maximum(pu, pv), np.minimum(pu, pv))
        while True:  # pointer jumping until every parent is a root
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    return None
