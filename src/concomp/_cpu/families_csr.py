"""CSR families on the CPU: Shiloach-Vishkin, G_Afforest and label propagation, as
parallel passes over the symmetric CSR (ECL-CC is :mod:`concomp._cpu.ecl`, BFS-CC
:mod:`concomp._cpu.bfs`).

Vertices labelled ``lmax`` are skipped after sampling (``use``), and then every
edge from position ``k0`` on is processed from both ends; without sampling each
undirected edge is taken once, from its larger end. ``record`` keeps a spanning
forest for the root-based rules (SV, Afforest): a root is hooked by one CAS, and
the entry's input edge id goes to its ``hook`` slot.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized
from .atomics import atomic_add, atomic_load, atomic_min, cas
from .families_edges import sv_hook
from .family_state import _shortcut_full

__all__ = ["afforest", "label_propagation", "shiloach_vishkin_csr"]

_SV, _AFFOREST = 0, 1


@nb.njit(cache=True, inline="always")
def _afforest_link(comp, u, v, hook, eid, record):
    """Afforest's link (Sutton et al.): CAS a root under the smaller root, climbing one
    level on both sides after a failed attempt."""
    p1 = atomic_load(comp, u)
    p2 = atomic_load(comp, v)
    while p1 != p2:
        high, low = max(p1, p2), min(p1, p2)
        p_high = atomic_load(comp, high)
        if p_high == low:
            return 0
        if p_high == high and cas(comp, high, high, low) == high:
            if record:
                hook[high] = eid
            return 1
        p1 = atomic_load(comp, atomic_load(comp, high))
        p2 = atomic_load(comp, low)
    return 0


@nb.njit(cache=True, parallel=True)
def _csr_pass(P, indptr, indices, eids, k0, lmax, use, op, hook, record):
    """One vertex-parallel pass of a per-edge rule (``op``: SV's hook or Afforest's link)."""
    changed = 0
    for i in nb.prange(P.shape[0]):
        v = np.int64(i)
        if use and atomic_load(P, v) == lmax:
            continue
        for j in range(indptr[v] + k0, indptr[v + 1]):
            w = indices[j]
            if not use and w > v:
                continue
            if op == _SV:
                changed += sv_hook(P, v, w, hook, eids[j], record)
            else:
                changed += _afforest_link(P, v, w, hook, eids[j], record)
    return changed


@nb.njit(cache=True)
def _sv_csr_rounds(P, indptr, indices, eids, k0, lmax, use, hook, record):
    while True:
        hooked = _csr_pass(P, indptr, indices, eids, k0, lmax, use, _SV, hook, record)
        _shortcut_full(P)
        if hooked == 0:
            return


@serialized
def shiloach_vishkin_csr(P, indptr, indices, eids, k0, lmax, use, hook, record) -> None:
    """Root-based SV over the CSR: hook roots, fully compress, repeat until no hook."""
    _sv_csr_rounds(P, indptr, indices, eids, k0, lmax, use, hook, record)


@serialized
def afforest(P, indptr, indices, eids, k0, lmax, use, hook, record) -> None:
    """G_Afforest: Afforest's link over the edges sampling left, then its compress."""
    _csr_pass(P, indptr, indices, eids, k0, lmax, use, _AFFOREST, hook, record)
    _shortcut_full(P)


# ------------------------------------------------------------------ label propagation
@nb.njit(cache=True, inline="always")
def _push(x, stamp, rnd, nxt, count):
    """Put ``x`` on the next frontier once per round (the stamp is swapped by CAS)."""
    old = atomic_load(stamp, x)
    while old != rnd:
        seen = cas(stamp, x, old, rnd)
        if seen == old:
            nxt[atomic_add(count, 0, 1)] = x
            return
        old = seen


@nb.njit(cache=True, parallel={"fusion": False})
def _lp_rounds(lab, indptr, indices, cur, size, nxt, stamp, count):
    rnd = 0
    while size > 0:
        count[0] = 0
        for q in nb.prange(size):
            v = cur[q]
            for j in range(indptr[v], indptr[v + 1]):
                w = indices[j]
                lv = atomic_load(lab, v)
                lw = atomic_load(lab, w)
                if lv < lw:
                    if atomic_min(lab, w, lv) > lv:
                        _push(w, stamp, rnd, nxt, count)
                elif lw < lv:
                    if atomic_min(lab, v, lw) > lw:
                        _push(v, stamp, rnd, nxt, count)
        cur, nxt = nxt, cur
        size = count[0]
        rnd += 1


@serialized
def label_propagation(lab, indptr, indices, lmax: int, use: int) -> None:
    """Data-driven label propagation: only vertices whose label fell last round are active.

    The larger label of an edge takes the smaller (atomic min) and its vertex joins
    the next frontier. The first frontier is every vertex, or with sampling every
    vertex not labelled ``lmax``. Rounds grow with the diameter.
    """
    n = lab.shape[0]
    first = np.flatnonzero(lab != lmax) if use else np.arange(n)
    cur = np.empty(n, lab.dtype)
    cur[: first.shape[0]] = first
    _lp_rounds(
        lab, indptr, indices, cur, first.shape[0], np.empty(n, lab.dtype),
        np.full(n, -1, np.int64), np.zeros(1, np.int64),
    )  # fmt: skip
