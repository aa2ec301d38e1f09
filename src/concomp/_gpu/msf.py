"""GPU minimum spanning forests: the engine contract's ``msf`` module, and Wang's Prim.

:func:`minimum_spanning_forest_ids` runs Borůvka (``algorithm`` "boruvka" or
"kruskal": the GPU has no Kruskal, and Borůvka returns the same forest) or Prim.
Borůvka first tries packed 64-bit keys (:mod:`concomp._gpu.msf_keys`, with
``Options.msf_packed_keys``): when the weight keys span less than 32 bits, its
rounds read the input edges directly and nothing is sorted. Otherwise, and for
Prim, the edges are ranked first (:mod:`concomp._gpu.msf_rank`).

Prim is one step per vertex, each of whose reductions reads all ``n``
candidates, so it is never faster than Borůvka: a baseline for small graphs.
``benchmarks/device_msf.py`` measures both paths and Prim.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..graph import Graph
from ..options import Options
from . import msf_keys, msf_rank, ops
from ._compat import check_device_fits, cupy_or_raise, out_of_memory_guard
from ._limits import msf_bytes
from .kernels import BLOCK as _BLOCK
from .kernels import grid_for as _grid
from .msf_rank import msf_kernel, rank_edges, weight_keys
from .rows import counting_sort

__all__ = ["PrimLists", "auto_msf_ids", "minimum_spanning_forest_ids", "msf_edge_ids", "prim"]


class PrimLists(NamedTuple):
    """Wang et al.'s candidate edge list after the last step, by forest position."""

    R1: Any  #: tree-side endpoint of each position's edge (-1: first vertex of a tree)
    R2: Any  #: the vertex added at each position
    rank: Any  #: rank of the edge that added it (the exact weight; max value: none)


def prim(
    eu: Any,
    ev: Any,
    n: int,
    *,
    use_graph: bool = True,
    graph_steps: int = 128,
    max_steps: int | None = None,
) -> PrimLists:
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
    k1, k2, k3 = (msf_kernel(s, dt) for s in ("prim_min_partial", "prim_min_final", "prim_update"))
    n_t, update_grid = dt.type(n), _grid(max(max_deg, 1))

    def step() -> None:
        k1((partials,), (_BLOCK,), (R3, state, n_t, T1, T2))
        k2((1,), (_BLOCK,), (R2, R3, pos, state, T1, T2, np.int32(partials), n_t, tree_rank))
        k3(update_grid, (_BLOCK,), (indptr, adj, R3, pos, state))

    _repeat(step, n if max_steps is None else min(n, max_steps), graph_steps if use_graph else 0)
    R1 = cp.empty(n, dtype=dt)
    msf_kernel("prim_outgoing", dt)(_grid(n), (_BLOCK,), (R2, tree_rank, eu, ev, R1, n_t))
    return PrimLists(R1, R2, tree_rank)


def _packed_adjacency(eu: Any, ev: Any, n: int):
    """Symmetric CSR whose entries are interleaved ``(neighbour, rank)`` pairs."""
    cp = cupy_or_raise()
    dt, m = eu.dtype, eu.shape[0]
    rows = cp.concatenate([eu, ev])
    indptr, order = counting_sort(cp, rows, n, dt, np.int64)
    ranks = cp.arange(m, dtype=dt)
    pairs = cp.stack(
        [cp.concatenate([ev, eu])[order], cp.concatenate([ranks, ranks])[order]], axis=1
    )
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


def msf_edge_ids(
    src: Any,
    dst: Any,
    weights: Any,
    n: int,
    *,
    algorithm: str = "boruvka",
    maximum: bool = False,
    index_dtype: Any = None,
    packed_keys: bool = True,
):
    """Input edge ids (ascending, CuPy int64) of the tie-broken minimum spanning forest.

    ``algorithm`` is "prim" or "boruvka". ``index_dtype`` forces the kernels' id
    type (int32 or int64); by default int32 when ``n`` and the edge count fit.
    Borůvka uses packed keys (:mod:`concomp._gpu.msf_keys`) when ``packed_keys``
    is set and the weights fit 32 bits, else ranks the edges and runs the same
    rounds on the ranks.
    """
    cp = cupy_or_raise()
    m = int(src.shape[0])
    dt = _index_dtype(n, m, index_dtype)
    if m == 0 or n < 2:
        return cp.zeros(0, dtype=cp.int64)
    if algorithm != "prim":  # a new machine compiles the run's kernels side by side
        st = np.dtype(np.int64) if np.dtype(src.dtype).itemsize > 4 else np.dtype(np.int32)
        msf_rank.prefetch(weights, st, dt)
        msf_keys.prefetch(st, dt)
        # the public layer then gathers the forest's endpoints and weights by its ids
        wd = () if weights is None else ops.names("take", weights.dtype)
        ops.prefetch(cp, ops.names("take", src.dtype) + wd)
    code = weight_keys(weights, m, maximum)
    if algorithm != "prim" and packed_keys:
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


def _index_dtype(n: int, m: int, forced: Any) -> np.dtype:
    """The kernels' id type: int32 while ``n`` and ``m`` fit, else int64; a forced int32
    gives way to int64 where they do not fit (the kernels would overrun)."""
    own = np.dtype(np.int32) if max(n, m) < 2**31 - 1 else np.dtype(np.int64)
    if forced is None or np.dtype(forced).itemsize < own.itemsize:
        return own
    return np.dtype(forced)


def auto_msf_ids(graph: Graph, maximum: bool, options: Options) -> Any:
    """None: ``algorithm="auto"`` on the GPU always runs Borůvka's kernels."""
    return None


def minimum_spanning_forest_ids(
    graph: Graph, algorithm: str, maximum: bool, options: Options
) -> Any:
    """Input edge ids (ascending, CuPy int64) of the minimum (maximum) spanning forest of
    a device graph under the tie rule; "prim" runs Prim, "boruvka" and "kruskal" Borůvka.

    A run whose arrays need more than the device's total memory raises
    :class:`~concomp.DeviceMemoryError` before anything is allocated.
    """
    n, m = graph.num_nodes, graph.num_edges
    least = msf_bytes(n, m, _index_dtype(n, m, options.index_dtype))
    check_device_fits(lambda: f"the minimum spanning forest of {graph!r}", least)
    with out_of_memory_guard(f"the minimum spanning forest of {graph!r}"):
        src, dst = graph.coo()
        return msf_edge_ids(
            src,
            dst,
            graph.weights,
            n,
            algorithm="prim" if algorithm == "prim" else "boruvka",
            maximum=maximum,
            index_dtype=options.index_dtype,
            packed_keys=options.msf_packed_keys,
        )
