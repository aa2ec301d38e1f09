"""Strongly connected components by trimming and min-label propagation (parallel, numba).

The method of ECL-SCC (Alabandi, Sands, Biros, Burtscher, SC'23) with minima in
place of maxima, so that a component's label is its smallest vertex:

1. *Trim*: a vertex with no remaining in-arc or no remaining out-arc (self loops
   do not count) is a component of its own; removing it may expose more such
   vertices. A queue removes them all in one linear pass.
2. *Propagate*: every remaining vertex starts with ``fw[v] = bw[v] = v``; sweeps
   lower ``fw[v]`` to the smallest ``fw`` of its in-neighbours and ``bw[v]`` to
   the smallest ``bw`` of its out-neighbours until a sweep changes nothing. Then
   ``fw[v]`` is the smallest vertex that reaches ``v`` and ``bw[v]`` the smallest
   vertex ``v`` reaches.
3. *Settle*: where ``fw[v] == bw[v] == c``, ``c`` and ``v`` reach each other and
   no smaller vertex reaches ``c``: ``v`` belongs to the component whose smallest
   vertex is ``c``. Every other vertex takes ``(fw[v], bw[v])`` as its colour:
   two vertices of one component always share it, so arcs between different
   colours are dropped and each colour is solved on its own in the next round.

Each round settles at least the component of the smallest vertex of every
colour, so the rounds end. Each sweep also reads the values of the vertices
named by ``fw[v]`` and by a jump pointer per direction that doubles every sweep,
so that the minima travel a path or a cycle numbered in any order in O(log n)
sweeps; where the minimum spreads over a wide front against the numbering (a
two-dimensional torus whose arcs point to smaller ids) the sweeps still grow
with the diameter. Sweeps alternate between ascending and descending vertex
order. Writes are race-free (a sweep writes
``fw[v]``, ``bw[v]`` of its own ``v`` only); reads of a neighbour's value may see
it before or after that neighbour's update in the same sweep, which only speeds
up the descent, and a sweep that changes nothing read only final values.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.csr import counting_sort, expand_rows
from .._shared.threads import serialized

__all__ = ["propagation_roots", "transpose"]


@nb.njit(cache=True, inline="always")
def _live_arc(u, w, lab, cf, cb):
    """Whether the arc between ``u`` and ``w`` still counts: both unsettled, same colour,
    not a self loop."""
    return u != w and lab[w] < 0 and cf[u] == cf[w] and cb[u] == cb[w]


@serialized
@nb.njit(cache=True, parallel=True)
def _degrees(indptr, indices, tptr, tind, lab, cf, cb, indeg, outdeg):
    """Live in- and out-degree of every unsettled vertex (duplicates count each time)."""
    for i in nb.prange(lab.shape[0]):
        v = np.int64(i)
        if lab[v] >= 0:
            continue
        d = 0
        for j in range(indptr[v], indptr[v + 1]):
            d += _live_arc(v, indices[j], lab, cf, cb)
        outdeg[v] = d
        d = 0
        for j in range(tptr[v], tptr[v + 1]):
            d += _live_arc(v, tind[j], lab, cf, cb)
        indeg[v] = d


@nb.njit(cache=True)
def _trim_queue(indptr, indices, tptr, tind, lab, cf, cb, indeg, outdeg, queue):
    """Settle every vertex that has (or comes to have) no live in- or out-arc, as its own
    component; return how many. A vertex is labelled when queued, so it is queued once,
    and its neighbours' degrees drop when it leaves the queue."""
    tail = 0
    for v in range(lab.shape[0]):
        if lab[v] < 0 and (indeg[v] == 0 or outdeg[v] == 0):
            lab[v] = v
            queue[tail] = v
            tail += 1
    head = 0
    while head < tail:
        v = queue[head]
        head += 1
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if _live_arc(v, w, lab, cf, cb):
                indeg[w] -= 1
                if indeg[w] == 0:
                    lab[w] = w
                    queue[tail] = w
                    tail += 1
        for j in range(tptr[v], tptr[v + 1]):
            u = tind[j]
            if _live_arc(v, u, lab, cf, cb):
                outdeg[u] -= 1
                if outdeg[u] == 0:
                    lab[u] = u
                    queue[tail] = u
                    tail += 1
    return tail


@serialized
@nb.njit(cache=True, parallel=True)
def _jump_init(indptr, indices, tptr, tind, lab, cf, cb, jf, jb):
    """Jump pointers of a round: ``jf[v]`` a live in-neighbour of ``v``, ``jb[v]`` a live
    out-neighbour (``v`` itself where there is none)."""
    for i in nb.prange(lab.shape[0]):
        v = np.int64(i)
        if lab[v] >= 0:
            continue
        f = v
        for j in range(tptr[v], tptr[v + 1]):
            if _live_arc(v, tind[j], lab, cf, cb):
                f = tind[j]
                break
        b = v
        for j in range(indptr[v], indptr[v + 1]):
            if _live_arc(v, indices[j], lab, cf, cb):
                b = indices[j]
                break
        jf[v] = f
        jb[v] = b


@serialized
@nb.njit(cache=True, parallel=True)
def _sweep(indptr, indices, tptr, tind, lab, cf, cb, fw, bw, jf, jb, descending):
    """One propagation sweep; returns how many vertices lowered a value.

    Besides the neighbours, ``v`` reads the values of the vertices named by ``fw[v]``
    and ``jf[v]`` (``bw[v]``, ``jb[v]``): each reaches ``v`` (is reached from ``v``)
    inside its colour, so its value is a valid one for ``v``. The jump pointers double
    (``jf[v]`` takes ``jf[jf[v]]``), which brings the minimum along a path or cycle
    numbered in any order in O(log n) sweeps."""
    n = lab.shape[0]
    changed = 0
    for i in nb.prange(n):
        ii = np.int64(i)  # prange may type i unsigned; keep the arithmetic signed
        v = n - 1 - ii if descending else ii
        if lab[v] >= 0:
            continue
        f = fw[v]
        b = bw[v]
        for j in range(tptr[v], tptr[v + 1]):
            u = tind[j]
            if fw[u] < f and _live_arc(v, u, lab, cf, cb):
                f = fw[u]
        for j in range(indptr[v], indptr[v + 1]):
            w = indices[j]
            if bw[w] < b and _live_arc(v, w, lab, cf, cb):
                b = bw[w]
        pf = jf[v]
        pb = jb[v]
        f = min(f, fw[pf])
        f = min(f, fw[f])
        b = min(b, bw[pb])
        b = min(b, bw[b])
        jf[v] = jf[pf]
        jb[v] = jb[pb]
        if f < fw[v] or b < bw[v]:
            fw[v] = f
            bw[v] = b
            changed += 1
    return changed


@serialized
@nb.njit(cache=True, parallel=True)
def _settle(lab, cf, cb, fw, bw):
    """Label the vertices whose two values agree; colour and reset the rest; return
    how many are left."""
    left = 0
    for i in nb.prange(lab.shape[0]):
        v = np.int64(i)
        if lab[v] >= 0:
            continue
        if fw[v] == bw[v]:
            lab[v] = fw[v]
        else:
            cf[v] = fw[v]
            cb[v] = bw[v]
            fw[v] = v
            bw[v] = v
            left += 1
    return left


def transpose(indptr: np.ndarray, indices: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` of the reversed arcs (rows = targets, entries = sources)."""
    tptr, order = counting_sort(indices, n)
    sources = expand_rows(indptr, indices.dtype)
    return tptr.astype(indices.dtype, copy=False), sources[order]


def propagation_roots(indptr: np.ndarray, indices: np.ndarray, n: int) -> np.ndarray:
    """Entry ``v``: the smallest vertex of ``v``'s strongly connected component.

    ``indptr``, ``indices`` are a CSR of one integer dtype (rows = sources);
    duplicates and self loops are allowed.
    """
    dt = indices.dtype
    tptr, tind = transpose(indptr, indices, n)
    lab = np.full(n, -1, dtype=dt)
    cf = np.zeros(n, dtype=dt)
    cb = np.zeros(n, dtype=dt)
    fw = np.arange(n, dtype=dt)
    bw = np.arange(n, dtype=dt)
    indeg = np.empty(n, dtype=dt)
    outdeg = np.empty(n, dtype=dt)
    queue = np.empty(n, dtype=dt)
    jf = np.empty(n, dtype=dt)
    jb = np.empty(n, dtype=dt)
    while True:
        _degrees(indptr, indices, tptr, tind, lab, cf, cb, indeg, outdeg)
        _trim_queue(indptr, indices, tptr, tind, lab, cf, cb, indeg, outdeg, queue)
        _jump_init(indptr, indices, tptr, tind, lab, cf, cb, jf, jb)
        descending = False
        while _sweep(indptr, indices, tptr, tind, lab, cf, cb, fw, bw, jf, jb, descending):
            descending = not descending
        if _settle(lab, cf, cb, fw, bw) == 0:
            return lab
