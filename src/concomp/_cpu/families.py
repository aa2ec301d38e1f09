"""CPU engine for the families beyond serial union-find: ECL-CC, ECL_af and parallel Rem.

``component_roots(graph, variant, options)`` is what ``_cpu/components.py`` calls for
the variants whose finish is not a union-find rule. ``rem_cas_roots`` is the parallel
Rem's algorithm (CAS splicing, Patwary et al.), the CPU counterpart Cong & Muzio
rank first; it returns the same roots as the serial ``none-rem_cas-splice-coo``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized
from ..errors import InvalidVariantError
from ..graph import Graph
from ..options import DEFAULTS, Options
from ..variants import Finish, Sampling, Variant
from .atomics import atomic_load, cas
from .ecl import ecl_af_roots, ecl_roots
from .rules import unite_for
from .unionfind import flatten, most_frequent_root, sample, state_dtype

__all__ = ["PARALLEL_REM", "component_roots", "parallel_threads", "rem_cas_roots"]

#: The variant whose serial version Cong & Muzio's parallel Rem replaces.
PARALLEL_REM = Variant(Sampling.NONE, Finish.REM_CAS, "splice", "coo")


def parallel_threads() -> int:
    """Threads numba's parallel loops use (1 means: run the serial algorithms)."""
    return nb.get_num_threads()


# ------------------------------------------------------------------ parallel Rem
@nb.njit(cache=True, inline="always")
def _rem_unite_cas(p, x, y):
    """Rem's union with lock-free splicing: walk up from the endpoint whose parent is
    larger, splicing it under the other side's parent (CAS), until the parents meet
    or a root is linked (CAS). Parents stay smaller than children."""
    rx, ry = x, y
    while True:
        prx = atomic_load(p, rx)
        pry = atomic_load(p, ry)
        if prx == pry:
            return
        if prx < pry:
            rx, ry = ry, rx
            prx, pry = pry, prx
        if rx == prx:
            if cas(p, rx, rx, pry) == rx:
                return
        else:
            cas(p, rx, prx, pry)
            rx = prx


@serialized
@nb.njit(cache=True, parallel=True)
def _rem_cas_edges(p, src, dst):
    for i in nb.prange(src.shape[0]):
        _rem_unite_cas(p, src[i], dst[i])


def rem_cas_roots(graph: Graph, options: Options = DEFAULTS) -> np.ndarray:
    """Minimum-vertex roots by parallel Rem-CAS over the COO edges (numba ``prange``).

    Examples
    --------
    >>> import numpy as np
    >>> from concomp import Graph
    >>> from concomp._cpu.families import rem_cas_roots
    >>> g = Graph.from_edges(np.array([3, 4]), np.array([1, 3]), num_nodes=5)
    >>> rem_cas_roots(g).tolist()
    [0, 1, 2, 1, 1]
    """
    dt = state_dtype(graph, options)
    p = np.arange(graph.num_nodes, dtype=dt)
    src, dst = graph.coo()
    _rem_cas_edges(p, src.astype(dt, copy=False), dst.astype(dt, copy=False))
    flatten(p)
    return p


# ------------------------------------------------------------------ ECL-CC
def _ecl_variant_roots(graph: Graph, variant: Variant, options: Options) -> np.ndarray:
    dt = state_dtype(graph, options)
    n = graph.num_nodes
    if n == 0:
        return np.zeros(0, dtype=dt)
    indptr, indices, _ = graph.undirected_csr()
    indptr, indices = indptr.astype(dt, copy=False), indices.astype(dt, copy=False)
    if variant.finish == Finish.ECL_AF:
        return ecl_af_roots(indptr, indices)
    parallel = parallel_threads() > 1
    if variant.sampling != Sampling.NONE:
        p = np.arange(n, dtype=dt)
        k0 = sample(p, indptr, indices, variant, unite_for(Finish.ASYNC, "halve"), options)
        flatten(p)
        return ecl_roots(
            indptr, indices, parallel=parallel, labels=p, lmax=most_frequent_root(p, options), k0=k0
        )
    return ecl_roots(indptr, indices, parallel=parallel)


def component_roots(graph: Graph, variant: Variant, options: Options) -> np.ndarray:
    """Minimum vertex id of each vertex's component, computed as ``variant`` says.

    ECL-CC runs in parallel (CAS) when numba has more than one thread, serially
    otherwise; ECL_af runs in parallel; :data:`PARALLEL_REM` runs the parallel Rem
    (``_cpu/components.py`` sends it here when numba has more than one thread).
    """
    if variant.finish in (Finish.ECL, Finish.ECL_AF):
        return _ecl_variant_roots(graph, variant, options)
    if variant == PARALLEL_REM:
        return rem_cas_roots(graph, options)
    raise InvalidVariantError(
        f"algorithm={str(variant)!r} is not implemented by the cpu engine; choose one of "
        "concomp.all_variants(device='cpu') or device='gpu'."
    )
