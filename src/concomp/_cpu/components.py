"""CPU connected components: the engine contract's ``components`` module.

``component_roots(graph, variant, options)`` (:mod:`concomp._engine`) returns an
array whose entry ``v`` is the smallest vertex id of ``v``'s component. Union-find
variants run with the rule :func:`~concomp._cpu.rules.unite_for` picks from the
registry (:mod:`~concomp._cpu.unionfind`); the other families and Stages in
:mod:`~concomp._cpu.families`. ``auto_roots`` answers small graphs with NumPy while
the compiled kernels are not loaded (:mod:`~concomp._cpu.numpy_start`).

Importing this module loads no numba: the modules with compiled kernels are imported
where they are used, so a first small call can skip them.
"""

from __future__ import annotations

import time

import numpy as np

from .._rules import union_rule
from .._shared.locality import LOCAL_SHARE, host_local_share
from ..graph import Graph
from ..options import Options
from ..variants import Finish, Layout, Sampling, Variant
from .numpy_start import numpy_roots

__all__ = [
    "auto_roots",
    "auto_variant",
    "canonical_labels",
    "component_count",
    "component_labels",
    "component_roots",
    "count_roots",
    "sampling_coverage",
]

_INT32_MAX = np.iinfo(np.int32).max
#: Average degree (of the undirected graph) from which ``auto`` samples k-out on a CSR
#: for components.
SAMPLE_FROM_DEGREE = 5.0
#: The same for spanning forests, which record every hooking edge: k-out with Async
#: already pays on a 2-D grid (degree 4) with permuted ids, not on paths or sparse
#: random graphs (degree 2).
FOREST_SAMPLE_FROM_DEGREE = 3.0


def component_roots(graph: Graph, variant: Variant, options: Options) -> np.ndarray:
    """Smallest vertex id of each vertex's component, computed as ``variant`` says.

    Union-find variants run here (:class:`~concomp._cpu.unionfind.UnionFindRun`, on
    all of numba's threads); the min-based families and Stages in
    :func:`concomp._cpu.families.run_family`.
    """
    if variant.family != "unionfind" or variant.sampling == Sampling.STAGES:
        from .families import run_family

        return run_family(graph, variant, options)[0]
    from .unionfind import UnionFindRun

    return UnionFindRun(graph, variant, options).execute()


def component_count(graph: Graph, variant: Variant, options: Options) -> int | None:
    """The number of components alone, or None where :func:`component_roots` must run.

    A union-find run's roots are the vertices that are their own parents as soon as its
    unions are done: counting them needs neither the pass that points every vertex at
    its root (it does not scale with threads: it moves every parent once) nor the
    renaming of roots to minima. Other families count their roots.
    """
    if variant.family != "unionfind" or variant.sampling == Sampling.STAGES:
        return None
    from .unionfind import UnionFindRun

    return count_roots(UnionFindRun(graph, variant, options).execute(roots=False))


def component_labels(
    graph: Graph, variant: Variant, options: Options
) -> tuple[int, np.ndarray] | None:
    """``(count, labels)`` numbered like SciPy straight from a union-find run's forest,
    or None where they come from :func:`component_roots`' roots.

    Where the rule leaves every root the smallest vertex of its tree (all rules but
    JTB's random-order links), the numbering pass walks each vertex to its root
    itself (:func:`~concomp._cpu.numbering.number_components`): the pass that points
    every vertex at its root before the numbering is not needed. Small graphs
    (below :data:`PARALLEL_LABELS_FROM` vertices) take the roots' NumPy numbering.
    """
    if (
        variant.family != "unionfind"
        or variant.sampling == Sampling.STAGES
        or graph.num_nodes < PARALLEL_LABELS_FROM
        or union_rule(variant.finish).reroots
    ):
        return None
    from .numbering import number_components
    from .unionfind import UnionFindRun

    parents = UnionFindRun(graph, variant, options).execute(roots=False)
    labels = np.empty(parents.shape[0], _labels_dtype(parents.shape[0]))
    return int(number_components(parents, labels)), labels


def auto_roots(graph: Graph, options: Options) -> np.ndarray | None:
    """Roots for ``algorithm="auto"`` computed with NumPy while the compiled kernels
    are not loaded and the graph is small (:func:`concomp._cpu.numpy_start.numpy_roots`
    has the rule); None where :func:`auto_variant` and :func:`component_roots` run."""
    return numpy_roots(graph, options)


def auto_variant(graph: Graph, options: Options, *, forest: bool = False) -> Variant:
    """Pick a CPU variant from cheap statistics (``forest``: for a spanning forest).

    Sampling pays only when the average degree is high and the symmetric CSR is at
    hand (GConn, Fig. 5: on road-like graphs most edges are inspected anyway): a graph
    flagged ``symmetric``, or one whose symmetric CSR an earlier call built. The degree
    is that of the undirected graph: a symmetric graph stores each edge twice. For
    components unsampled Rem on the edge list is the fastest of the three candidates at
    average degree 4 (a 2-D grid with permuted ids) and 2 (a path with permuted ids,
    G(n, n)); k-out with Rem is the fastest on a 3-D grid with permuted ids (degree 6)
    and R-MAT (31), and within 12% of the fastest on a Delaunay triangulation (6),
    k-nearest-neighbour graphs (7 and 11.5) and Barabasi-Albert (16). For spanning
    forests k-out with Async is the fastest from degree 4 on, unsampled Rem at degree 2
    (``benchmarks/results/2026-11-29-cpu-ef3fed1-auto-degree.json``,
    ``…-ef3fed1-auto-degree-3d.json`` and ``…-0906266-auto-degree-low.json``). A graph
    whose ids follow its paths (most sampled edges join nearby ids,
    :mod:`concomp._shared.locality`) stays on the edge list at any degree: on 2-D and 3-D
    grids numbered along their rows unsampled Rem is the faster for components and
    forests.
    Where k-out samples, components finish with Rem's splicing on all threads, forests
    with Async and path halving: Rem's splicing records a forest on one thread only.
    """
    n = max(graph.num_nodes, 1)
    avg_deg = (1.0 if graph.symmetric else 2.0) * graph.num_edges / n
    # the symmetric CSR at hand: a caller's one-way CSR (a SciPy matrix) would first be
    # symmetrised by a sort of every entry for a spanning forest, which costs more than
    # the whole run on the edge list
    undirected_csr = graph.symmetric or graph._ucsr is not None
    threshold = FOREST_SAMPLE_FROM_DEGREE if forest else SAMPLE_FROM_DEGREE
    if avg_deg >= threshold and undirected_csr and not _ids_follow_paths(graph):
        if forest:
            return Variant(Sampling.KOUT, Finish.ASYNC, "halve", Layout.CSR)
        return Variant(Sampling.KOUT, Finish.REM_CAS, "splice", Layout.CSR)
    return Variant(Sampling.NONE, Finish.REM_CAS, "splice", Layout.COO)


def _ids_follow_paths(graph: Graph) -> bool:
    """Whether most sampled edges of ``graph`` join nearby ids (cached on it)."""
    cached = graph._device_cache.get("ids_follow_paths")
    if cached is None:
        cached = host_local_share(graph) >= LOCAL_SHARE
        graph._device_cache["ids_follow_paths"] = cached
    return bool(cached)


#: Vertex count from which :func:`canonical_labels` runs its parallel kernel (below it,
#: three NumPy passes are quicker than waking the thread pool, and a first call on a
#: small graph compiles nothing more).
PARALLEL_LABELS_FROM = 1 << 20


def canonical_labels(roots: np.ndarray) -> tuple[int, np.ndarray]:
    """``(count, labels)`` numbered like SciPy (components by smallest vertex) from root
    labels; int32 labels unless the vertex count needs int64.

    ``roots[v]`` is a root of ``v``'s component (``roots[r] == r`` for a root ``r``).
    From :data:`PARALLEL_LABELS_FROM` vertices on, three parallel passes over blocks:
    count the roots per block, number them from the block's prefix sum, then copy each
    vertex's number from its root.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.components import canonical_labels
    >>> canonical_labels(np.array([0, 0, 2, 2, 4]))
    (3, array([0, 0, 1, 1, 2], dtype=int32))
    """
    n = roots.shape[0]
    dt = _labels_dtype(n)
    if n >= PARALLEL_LABELS_FROM and roots.flags.writeable:
        # (the kernel's flattening writes nothing into root labels, but numba compiles
        # no kernel with writes for a read-only array)
        from .numbering import number_components

        labels = np.empty(n, dt)
        count = number_components(roots, labels)
        return int(count), labels
    is_root = roots == np.arange(n, dtype=roots.dtype)
    comp_of_root = np.cumsum(is_root, dtype=np.int64) - 1
    count = int(comp_of_root[-1]) + 1 if n else 0
    return count, comp_of_root[roots].astype(dt)


def _labels_dtype(n: int) -> np.dtype:
    return np.dtype(np.int32 if n <= _INT32_MAX else np.int64)


def count_roots(roots: np.ndarray) -> int:
    """Number of components in root labels (entries with ``roots[v] == v``); on all
    threads from :data:`PARALLEL_LABELS_FROM` vertices.

    Examples
    --------
    >>> import numpy as np
    >>> count_roots(np.array([0, 0, 2, 2, 4]))
    3
    """
    if roots.shape[0] >= PARALLEL_LABELS_FROM:
        from .numbering import count_components

        return int(count_components(roots))
    return int(np.count_nonzero(roots == np.arange(roots.shape[0], dtype=roots.dtype)))


def sampling_coverage(graph: Graph, variant: Variant, options: Options) -> dict[str, float]:
    """Coverage of ``variant``'s sampler on ``graph`` (GConn's Table 3; see
    :func:`concomp._engine.sampling_coverage`), sampling the symmetric CSR, and one
    whole run's time split at the end of sampling (``sample_share``).

    Examples
    --------
    >>> from concomp import Graph, Variant
    >>> from concomp.options import DEFAULTS
    >>> g = Graph.from_edges([0, 1, 2, 4], [1, 2, 3, 5], num_nodes=6)
    >>> c = sampling_coverage(g, Variant.parse("kout-rem_cas-splice-csr"), DEFAULTS)
    >>> round(c["coverage"], 3), c["inter_component"]
    (0.667, 0.0)
    """
    from .._shared.csr import expand_rows
    from .unionfind import UnionFindRun, threads_for

    _check_sampled(variant)
    run = UnionFindRun(graph, variant, options, symmetric=True)
    if graph.num_nodes == 0:
        return {"coverage": 0.0, "inter_component": 0.0, "k0": 0, "sample_share": 0.0}
    indptr, indices, _, _ = run.csr()
    with threads_for(graph, options):
        t0 = time.perf_counter()
        k0, lmax = run.sample()
        t1 = time.perf_counter()
        p = run.p.copy()
        run.finish(k0, lmax)
        run.roots()
        t2 = time.perf_counter()
    rows = expand_rows(indptr, indices.dtype)
    keep = rows != indices
    split = p[rows[keep]] != p[indices[keep]]
    return {
        "coverage": float(np.mean(p == lmax)),
        "inter_component": float(split.mean()) if split.size else 0.0,
        "k0": int(k0),
        "sample_share": (t1 - t0) / (t2 - t0) if t2 > t0 else 0.0,
    }


def _check_sampled(variant: Variant) -> None:
    if variant.family != "unionfind" or variant.sampling in (Sampling.NONE, Sampling.STAGES):
        raise ValueError(
            f"variant={str(variant)!r} has no union-find sampler to measure; pass a variant "
            "such as 'kout-rem_cas-splice-csr' (samplers kout, koutr, koutl, hb, bfs)"
        )
