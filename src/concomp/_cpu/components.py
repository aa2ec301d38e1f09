"""CPU connected components: union-find over COO edges, and Afforest-style k-out sampling
(the first k neighbours of each vertex, or its first k lower neighbours).

The engine contract's ``components`` module (:mod:`concomp._engine`):
``component_roots(graph, variant, options)`` returns an array whose entry ``v``
is the smallest vertex id of ``v``'s component. Union-find variants run here
with the rule :func:`~concomp._cpu.rules.unite_for` picks from the registry; the
other families (and the parallel Rem) run in :mod:`~concomp._cpu.families`.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..options import Options
from ..variants import Finish, Layout, Sampling, Variant
from .families import PARALLEL_REM, parallel_threads, rem_cas_roots
from .families import component_roots as family_roots
from .rules import unite_for
from .unionfind import (
    coo_union,
    coo_union_skip,
    csr_finish,
    csr_finish_any,
    flatten,
    most_frequent_root,
    sample,
    state_dtype,
)

__all__ = ["auto_variant", "canonical_labels", "component_roots", "count_roots"]

_INT32_MAX = np.iinfo(np.int32).max


def component_roots(graph: Graph, variant: Variant, options: Options) -> np.ndarray:
    """Smallest vertex id of each vertex's component, computed as ``variant`` says."""
    if variant.family != "unionfind":
        return family_roots(graph, variant, options)
    if variant == PARALLEL_REM and parallel_threads() > 1:
        # Rem with CAS splicing over COO edges in parallel (same roots as the serial run)
        return rem_cas_roots(graph, options)
    n = graph.num_nodes
    p = np.arange(n, dtype=state_dtype(graph, options))
    if n == 0:
        return p
    unite = unite_for(variant.finish, variant.compress)
    if variant.sampling == Sampling.NONE:
        if variant.layout == Layout.COO:
            src, dst = graph.coo()
            coo_union(p, src, dst, unite)
        else:
            indptr, indices, _ = union_csr(graph)
            csr_finish(p, indptr, indices, 0, unite, -1)
        flatten(p)
        return p
    indptr, indices, symmetric = union_csr(graph)
    k = sample(p, indptr, indices, variant, unite, options)
    flatten(p)
    lmax = most_frequent_root(p, options)
    if variant.layout == Layout.CSR:
        finish = csr_finish if symmetric else csr_finish_any
        finish(p, indptr, indices, k, unite, lmax)
    else:
        src, dst = graph.coo()
        coo_union_skip(p, src, dst, unite, lmax)
    flatten(p)
    return p


def union_csr(graph: Graph) -> tuple[np.ndarray, np.ndarray, bool]:
    """``(indptr, indices, symmetric)``: the CSR that union-find runs over.

    A graph built from CSR arrays is used as given (its transpose is not needed for
    weak connectivity, and a symmetrised copy of a large matrix costs several times
    its memory); an edge list gets its symmetric CSR, which sampling needs anyway.
    """
    if graph.symmetric or graph._ucsr is not None or graph._indptr is None:
        indptr, indices, _ = graph.undirected_csr()
        return indptr, indices, True
    indptr, indices, _ = graph.csr()
    return indptr, indices, False


def auto_variant(graph: Graph, options: Options) -> Variant:
    """Pick a CPU variant from cheap statistics.

    Sampling pays only when the average degree is high and a CSR is at hand
    (GConn, Fig. 5: on road-like graphs most edges are inspected anyway).
    """
    n = max(graph.num_nodes, 1)
    avg_deg = 2.0 * graph.num_edges / n
    has_csr = graph._indptr is not None or graph._ucsr is not None
    if avg_deg >= 6 and (has_csr or graph.symmetric):
        return Variant(Sampling.KOUT, Finish.ASYNC, "halve", Layout.CSR)
    return Variant(Sampling.NONE, Finish.REM_CAS, "splice", Layout.COO)


def canonical_labels(roots: np.ndarray) -> tuple[int, np.ndarray]:
    """``(count, labels)`` numbered like SciPy (components by smallest vertex) from root
    labels; int32 labels unless the count or the vertex count needs int64.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.components import canonical_labels
    >>> canonical_labels(np.array([0, 0, 2, 2, 4]))
    (3, array([0, 0, 1, 1, 2], dtype=int32))
    """
    n = roots.shape[0]
    is_root = roots == np.arange(n, dtype=roots.dtype)
    comp_of_root = np.cumsum(is_root, dtype=np.int64) - 1
    count = int(comp_of_root[-1]) + 1 if n else 0
    dt = np.int32 if count <= _INT32_MAX and n <= _INT32_MAX else np.int64
    return count, comp_of_root[roots].astype(dt)


def count_roots(roots: np.ndarray) -> int:
    """Number of components in root labels (entries with ``roots[v] == v``)."""
    return int(np.count_nonzero(roots == np.arange(roots.shape[0], dtype=roots.dtype)))
