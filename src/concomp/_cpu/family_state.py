"""Shared state and steps of the CPU family drivers: GConn's labels after sampling,
shortcuts, edge relabelling.

:mod:`concomp._cpu.families` (the dispatcher), :mod:`concomp._cpu.families_csr` and
:mod:`concomp._cpu.families_edges` build on this module, which depends only on the
union-find run (:mod:`concomp._cpu.unionfind`), so the imports go one way. Kernels
named with a leading underscore are the raw numba functions the round loops of
those modules call from inside numba; the public names are their
:func:`~concomp._shared.threads.serialized` wrappers for Python callers.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized
from ..graph import Graph
from ..options import Options
from ..variants import Compress, Finish, Layout, Sampling, Variant
from .atomics import atomic_load
from .unionfind import UnionFindRun

__all__ = ["Labels", "relabel_edges", "shortcut_full", "shortcut_once"]


@nb.njit(cache=True, parallel=True)
def _shortcut_full(P):
    """Pointer jumping until every vertex points at a root; returns how many moved.

    SV's full compression, Cong & Muzio's shortcut, Afforest's compress and
    Liu-Tarjan's full shortcut. Writes only move a pointer to an ancestor.
    """
    moved = 0
    for i in nb.prange(P.shape[0]):
        d = atomic_load(P, i)
        dd = atomic_load(P, d)
        if d != dd:
            while d != dd:
                d = dd
                dd = atomic_load(P, d)
            P[i] = d
            moved += 1
    return moved


@nb.njit(cache=True, parallel=True)
def _shortcut_once(P):
    """One shortcut step ``P[v] <- P[P[v]]`` (Liu-Tarjan's shortcut, Stergiou); returns how
    many moved."""
    moved = 0
    for i in nb.prange(P.shape[0]):
        d = atomic_load(P, i)
        dd = atomic_load(P, d)
        if d != dd:
            P[i] = dd
            moved += 1
    return moved


@nb.njit(cache=True, parallel=True)
def _relabel_edges(src, dst, P):
    """Replace every edge ``(u, v)`` by ``(P[u], P[v])``: Liu-Tarjan's alter, Cong & Muzio's
    update step, and the relabelling of the next Stages group."""
    for i in nb.prange(src.shape[0]):
        src[i] = P[src[i]]
        dst[i] = P[dst[i]]


shortcut_full = serialized(_shortcut_full)
shortcut_once = serialized(_shortcut_once)
relabel_edges = serialized(_relabel_edges)


class Labels:
    """GConn's state before a finish: labels ``P``, ``lmax`` and the sampler's run.

    The sampler is the union-find one (Union-Async with path halving), its forest
    compressed into labels. ``use`` is 1 when a sampler ran (skip ``lmax``), ``k0``
    the leading entries of each symmetric-CSR row it covered (usable only by the
    root-based finishes). With ``record`` the sampler's links fill ``hook``.
    """

    def __init__(self, graph: Graph, variant: Variant, options: Options, record: bool = False):
        sampling = variant.sampling
        proxy = Variant(sampling, Finish.ASYNC, Compress.HALVE, Layout.CSR, variant.k)
        self.run = run = UnionFindRun(graph, proxy, options, record=record, symmetric=True)
        self.use, self.k0, self.lmax = 0, 0, -1
        if sampling != Sampling.NONE and graph.num_nodes:
            self.k0, self.lmax = run.sample()  # leaves labels that are roots
            self.use = 1
        self.P, self.hook, self.dt, self.record = run.p, run.hook, run.dt, record

    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(indptr (int64), indices, edge ids (int64; a dummy unless recording))`` of the
        symmetric CSR."""
        return self.run.csr()[:3]

    def coo(self, copy: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """The input edges in the labels' index type (a private copy with ``copy``)."""
        src, dst = self.run.coo()
        if copy:
            src, dst = src.copy(), dst.copy()
        return src, dst
