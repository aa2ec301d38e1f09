"""GPU Borůvka on packed 64-bit edge keys, straight from the input edges.

The tie rule orders edges by ``(weight, min(u, v), max(u, v), edge id)``. When the
weight keys span less than 32 bits, the kernels (``cuda/boruvka.cu``) pack an edge's
weight code and the leading bits of its endpoints into one 64-bit key, so "lightest
edge of a component" is a 64-bit ``atomicMin``; a second 64-bit word (the larger
endpoint and the edge id) settles the rare edges with equal keys in a separate
pass. Nothing is sorted and nothing is kept per graph. Wider weights (most float64
data, integers spanning 2**32 or more) take the ranking path of
:mod:`concomp._gpu.msf_rank`, which sorts the edges by the tie rule once per call and
runs the same rounds on ranks. Both give the same edges.

``benchmarks/device_msf.py`` measures both paths. Sorting the edges by ``(min,
max, edge id)`` once per graph and caching that order makes later calls on a
graph faster, but its first call pays more for the sort than a whole run without
it: so nothing is cached.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import ops
from ._compat import cupy_or_raise
from ._compile import get_kernel
from ._compile import prefetch as prefetch_kernels
from .kernels import BLOCK as _BLOCK
from .kernels import grid_for as _grid
from .msf_rank import id_arrays, key_stats

__all__ = ["INSTANTIATIONS", "boruvka", "prefetch", "spanning_forest_ids_by_keys"]

_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_TEMPLATES = ("bk_resolve<{t}>", "bk_link<{t}>", "bk_compress<{t}>")
#: Every kernel name expression of ``cuda/boruvka.cu``.
INSTANTIATIONS = tuple(
    [f"bk_sample_keys<{s}>" for s in _CTYPES.values()]
    + [t.format(t=c) for c in _CTYPES.values() for t in _TEMPLATES]
    + [f"bk_offer<{s}, {c}>" for s in _CTYPES.values() for c in _CTYPES.values()]
)
_NONE = np.uint64(np.iinfo(np.uint64).max)
#: Keys sampled to pick the light/heavy split of filter-Borůvka.
PIVOT_SAMPLE = 1 << 16
#: Rounds launched between two host synchronisations, after a phase's first round.
ROUND_BATCH = 4


def prefetch(st: np.dtype, dtype: np.dtype) -> None:
    """Start compiling the rounds' kernels for input ids of ``st`` (packed keys) and
    ranked ids of ``dtype``, the pivot's sample, and the forest's compaction."""
    s, t = _CTYPES[np.dtype(st)], _CTYPES[np.dtype(dtype)]
    names = [f"bk_offer<{s}, {t}>", f"bk_offer<{t}, {t}>", f"bk_sample_keys<{s}>"]
    names += [f.format(t=t) for f in _TEMPLATES]
    prefetch_kernels("boruvka.cu", dict.fromkeys(names))
    cp = cupy_or_raise()
    ops.prefetch(cp, ops.names("arange", dtype) + ops.names("flatnonzero", np.uint8))


def _kernel(expr: str):
    return get_kernel("boruvka.cu", expr)


def _tie_bits(n: int) -> tuple[int, int]:
    """``(qbits, qshift)`` of the keys' low word ``((min << qbits) | max) >> qshift``.

    Examples
    --------
    >>> _tie_bits(1000), _tie_bits(1 << 23)
    ((10, 0), (23, 14))
    """
    qbits = max(1, int(n - 1).bit_length())
    return qbits, max(0, 2 * qbits - 32)


def boruvka(
    su: Any,
    sv: Any,
    n: int,
    m: int,
    dt: np.dtype,
    *,
    code: Any = None,
    kmin: int = 0,
    eid: Any = None,
    light: int | None = None,
    trace: list | None = None,
) -> Any:
    """Input edge ids (ascending) of the minimum spanning forest, without an edge order.

    Packed mode (``code`` given): ``su``/``sv`` are the input edges, ``code`` their
    weight keys, all minus ``kmin`` below 2**32 - 1, and ``m`` < 2**32. Ranked mode
    (``eid`` given): ``su``/``sv`` are the non-loop edges sorted by the tie rule and
    ``eid`` their input ids. Filter-Borůvka: keys below a pivot with about ``light``
    smaller ones (default ``n``) go first: their forest is the full forest's
    restriction to them and merges most vertices, so the first round over the rest
    drops most of it. ``trace`` receives ``(phase, rounds so far, ms)`` after each
    round (and synchronises after each).

    A phase's first round reads the input edges; later rounds read the previous
    round's list and roots, whose lengths the kernels read on the device, so the
    host launches :data:`ROUND_BATCH` rounds at a time and synchronises once per
    batch (rounds past the end find empty lists and do nothing).
    """
    cp = cupy_or_raise()
    ranked = eid is not None
    count = int(su.shape[0])
    t = _CTYPES[np.dtype(dt)]
    s = _CTYPES[np.dtype(su.dtype)]
    qbits, qshift = _tie_bits(n)
    null = np.intp(0)
    parent = ops.arange(cp, n, dt)
    comp = ops.copy(cp, parent)  # each vertex's root, one read (see cuda/boruvka.cu)
    best = ops.full(cp, n, _NONE, np.uint64)
    best2 = null if ranked else ops.full(cp, n, _NONE, np.uint64)
    in_forest = cp.zeros(m, dtype=cp.uint8)  # by input edge id
    lists = [
        (
            cp.empty(count, dt),
            cp.empty(count, dt),
            cp.empty(count, cp.uint64),
            cp.empty(count, cp.uint64),
        )
        for _ in range(2)
    ]
    roots = [cp.empty(n, dt), cp.empty(n, dt)]
    ctr = cp.zeros(4, dtype=cp.uint64)  # list length and live roots of side 0, then side 1
    offer = _kernel(f"bk_offer<{s}, {t}>")
    resolve, link, compress = (_kernel(f.format(t=t)) for f in _TEMPLATES)
    fixed = (
        su,
        sv,
        null if ranked else cp.ascontiguousarray(code, dtype=cp.uint64),
        eid if ranked else null,
        np.int32(ranked),
        np.uint64(kmin),
        np.int32(qbits),
        np.int32(qshift),
    )
    eid_mask = np.uint64(_NONE if ranked else 0xFFFFFFFF)
    target = n if light is None else max(0, light)
    if ranked:
        pivot = _NONE if count <= target else np.uint64(target)
    else:
        pivot = _sampled_pivot(su, sv, fixed[2], kmin, qbits, qshift, target)

    def one_round(side: int, first: bool, lo, hi, grids) -> None:
        """Round from ``side``'s list (or the input edges) into the other side's."""
        out = 1 - side
        kept, live = ctr[2 * out : 2 * out + 1], ctr[2 * out + 1 : 2 * out + 2]
        ctr[2 * out : 2 * out + 2].fill(0)
        offer(
            grids[0],
            (_BLOCK,),
            (
                *fixed,
                *lists[side],
                null if first else ctr[2 * side :],
                np.int64(count),
                np.int32(first and lo == 0),
                lo,
                hi,
                comp,
                best,
                *lists[out],
                kept,
            ),
        )
        if not ranked:
            resolve(grids[0], (_BLOCK,), (*lists[out], kept, best, best2))
        link(
            grids[0],
            (_BLOCK,),
            (*lists[out], kept, best, best2, np.int32(not ranked), parent, eid_mask, in_forest),
        )
        compress(
            grids[1],
            (_BLOCK,),
            (
                null if first else roots[side],
                ctr[2 * side + 1 :],
                np.int64(n),
                parent,
                comp,
                best,
                best2,
                roots[out],
                live,
            ),
        )

    for phase, (lo, hi) in enumerate(((np.uint64(0), pivot), (pivot, _NONE))):
        if lo == hi:
            continue
        if lo != 0:  # the phase's first round reads raw vertex ids: compress every vertex
            compress(
                _grid(n),
                (_BLOCK,),
                (null, null, np.int64(n), parent, comp, best, best2, roots[0], ctr[1:2]),
            )
        grids = (_grid(count), _grid(n))
        side, first, done, rounds = 0, True, False, 0
        while not done:
            if trace is not None:
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record()
            for _ in range(1 if first or trace is not None else ROUND_BATCH):
                one_round(side, first, lo, hi, grids)
                side, first, rounds = 1 - side, False, rounds + 1
            kept, live = (int(x) for x in ctr[2 * side : 2 * side + 2].get())  # the one sync
            if trace is not None:
                stop.record()
                stop.synchronize()
                trace.append((phase, rounds, cp.cuda.get_elapsed_time(start, stop)))
            done = kept == 0
            grids = (_grid(kept), _grid(live))  # bounds for every later round of the phase
    return ops.flatnonzero(cp, in_forest)


def _sampled_pivot(
    su: Any, sv: Any, code: Any, kmin: int, qbits: int, qshift: int, target: int
) -> np.uint64:
    """A key with about ``target`` smaller ones, from a fixed sample (speed only)."""
    cp = cupy_or_raise()
    m = int(su.shape[0])
    if m <= target:
        return _NONE
    size = min(m, PIVOT_SAMPLE)
    keys = cp.empty(size, dtype=cp.uint64)
    _kernel(f"bk_sample_keys<{_CTYPES[np.dtype(su.dtype)]}>")(
        _grid(size),
        (_BLOCK,),
        (
            su,
            sv,
            code,
            np.int64(m),
            np.int64(size),
            np.uint64(kmin),
            np.int32(qbits),
            np.int32(qshift),
            keys,
        ),
    )
    keys.sort()  # in place: cupy.sort's copy would compile a kernel on a new machine
    return np.uint64(int(keys[min(size - 1, size * target // m)].item()))


def spanning_forest_ids_by_keys(src: Any, dst: Any, code: Any, n: int, dtype: np.dtype):
    """Input edge ids (ascending) of the forest from the input edges, or None when the
    keys do not fit (weight codes spanning 2**32 - 1 or more, ``n`` or ``m`` >= 2**32)."""
    m = int(src.shape[0])
    if n > 2**32 or m > 2**32:
        return None
    src, dst, _ = id_arrays(src, dst)
    kmin, kmax, count = key_stats(src, dst, code)  # over non-loop edges only
    if count == 0:
        return cupy_or_raise().zeros(0, dtype=np.int64)
    if kmax - kmin >= 2**32 - 1:  # the all-ones key is the kernels' "none"
        return None
    return boruvka(src, dst, n, m, np.dtype(dtype), code=code, kmin=kmin)
