"""Sequential union-find primitives for the CPU engine (numba).

numba has no compare-and-swap on the CPU, so unions run on one thread; what is
race-free (flattening, label counting) runs in parallel. Every union links the
larger root under the smaller, so each final root is its component's minimum
vertex id: that makes SciPy's label order a prefix sum away.

Compression codes (``mode``): 0 naive, 1 split, 2 halve, 3 full compression,
4 Rem's splice (finds stay naive).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._threads import serialized

NAIVE, SPLIT, HALVE, COMPRESS, SPLICE = 0, 1, 2, 3, 4
MODE_OF = {"naive": NAIVE, "split": SPLIT, "halve": HALVE, "compress": COMPRESS,
           "splice": SPLICE}


@nb.njit(cache=True, inline="always")
def find(p, x, mode):
    """Root of ``x``, compressing the path as ``mode`` says."""
    if mode == HALVE:
        while p[x] != x:
            gp = p[p[x]]
            p[x] = gp
            x = gp
        return x
    if mode == SPLIT:
        while p[x] != x:
            nxt = p[x]
            p[x] = p[nxt]
            x = nxt
        return x
    root = x
    while p[root] != root:
        root = p[root]
    if mode == COMPRESS:
        while p[x] != root:
            nxt = p[x]
            p[x] = root
            x = nxt
    return root


@nb.njit(cache=True, inline="always")
def union(p, u, v, mode):
    """Link the roots of ``u`` and ``v`` (the larger id goes under the smaller).

    Returns the root that stopped being one (the owner of the edge in a spanning
    forest), or -1 when ``u`` and ``v`` were already connected.
    """
    ru = find(p, u, mode)
    rv = find(p, v, mode)
    if ru < rv:
        p[rv] = ru
        return rv
    if rv < ru:
        p[ru] = rv
        return ru
    return -1


@nb.njit(cache=True, inline="always")
def rem_union(p, x, y, mode):
    """Rem's algorithm: walk both paths up by parent order, splicing as it goes.

    Relies on ``p[x] <= x``. ``mode`` HALVE/SPLIT compress one step per move
    (HalveAtomicOne / SplitAtomicOne); SPLICE (or any other) is Rem's splice.
    Returns the root that was linked, or -1: splicing moves non-root pointers
    across trees, but only the final root link merges two sets.
    """
    rx, ry = x, y
    while p[rx] != p[ry]:
        if p[rx] < p[ry]:
            rx, ry = ry, rx
        if rx == p[rx]:
            p[rx] = p[ry]
            return rx
        z = p[rx]
        if mode == SPLIT:
            p[rx] = p[z]
            rx = z
        elif mode == HALVE:
            p[rx] = p[z]
            rx = p[rx]
        else:
            p[rx] = p[ry]
            rx = z
    return -1


@serialized
@nb.njit(cache=True, parallel=True)
def flatten(p):
    """Point every vertex at its root. Benign races: writes only move pointers to ancestors."""
    for v in nb.prange(p.shape[0]):
        r = p[v]
        while p[r] != r:
            r = p[r]
        p[v] = r


def init_parents(n: int, dtype) -> np.ndarray:
    return np.arange(n, dtype=dtype)
