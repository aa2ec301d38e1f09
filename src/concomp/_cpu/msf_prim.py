"""Prim's minimum spanning forest on the CPU: a binary heap with lazy deletion.

See :mod:`concomp._cpu.msf` for the edge order that makes the forest unique.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .msf_common import _pairs


def prim(
    src: np.ndarray,
    dst: np.ndarray,
    key: np.ndarray,
    n: int,
    csr: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> np.ndarray:
    """Prim's algorithm with a binary heap (lazy deletion), one tree per component.

    ``csr`` is the symmetric adjacency ``(indptr, indices, edge_ids)`` without
    self loops, as :meth:`concomp.Graph.undirected_csr` returns it.
    """
    indptr, indices, eids = csr
    return np.sort(_prim_forest(indptr, indices, eids, key, _pairs(src, dst, n)))


@nb.njit(cache=True)
def _less(k1, k2, i, j):
    """Edge ``i`` before edge ``j`` in the order ``(key, pair, index)``."""
    if k1[i] != k1[j]:
        return k1[i] < k1[j]
    if k2[i] != k2[j]:
        return k2[i] < k2[j]
    return i < j


@nb.njit(cache=True)
def _sift_down(heap, hv, size, key, pairs):
    i = 0
    while True:
        c = 2 * i + 1
        if c >= size:
            return
        if c + 1 < size and _less(key, pairs, heap[c + 1], heap[c]):
            c += 1
        if not _less(key, pairs, heap[c], heap[i]):
            return
        heap[i], heap[c], hv[i], hv[c] = heap[c], heap[i], hv[c], hv[i]
        i = c


@nb.njit(cache=True)
def _push_edges(v, indptr, indices, eids, seen, heap, hv, size, key, pairs):
    for j in range(indptr[v], indptr[v + 1]):
        if not seen[indices[j]]:
            i = size
            heap[i], hv[i] = eids[j], indices[j]
            size += 1
            while i > 0 and _less(key, pairs, heap[i], heap[(i - 1) // 2]):
                p = (i - 1) // 2
                heap[i], heap[p], hv[i], hv[p] = heap[p], heap[i], hv[p], hv[i]
                i = p
    return size


@nb.njit(cache=True)
def _prim_forest(indptr, indices, eids, key, pairs):
    n = indptr.shape[0] - 1
    seen = np.zeros(n, dtype=np.bool_)
    heap = np.empty(indices.shape[0], dtype=np.int64)  # edge ids, heap-ordered
    hv = np.empty(indices.shape[0], dtype=np.int64)  # the vertex each edge leads to
    out = np.empty(max(n - 1, 0), dtype=np.int64)
    k = 0
    for root in range(n):
        if seen[root]:
            continue
        seen[root] = True
        size = _push_edges(root, indptr, indices, eids, seen, heap, hv, 0, key, pairs)
        while size > 0:
            e, v = heap[0], hv[0]
            size -= 1
            heap[0], hv[0] = heap[size], hv[size]
            _sift_down(heap, hv, size, key, pairs)
            if not seen[v]:
                seen[v] = True
                out[k] = e
                k += 1
                size = _push_edges(v, indptr, indices, eids, seen, heap, hv, size, key, pairs)
    return out[:k]
