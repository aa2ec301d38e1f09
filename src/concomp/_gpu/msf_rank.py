"""Edge ranking for the GPU minimum spanning forest drivers, and ``cuda/msf.cu``'s kernels.

Self loops are dropped and the other edges sorted once by ``(weight, min(u, v),
max(u, v), edge id)`` (stable CuPy sorts; one sort of packed 64-bit words when
the weight range and both endpoints fit). Position in that order is the edge's
rank, a unique integer key, so the kernels never see weights and the tie rule
holds for any weight type. Prim (:mod:`concomp._gpu.msf`) always runs on ranks;
Borůvka (:mod:`concomp._gpu.msf_keys`) does where the weights are too wide for
its packed keys. This module also names every kernel of ``cuda/msf.cu`` (for the
compile test; each kernel is compiled on first use).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._compat import cupy_or_raise
from ._compile import get_kernel
from .kernels import BLOCK as _BLOCK
from .kernels import grid_for as _grid

__all__ = ["INSTANTIATIONS", "id_arrays", "key_stats", "msf_kernel", "rank_edges", "weight_keys"]

_SIGN = 1 << 63

#: Prim's kernels (:func:`concomp._gpu.msf.prim`).
_TEMPLATES = {
    "prim_min_partial": f"prim_min_partial<{{t}}, {_BLOCK}>",
    "prim_min_final": f"prim_min_final<{{t}}, {_BLOCK}>",
    "prim_update": "prim_update<{t}>",
    "prim_outgoing": "prim_outgoing<{t}>",
}
_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
#: Ranking kernels: templated on the caller's id type S (and rank_decode on IdT too).
_RANK_TEMPLATES = {
    "rank_stats": "rank_stats<{s}>",
    "rank_words": "rank_words<{s}>",
    "rank_decode": "rank_decode<{s}, {t}>",
}

#: Every kernel name expression of ``cuda/msf.cu``, Prim's and the ranking's.
INSTANTIATIONS = tuple(
    dict.fromkeys(
        [t.format(t=c) for c in _CTYPES.values() for t in _TEMPLATES.values()]
        + [
            t.format(s=s, t=c)
            for s in _CTYPES.values()
            for c in _CTYPES.values()
            for t in _RANK_TEMPLATES.values()
        ]
    )
)


def msf_kernel(name: str, dtype: np.dtype):
    """The compiled Prim kernel ``name`` of ``cuda/msf.cu`` for index type ``dtype``."""
    return get_kernel("msf.cu", _TEMPLATES[name].format(t=_CTYPES[np.dtype(dtype)]))


def _rank_kernel(name: str, stype: np.dtype, dtype: np.dtype = np.dtype(np.int32)):
    expr = _RANK_TEMPLATES[name].format(s=_CTYPES[np.dtype(stype)], t=_CTYPES[np.dtype(dtype)])
    return get_kernel("msf.cu", expr)


def weight_keys(weights: Any, m: int, maximum: bool):
    """Unsigned keys whose order is the weights' order (the CPU engine's mapping)."""
    cp = cupy_or_raise()
    if weights is None:
        key = cp.zeros(m, dtype=cp.uint64)
    elif weights.dtype.kind == "u":
        key = weights.astype(cp.uint64)
    elif weights.dtype.kind in "ib":
        key = weights.astype(cp.int64).view(cp.uint64) ^ cp.uint64(_SIGN)
    elif weights.dtype == cp.float32:  # 32-bit keys: the packed-key Borůvka can use them
        bits = (weights + cp.float32(0.0)).view(cp.uint32).astype(cp.uint64)  # -0.0 == 0.0
        key = cp.where(
            bits >> cp.uint64(31) != 0, ~bits & cp.uint64(0xFFFFFFFF), bits | cp.uint64(1 << 31)
        )
    else:
        w = weights.astype(cp.float64) + 0.0  # -0.0 and 0.0 must tie
        if bool(cp.all((cp.abs(w) < 2.0**53) & (w == cp.floor(w)))):
            key = w.astype(cp.int64).view(cp.uint64) ^ cp.uint64(_SIGN)
        else:
            bits = w.view(cp.uint64)
            key = cp.where(bits >> cp.uint64(63) != 0, ~bits, bits | cp.uint64(_SIGN))
    return ~key if maximum else key


def id_arrays(src: Any, dst: Any):
    """``(src, dst, dtype)`` with both arrays int32 or int64 (the ranking kernels' types)."""
    st = np.dtype(np.int64) if np.dtype(src.dtype).itemsize > 4 else np.dtype(np.int32)
    return src.astype(st, copy=False), dst.astype(st, copy=False), st


def key_stats(src: Any, dst: Any, key: Any) -> tuple[int, int, int]:
    """``(min key, max key, count)`` over the non-loop edges (one reduction, one sync)."""
    cp = cupy_or_raise()
    m = int(src.shape[0])
    src, dst, st = id_arrays(src, dst)
    stats = cp.array([np.iinfo(np.uint64).max, 0, 0], dtype=cp.uint64)
    if m:
        _rank_kernel("rank_stats", st)(
            _grid(m),
            (_BLOCK,),
            (src, dst, cp.ascontiguousarray(key, dtype=cp.uint64), np.int64(m), stats),
        )
    kmin, kmax, count = (int(x) for x in stats.get())
    return kmin, kmax, count


def rank_edges(src: Any, dst: Any, key: Any, n: int, dtype: np.dtype):
    """``(eu, ev, eid)`` of the non-loop edges in rank order (``eu < ev``).

    CuPy's sorts are stable, so edges with equal words keep their id order, and
    a sort by a more significant key after a less significant one is a
    lexicographic sort. The packed word ``key << 2*nbits | min << nbits | max``
    usually fits 64 bits; up to 16 key bits more go into a second, cheap sort
    of 16-bit band numbers. Building the words and decoding the order are one
    kernel each (``rank_words``, ``rank_decode``); one reduction before them
    finds the key range and the number of non-loop edges (the only host sync).
    """
    cp = cupy_or_raise()
    m = int(src.shape[0])
    src, dst, st = id_arrays(src, dst)
    key = cp.ascontiguousarray(key, dtype=cp.uint64)
    kmin, kmax, count = key_stats(src, dst, key)
    if count == 0:
        return cp.zeros(0, dtype), cp.zeros(0, dtype), cp.zeros(0, cp.int64)
    nbits = max(int(n - 1).bit_length(), 1)
    span = (kmax - kmin).bit_length()
    low = min(span, 64 - 2 * nbits)  # key bits that fit beside the endpoint pair
    if 2 * nbits < 64 and span - low <= 16:
        word = cp.empty(m, cp.uint64)
        band = cp.empty(m if span > low else 1, cp.uint16)
        _rank_kernel("rank_words", st)(
            _grid(m),
            (_BLOCK,),
            (
                src,
                dst,
                key,
                np.int64(m),
                np.uint64(kmin),
                np.int32(nbits),
                np.int32(low),
                np.int32(span > low),
                word,
                band,
            ),
        )
        order = cp.argsort(word)
        if span > low:
            order = order[cp.argsort(band[order])]
        order = order[:count]  # self loops sorted last
    else:  # one stable sort per key, least significant first
        order = cp.flatnonzero(src != dst)
        order = order[cp.argsort(cp.maximum(src, dst)[order])]
        order = order[cp.argsort(cp.minimum(src, dst)[order])]
        order = order[cp.argsort(key[order])]
    order = order.astype(cp.int64, copy=False)
    eu, ev = cp.empty(count, dtype), cp.empty(count, dtype)
    _rank_kernel("rank_decode", st, dtype)(
        _grid(count), (_BLOCK,), (src, dst, order, np.int64(count), eu, ev)
    )
    return eu, ev, order
