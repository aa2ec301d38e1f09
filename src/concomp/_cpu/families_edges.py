"""Edge-list (COO) families on the CPU: Soman's GPU-CC, Cong & Muzio's CC, CC-updt and
Stages, Shiloach-Vishkin, Liu-Tarjan and Stergiou, as parallel rounds.

Each round is a numba ``prange`` over the edges (and one over the vertices); a
whole algorithm is one numba function whose loop runs rounds until nothing
changes, so no round costs a return to Python. Labels only move towards smaller
ids (Soman: see there), so plain stores that move a pointer to an ancestor are
benign races; links that must not be lost use the atomics of
:mod:`concomp._cpu.atomics`, as the kernels of ``_gpu/cuda/families.cu`` do.

With ``record`` the root-based rules keep a spanning forest: a root is hooked by
a compare-and-swap that succeeds once, and the edge that did it goes to the
root's ``hook`` slot (GConn, section 3.2).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._rules import liu_tarjan_rule
from .._shared.threads import serialized
from .atomics import atomic_load, atomic_min, cas
from .family_state import _relabel_edges, _shortcut_full, _shortcut_once

__all__ = [
    "cong_muzio",
    "liu_tarjan",
    "permuted",
    "shiloach_vishkin",
    "soman",
    "stergiou",
]

#: Seed of the random edge permutation of Stages (fixed: results and timings repeat).
STAGES_SEED = 0x5EED


# ------------------------------------------------------------------ Shiloach-Vishkin
@nb.njit(cache=True, inline="always")
def sv_hook(P, u, w, hook, eid, record):
    """Hook the root among the endpoints' labels under the smaller label; 1 if it moved.

    Without ``record`` an atomic minimum (a root another edge hooked meanwhile may
    still move, with its subtree, to a smaller label); with ``record`` a CAS, so
    each root is hooked once, by the edge it records.
    """
    pu = atomic_load(P, u)
    pw = atomic_load(P, w)
    if pu == pw:
        return 0
    hi, lo = max(pu, pw), min(pu, pw)
    if atomic_load(P, hi) != hi:
        return 0
    if record:
        if cas(P, hi, hi, lo) == hi:
            hook[hi] = eid
            return 1
        return 0
    return 1 if atomic_min(P, hi, lo) > lo else 0


@nb.njit(cache=True, parallel={"fusion": False})
def _sv_rounds(P, src, dst, hook, record):
    while True:
        hooked = 0
        for i in nb.prange(src.shape[0]):
            hooked += sv_hook(P, src[i], dst[i], hook, i, record)
        _shortcut_full(P)
        if hooked == 0:
            return


shiloach_vishkin = serialized(_sv_rounds)
shiloach_vishkin.__doc__ = """Root-based SV over the edge list: hook roots, fully compress, repeat
until no root is hooked. With sampled labels an edge inside the ``lmax`` tree has equal
labels, which is the first thing the hook checks."""


# ------------------------------------------------------------------ Cong & Muzio
@nb.njit(cache=True, parallel={"fusion": False})
def _graft_rounds(P, src, dst, update, hook, record):
    """CC: graft the tree of the larger endpoint label under the smaller, shortcut to
    stars, repeat; CC-updt rewrites the edges to their labels after each round, so the
    graft reads no labels. ``record`` grafts by CAS. Returns the number of rounds.

    A graft lowers the label's pointer to the smaller one (an atomic minimum), where the
    papers' plain store lets the last of many edges win: on a star with its leaves in
    id order the hub's pointer then moved one leaf down per round, so CC-updt took a
    round per leaf below the hub."""
    rounds = 0
    while True:
        rounds += 1
        grafted = 0
        for i in nb.prange(src.shape[0]):
            if update:
                du, dv = src[i], dst[i]
            else:
                du, dv = atomic_load(P, src[i]), atomic_load(P, dst[i])
            if du == dv:
                continue
            hi, lo = max(du, dv), min(du, dv)
            if record:
                if atomic_load(P, hi) == hi and cas(P, hi, hi, lo) == hi:
                    hook[hi] = i
                    grafted += 1
            elif atomic_min(P, hi, lo) > lo:
                grafted += 1
        _shortcut_full(P)
        if update:
            _relabel_edges(src, dst, P)
        if grafted == 0:
            return rounds


cong_muzio = serialized(_graft_rounds)


# ------------------------------------------------------------------ Stages
@nb.njit(cache=True, inline="always")
def _scramble(x, bits, mask):
    """A bijection of ``[0, 2**bits)`` (uint64 in and out; ``mask = 2**bits - 1``):
    keyed by :data:`STAGES_SEED`, then multiplications by odd constants modulo
    ``2**bits`` and xor-shifts to the right, each invertible on ``bits``-bit values."""
    x ^= np.uint64(STAGES_SEED) & mask
    x = (x * np.uint64(0x9E3779B97F4A7C15)) & mask
    x ^= x >> ((bits >> np.uint64(1)) + np.uint64(1))
    x = (x * np.uint64(0xBF58476D1CE4E5B9)) & mask
    x ^= x >> ((bits + np.uint64(2)) // np.uint64(3))
    x = (x * np.uint64(0x94D049BB133111EB)) & mask
    return x ^ (x >> ((bits >> np.uint64(1)) + np.uint64(1)))


@serialized
@nb.njit(cache=True, parallel=True)
def _gather_permuted(src, dst, out_src, out_dst, bits):
    m = src.shape[0]
    b = np.uint64(bits)
    mask = (np.uint64(1) << b) - np.uint64(1)
    for j in nb.prange(m):
        # cycle-walking: [0, 2**bits) holds fewer than twice m positions, so a position
        # lands in [0, m) after one step, or a few
        x = _scramble(np.uint64(j), b, mask)
        while x >= np.uint64(m):
            x = _scramble(x, b, mask)
        i = np.int64(x)
        out_src[j] = src[i]
        out_dst[j] = dst[i]


def permuted(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Stages, step 1: the edges in a fixed pseudo-random order (new arrays).

    The order is a keyed bijection of the positions' bits, walked into range (each
    output position takes the first image in ``[0, m)`` of its orbit): linear and
    parallel, where sorting random keys took most of a Stages run. (The GPU
    engine sorts hash keys instead; the two orders differ, the components do not.)
    Not the generators' keyed Feistel bijection
    (:func:`concomp.generators._common.permutation`): its four keyed rounds per step
    made this gather of 7.6e6 edges 3.5 times slower on two cores.

    Examples
    --------
    >>> import numpy as np
    >>> s, d = permuted(np.arange(6), np.arange(6) + 10)
    >>> sorted(s.tolist()), (d - s).tolist()
    ([0, 1, 2, 3, 4, 5], [10, 10, 10, 10, 10, 10])
    """
    m = int(src.shape[0])
    out_src, out_dst = np.empty_like(src), np.empty_like(dst)
    if m:
        _gather_permuted(src, dst, out_src, out_dst, max(1, (m - 1).bit_length()))
    return out_src, out_dst


# ------------------------------------------------------------------ Liu-Tarjan
@nb.njit(cache=True, inline="always")
def _send(msg, target, value):
    if atomic_load(msg, target) > value and atomic_min(msg, target, value) > value:
        return 1
    return 0


@nb.njit(cache=True, inline="always")
def _connect(P, msg, u, v, rule, win, i, claim):
    """Liu-Tarjan's connect rules for edge ``(u, v)``; ``claim`` instead offers edge ``i``
    for every target whose final message equals what this edge sends (forests)."""
    x, y = atomic_load(P, u), atomic_load(P, v)
    targets = (max(u, v), u if y < x else v, x if y < x else y)
    value = min(x, y)
    if rule == 0:
        first, count, value = 0, 1, min(u, v)
    elif x == y:
        return 0
    elif rule == 1:
        first, count = 2, 1
    else:
        first, count = 1, 2
    sent = 0
    for t in range(first, first + count):
        target = targets[t]
        if claim:
            if atomic_load(msg, target) == value and atomic_load(P, target) == target:
                cas(win, target, -1, i)
        else:
            sent += _send(msg, target, value)
    return sent


@nb.njit(cache=True, parallel={"fusion": False})
def _lt_rounds(P, msg, src, dst, rule, root_only, full, alter, lmax, use, hook, win, record):
    n, m = P.shape[0], src.shape[0]
    if alter:
        _relabel_edges(src, dst, P)
    while True:
        changed = 0
        for i in nb.prange(m):
            u, v = src[i], dst[i]
            if u == v or (use and P[u] == lmax and P[v] == lmax):
                continue
            changed += _connect(P, msg, u, v, rule, win, i, False)
        if record:
            for i in nb.prange(m):
                u, v = src[i], dst[i]
                if u == v or (use and P[u] == lmax and P[v] == lmax):
                    continue
                _connect(P, msg, u, v, rule, win, i, True)
        for u in nb.prange(n):
            pu = P[u]
            if root_only and pu != u:
                continue
            if msg[u] < pu:
                P[u] = msg[u]
                changed += 1
                if record:
                    hook[u] = win[u]
                    win[u] = -1
        changed += _shortcut_full(P) if full else _shortcut_once(P)
        if alter:
            _relabel_edges(src, dst, P)
        if changed == 0:
            break
    _shortcut_full(P)


@serialized
def liu_tarjan(P, src, dst, rule: str, lmax: int, use: int, hook, record: bool) -> None:
    """Liu-Tarjan: connect (c/p/e) + update (u/r) + shortcut (s/f) [+ alter (a)] rounds.

    Connect sends candidate parents into a message array (atomic min): (c)onnect
    ``min(u, v)`` to ``max(u, v)``, (p)arent-connect the smaller parent to the larger,
    (e)xtended-connect with ``x = P[u]``, ``y = P[v]``, ``y < x``: ``y`` to ``u`` and to
    ``x``. Update applies them (root-update: to roots only), shortcut compresses one
    level or fully, alter replaces every edge by its endpoints' parents. Rounds
    repeat until no message, parent or edge changes. ``record`` (root-update rules
    only) gives each hooked root the edge whose message it took.
    """
    msg = P.copy()
    win = np.full(P.shape[0] if record else 1, -1, dtype=np.int64)
    r = liu_tarjan_rule(rule)
    _lt_rounds(
        P, msg, src, dst, r.connect, r.root_only, r.full, r.alter, lmax, use, hook, win, record
    )


# ------------------------------------------------------------------ Stergiou et al.
@nb.njit(cache=True, parallel={"fusion": False})
def _stergiou_rounds(P, prev, src, dst, lmax, use):
    while True:
        for v in nb.prange(P.shape[0]):
            prev[v] = P[v]
        changed = 0
        for i in nb.prange(src.shape[0]):
            u, v = src[i], dst[i]
            if u == v or (use and atomic_load(P, u) == lmax and atomic_load(P, v) == lmax):
                continue
            pu, pv = prev[u], prev[v]
            if atomic_load(P, v) > pu and atomic_min(P, v, pu) > pu:
                changed += 1
            if atomic_load(P, u) > pv and atomic_min(P, u, pv) > pv:
                changed += 1
        changed += _shortcut_once(P)
        if changed == 0:
            break
    _shortcut_full(P)


@serialized
def stergiou(P, src, dst, lmax: int, use: int) -> None:
    """Stergiou et al.: labels of the previous round flow across every edge, in both
    directions (atomic min), then one shortcut, until nothing changes."""
    _stergiou_rounds(P, np.empty_like(P), src, dst, lmax, use)


# ------------------------------------------------------------------ Soman et al.
@nb.njit(cache=True, parallel={"fusion": False})
def _soman_rounds(P, src, dst, hidden, settled, winner, P_next, hook, record):
    n, m = P.shape[0], src.shape[0]
    it = 0
    while True:
        hooked = 0
        odd = it & 1
        if record:
            for t in nb.prange(n):
                winner[t] = -1
        for i in nb.prange(m):
            if hidden[i]:
                continue
            a, b = src[i], dst[i]
            if it > 0:
                a, b = P[a], P[b]
            if a == b:
                hidden[i] = 1
                continue
            tree, to = (max(a, b), min(a, b)) if odd else (min(a, b), max(a, b))
            hooked += 1
            if record:
                winner[tree] = i
            else:
                P[tree] = to
        if record:
            for t in nb.prange(n):
                P_next[t] = P[t]
            for i in nb.prange(m):
                if hidden[i]:
                    continue
                a, b = src[i], dst[i]
                if it > 0:
                    a, b = P[a], P[b]
                tree, to = (max(a, b), min(a, b)) if odd else (min(a, b), max(a, b))
                if winner[tree] == i:
                    P_next[tree] = to
                    hook[tree] = i
            for t in nb.prange(n):
                P[t] = P_next[t]
        if hooked == 0:
            break
        for t in nb.prange(n):
            settled[t] = 0
        while True:  # multilevel pointer jumping, one level per pass
            jumped = 0
            for t in nb.prange(n):
                if settled[t]:
                    continue
                p = P[t]
                pp = atomic_load(P, p)
                if p == pp:
                    settled[t] = 1
                else:
                    P[t] = pp
                    jumped += 1
            if jumped == 0:
                break
        trees = 0
        for t in nb.prange(n - 1):
            if P[t] != P[t + 1]:
                trees += 1
        if trees == 0:
            break
        it += 1


@serialized
def soman(P, src, dst, hook, record: bool) -> None:
    """Soman, Kothapalli & Narayanan's GPU-CC: hook over the unhidden edges with
    alternating orientation (no atomics; iteration 0 hooks the endpoints themselves),
    reduce every tree to a star by multilevel pointer jumping, stop when no hook
    happens or one tree is left. With ``record`` one winning edge per tree hooks it
    (into a copy, so every edge reads the parents of the iteration's start) and is
    its tree edge. Roots are not the component minimum: callers rename them."""
    n, m = P.shape[0], src.shape[0]
    _soman_rounds(
        P, src, dst, np.zeros(max(m, 1), np.uint8), np.empty(n, np.uint8),
        np.empty(n if record else 1, np.int64), np.empty(n if record else 1, P.dtype), hook,
        record,
    )  # fmt: skip
