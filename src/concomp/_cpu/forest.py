"""CPU spanning forests: every root-based run with a hook-recording link.

Every link that makes root ``r`` a non-root stores the id of the edge being
processed in ``r``'s slot (GConn, section 3.2: each forest edge is owned by
exactly one vertex). Union-find variants record through their rule's ``unite``
(:class:`concomp._cpu.unionfind.UnionFindRun`); the root-based families (SV, the
root-update Liu-Tarjan rules, ECL-CC, Afforest, Cong & Muzio's CC and CC-updt,
Soman, BFS-CC) through their own hooks (:func:`concomp._cpu.families.run_family`).

The runs are parallel, so which forest comes back may change from run to run;
every one spans each component. Rem's splicing is the exception: run
concurrently it moves subtrees between trees without a root link (the registry's
``unsafe_concurrent_forest``), so those variants record on one thread.

The engine contract's ``forest`` module (:mod:`concomp._engine`):
``spanning_forest_ids(graph, variant, options)`` returns ``(edge_ids,
num_components)`` with the edge ids ascending; ``records_forest(variant)`` says
whether a variant records one.
"""

from __future__ import annotations

import contextlib

import numpy as np

from .. import _rules
from ..graph import Graph
from ..options import Options
from ..variants import Sampling, Variant
from .numpy_start import numpy_forest

__all__ = ["auto_forest_ids", "records_forest", "spanning_forest_ids"]


def auto_forest_ids(graph: Graph, options: Options) -> tuple[np.ndarray, int] | None:
    """A forest for ``algorithm="auto"`` computed with NumPy while the compiled kernels
    are not loaded and the graph is small (:func:`concomp._cpu.numpy_start.numpy_forest`),
    or None where the auto variant runs."""
    return numpy_forest(graph, options)


def records_forest(variant: Variant) -> bool:
    """Whether the CPU engine's run of ``variant`` records a spanning forest.

    The union-find rules whose registry row lists the CPU's ``forest`` driver do
    (Rem's splicing too: the CPU runs it on one thread for a forest), as do the
    families :func:`concomp._cpu.families.records_family_forest` names; Stages never.
    """
    if variant.sampling == Sampling.STAGES or not variant.supported_on("cpu"):
        return False
    finish = str(variant.finish)
    if finish in _rules.UNION_RULES:
        return _rules.union_rule(finish).records_forest(
            "cpu", str(variant.compress), concurrent=False
        )
    from .families import records_family_forest

    return records_family_forest(variant)


def spanning_forest_ids(graph: Graph, variant: Variant, options: Options) -> tuple[np.ndarray, int]:
    """Ascending input edge ids of a spanning forest, and the number of components."""
    n = graph.num_nodes
    if n == 0:
        return np.zeros(0, np.int64), 0
    from .families import run_family
    from .unionfind import UnionFindRun, one_thread

    if variant.family == "unionfind":
        row = _rules.union_rule(variant.finish)
        serial = str(variant.compress) in row.unsafe_concurrent_forest
        run = UnionFindRun(graph, variant, options, record=True)
        with one_thread() if serial else contextlib.nullcontext():
            run.execute(roots=False)  # the hooks are the forest: no pass over the roots
        ids = np.sort(run.hook[run.hook >= 0])
        return ids, n - int(ids.shape[0])  # one hook per link: n - c edges
    roots, hook = run_family(graph, variant, options, record=True)
    count = int(np.count_nonzero(roots == np.arange(n, dtype=roots.dtype)))
    return np.sort(hook[hook >= 0]), count
