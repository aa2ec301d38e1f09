"""Strongly connected components on the GPU: trimming, min-label propagation, FW-BW.

Both algorithms work on the arcs as a CSR and its transpose, built on the device
(for an undirected graph the symmetric CSR serves as both), and on one state per
vertex kept by ``cuda/scc.cu``: the label (-1 while unsettled), a colour pair
and the two propagated values.

``"propagation"`` (ECL-SCC's scheme with minima, Alabandi et al., SC'23):
rounds of trimming (vertices without a live in- or out-arc are components of
their own), then propagation steps until a step lowers no value (``fw[v]``:
the smallest vertex reaching ``v``; ``bw[v]``: the smallest vertex ``v``
reaches), then settling (``fw[v] == bw[v]`` names ``v``'s component; the others
are recoloured by ``(fw[v], bw[v])`` and solved per colour in the next round).
Each step also reads the values of the vertices named by ``fw[v]`` and by a
jump pointer per direction that doubles every step, so that along a path or a
cycle, numbered in either direction, the minima arrive in O(log n) steps instead
of one step per vertex (``cuda/scc.cu`` says why this is sound). The bound is
not general: where the minimum spreads over a wide front against the numbering
(a two-dimensional torus whose arcs point to smaller ids) the steps still grow
with the diameter. The flags are read once per step, or once per four steps on
graphs of fewer than 2**22 arcs.

``"fwbw"`` (Fleischer, Hendrickson, Pinar; McLendon et al.'s trimming): after
one trimming, a breadth-first search forward and one backward from the pivot of
highest in-degree x out-degree; the vertices both reach are the pivot's
component, the rest are coloured by which search reached them and finished by
propagation. Each search level reads one counter; the levels grow with the
diameter.

The CPU engine's :mod:`concomp._cpu.scc_propagation` is the same propagation,
its reference in the tests.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from ..graph import Graph
from ..options import Options
from ._compat import cupy_or_raise
from ._compile import get_kernel
from .kernels import BLOCK, grid_for
from .rows import counting_sort

__all__ = [
    "INSTANTIATIONS",
    "acyclic_in_id_order",
    "scc_algorithm",
    "scc_component_labels",
    "scc_labels",
]

log = logging.getLogger("concomp")

#: Steps launched between reads of the flags on graphs of fewer arcs than
#: ``_BATCH_BELOW_ARCS`` (one read per step above).
_BATCH = 4
_BATCH_BELOW_ARCS = 1 << 22
#: Vertices with more arcs than this (in and out together) propagate one warp each.
_HEAVY_ARCS = 64

_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_KERNELS = (
    "scc_arc_order",
    "scc_init",
    "scc_trim",
    "scc_jump_init",
    "scc_propagate",
    "scc_propagate_heavy",
    "scc_settle",
    "scc_bfs_level",
    "scc_split",
)
#: Every kernel name expression of ``cuda/scc.cu`` (for the compile test).
INSTANTIATIONS = tuple(f"{k}<{t}>" for k in _KERNELS for t in _CTYPES.values())


def scc_algorithm(graph: Graph, options: Options) -> str:
    """``"propagation"``: linear work per step with no search per level. FW-BW pays
    where one giant component holds most vertices and the diameter is small; no GPU
    measurement backs a rule between the two yet, so ``auto`` keeps the one whose
    rounds are fewer in general."""
    return "propagation"


class _Run:
    """The device arrays and kernels of one run."""

    def __init__(self, graph: Graph, dt: np.dtype) -> None:
        cp = self.cp = cupy_or_raise()
        self.n = n = graph.num_nodes
        self.dt = dt  # _index_dtype's choice
        self.optr, self.oind, self.iptr, self.iind = _csr_pair(cp, graph, dt)
        self.arcs = (self.optr, self.oind, self.iptr, self.iind)
        self.lab = cp.empty(n, dtype=dt)
        self.cf = cp.empty(n, dtype=dt)
        self.cb = cp.empty(n, dtype=dt)
        self.fw = cp.empty(n, dtype=dt)
        self.bw = cp.empty(n, dtype=dt)
        self.jf = cp.empty(n, dtype=dt)
        self.jb = cp.empty(n, dtype=dt)
        self.flags = cp.zeros(_BATCH, dtype=np.int32)
        self.flag_views = [self.flags[i : i + 1] for i in range(_BATCH)]
        # Small graphs: a step costs less than reading the flag, so a few steps go
        # between reads (a converged step changes nothing, so extra steps are harmless).
        self.batch = _BATCH if int(self.oind.size) < _BATCH_BELOW_ARCS else 1
        self.count = cp.zeros(1, dtype=np.uint64)
        self.grid = grid_for(n)
        degree = cp.diff(self.optr) + cp.diff(self.iptr)
        self.heavy = cp.flatnonzero(degree > _HEAVY_ARCS).astype(dt)
        self.n_heavy = int(self.heavy.size)
        del degree
        self.launch("scc_init", self.lab, self.cf, self.cb, self.fw, self.bw)

    def launch(self, name: str, *args: Any, work: int | None = None) -> None:
        """Run ``name<T>`` over ``work`` items (default every vertex; ``n`` goes first)."""
        kernel = get_kernel("scc.cu", f"{name}<{_CTYPES[self.dt]}>")
        if work is None:
            kernel(self.grid, (BLOCK,), (np.int64(self.n), *args))
        elif work:
            kernel(grid_for(work), (BLOCK,), args)

    def repeat(self, step: Callable[[Any], None], limit: int | None = None) -> int:
        """Run ``step(flag)`` until a step leaves its flag clear, at most ``limit``
        times; return the number of steps. Up to ``self.batch`` steps go between reads
        of the flags, each with a flag of its own: a step that changes nothing means
        every later one changes nothing."""
        done = 0
        while limit is None or done < limit:
            k = self.batch if limit is None else min(self.batch, limit - done)
            self.flags[:k].fill(0)
            for i in range(k):
                step(self.flag_views[i])
            done += k
            if not int(self.flags[k - 1].get()):
                break
        return done

    def trim(self, options: Options) -> None:
        args = (*self.arcs, self.lab, self.cf, self.cb)
        self.repeat(lambda flag: self.launch("scc_trim", *args, flag), options.scc_trim_passes)

    def propagate_step(self, flag: Any) -> None:
        """One propagation step: light vertices a thread each, heavy ones a warp each."""
        state = (*self.arcs, self.lab, self.cf, self.cb, self.fw, self.bw, self.jf, self.jb)
        self.launch("scc_propagate", *state, np.int64(_HEAVY_ARCS), flag)
        if self.n_heavy:
            heavy = (self.heavy, np.int64(self.n_heavy))
            self.launch("scc_propagate_heavy", *heavy, *state, flag, work=32 * self.n_heavy)

    def propagate_rounds(self, options: Options) -> None:
        state = (self.lab, self.cf, self.cb)
        while True:
            self.trim(options)
            self.launch("scc_jump_init", *self.arcs, *state, self.jf, self.jb)
            self.repeat(self.propagate_step)
            self.count.fill(0)
            self.launch("scc_settle", *state, self.fw, self.bw, self.count)
            if not int(self.count.get()[0]):
                return

    def fwbw(self, options: Options) -> None:
        """Settle the pivot's component and colour the rest by the two searches."""
        cp = self.cp
        self.trim(options)
        out_deg = cp.diff(self.optr).astype(np.float64)
        in_deg = cp.diff(self.iptr).astype(np.float64)
        score = cp.where(self.lab < 0, out_deg * in_deg, -1.0)
        pivot = int(cp.argmax(score)) if self.n else 0
        if not self.n or float(score[pivot]) < 0:
            return  # trimming settled every vertex
        fseen = self.search(self.optr, self.oind, pivot)
        bseen = self.search(self.iptr, self.iind, pivot)
        both = (fseen & bseen).astype(cp.bool_)
        root = self.dt.type(int(cp.argmax(both)))  # the first vertex both reached
        self.launch("scc_split", fseen, bseen, root, self.lab, self.cf, self.cb)

    def search(self, ptr: Any, ind: Any, pivot: int) -> Any:
        """Vertices reached from ``pivot`` over unsettled vertices (int32 0/1 per vertex)."""
        cp = self.cp
        seen = cp.zeros(self.n, dtype=np.int32)
        seen[pivot] = 1
        buffers = (cp.empty(self.n, dtype=self.dt), cp.empty(self.n, dtype=self.dt))
        buffers[0][0] = pivot
        current, size = 0, 1
        while size:  # level by level: the frontier in one buffer, the next level in the other
            self.count.fill(0)
            frontier, nxt = buffers[current], buffers[1 - current]
            args = (ptr, ind, self.lab, frontier, np.int64(size), seen, nxt, self.count)
            self.launch("scc_bfs_level", *args, work=size)
            size = int(self.count.get()[0])
            current = 1 - current
        return seen


def acyclic_in_id_order(graph: Graph, dt: np.dtype) -> bool:
    """Whether every arc of the directed ``graph`` (self loops aside) runs to a larger
    id, or every one to a smaller id: then no cycle exists (the CPU engine's
    :func:`concomp._cpu.scc.acyclic_in_id_order` on the device). One launch over the rows
    (``scc_arc_order``), which stops as soon as arcs both ways are seen."""
    cp = cupy_or_raise()
    n = graph.num_nodes
    if n == 0:
        return True
    indptr, indices, _ = graph.csr()
    found = cp.zeros(1, dtype=np.int32)
    kernel = get_kernel("scc.cu", f"scc_arc_order<{_CTYPES[dt]}>")
    ptr, ind = indptr.astype(dt, copy=False), indices.astype(dt, copy=False)
    kernel(grid_for(n), (BLOCK,), (np.int64(n), ptr, ind, found))
    return int(found.get()[0]) != 3


def _index_dtype(graph: Graph, options: Options) -> np.dtype:
    """int64 where ``options.index_dtype`` asks for it or the ids or arc counts need it."""
    wide = options.index_dtype == "int64" or graph.index_dtype == np.int64
    return np.dtype(np.int64 if wide else np.int32)


def _csr_pair(cp: Any, graph: Graph, dt: np.dtype) -> tuple[Any, Any, Any, Any]:
    """``(out indptr, out indices, in indptr, in indices)`` in ``dt``, on the device."""
    if not graph.directed:
        indptr, indices = graph.undirected_rows()
        indptr, indices = indptr.astype(dt, copy=False), indices.astype(dt, copy=False)
        return indptr, indices, indptr, indices  # symmetric: its own transpose
    src, dst = graph.coo()
    indptr, indices, _ = graph.csr()
    n = graph.num_nodes
    iptr, order = counting_sort(cp, dst, n, dt, np.int64)
    iind = src[order].astype(dt, copy=False)
    del order
    return indptr.astype(dt, copy=False), indices.astype(dt, copy=False), iptr, iind


def scc_labels(graph: Graph, algorithm: str, options: Options) -> Any:
    """Root labels of the strongly connected components (CuPy): entry ``v`` is the
    smallest vertex of ``v``'s component. ``algorithm``: ``"propagation"``, ``"fwbw"``
    or ``"auto"`` (:func:`scc_algorithm`)."""
    if algorithm == "auto":
        algorithm = scc_algorithm(graph, options)
        log.debug("scc algorithm=auto -> %s on gpu", algorithm)
    if algorithm not in ("propagation", "fwbw"):
        raise ValueError(f"the GPU engine has no SCC algorithm {algorithm!r}")
    dt = _index_dtype(graph, options)
    if graph.directed and acyclic_in_id_order(graph, dt):
        # ids in topological order (a chain, a DAG numbered along its arcs): every
        # vertex is a component of its own, with no transpose built and no round run
        log.debug("scc: every arc runs one way in id order: single-vertex components")
        return cupy_or_raise().arange(graph.num_nodes, dtype=dt)
    run = _Run(graph, dt)
    if run.n == 0:
        return run.lab
    if algorithm == "fwbw":
        run.fwbw(options)
    run.propagate_rounds(options)
    return run.lab


def scc_component_labels(
    graph: Graph, algorithm: str, options: Options, count_only: bool = False
) -> None:
    """None: the GPU engine numbers the components from :func:`scc_labels`' roots (its
    canonical labelling is one fused kernel over them; no algorithm here knows the
    numbering earlier)."""
    return None
