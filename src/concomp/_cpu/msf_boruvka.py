"""Borůvka's minimum spanning forest on the CPU: parallel lightest-edge rounds.

See :mod:`concomp._cpu.msf` for the edge order that makes the forest unique.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange

from .._shared.threads import serialized
from .msf_common import _find, _pairs


def boruvka(src: np.ndarray, dst: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """Borůvka's algorithm: every component takes its lightest edge, per round.

    The edge scan is parallel and race-free: each worker keeps its own best-edge
    row and the rows are merged per component afterwards. Edges inside one
    component are filtered out after each round, so later rounds scan fewer.
    """
    keep = np.flatnonzero(src != dst)
    eu, ev, k1 = src[keep], dst[keep], key[keep]
    k2 = _pairs(eu, ev, n)
    comp = np.arange(n, dtype=np.int64)
    chosen = []
    while eu.shape[0]:
        best = _boruvka_best(eu, ev, k1, k2, comp, nb.get_num_threads())
        picked = _boruvka_hook(eu, ev, best, comp)
        if picked.shape[0] == 0:
            break
        chosen.append(keep[picked])
        alive = comp[eu] != comp[ev]
        keep, eu, ev, k1, k2 = keep[alive], eu[alive], ev[alive], k1[alive], k2[alive]
    return np.sort(np.concatenate(chosen)) if chosen else np.zeros(0, dtype=np.int64)


@serialized
@nb.njit(parallel=True, cache=True)
def _boruvka_best(eu, ev, k1, k2, comp, workers):
    m, n = eu.shape[0], comp.shape[0]
    # per worker and component: (key, pair, index) of the best edge so far, side by side so
    # that a comparison touches one cache line; all ones means "none yet" and loses to any
    rows = np.full((workers, n, 3), np.uint64(0xFFFFFFFFFFFFFFFF), dtype=np.uint64)
    for w in prange(workers):
        for i in range(w * m // workers, (w + 1) * m // workers):
            a, b = comp[eu[i]], comp[ev[i]]
            if a != b:
                _offer(rows, w, a, k1[i], k2[i], np.uint64(i))
                _offer(rows, w, b, k1[i], k2[i], np.uint64(i))
    best = np.empty(n, dtype=np.int64)
    for v in prange(n):
        for w in range(1, workers):
            _offer(rows, 0, v, rows[w, v, 0], rows[w, v, 1], rows[w, v, 2])
        best[v] = -1 if rows[0, v, 2] == np.uint64(0xFFFFFFFFFFFFFFFF) else np.int64(rows[0, v, 2])
    return best


@nb.njit(cache=True)
def _offer(rows, w, a, x, y, i):
    r = rows[w, a]
    if x < r[0] or (x == r[0] and (y < r[1] or (y == r[1] and i < r[2]))):
        r[0], r[1], r[2] = x, y, i


@nb.njit(cache=True)
def _boruvka_hook(eu, ev, best, comp):
    """Link each root to the root across its lightest edge; ``comp`` stays compressed.

    A strict edge order leaves only 2-cycles (two roots picking one edge); the
    smaller root of such a pair links and the other stays a root.
    """
    n = comp.shape[0]
    target = np.full(n, -1, dtype=np.int64)
    for a in range(n):
        i = best[a]
        if comp[a] == a and i >= 0:
            b = comp[eu[i]] if comp[eu[i]] != a else comp[ev[i]]
            if not (best[b] == i and b < a):
                target[a] = b
    picked = np.empty(n, dtype=np.int64)
    k = 0
    for a in range(n):
        if target[a] >= 0:
            comp[a] = target[a]
            picked[k] = best[a]
            k += 1
    for v in range(n):
        comp[v] = _find(comp, v)
    return picked[:k]
