"""Union-find kernels of the CPU engine over COO edges and CSR rows (numba).

Every kernel takes ``unite``, the union rule of :func:`concomp._cpu.rules.unite_for`,
as an argument: numba compiles one specialisation per rule. The unions run on
one thread (numba has no compare-and-swap on the CPU); what is race-free
(flattening) runs in parallel. Both :mod:`~concomp._cpu.components` and
:mod:`~concomp._cpu.families` (ECL-CC after k-out sampling) build on this module,
which imports neither.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized
from ..graph import Graph
from ..options import Options
from ..variants import Sampling, Variant

__all__ = [
    "coo_union",
    "coo_union_skip",
    "csr_finish",
    "csr_finish_any",
    "flatten",
    "kout_lower",
    "kout_round",
    "most_frequent_root",
    "sample",
    "state_dtype",
]

_INT32_MAX = np.iinfo(np.int32).max


@serialized
@nb.njit(cache=True, parallel=True)
def flatten(p):
    """Point every vertex at its root. Benign races: writes only move pointers to ancestors."""
    for v in nb.prange(p.shape[0]):
        r = p[v]
        while p[r] != r:
            r = p[r]
        p[v] = r


@nb.njit(cache=True)
def coo_union(p, src, dst, unite):
    """Unite the endpoints of every COO edge, in input order."""
    for i in range(src.shape[0]):
        unite(p, src[i], dst[i])


@nb.njit(cache=True)
def coo_union_skip(p, src, dst, unite, lmax):
    """Finish over COO edges, skipping those whose endpoints both sit in the giant component."""
    for i in range(src.shape[0]):
        u, v = src[i], dst[i]
        if p[u] == lmax and p[v] == lmax:
            continue
        unite(p, u, v)


@nb.njit(cache=True)
def kout_round(p, indptr, indices, r, unite):
    """Union every vertex with its r-th neighbour (one k-out sampling round)."""
    for v in range(indptr.shape[0] - 1):
        j = indptr[v] + r
        if j < indptr[v + 1]:
            unite(p, v, indices[j])


@nb.njit(cache=True)
def kout_lower(p, indptr, indices, k, unite, scan):
    """Union every vertex, in id order, with its first k neighbours of smaller id
    among the first ``scan`` entries of its row."""
    for v in range(indptr.shape[0] - 1):
        found = 0
        for j in range(indptr[v], min(indptr[v + 1], indptr[v] + scan)):
            if found == k:
                break
            w = indices[j]
            if w < v:
                found += 1
                unite(p, v, w)


@nb.njit(cache=True)
def csr_finish(p, indptr, indices, k, unite, lmax):
    """Union the edges from position k of every vertex outside the ``lmax`` component.

    Correct because the CSR is symmetric: an edge between the giant component and
    another vertex is seen from the other vertex's side.
    """
    for v in range(indptr.shape[0] - 1):
        if p[v] == lmax:  # Afforest's skip: a direct parent check, no find
            continue
        for j in range(indptr[v] + k, indptr[v + 1]):
            unite(p, v, indices[j])


@nb.njit(cache=True)
def csr_finish_any(p, indptr, indices, k, unite, lmax):
    """:func:`csr_finish` for a CSR that need not be symmetric (each stored entry an edge).

    An entry is skipped only when both endpoints sit in the ``lmax`` component: the
    reverse entry that the symmetric finish relies on may be absent. Weak components
    need nothing more, so a caller's CSR is used as it is, never symmetrised into a
    second copy.
    """
    for v in range(indptr.shape[0] - 1):
        inside = p[v] == lmax
        for j in range(indptr[v] + k, indptr[v + 1]):
            w = indices[j]
            if inside and p[w] == lmax:
                continue
            unite(p, v, w)


def sample(p: np.ndarray, indptr, indices, variant: Variant, unite, options: Options) -> int:
    """Run ``variant``'s sampler on ``p``; return the leading edges per row it covered."""
    k = variant.k
    assert k is not None  # the CPU samplers (kout, koutl) always carry a k
    if variant.sampling == Sampling.KOUT_LOWER:
        kout_lower(p, indptr, indices, k, unite, options.kout_lower_scan)
        return 0  # the sampled edges are not a prefix of the rows
    for r in range(k):
        kout_round(p, indptr, indices, r, unite)
    return k


def most_frequent_root(p: np.ndarray, options: Options, seed: int = 0) -> int:
    """The most frequent label among ``options.label_samples`` sampled vertices (-1 if none)."""
    n = p.shape[0]
    if n == 0:
        return -1
    rng = np.random.default_rng(seed)
    picked = p[rng.integers(0, n, size=min(options.label_samples, n))]
    values, counts = np.unique(picked, return_counts=True)
    return int(values[np.argmax(counts)])


def state_dtype(graph: Graph, options: Options) -> np.dtype:
    """Index type of the union-find state: ``options.index_dtype`` where the vertex ids fit
    it, else the graph's."""
    if options.index_dtype == "int32" and graph.num_nodes - 1 > _INT32_MAX:
        return np.dtype(np.int64)
    return np.dtype(options.index_dtype or graph.index_dtype)
