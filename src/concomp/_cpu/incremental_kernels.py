"""numba kernels of the CPU incremental engine (:mod:`concomp._cpu.incremental`), in a
module of their own so that the engine's NumPy start runs without loading numba."""

from __future__ import annotations

import numba as nb

from .rules import find_split

__all__ = ["find_batch", "insert_range", "query_range", "stream"]


@nb.njit(cache=True)
def insert_range(p, aux, ops, u, v, mixed, result, hs, hd, hb, hp, lo, hi, batch, unite):
    """Inserts of positions ``[lo, hi)``, one batch: hooks record ``i - lo``."""
    links = 0
    for i in range(lo, hi):
        if mixed and ops[i] != 0:
            continue
        a, b = u[i], v[i]
        r = unite(p, aux, a, b)
        result[i] = r >= 0
        if r >= 0:
            hs[r], hd[r], hb[r], hp[r] = a, b, batch, i - lo
            links += 1
    return links


@nb.njit(cache=True)
def query_range(p, ops, u, v, mixed, result, lo, hi):
    for i in range(lo, hi):
        if mixed and ops[i] != 1:
            continue
        # path splitting: the cheapest compression, and queries never link
        result[i] = find_split(p, u[i]) == find_split(p, v[i])


@nb.njit(cache=True)
def stream(p, aux, ops, u, v, mixed, result, hs, hd, hb, hp, first, size, unite):
    """Consecutive batches of ``size`` positions, ids ``first``, ...: inserts, then queries."""
    links, m = 0, u.shape[0]
    for k in range((m + size - 1) // size):
        lo = k * size
        hi = min(lo + size, m)
        links += insert_range(
            p, aux, ops, u, v, mixed, result, hs, hd, hb, hp, lo, hi, first + k, unite
        )
        if mixed:
            query_range(p, ops, u, v, mixed, result, lo, hi)
    return links


@nb.njit(cache=True)
def find_batch(p, v, out):
    for i in range(v.shape[0]):
        out[i] = find_split(p, v[i])
