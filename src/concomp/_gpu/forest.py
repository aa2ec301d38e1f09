"""GPU spanning forests: the engine contract's ``forest`` module.

A root-based union-find becomes a spanning-forest algorithm by one store: when a
link makes root ``r`` a non-root, the edge being processed is written to ``r``'s
slot (the ``RECORD`` kernels of ``cuda/cc.cu``). Each vertex is linked at most
once, so the slots hold ``n - c`` distinct edges, one per merge of two components
(GConn, Algorithm 2). The root-based families do the same with a compare-and-swap
per root hook (Shiloach-Vishkin, the root-update Liu-Tarjan rules, ECL-CC,
Afforest, Cong & Muzio's CC and CC-updt: the ``RECORD`` kernels of
``cuda/families.cu``), BFS-CC records the entry that discovers each vertex, and
Soman et al.'s hooking its winning edge per tree
(:func:`concomp._gpu.families_edges.soman`).

Which variants record a forest is the registry's word
(:meth:`concomp._rules.UnionRule.records_forest`,
:func:`concomp._rules.family_records_forest`): on the GPU every run is concurrent,
so Rem's splicing, which moves subtrees between trees without a root link, does not.

References
----------
Hong, Dhulipala, Shun: GConn (PACT 2020); Soman, Kishore, Narayanan: "Some GPU
algorithms for graph connected components and spanning tree" (2010). Both in
``../shared/papers/``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._rules import UNION_RULES, family_records_forest, union_rule
from ..graph import Graph
from ..options import Options
from ..variants import Sampling, Variant
from . import ops
from ._compat import cupy_or_raise
from .components import count_roots, run_variant
from .probe import forest_edge_ids, prefetch_forest
from .unionfind import index_dtype_of

__all__ = ["auto_forest_ids", "records_forest", "spanning_forest_ids"]


def auto_forest_ids(graph: Graph, options: Options) -> tuple[Any, int] | None:
    """None: ``algorithm="auto"`` on the GPU always runs its auto variant."""
    return None


def records_forest(variant: Variant) -> bool:
    """Whether the GPU run of ``variant`` records a spanning forest."""
    if variant.sampling == Sampling.STAGES or not variant.supported_on("gpu"):
        return False
    finish = str(variant.finish)
    if finish in UNION_RULES:
        return union_rule(finish).records_forest("gpu", str(variant.compress), concurrent=True)
    return family_records_forest("gpu", finish, str(variant.compress))


def spanning_forest_ids(graph: Graph, variant: Variant, options: Options) -> tuple[Any, int]:
    """``(ascending int64 input edge ids of a spanning forest (CuPy), number of components)``.

    ``variant`` must record a forest (:func:`records_forest`); the public layer
    checks that before dispatching here.
    """
    cp = cupy_or_raise()
    n = graph.num_nodes
    # a new machine compiles these beside the run's own kernels: the count and the edge
    # ids below, and the public layer's gather of the endpoints
    prefetch_forest(index_dtype_of(graph, options))
    ids = graph._dst if graph._dst is not None else graph._indices  # coo()'s dtype
    ops.prefetch(cp, ops.names("take", ids.dtype))
    roots, hook = run_variant(graph, variant, options, record=True)
    if n == 0:
        return cp.zeros(0, np.int64), 0
    count = count_roots(roots[:n])
    # JTB and BFS sampling re-root trees, so "owns an edge" is "slot set", not "non-root";
    # a sampled family's hooks are its sampler's slots and its finish's, one after the other
    return forest_edge_ids(hook), count
