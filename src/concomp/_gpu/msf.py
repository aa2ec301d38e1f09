"""GPU minimum spanning forest driver: edge ranking, filter-Borůvka and Wang's Prim.

Both algorithms work on *ranked* edges: self loops are dropped and the rest are
sorted once by ``(weight, min(u, v), max(u, v), edge id)`` (stable CuPy sorts;
one sort of packed 64-bit words when the weight range and both endpoints fit,
otherwise two). Position in that order is the edge's rank, a unique integer key,
so the kernels in ``cuda/msf.cu`` never see weights.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ._compat import cupy_or_raise, device_info
from ._compile import get_kernel

__all__ = ["INSTANTIATIONS", "spanning_forest_ids", "rank_edges", "boruvka", "prim", "PrimLists"]

_BLOCK = 256
_SIGN = 1 << 63


_TEMPLATES = {
    "boruvka_min_edge": "boruvka_min_edge<{t}>",
    "boruvka_hook": "boruvka_hook<{t}>",
    "boruvka_compress": "boruvka_compress<{t}>",
    "prim_min_partial": f"prim_min_partial<{{t}}, {_BLOCK}>",
    "prim_min_final": f"prim_min_final<{{t}}, {_BLOCK}>",
    "prim_update": "prim_update<{t}>",
    "prim_outgoing": "prim_outgoing<{t}>",
}
_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}

#: Every kernel name expression this driver compiles (one NVRTC module for all).
INSTANTIATIONS = tuple(t.format(t=c) for c in _CTYPES.values() for t in _TEMPLATES.values())


def _kernel(name: str, dtype: np.dtype):
    return get_kernel("msf.cu", _TEMPLATES[name].format(t=_CTYPES[np.dtype(dtype)]),
                      INSTANTIATIONS)


def _grid(count: int) -> tuple[int]:
    return (max(1, min((count + _BLOCK - 1) // _BLOCK, 32 * device_info()["sm_count"])),)


def weight_keys(weights: Any, m: int, maximum: bool):
    """Unsigned keys whose order is the weights' order (the CPU engine's mapping)."""
    cp = cupy_or_raise()
    if weights is None:
        key = cp.zeros(m, dtype=cp.uint64)
    elif weights.dtype.kind == "u":
        key = weights.astype(cp.uint64)
    elif weights.dtype.kind in "ib":
        key = weights.astype(cp.int64).view(cp.uint64) ^ cp.uint64(_SIGN)
    else:
        w = weights.astype(cp.float64) + 0.0  # -0.0 and 0.0 must tie
        if bool(cp.all((cp.abs(w) < 2.0**53) & (w == cp.floor(w)))):
            key = w.astype(cp.int64).view(cp.uint64) ^ cp.uint64(_SIGN)
        else:
            bits = w.view(cp.uint64)
            key = cp.where(bits >> cp.uint64(63) != 0, ~bits, bits | cp.uint64(_SIGN))
    return ~key if maximum else key


def rank_edges(src: Any, dst: Any, key: Any, n: int, dtype: np.dtype):
    """``(eu, ev, eid)`` of the non-loop edges in rank order (``eu < ev``)."""
    cp = cupy_or_raise()
    eid = cp.flatnonzero(src != dst)
    lo = cp.minimum(src[eid], dst[eid]).astype(cp.uint64)
    hi = cp.maximum(src[eid], dst[eid]).astype(cp.uint64)
    key = key[eid]
    nbits = max(int(n - 1).bit_length(), 1)
    pair = (lo << cp.uint64(nbits)) | hi if 2 * nbits <= 64 else None
    span = int((key.max() - key.min()).item()).bit_length() if eid.size else 0
    if pair is not None and span + 2 * nbits <= 64:
        shifted = (key - key.min()) << cp.uint64(2 * nbits) if 2 * nbits < 64 else 0
        order = cp.argsort(shifted | pair)  # CuPy sorts are stable: equal words keep id order
    else:  # stable sorts from the least significant key up
        if pair is not None:
            order = cp.argsort(pair)
        else:
            order = cp.argsort(hi)
            order = order[cp.argsort(lo[order])]
        order = order[cp.argsort(key[order])]
    return lo[order].astype(dtype), hi[order].astype(dtype), eid[order]


def boruvka(eu: Any, ev: Any, n: int, light: int | None = None):
    """Ranks of the forest edges by filter-Borůvka.

    The ``light`` lightest edges (default ``min(m, n)``) are processed first;
    their forest is the full forest's restriction to them, and it merges most
    vertices, so the first round over the heavy rest already drops most of it.
    """
    cp = cupy_or_raise()
    dt, m = eu.dtype, int(eu.shape[0])
    none = np.iinfo(dt).max
    parent = cp.arange(n, dtype=dt)
    comp = parent.copy()
    best = cp.full(n, none, dtype=dt)
    in_forest = cp.zeros(m, dtype=cp.uint8)
    alive = cp.empty(m, dtype=cp.uint8)
    hooked = cp.zeros(1, dtype=cp.int32)
    k_min, k_hook, k_comp = (_kernel(s, dt) for s in
                             ("boruvka_min_edge", "boruvka_hook", "boruvka_compress"))
    split = min(m, n) if light is None else max(0, min(m, light))
    for first, stop in ((0, split), (split, m)):
        active, count = None, stop - first
        while count:
            listed = active if active is not None else eu  # eu: any valid pointer, unread
            k_min(_grid(count), (_BLOCK,), (eu, ev, listed, np.int32(active is not None),
                                             np.int64(count), np.int64(first), comp, best, alive))
            hooked.fill(0)
            k_hook(_grid(n), (_BLOCK,), (eu, ev, comp, best, parent, in_forest, dt.type(n), hooked))
            k_comp(_grid(n), (_BLOCK,), (parent, comp, best, dt.type(n)))
            if not int(hooked.item()):
                break
            keep = cp.flatnonzero(alive[:count])
            active = (keep.astype(dt) + dt.type(first)) if active is None else active[keep]
            count = int(active.shape[0])
    return cp.flatnonzero(in_forest)


class PrimLists(NamedTuple):
    """Wang et al.'s candidate edge list after the last step, by forest position."""

    R1: Any  #: tree-side endpoint of each position's edge (-1: first vertex of a tree)
    R2: Any  #: the vertex added at each position
    rank: Any  #: rank of the edge that added it (the exact weight; max value: none)


def prim(eu: Any, ev: Any, n: int, *, use_graph: bool = True,
         graph_steps: int = 128) -> PrimLists:
    """Wang et al.'s GPU Prim on ranked edges: one step per vertex, trees one by one.

    Each step is three launches (min-reduction over the candidates, final
    reduction + add, compare-and-update) that read and write device state
    only, so ``graph_steps`` steps are captured once as a CUDA graph and
    replayed: launch overhead, not work, bounds this algorithm.
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

    _repeat(step, n, graph_steps if use_graph else 0)
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
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        stream.begin_capture()
        for _ in range(graph_steps):
            step()
        graph = stream.end_capture()
        # steps past n are no-ops (the kernels see k == n), so overshooting is safe
        for _ in range(-(-times // graph_steps)):
            graph.launch(stream)
    stream.synchronize()


def spanning_forest_ids(src: Any, dst: Any, weights: Any, n: int, *, algorithm: str = "boruvka",
                        maximum: bool = False, index_dtype: Any = None):
    """Input edge ids (ascending, CuPy int64) of the tie-broken minimum spanning forest.

    ``index_dtype`` forces the kernels' id type (int32 or int64); by default
    int32 when ``n`` and the edge count fit.
    """
    cp = cupy_or_raise()
    m = int(src.shape[0])
    dt = np.dtype(index_dtype) if index_dtype is not None else (
        np.dtype(np.int32) if max(n, m) < 2**31 - 1 else np.dtype(np.int64))
    if m == 0 or n < 2:
        return cp.zeros(0, dtype=cp.int64)
    eu, ev, eid = rank_edges(src, dst, weight_keys(weights, m, maximum), n, dt)
    if eu.shape[0] == 0:
        return cp.zeros(0, dtype=cp.int64)
    if algorithm == "prim":
        rank = prim(eu, ev, n).rank
        ranks = rank[rank != np.iinfo(dt).max]
    else:
        ranks = boruvka(eu, ev, n)
    return cp.sort(eid[ranks].astype(cp.int64))
