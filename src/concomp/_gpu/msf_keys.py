"""GPU Borůvka on packed 64-bit edge keys: no per-call sort when the weights allow it.

The tie rule orders edges by ``(weight, min(u, v), max(u, v), edge id)``. The last
three parts do not depend on the weights, so the non-loop edges are sorted by them
once per graph (the *structure order*, cached with the graph like its CSR). An edge
at position ``q`` of that order then gets the key ``code << 32 | q``, where ``code``
is its weight key minus the smallest one; when every code and ``q`` fit 32 bits, key
order is exactly the tie rule's order, and Borůvka's "lightest edge of a component"
is a 64-bit ``atomicMin`` (``cuda/boruvka.cu``). Weights that need more than 32 bits
(most float64 data, integers spanning more than 2**32) take the ranking path of
:mod:`concomp._gpu.msf`, which sorts by weight on every call. Both paths return the
same edges.

Measured on one H100 (``benchmarks/device_msf.py``; numbers in the docstring of
:mod:`concomp._gpu.msf`): on 33.5 M random edges the packed-key path takes 10.7 ms
with the edge order cached and 17.9 ms building it, against 19.8 ms for ranking.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ._compat import cupy_or_raise
from ._compile import get_kernel
from .kernels import BLOCK as _BLOCK
from .kernels import grid_for as _grid
from .msf import _id_arrays, key_stats, rank_edges

__all__ = ["INSTANTIATIONS", "EdgeOrder", "boruvka_keys", "edge_order", "packed_keys"]

_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_TEMPLATES = ("bk_offer<{t}>", "bk_link<{t}>", "bk_compress<{t}>", "eo_sort_rows<{t}>")
_ROW_TEMPLATES = ("eo_count<{s}, {t}>", "eo_scatter<{s}, {t}>")
#: Every kernel name expression of ``cuda/boruvka.cu`` (one NVRTC module for all).
INSTANTIATIONS = (("bk_keys",) + tuple(t.format(t=c) for c in _CTYPES.values() for t in _TEMPLATES)
                  + tuple(t.format(s=s, t=c) for s in _CTYPES.values() for c in _CTYPES.values()
                          for t in _ROW_TEMPLATES))
#: Longest row (edges per smaller endpoint) sorted by the one-thread-per-row kernel;
#: graphs with a longer one sort packed words globally instead.
ROW_SORT_MAX = 48
#: The row path scatters every edge to its row: fast when consecutive input edges
#: have nearby smaller endpoints (grids, files sorted by source: 0.7 ms against 1.9
#: ms for the global sort on a 2048 x 2048 grid, H100), slow when they are random
#: (10.3 ms against 7.1 ms on 33.5 M random edges). It is taken when at least this
#: share of sampled consecutive pairs lie within ROW_NEAR ids of each other.
ROW_LOCALITY = 0.5
ROW_NEAR = 256
_NONE = np.uint64(np.iinfo(np.uint64).max)
#: Keys sampled to pick the light/heavy split of filter-Borůvka.
PIVOT_SAMPLE = 1 << 16


def _kernel(expr: str):
    return get_kernel("boruvka.cu", expr, INSTANTIATIONS)


class EdgeOrder(NamedTuple):
    """The non-loop edges sorted by ``(min(u, v), max(u, v), edge id)``."""

    lo: Any  #: ``min(u, v)`` of each position (the kernels' id type)
    hi: Any  #: ``max(u, v)``
    eid: Any  #: input edge id of each position (int64)


def edge_order(src: Any, dst: Any, n: int, dtype: np.dtype, cache: dict | None = None) -> EdgeOrder:
    """The structure order of ``(src, dst)``, from ``cache`` when it holds it.

    One stable 64-bit sort of ``min << bits | max`` words (the ranking kernels of
    :mod:`concomp._gpu.msf` with every weight equal). ``cache`` is a graph's
    device cache: the order depends on the edges only, so later calls with any
    weights reuse it.
    """
    cp = cupy_or_raise()
    key = ("msf_edge_order", np.dtype(dtype).str)
    if cache is not None and key in cache:
        return cache[key]
    order = _order_by_rows(src, dst, n, np.dtype(dtype)) if _rows_pay(src, dst) else None
    if order is None:  # a long row or random order: one global sort of (min, max) words
        zero = cp.zeros(int(src.shape[0]), dtype=cp.uint64)
        order = EdgeOrder(*rank_edges(src, dst, zero, n, np.dtype(dtype)))
    if cache is not None:
        cache[key] = order
    return order


def _rows_pay(src: Any, dst: Any) -> bool:
    """Whether consecutive input edges have nearby smaller endpoints (see ROW_LOCALITY)."""
    cp = cupy_or_raise()
    m = int(src.shape[0])
    if m < 2:
        return True
    at = cp.linspace(0, m - 2, num=min(4096, m - 1)).astype(cp.int64)
    a = cp.minimum(src[at], dst[at]).astype(cp.int64)
    b = cp.minimum(src[at + 1], dst[at + 1]).astype(cp.int64)
    return float((cp.abs(a - b) <= ROW_NEAR).mean()) >= ROW_LOCALITY


def _order_by_rows(src: Any, dst: Any, n: int, dt: np.dtype) -> EdgeOrder | None:
    """The structure order by a counting sort on ``min(u, v)`` and a sort of each row.

    None when some row holds more than :data:`ROW_SORT_MAX` edges.
    """
    cp = cupy_or_raise()
    src, dst, st = _id_arrays(src, dst)
    m = int(src.shape[0])
    s, t = _CTYPES[st], _CTYPES[np.dtype(dt)]
    row_start = cp.zeros(n + 1, dtype=dt)
    _kernel(f"eo_count<{s}, {t}>")(_grid(m), (_BLOCK,), (src, dst, np.int64(m), row_start[1:]))
    longest = row_start.max()
    row_start = cp.cumsum(row_start, dtype=dt)
    longest, count = (int(x) for x in cp.stack([longest.astype(dt), row_start[-1]]).get())
    if longest > ROW_SORT_MAX:
        return None
    hi, lo = cp.empty(count, dtype=dt), cp.empty(count, dtype=dt)
    eid = cp.empty(count, dtype=cp.int64)
    _kernel(f"eo_scatter<{s}, {t}>")(_grid(m), (_BLOCK,), (src, dst, np.int64(m), row_start,
                                                          cp.zeros(n, dtype=dt), hi, eid))
    _kernel(f"eo_sort_rows<{t}>")(_grid(n), (_BLOCK,), (row_start, hi, eid, lo, dt.type(n)))
    return EdgeOrder(lo, hi, eid)


def packed_keys(order: EdgeOrder, src: Any, dst: Any, code: Any) -> Any | None:
    """``(code - min) << 32 | q`` per position ``q``, or None when that does not fit 64 bits.

    ``code`` holds one unsigned weight key per input edge (``msf.weight_keys``).
    """
    cp = cupy_or_raise()
    count = int(order.eid.shape[0])
    if count == 0 or count > 2**32:
        return None
    kmin, kmax, _ = key_stats(src, dst, code)  # over non-loop edges only
    if kmax - kmin >= 2**32 - 1:  # the all-ones key is the kernels' "none"
        return None
    key = cp.empty(count, dtype=cp.uint64)
    _kernel("bk_keys")(_grid(count), (_BLOCK,), (cp.ascontiguousarray(code, dtype=cp.uint64),
                                                 order.eid, np.int64(count), np.uint64(kmin), key))
    return key


def _pivot(key: Any, n: int) -> np.uint64:
    """A key with about ``n`` smaller ones (from a fixed sample; speed only, not correctness)."""
    cp = cupy_or_raise()
    m = int(key.shape[0])
    if m <= n:
        return _NONE
    size = min(m, PIVOT_SAMPLE)
    # a fixed multiplicative stride: deterministic, and spread over the whole order
    picks = (cp.arange(size, dtype=cp.int64) * 2654435761) % m
    sample = cp.sort(key[picks])
    return np.uint64(int(sample[min(size - 1, size * n // m)].item()))


def boruvka_keys(order: EdgeOrder, key: Any, n: int, m: int, light: int | None = None,
                 trace: list | None = None, position_bits: int = 32) -> Any:
    """Input edge ids (ascending) of the minimum spanning forest; ``m`` input edges.

    ``key[q]`` must be unique and ordered as the tie rule orders the edges, with the
    position ``q`` in its low ``position_bits`` bits: packed keys here (32), or the
    edge ranks of the ranking path, which are positions themselves (64).

    Filter-Borůvka: the edges with keys below a pivot (about ``light`` of them,
    default ``n``) go first; their forest is the full forest's restriction to them
    and merges most vertices, so the first round over the rest drops most of it.
    ``trace``, a list, receives ``(phase, edges in, edges kept, live roots, ms)``
    per round (benchmarks use it).
    """
    cp = cupy_or_raise()
    dt = order.lo.dtype
    count = int(key.shape[0])
    parent = cp.arange(n, dtype=dt)
    comp = parent.copy()  # each vertex's root, one read (see cuda/boruvka.cu)
    best = cp.full(n, _NONE, dtype=cp.uint64)
    in_forest = cp.zeros(m, dtype=cp.uint8)  # by input edge id
    lists = [(cp.empty(count, dt), cp.empty(count, dt), cp.empty(count, cp.uint64))
             for _ in range(2)]
    roots = [cp.empty(n, dt), cp.empty(n, dt)]
    counts = cp.zeros(2, dtype=cp.uint64)
    position_mask = np.uint64((1 << position_bits) - 1)
    t = _CTYPES[np.dtype(dt)]
    offer, link, compress = (_kernel(f.format(t=t)) for f in _TEMPLATES[:3])
    pivot = _pivot(key, n if light is None else max(0, light))
    null = np.intp(0)
    for lo, hi in ((np.uint64(0), pivot), (pivot, _NONE)):
        if lo == hi:
            continue
        if lo != 0:  # the phase's first round reads raw vertex ids: compress every vertex
            counts.fill(0)
            compress(_grid(n), (_BLOCK,), (null, np.int64(n), parent, comp, best, roots[1],
                                           counts[1:]))
        size, listed, live = count, 0, None
        while size:
            (ia, ib, ik), (oa, ob, ok) = lists
            if trace is not None:
                start, stop = cp.cuda.Event(), cp.cuda.Event()
                start.record()
            counts.fill(0)
            offer(_grid(size), (_BLOCK,), (order.lo, order.hi, key, ia, ib, ik, np.int32(listed),
                                            np.int64(size), lo, hi, comp, best, oa, ob, ok,
                                            counts[:1]))
            link(_grid(size), (_BLOCK,), (oa, ob, ok, counts[:1], best, parent, order.eid,
                                          position_mask, in_forest))
            nroots = n if live is None else live
            compress(_grid(nroots), (_BLOCK,),
                     (roots[0] if live is not None else null, np.int64(nroots), parent, comp,
                      best, roots[1], counts[1:]))
            roots.reverse()
            kept, live = (int(x) for x in counts.get())  # the round's one host sync
            if trace is not None:
                stop.record()
                stop.synchronize()
                trace.append((int(lo != 0), size, kept, live,
                              cp.cuda.get_elapsed_time(start, stop)))
            size, listed, lists = kept, 1, lists[::-1]
    return cp.flatnonzero(in_forest)


def spanning_forest_ids_by_keys(src: Any, dst: Any, code: Any, n: int, dtype: np.dtype,
                                cache: dict | None = None):
    """Input edge ids (ascending) of the forest by key Borůvka, or None when keys do not fit."""
    if n >= 2**32:
        return None
    order = edge_order(src, dst, n, dtype, cache)
    key = packed_keys(order, src, dst, code)
    if key is None:
        return None
    return boruvka_keys(order, key, n, int(src.shape[0]))
