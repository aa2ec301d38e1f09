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

from . import ops
from ._compat import cupy_or_raise
from ._compile import get_kernel, get_kernels
from ._compile import prefetch as prefetch_kernels
from .kernels import BLOCK as _BLOCK
from .kernels import grid_for as _grid

__all__ = [
    "INSTANTIATIONS",
    "id_arrays",
    "key_stats",
    "msf_kernel",
    "prefetch",
    "rank_edges",
    "weight_keys",
]

#: Prim's kernels (:func:`concomp._gpu.msf.prim`).
_TEMPLATES = {
    "prim_min_partial": f"prim_min_partial<{{t}}, {_BLOCK}>",
    "prim_min_final": f"prim_min_final<{{t}}, {_BLOCK}>",
    "prim_update": "prim_update<{t}>",
    "prim_outgoing": "prim_outgoing<{t}>",
}
_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
#: Threads per block and edges per tile of the compaction (``RANK_THREADS``, ``RANK_TILE``
#: in ``cuda/msf.cu``).
_RANK_THREADS = 256
_RANK_TILE = _RANK_THREADS * 16
#: Weight types of the key kernels (other floats are widened to float64 first).
_WEIGHT_CTYPES = {
    np.dtype(np.bool_): "bool",
    np.dtype(np.int8): "signed char",
    np.dtype(np.int16): "short",
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint8): "unsigned char",
    np.dtype(np.uint16): "unsigned short",
    np.dtype(np.uint32): "unsigned int",
    np.dtype(np.uint64): "unsigned long long",
    np.dtype(np.float32): "float",
    np.dtype(np.float64): "double",
}
_KEY_TEMPLATES = tuple(
    f"int_keys<{c}, {'false' if d.kind == 'u' else 'true'}>"
    for d, c in _WEIGHT_CTYPES.items()
    if d.kind in "iub"
) + ("float_keys<float>", "float_keys<double>", "float_integral<double>")
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
        + list(_KEY_TEMPLATES)
        + [f"rank_nonloop_{k}<{c}>" for k in ("count", "write") for c in _CTYPES.values()]
        + [f"rank_endpoint<{c}>" for c in _CTYPES.values()]
        + ["rank_gather<long long>", "rank_gather<unsigned long long>"]
    )
)


def msf_kernel(name: str, dtype: np.dtype):
    """The compiled Prim kernel ``name`` of ``cuda/msf.cu`` for index type ``dtype``."""
    return get_kernel("msf.cu", _TEMPLATES[name].format(t=_CTYPES[np.dtype(dtype)]))


def _rank_kernel(name: str, stype: np.dtype, dtype: np.dtype = np.dtype(np.int32)):
    expr = _RANK_TEMPLATES[name].format(s=_CTYPES[np.dtype(stype)], t=_CTYPES[np.dtype(dtype)])
    return get_kernel("msf.cu", expr)


def weight_keys(weights: Any, m: int, maximum: bool):
    """Unsigned keys whose order is the weights' order (the CPU engine's mapping).

    One kernel of ``cuda/msf.cu`` per weight type (two for float64, whose keys are
    the integers themselves when every weight is one below 2**53)."""
    cp = cupy_or_raise()
    if weights is None:
        key = cp.zeros(m, dtype=cp.uint64)
        return ~key if maximum else key
    w = cp.ascontiguousarray(weights)
    if w.dtype.kind == "f" and w.dtype not in (cp.float32, cp.float64):
        w = w.astype(cp.float64)  # float16
    flip = np.uint64(0xFFFF_FFFF_FFFF_FFFF if maximum else 0)
    key = cp.empty(m, dtype=cp.uint64)
    if m == 0:
        return key
    names, together = _key_names(w.dtype)
    if w.dtype.kind in "iub":
        get_kernel("msf.cu", names[0])(_grid(m), (_BLOCK,), (w, np.int64(m), flip, key))
        return key
    integral = 0
    if together:
        check, keys = get_kernels("msf.cu", names)
        flag = cp.zeros(1, dtype=cp.int32)
        check(_grid(m), (_BLOCK,), (w, np.int64(m), flag))
        integral = 1 - int(flag.get()[0])
    else:
        keys = get_kernel("msf.cu", names[0])
    keys(_grid(m), (_BLOCK,), (w, np.int64(m), np.int32(integral), flip, key))
    return key


def _sort_names(st: np.dtype) -> tuple[str, ...]:
    s = _CTYPES[np.dtype(st)]
    return (
        f"rank_nonloop_count<{s}>",
        f"rank_nonloop_write<{s}>",
        f"rank_endpoint<{s}>",
        "rank_gather<long long>",
        "rank_gather<unsigned long long>",
    )


def _key_names(wdtype: np.dtype) -> tuple[tuple[str, ...], bool]:
    """The key kernels of weights of ``wdtype``, and whether they form one module."""
    if wdtype.kind in "iub":
        wt = _WEIGHT_CTYPES[wdtype]
        return (f"int_keys<{wt}, {'false' if wdtype.kind == 'u' else 'true'}>",), False
    if wdtype == np.float32:
        return ("float_keys<float>",), False
    return ("float_integral<double>", "float_keys<double>"), True


def prefetch(weights: Any, st: np.dtype, dtype: np.dtype) -> None:
    """Start compiling the key kernels of ``weights``, the key statistics over ids of
    ``st``, and, for 8-byte weights (whose keys rarely fit Borůvka's packed words), the
    ranking by stable sorts with its decoding into ids of ``dtype``."""
    cp = cupy_or_raise()
    if weights is not None:
        wd = np.dtype(weights.dtype)
        names, together = _key_names(
            np.dtype(np.float64) if wd.kind == "f" and wd not in (np.float32, np.float64) else wd
        )
        prefetch_kernels("msf.cu", names, together=together)
    s, t = _CTYPES[np.dtype(st)], _CTYPES[np.dtype(dtype)]
    prefetch_kernels("msf.cu", (f"rank_stats<{s}>",))
    if weights is not None and np.dtype(weights.dtype).itemsize == 8:
        prefetch_kernels("msf.cu", _sort_names(st), together=True)
        prefetch_kernels("msf.cu", (f"rank_decode<{s}, {t}>",))
        ops.prefetch(cp, ops.names("cumsum", np.int64))
        ops.prefetch_argsort(cp, st)
        ops.prefetch_argsort(cp, np.uint64)


def _stable_sorts(src: Any, dst: Any, key: Any, m: int, count: int, st: np.dtype) -> Any:
    """The non-loop edges' ids sorted by ``(key, min, max, id)``: one stable sort per key,
    least significant first, each sort's keys gathered by a kernel of ``cuda/msf.cu``."""
    cp = cupy_or_raise()
    count_tiles, write_tiles, endpoint, gather_ids, gather_keys = get_kernels(
        "msf.cu", _sort_names(st)
    )
    tiles = (-(-m // _RANK_TILE),)
    tile_counts = cp.empty(tiles[0], dtype=cp.int64)
    count_tiles(tiles, (_RANK_THREADS,), (src, dst, np.int64(m), tile_counts))
    order = cp.empty(count, dtype=cp.int64)  # the non-loop edges, by id
    tile_ends = ops.cumsum(cp, tile_counts, out=tile_counts)
    write_tiles(tiles, (_RANK_THREADS,), (src, dst, np.int64(m), tile_ends, order))
    del tile_counts, tile_ends
    ends = cp.empty(count, dtype=st)
    for take_max in (1, 0):  # max(u, v) first: the less significant key
        args = (src, dst, order, np.int64(count), np.int32(take_max), ends)
        endpoint(_grid(count), (_BLOCK,), args)
        order = _permuted(gather_ids, order, cp.argsort(ends))
    keys = cp.empty(count, dtype=cp.uint64)
    gather_keys(_grid(count), (_BLOCK,), (key, order, np.int64(count), keys))
    return _permuted(gather_ids, order, cp.argsort(keys))


def _permuted(gather: Any, order: Any, perm: Any) -> Any:
    """``order[perm]`` by the gather kernel."""
    cp = cupy_or_raise()
    out = cp.empty_like(order)
    gather(_grid(order.shape[0]), (_BLOCK,), (order, perm, np.int64(order.shape[0]), out))
    return out


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
    else:
        order = _stable_sorts(src, dst, key, m, count, st)
    order = order.astype(cp.int64, copy=False)
    eu, ev = cp.empty(count, dtype), cp.empty(count, dtype)
    _rank_kernel("rank_decode", st, dtype)(
        _grid(count), (_BLOCK,), (src, dst, order, np.int64(count), eu, ev)
    )
    return eu, ev, order
