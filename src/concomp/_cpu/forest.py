"""CPU spanning forests: the union-find engine with a hook-recording link.

Every union that links two roots reports the root that stopped being one; the
driver stores the id of the edge being processed in that root's slot (GConn,
section 3.2: each forest edge is owned by exactly one vertex). The union rule is
the registry's (:func:`concomp._cpu.rules.unite_for`), as in
:mod:`concomp._cpu.components` and :mod:`concomp._cpu.incremental`.

The engine contract's ``forest`` module (:mod:`concomp._engine`):
``spanning_forest_ids(graph, variant, options)`` returns ``(edge_ids,
num_components)`` with the edge ids ascending; ``records_forest(variant)`` says
whether a variant records one.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .. import _rules
from ..graph import Graph
from ..options import Options
from ..variants import Layout, Sampling, Variant
from .rules import unite_for
from .unionfind import flatten, most_frequent_root, state_dtype

__all__ = ["records_forest", "spanning_forest_ids"]


def records_forest(variant: Variant) -> bool:
    """Whether the CPU engine's run of ``variant`` records a spanning forest.

    The union-find rules whose registry row lists the CPU's ``forest`` driver do
    (the CPU runs them serially, so Rem's splicing is safe), as do the families
    of :data:`concomp._rules.FOREST_FAMILIES` the CPU implements; Stages never.
    """
    if variant.sampling == Sampling.STAGES or not variant.supported_on("cpu"):
        return False
    finish = str(variant.finish)
    if finish in _rules.UNION_RULES:
        return _rules.union_rule(finish).records_forest(
            "cpu", str(variant.compress), concurrent=False
        )
    return "cpu" in _rules.FOREST_FAMILIES.get(finish, ())


@nb.njit(cache=True)
def _coo_forest(p, hook, src, dst, unite, lmax):
    """Edge-parallel finish in input order; ``lmax >= 0`` skips edges inside that component."""
    for i in range(src.shape[0]):
        u, v = src[i], dst[i]
        if lmax >= 0 and p[u] == lmax and p[v] == lmax:
            continue
        r = unite(p, u, v)
        if r >= 0:
            hook[r] = i


@nb.njit(cache=True)
def _kout_forest_round(p, hook, indptr, indices, eids, r, unite):
    """Union every vertex with its r-th neighbour (one k-out round)."""
    for v in range(indptr.shape[0] - 1):
        j = indptr[v] + r
        if j < indptr[v + 1]:
            root = unite(p, v, indices[j])
            if root >= 0:
                hook[root] = eids[j]


@nb.njit(cache=True)
def _kout_lower_forest(p, hook, indptr, indices, eids, k, unite, scan):
    """Union every vertex, in id order, with its first k neighbours of smaller id
    among the first ``scan`` entries of its row, recording the linking edges."""
    for v in range(indptr.shape[0] - 1):
        found = 0
        for j in range(indptr[v], min(indptr[v + 1], indptr[v] + scan)):
            if found == k:
                break
            if indices[j] < v:
                found += 1
                root = unite(p, v, indices[j])
                if root >= 0:
                    hook[root] = eids[j]


@nb.njit(cache=True)
def _csr_forest(p, hook, indptr, indices, eids, k, unite, lmax):
    """Edges from position k of every vertex outside the ``lmax`` component.

    The CSR is symmetric, so an edge leaving the skipped component is seen from
    its other end.
    """
    for v in range(indptr.shape[0] - 1):
        if lmax >= 0 and p[v] == lmax:
            continue
        for j in range(indptr[v] + k, indptr[v + 1]):
            root = unite(p, v, indices[j])
            if root >= 0:
                hook[root] = eids[j]


def spanning_forest_ids(graph: Graph, variant: Variant, options: Options) -> tuple[np.ndarray, int]:
    """Ascending input edge ids of a spanning forest, and the number of components."""
    n = graph.num_nodes
    p = np.arange(n, dtype=state_dtype(graph, options))
    hook = np.full(n, -1, dtype=np.int64)
    if n == 0:
        return hook, 0
    unite = unite_for(variant.finish, variant.compress)
    if variant.sampling == Sampling.NONE:
        if variant.layout == Layout.COO:
            src, dst = graph.coo()
            _coo_forest(p, hook, src, dst, unite, -1)
        else:
            indptr, indices, eids = graph.undirected_csr()
            _csr_forest(p, hook, indptr, indices, eids, 0, unite, -1)
    else:
        indptr, indices, eids = graph.undirected_csr()
        k0 = variant.k
        assert k0 is not None  # the CPU samplers (kout, koutl) always carry a k
        if variant.sampling == Sampling.KOUT_LOWER:
            _kout_lower_forest(p, hook, indptr, indices, eids, k0, unite, options.kout_lower_scan)
            k0 = 0  # the sampled edges are not a prefix of the rows
        else:
            for r in range(k0):
                _kout_forest_round(p, hook, indptr, indices, eids, r, unite)
        flatten(p)
        lmax = most_frequent_root(p, options)
        if variant.layout == Layout.CSR:
            _csr_forest(p, hook, indptr, indices, eids, k0, unite, lmax)
        else:
            src, dst = graph.coo()
            _coo_forest(p, hook, src, dst, unite, lmax)
    flatten(p)
    count = int(np.count_nonzero(p == np.arange(n, dtype=p.dtype)))
    return np.sort(hook[hook >= 0]), count
