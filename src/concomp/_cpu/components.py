"""CPU connected components: union-find over COO edges, and Afforest-style k-out sampling
(the first k neighbours of each vertex, or its first k lower neighbours).

Driver contract (shared with ``_gpu/components.py``): ``component_roots(graph, variant)``
returns an array whose entry ``v`` is the minimum vertex id of ``v``'s component.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..graph import Graph
from ..variants import Finish, Layout, Sampling, Variant
from .unionfind import MODE_OF, flatten, rem_union, union

#: Vertices sampled to estimate the most frequent label after sampling (Afforest uses 1024).
LABEL_SAMPLES = 1024


@nb.njit(cache=True)
def _coo_union(p, src, dst, mode, rem):
    for i in range(src.shape[0]):
        if rem:
            rem_union(p, src[i], dst[i], mode)
        else:
            union(p, src[i], dst[i], mode)


@nb.njit(cache=True)
def _coo_union_skip(p, src, dst, mode, rem, lmax):
    """Finish over COO edges, skipping those whose endpoints both sit in the giant component."""
    for i in range(src.shape[0]):
        u, v = src[i], dst[i]
        if p[u] == lmax and p[v] == lmax:
            continue
        if rem:
            rem_union(p, u, v, mode)
        else:
            union(p, u, v, mode)


@nb.njit(cache=True)
def _kout_round(p, indptr, indices, r, mode, rem):
    """Union every vertex with its r-th neighbour (one k-out sampling round)."""
    for v in range(indptr.shape[0] - 1):
        j = indptr[v] + r
        if j < indptr[v + 1]:
            if rem:
                rem_union(p, v, indices[j], mode)
            else:
                union(p, v, indices[j], mode)


#: k-out over lower neighbours looks at most this many entries into each row (as
#: ``_gpu/components.KOUT_LOWER_SCAN``).
KOUT_LOWER_SCAN = 64


@nb.njit(cache=True)
def _kout_lower(p, indptr, indices, k, mode, rem, scan):
    """Union every vertex, in id order, with its first k neighbours of smaller id
    among the first ``scan`` entries of its row."""
    for v in range(indptr.shape[0] - 1):
        found = 0
        for j in range(indptr[v], min(indptr[v + 1], indptr[v] + scan)):
            if found == k:
                break
            w = indices[j]
            if w < v:
                found += 1
                if rem:
                    rem_union(p, v, w, mode)
                else:
                    union(p, v, w, mode)


def sample(p: np.ndarray, indptr, indices, variant: Variant, mode: int, rem: bool) -> int:
    """Run ``variant``'s sampler on ``p``; return the leading edges per row it covered."""
    if variant.sampling == Sampling.KOUT_LOWER:
        _kout_lower(p, indptr, indices, variant.k, mode, rem, KOUT_LOWER_SCAN)
        return 0  # the sampled edges are not a prefix of the rows
    for r in range(variant.k):
        _kout_round(p, indptr, indices, r, mode, rem)
    return variant.k


@nb.njit(cache=True)
def _csr_finish(p, indptr, indices, k, mode, rem, lmax):
    """Union the remaining edges of every vertex outside the most frequent component.

    Correct because the CSR is symmetric: an edge between the giant component and
    another vertex is seen from the other vertex's side.
    """
    for v in range(indptr.shape[0] - 1):
        if p[v] == lmax:  # Afforest's skip: a direct parent check, no find
            continue
        for j in range(indptr[v] + k, indptr[v + 1]):
            if rem:
                rem_union(p, v, indices[j], mode)
            else:
                union(p, v, indices[j], mode)


@nb.njit(cache=True)
def _csr_finish_any(p, indptr, indices, k, mode, rem, lmax):
    """:func:`_csr_finish` for a CSR that need not be symmetric (each stored entry an edge).

    An entry is skipped only when both endpoints sit in the most frequent component
    (their parents are its root): the reverse entry that the symmetric finish relies
    on may be absent. Weak components need nothing more, so a caller's CSR is used
    as it is, never symmetrised into a second copy.
    """
    for v in range(indptr.shape[0] - 1):
        inside = p[v] == lmax
        for j in range(indptr[v] + k, indptr[v + 1]):
            w = indices[j]
            if inside and p[w] == lmax:
                continue
            if rem:
                rem_union(p, v, w, mode)
            else:
                union(p, v, w, mode)


def union_csr(graph: Graph) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(indptr, indices, symmetric)``: the CSR that union-find runs over.

    A graph built from CSR arrays is used as given (its transpose is not needed for
    weak connectivity, and a symmetrised copy of a large matrix costs 4x its memory);
    an edge list gets its symmetric CSR, which sampling needs in any case.
    """
    if graph.symmetric or graph._ucsr is not None or graph._indptr is None:
        indptr, indices, _ = graph.undirected_csr()
        return indptr, indices, True
    indptr, indices, _ = graph.csr()
    return indptr, indices, False


def _most_frequent_root(p: np.ndarray, seed: int = 0) -> int:
    n = p.shape[0]
    if n == 0:
        return -1
    rng = np.random.default_rng(seed)
    sample = p[rng.integers(0, n, size=min(LABEL_SAMPLES, n))]
    values, counts = np.unique(sample, return_counts=True)
    return int(values[np.argmax(counts)])


def component_roots(graph: Graph, variant: Variant) -> np.ndarray:
    """Minimum vertex id of each vertex's component, computed as ``variant`` says."""
    if variant.family != "unionfind":
        from .families import component_roots as family_roots

        return family_roots(graph, variant)
    from .families import PARALLEL_REM, rem_cas_roots

    if variant == PARALLEL_REM and nb.get_num_threads() > 1:
        # Rem with CAS splicing over COO edges in parallel (same roots as the serial run)
        return rem_cas_roots(graph)
    n = graph.num_nodes
    p = np.arange(n, dtype=graph.index_dtype)
    mode = MODE_OF[variant.compress.value]
    rem = variant.finish in (Finish.REM_CAS, Finish.REM_LOCK)
    if n == 0:
        return p
    if variant.sampling == Sampling.NONE:
        if variant.layout == Layout.COO:
            src, dst = graph.coo()
            _coo_union(p, src, dst, mode, rem)
        else:
            indptr, indices, _ = union_csr(graph)
            _csr_finish(p, indptr, indices, 0, mode, rem, -1)
        flatten(p)
        return p
    indptr, indices, symmetric = union_csr(graph)
    k = sample(p, indptr, indices, variant, mode, rem)
    flatten(p)
    lmax = _most_frequent_root(p)
    if variant.layout == Layout.CSR:
        finish = _csr_finish if symmetric else _csr_finish_any
        finish(p, indptr, indices, k, mode, rem, lmax)
    else:
        src, dst = graph.coo()
        _coo_union_skip(p, src, dst, mode, rem, lmax)
    flatten(p)
    return p


def auto_variant(graph: Graph) -> Variant:
    """Pick a CPU variant from cheap statistics.

    Sampling pays only when the average degree is high and a CSR is at hand
    (GConn, Fig. 5: on road-like graphs most edges are inspected anyway).
    """
    n = max(graph.num_nodes, 1)
    avg_deg = 2.0 * graph.num_edges / n
    has_csr = graph._indptr is not None or graph._ucsr is not None
    if avg_deg >= 6 and (has_csr or graph.symmetric):
        return Variant(Sampling.KOUT, Finish.ASYNC, "halve", Layout.CSR)
    return Variant(Sampling.NONE, Finish.REM_CAS, "splice", Layout.COO)
