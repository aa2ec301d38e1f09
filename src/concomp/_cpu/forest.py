"""CPU spanning forests: the union-find engine with a hook-recording link.

Every union that links two roots reports the root that stopped being one; the
driver stores the id of the edge being processed in that root's slot (GConn,
section 3.2: each forest edge is owned by exactly one vertex). The same link
functions serve :mod:`concomp._cpu.incremental`.

Driver contract (shared with the GPU path of :mod:`concomp.forest`):
``spanning_forest_ids(graph, variant)`` returns ``(edge_ids, num_components)``
with the edge ids ascending.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..graph import Graph
from ..variants import Finish, Layout, Sampling, Variant
from .components import KOUT_LOWER_SCAN, _most_frequent_root
from .unionfind import MODE_OF, flatten, rem_union, union

def link_mode(variant: Variant) -> tuple[int, bool]:
    """``(mode, rem)``: the compression code and whether the finish is Rem's algorithm."""
    return MODE_OF[str(variant.compress)], variant.finish in (Finish.REM_CAS, Finish.REM_LOCK)


@nb.njit(cache=True, inline="always")
def link_rec(p, u, v, mode, rem):
    """The CPU engine's union (Async or Rem); returns the root that was linked or -1."""
    if rem:
        return rem_union(p, u, v, mode)
    return union(p, u, v, mode)


@nb.njit(cache=True)
def _coo_forest(p, hook, src, dst, mode, rem, lmax):
    """Edge-parallel finish in input order; ``lmax >= 0`` skips edges inside that component."""
    for i in range(src.shape[0]):
        u, v = src[i], dst[i]
        if lmax >= 0 and p[u] == lmax and p[v] == lmax:
            continue
        r = link_rec(p, u, v, mode, rem)
        if r >= 0:
            hook[r] = i


@nb.njit(cache=True)
def _kout_forest_round(p, hook, indptr, indices, eids, r, mode, rem):
    """Union every vertex with its r-th neighbour (one k-out round)."""
    for v in range(indptr.shape[0] - 1):
        j = indptr[v] + r
        if j < indptr[v + 1]:
            root = link_rec(p, v, indices[j], mode, rem)
            if root >= 0:
                hook[root] = eids[j]


@nb.njit(cache=True)
def _kout_lower_forest(p, hook, indptr, indices, eids, k, mode, rem, scan):
    """Union every vertex, in id order, with its first k neighbours of smaller id
    among the first ``scan`` entries of its row, recording the linking edges."""
    for v in range(indptr.shape[0] - 1):
        found = 0
        for j in range(indptr[v], min(indptr[v + 1], indptr[v] + scan)):
            if found == k:
                break
            if indices[j] < v:
                found += 1
                root = link_rec(p, v, indices[j], mode, rem)
                if root >= 0:
                    hook[root] = eids[j]


@nb.njit(cache=True)
def _csr_forest(p, hook, indptr, indices, eids, k, mode, rem, lmax):
    """Edges from position k of every vertex outside the ``lmax`` component.

    The CSR is symmetric, so an edge leaving the skipped component is seen from
    its other end.
    """
    for v in range(indptr.shape[0] - 1):
        if lmax >= 0 and p[v] == lmax:
            continue
        for j in range(indptr[v] + k, indptr[v + 1]):
            root = link_rec(p, v, indices[j], mode, rem)
            if root >= 0:
                hook[root] = eids[j]


def spanning_forest_ids(graph: Graph, variant: Variant) -> tuple[np.ndarray, int]:
    """Ascending input edge ids of a spanning forest, and the number of components."""
    n = graph.num_nodes
    p = np.arange(n, dtype=graph.index_dtype)
    hook = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return hook, 0
    mode, rem = link_mode(variant)
    if variant.sampling == Sampling.NONE:
        if variant.layout == Layout.COO:
            src, dst = graph.coo()
            _coo_forest(p, hook, src, dst, mode, rem, -1)
        else:
            indptr, indices, eids = graph.undirected_csr()
            _csr_forest(p, hook, indptr, indices, eids, 0, mode, rem, -1)
    else:
        indptr, indices, eids = graph.undirected_csr()
        k0 = variant.k
        if variant.sampling == Sampling.KOUT_LOWER:
            _kout_lower_forest(p, hook, indptr, indices, eids, variant.k, mode, rem,
                               KOUT_LOWER_SCAN)
            k0 = 0  # the sampled edges are not a prefix of the rows
        else:
            for r in range(variant.k):
                _kout_forest_round(p, hook, indptr, indices, eids, r, mode, rem)
        flatten(p)
        lmax = _most_frequent_root(p)
        if variant.layout == Layout.CSR:
            _csr_forest(p, hook, indptr, indices, eids, k0, mode, rem, lmax)
        else:
            src, dst = graph.coo()
            _coo_forest(p, hook, src, dst, mode, rem, lmax)
    flatten(p)
    count = int(np.count_nonzero(p == np.arange(n, dtype=p.dtype)))
    return np.sort(hook[hook >= 0]), count
