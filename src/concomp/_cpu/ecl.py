"""ECL-CC on the CPU (Jaiganesh & Burtscher): serial, parallel with CAS, and ECL_af.

All three follow the thesis's three steps over a symmetric CSR:

* init: label each vertex with its first smaller neighbour;
* compute: for each vertex ``v`` and each edge to ``u < v``, hook the larger of
  the two representatives under the smaller. ``representative`` follows the labels
  to the end of the chain and points every vertex on the way at its grandparent
  (intermediate pointer jumping);
* flatten: point every vertex at the end of its chain.

The parallel version hooks with the compare-and-swap intrinsic of
``_cpu/atomics.py`` (the OpenMP code's ``__sync_val_compare_and_swap``); ECL_af
hooks with plain stores and repeats the compute step until a pass changes nothing.
Labels only ever decrease, so every final root is its component's minimum vertex.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized
from .atomics import atomic_load, cas

__all__ = ["ecl_af_roots", "ecl_roots"]


# ------------------------------------------------------------------ shared pieces
@nb.njit(cache=True, inline="always")
def _init_vertex(nstat, v, indptr, indices, eids, hook, record):
    """Label ``v`` with its first smaller neighbour (itself if none); ``record`` stores the
    edge that hooks it."""
    m = v
    for j in range(indptr[v], indptr[v + 1]):
        if indices[j] < v:
            m = indices[j]
            if record:
                hook[v] = eids[j]
            break
    nstat[v] = m


@nb.njit(cache=True)
def _init_serial(nstat, indptr, indices, eids, hook, record):
    for v in range(nstat.shape[0]):
        _init_vertex(nstat, v, indptr, indices, eids, hook, record)


# prange indices are cast to int64: numba may type them unsigned, and unsigned
# mixed with the int32 labels would unify to float64.
@serialized
@nb.njit(cache=True, parallel=True)
def _init_parallel(nstat, indptr, indices, eids, hook, record):
    for i in nb.prange(nstat.shape[0]):
        _init_vertex(nstat, np.int64(i), indptr, indices, eids, hook, record)


@nb.njit(cache=True, inline="always")
def _end_of_chain(v, nstat):
    vstat = atomic_load(nstat, v)
    nxt = atomic_load(nstat, vstat)
    while vstat > nxt:
        vstat = nxt
        nxt = atomic_load(nstat, vstat)
    return vstat


@nb.njit(cache=True)
def _flatten_serial(nstat):
    for v in range(nstat.shape[0]):
        nstat[v] = _end_of_chain(v, nstat)


@serialized
@nb.njit(cache=True, parallel=True)
def _flatten_parallel(nstat):
    for i in nb.prange(nstat.shape[0]):
        v = np.int64(i)
        r = _end_of_chain(v, nstat)
        if nstat[v] != r:
            nstat[v] = r


@nb.njit(cache=True, inline="always")
def _representative(v, nstat):
    """End of ``v``'s chain, pointing each vertex passed at its grandparent.

    Reads are atomic loads (other threads hook concurrently); the stores only move
    a non-root's label to one of its ancestors, so a lost or stale store is harmless.
    """
    curr = atomic_load(nstat, v)
    if curr != v:
        prev = v
        nxt = atomic_load(nstat, curr)
        while curr > nxt:
            nstat[prev] = nxt
            prev = curr
            curr = nxt
            nxt = atomic_load(nstat, curr)
    return curr


# ------------------------------------------------------------------ compute
@nb.njit(cache=True)
def _compute_serial(nstat, indptr, indices, k0, lmax, sampled, eids, hook, record):
    for v in range(nstat.shape[0]):
        if sampled and nstat[v] == lmax:
            continue
        vstat = _representative(v, nstat)
        for j in range(indptr[v] + k0, indptr[v + 1]):
            u = indices[j]
            if sampled or v > u:
                ostat = _representative(u, nstat)
                if vstat < ostat:
                    nstat[ostat] = vstat
                    if record:
                        hook[ostat] = eids[j]
                elif ostat < vstat:
                    nstat[vstat] = ostat
                    if record:
                        hook[vstat] = eids[j]
                    vstat = ostat


@nb.njit(cache=True, inline="always")
def _hook_cas(nstat, vstat, ostat, hook, eid, record):
    """Hook the larger representative under the smaller; on a lost race retry from the
    value the CAS returned. Returns ``v``'s (possibly stale) representative. ``record``
    stores ``eid`` in the slot of the root the CAS hooked."""
    while vstat != ostat:
        if vstat < ostat:
            ret = cas(nstat, ostat, ostat, vstat)
            if ret == ostat:
                if record:
                    hook[ostat] = eid
                break
            ostat = ret
        else:
            ret = cas(nstat, vstat, vstat, ostat)
            if ret == vstat:
                if record:
                    hook[vstat] = eid
                break
            vstat = ret
    return vstat


@serialized
@nb.njit(cache=True, parallel=True)
def _compute_parallel(nstat, indptr, indices, k0, lmax, sampled, eids, hook, record):
    for i in nb.prange(nstat.shape[0]):
        v = np.int64(i)
        if sampled and atomic_load(nstat, v) == lmax:
            continue
        vstat = _representative(v, nstat)
        for j in range(indptr[v] + k0, indptr[v + 1]):
            u = indices[j]
            if sampled or v > u:
                ostat = _representative(u, nstat)
                # eids is a one-entry stand-in when no forest is recorded: never index it
                eid = eids[j] if record else 0
                vstat = _hook_cas(nstat, vstat, ostat, hook, eid, record)


@serialized
@nb.njit(cache=True, parallel=True)
def _compute_atomic_free(nstat, indptr, indices):
    """One ECL_af pass; returns how many hooks it stored (0: converged)."""
    hooks = 0
    for i in nb.prange(nstat.shape[0]):
        v = np.int64(i)
        vstat = _representative(v, nstat)
        for j in range(indptr[v], indptr[v + 1]):
            u = indices[j]
            if v > u:
                ostat = _representative(u, nstat)
                if vstat != ostat:
                    hooks += 1
                    if vstat < ostat:
                        nstat[ostat] = vstat
                    else:
                        nstat[vstat] = ostat
    return hooks


# ------------------------------------------------------------------ drivers
def ecl_roots(
    indptr: np.ndarray,
    indices: np.ndarray,
    *,
    parallel: bool,
    labels: np.ndarray | None = None,
    lmax: int = -1,
    k0: int = 0,
    eids: np.ndarray | None = None,
    hook: np.ndarray | None = None,
) -> np.ndarray:
    """Minimum-vertex roots by ECL-CC over a symmetric CSR (all arrays one int dtype).

    ``labels`` (with ``lmax`` and ``k0``) replaces the init step by a sampler's
    compressed forest, as GConn's G_ECL-CC does: vertices labelled ``lmax`` are
    skipped, the first ``k0`` edges of each vertex were sampled, and the other
    edges are processed in both directions. ``labels`` is updated in place.
    With ``hook`` (and ``eids``, the input edge id of each entry) every vertex the
    init or a hook makes a non-root records the edge that did it: a spanning forest.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.ecl import ecl_roots
    >>> indptr = np.array([0, 1, 2, 3, 4], dtype=np.int32)
    >>> indices = np.array([2, 3, 0, 1], dtype=np.int32)    # edges 0-2 and 1-3
    >>> ecl_roots(indptr, indices, parallel=False).tolist()
    [0, 1, 0, 1]
    """
    n = indptr.shape[0] - 1
    sampled = labels is not None
    nstat = labels if labels is not None else np.empty(n, dtype=indices.dtype)
    record = hook is not None
    if hook is None or eids is None:
        hook = eids = np.zeros(1, np.int64)
    if not sampled:
        (_init_parallel if parallel else _init_serial)(nstat, indptr, indices, eids, hook, record)
    compute = _compute_parallel if parallel else _compute_serial
    compute(nstat, indptr, indices, k0, lmax, sampled, eids, hook, record)
    (_flatten_parallel if parallel else _flatten_serial)(nstat)
    return nstat


def ecl_af_roots(indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Minimum-vertex roots by ECL_af: parallel compute passes with plain stores until
    one stores no hook (the thesis's ``reiterate`` loop)."""
    nstat = np.empty(indptr.shape[0] - 1, dtype=indices.dtype)
    no_hook = np.zeros(1, np.int64)
    _init_parallel(nstat, indptr, indices, no_hook, no_hook, False)
    while _compute_atomic_free(nstat, indptr, indices):
        pass
    _flatten_parallel(nstat)
    return nstat
