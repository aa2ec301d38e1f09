"""Strongly connected components on the GPU: trimming, min-label propagation, FW-BW.

Both algorithms work on the arcs as a CSR and its transpose, built on the device
(for an undirected graph the symmetric CSR serves as both), and on one state per
vertex kept by ``cuda/scc.cu``: the label (-1 while unsettled), a colour pair
and the two propagated values.

``"propagation"`` (ECL-SCC's scheme with minima, Alabandi et al., SC'23):
rounds of trimming (vertices without a live in- or out-arc are components of
their own), then propagation steps until the device flag stays clear (``fw[v]``:
the smallest vertex reaching ``v``; ``bw[v]``: the smallest vertex ``v``
reaches), then settling (``fw[v] == bw[v]`` names ``v``'s component; the others
are recoloured by ``(fw[v], bw[v])`` and solved per colour in the next round).
Each step reads the flag once; the steps of a round grow with the diameter of
what is left.

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
from typing import Any

import numpy as np

from ..graph import Graph
from ..options import Options
from ._compat import cupy_or_raise
from ._compile import get_kernel
from .kernels import BLOCK, grid_for

__all__ = ["INSTANTIATIONS", "scc_algorithm", "scc_labels"]

log = logging.getLogger("concomp")

_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_KERNELS = (
    "scc_init",
    "scc_trim",
    "scc_propagate",
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

    def __init__(self, graph: Graph, options: Options) -> None:
        cp = self.cp = cupy_or_raise()
        self.n = n = graph.num_nodes
        dt = self.dt = _index_dtype(graph, options)
        self.optr, self.oind, self.iptr, self.iind = _csr_pair(cp, graph, dt)
        self.lab = cp.empty(n, dtype=dt)
        self.cf = cp.empty(n, dtype=dt)
        self.cb = cp.empty(n, dtype=dt)
        self.fw = cp.empty(n, dtype=dt)
        self.bw = cp.empty(n, dtype=dt)
        self.flag = cp.zeros(1, dtype=np.int32)
        self.count = cp.zeros(1, dtype=np.uint64)
        self.grid = grid_for(n)
        self.launch("scc_init", self.lab, self.cf, self.cb, self.fw, self.bw)

    def launch(self, name: str, *args: Any, work: int | None = None) -> None:
        """Run ``name<T>`` over ``work`` items (default every vertex; ``n`` goes first)."""
        kernel = get_kernel("scc.cu", f"{name}<{_CTYPES[self.dt]}>")
        if work is None:
            kernel(self.grid, (BLOCK,), (np.int64(self.n), *args))
        elif work:
            kernel(grid_for(work), (BLOCK,), args)

    def repeat(self, name: str, *args: Any, limit: int | None = None) -> int:
        """Launch ``name`` (its last argument the flag) until a launch leaves the flag
        clear, at most ``limit`` times; return the number of launches."""
        done = 0
        while limit is None or done < limit:
            self.flag.fill(0)
            self.launch(name, *args, self.flag)
            done += 1
            if not int(self.flag.get()[0]):
                break
        return done

    def trim(self, options: Options) -> None:
        arcs = (self.optr, self.oind, self.iptr, self.iind)
        self.repeat("scc_trim", *arcs, self.lab, self.cf, self.cb, limit=options.scc_trim_passes)

    def propagate_rounds(self, options: Options) -> None:
        arcs = (self.optr, self.oind, self.iptr, self.iind)
        while True:
            self.trim(options)
            self.repeat("scc_propagate", *arcs, self.lab, self.cf, self.cb, self.fw, self.bw)
            self.count.fill(0)
            self.launch("scc_settle", self.lab, self.cf, self.cb, self.fw, self.bw, self.count)
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
    order = cp.argsort(dst)
    iind = src[order].astype(dt, copy=False)
    del order
    iptr = cp.zeros(n + 1, dtype=dt)
    if dst.size:
        cp.cumsum(cp.bincount(dst, minlength=n), out=iptr[1:])
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
    run = _Run(graph, options)
    if run.n == 0:
        return run.lab
    if algorithm == "fwbw":
        run.fwbw(options)
    run.propagate_rounds(options)
    return run.lab
