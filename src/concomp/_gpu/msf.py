"""GPU minimum spanning forest driver: edge ranking and Wang's Prim (Borůvka: msf_keys).

Borůvka first tries packed 64-bit keys (:mod:`concomp._gpu.msf_keys`): when the
weight keys span less than 32 bits, its rounds read the input edges directly and
nothing is sorted. Otherwise (and for Prim) edges are *ranked*: self loops are
dropped and the rest are sorted once by ``(weight, min(u, v), max(u, v), edge id)``
(stable CuPy sorts; one sort of packed 64-bit words when the weight range and both
endpoints fit). Position in that order is the edge's rank, a unique integer key, so
the kernels never see weights and the tie rule holds for any weight type.

Measured on one H100 (``benchmarks/device_msf.py``, graph on the device, CUDA
events, medians of 5): packed-key Borůvka takes 5.2 ms on a 2048 x 2048 grid
(ECL-MST: 6.46 ms) and 12.2 ms on a random graph of 8.4 M vertices and 33.5 M edges
(ECL-MST: 14.9 ms), where the ranking path takes 19.0 ms (9.4 ms of it ranking).
Prim costs about 16-21 microseconds per vertex with CUDA graphs on those two
graphs, where each step's reduction reads all n candidates: over a minute for
them, and slower than GPU Borůvka and the CPU heap Prim at every size tried (1024
vertices: 11 ms).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ._compat import cupy_or_raise
from ._compile import get_kernel
from .kernels import BLOCK as _BLOCK
from .kernels import grid_for as _grid

__all__ = ["INSTANTIATIONS", "PrimLists", "prim", "rank_edges", "spanning_forest_ids"]

_SIGN = 1 << 63
#: Borůvka on packed (weight, endpoints) keys where the weights allow; False forces
#: the ranking path (tests compare both).
KEY_BORUVKA = True


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

#: Every kernel name expression this driver compiles (one NVRTC module for all).
INSTANTIATIONS = tuple(dict.fromkeys(
    [t.format(t=c) for c in _CTYPES.values() for t in _TEMPLATES.values()]
    + [t.format(s=s, t=c) for s in _CTYPES.values() for c in _CTYPES.values()
       for t in _RANK_TEMPLATES.values()]))


def _kernel(name: str, dtype: np.dtype):
    return get_kernel("msf.cu", _TEMPLATES[name].format(t=_CTYPES[np.dtype(dtype)]),
                      INSTANTIATIONS)


def _rank_kernel(name: str, stype: np.dtype, dtype: np.dtype = np.dtype(np.int32)):
    expr = _RANK_TEMPLATES[name].format(s=_CTYPES[np.dtype(stype)], t=_CTYPES[np.dtype(dtype)])
    return get_kernel("msf.cu", expr, INSTANTIATIONS)


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
        key = cp.where(bits >> cp.uint64(31) != 0, ~bits & cp.uint64(0xFFFFFFFF),
                       bits | cp.uint64(1 << 31))
    else:
        w = weights.astype(cp.float64) + 0.0  # -0.0 and 0.0 must tie
        if bool(cp.all((cp.abs(w) < 2.0**53) & (w == cp.floor(w)))):
            key = w.astype(cp.int64).view(cp.uint64) ^ cp.uint64(_SIGN)
        else:
            bits = w.view(cp.uint64)
            key = cp.where(bits >> cp.uint64(63) != 0, ~bits, bits | cp.uint64(_SIGN))
    return ~key if maximum else key


def _id_arrays(src: Any, dst: Any):
    """``(src, dst, dtype)`` with both arrays int32 or int64 (the ranking kernels' types)."""
    st = np.dtype(np.int64) if np.dtype(src.dtype).itemsize > 4 else np.dtype(np.int32)
    return src.astype(st, copy=False), dst.astype(st, copy=False), st


def key_stats(src: Any, dst: Any, key: Any) -> tuple[int, int, int]:
    """``(min key, max key, count)`` over the non-loop edges (one reduction, one sync)."""
    cp = cupy_or_raise()
    m = int(src.shape[0])
    src, dst, st = _id_arrays(src, dst)
    stats = cp.array([np.iinfo(np.uint64).max, 0, 0], dtype=cp.uint64)
    if m:
        _rank_kernel("rank_stats", st)(_grid(m), (_BLOCK,),
                                       (src, dst, cp.ascontiguousarray(key, dtype=cp.uint64),
                                        np.int64(m), stats))
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
    src, dst, st = _id_arrays(src, dst)
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
            _grid(m), (_BLOCK,), (src, dst, key, np.int64(m), np.uint64(kmin), np.int32(nbits),
                                  np.int32(low), np.int32(span > low), word, band))
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
    _rank_kernel("rank_decode", st, dtype)(_grid(count), (_BLOCK,),
                                           (src, dst, order, np.int64(count), eu, ev))
    return eu, ev, order


class PrimLists(NamedTuple):
    """Wang et al.'s candidate edge list after the last step, by forest position."""

    R1: Any  #: tree-side endpoint of each position's edge (-1: first vertex of a tree)
    R2: Any  #: the vertex added at each position
    rank: Any  #: rank of the edge that added it (the exact weight; max value: none)


def prim(eu: Any, ev: Any, n: int, *, use_graph: bool = True, graph_steps: int = 128,
         max_steps: int | None = None) -> PrimLists:
    """Wang et al.'s GPU Prim on ranked edges: one step per vertex, trees one by one.

    Each step is three launches (min-reduction over the candidates, final
    reduction + add, compare-and-update) that read and write device state
    only, so ``graph_steps`` steps are captured once as a CUDA graph and
    replayed: launch overhead, not work, bounds this algorithm.
    ``max_steps`` stops early (a partial forest), to time steps on graphs too
    large to finish.
    """
    cp = cupy_or_raise()
    dt = eu.dtype
    none = np.iinfo(dt).max
    indptr, adj = _packed_adjacency(eu, ev, n)
    R2, pos = cp.arange(n, dtype=dt), cp.arange(n, dtype=dt)
    R3 = cp.full(n, none, dtype=dt)
    tree_rank = cp.full(n, none, dtype=dt)
    state = cp.zeros(2, dtype=dt)
    partials = _grid(n)[0]
    T1, T2 = cp.empty(partials, dtype=dt), cp.empty(partials, dtype=dt)
    max_deg = int(cp.diff(indptr).max().item()) if n else 0
    k1, k2, k3 = (_kernel(s, dt) for s in ("prim_min_partial", "prim_min_final", "prim_update"))
    n_t, update_grid = dt.type(n), _grid(max(max_deg, 1))

    def step() -> None:
        k1((partials,), (_BLOCK,), (R3, state, n_t, T1, T2))
        k2((1,), (_BLOCK,), (R2, R3, pos, state, T1, T2, np.int32(partials), n_t, tree_rank))
        k3(update_grid, (_BLOCK,), (indptr, adj, R3, pos, state))

    _repeat(step, n if max_steps is None else min(n, max_steps), graph_steps if use_graph else 0)
    R1 = cp.empty(n, dtype=dt)
    _kernel("prim_outgoing", dt)(_grid(n), (_BLOCK,), (R2, tree_rank, eu, ev, R1, n_t))
    return PrimLists(R1, R2, tree_rank)


def _packed_adjacency(eu: Any, ev: Any, n: int):
    """Symmetric CSR whose entries are interleaved ``(neighbour, rank)`` pairs."""
    cp = cupy_or_raise()
    dt, m = eu.dtype, eu.shape[0]
    rows = cp.concatenate([eu, ev])
    order = cp.argsort(rows)
    ranks = cp.arange(m, dtype=dt)
    pairs = cp.stack([cp.concatenate([ev, eu])[order], cp.concatenate([ranks, ranks])[order]],
                     axis=1)
    indptr = cp.zeros(n + 1, dtype=dt)
    cp.cumsum(cp.bincount(rows, minlength=n).astype(dt), out=indptr[1:])
    return indptr, cp.ascontiguousarray(pairs).ravel()


def _repeat(step, times: int, graph_steps: int) -> None:
    """Run ``step`` ``times`` times, replaying a captured CUDA graph where asked."""
    cp = cupy_or_raise()
    if graph_steps <= 0 or times < 2 * graph_steps:
        for _ in range(times):
            step()
        return
    ready = cp.cuda.get_current_stream().record()
    stream = cp.cuda.Stream(non_blocking=True)  # capture needs a stream of its own
    stream.wait_event(ready)  # a non-blocking stream does not wait for the null stream
    with stream:
        stream.begin_capture()
        for _ in range(graph_steps):
            step()
        graph = stream.end_capture()
        for _ in range(times // graph_steps):
            graph.launch(stream)
        for _ in range(times % graph_steps):
            step()
    stream.synchronize()


def spanning_forest_ids(src: Any, dst: Any, weights: Any, n: int, *, algorithm: str = "boruvka",
                        maximum: bool = False, index_dtype: Any = None):
    """Input edge ids (ascending, CuPy int64) of the tie-broken minimum spanning forest.

    ``index_dtype`` forces the kernels' id type (int32 or int64); by default
    int32 when ``n`` and the edge count fit. Borůvka uses packed keys
    (:mod:`concomp._gpu.msf_keys`) when the weights fit 32 bits, else ranks the
    edges and runs the same rounds on the ranks.
    """
    cp = cupy_or_raise()
    m = int(src.shape[0])
    dt = np.dtype(index_dtype) if index_dtype is not None else (
        np.dtype(np.int32) if max(n, m) < 2**31 - 1 else np.dtype(np.int64))
    if m == 0 or n < 2:
        return cp.zeros(0, dtype=cp.int64)
    from . import msf_keys  # imports this module

    code = weight_keys(weights, m, maximum)
    if algorithm != "prim" and KEY_BORUVKA:
        ids = msf_keys.spanning_forest_ids_by_keys(src, dst, code, n, dt)
        if ids is not None:
            return ids
    eu, ev, eid = rank_edges(src, dst, code, n, dt)
    if eu.shape[0] == 0:
        return cp.zeros(0, dtype=cp.int64)
    if algorithm == "prim":
        rank = prim(eu, ev, n).rank
        ranks = rank[rank != np.iinfo(dt).max]
        return cp.sort(eid[ranks].astype(cp.int64))
    return msf_keys.boruvka(eu, ev, n, m, dt, eid=eid)  # a rank is a complete key by itself
