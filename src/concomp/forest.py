"""Spanning forests of undirected graphs: the union-find engines with hook recording.

A root-based union-find turns into a spanning-forest algorithm by one store:
when a link makes root ``r`` a non-root, the edge being processed is written to
``r``'s slot. Each vertex is linked at most once, so the slots hold ``n - c``
distinct edges, one per merge of two components (GConn, Algorithm 2; Soman et
al., section 3). Sampling (k-out, hook-based, BFS) keeps working because every
sampled union records its edge too.

References
----------
Hong, Dhulipala, Shun: GConn (PACT 2020); Soman, Kishore, Narayanan: "Some GPU
algorithms for graph connected components and spanning tree" (2010). Both in
``../shared/papers/``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._arrays import to_numpy
from ._dispatch import choose_device
from ._validate import as_graph
from .errors import InvalidVariantError
from .graph import Graph
from .variants import PRESETS, UNION_FIND, Sampling, Variant, resolve_variant

__all__ = ["SpanningForest", "is_forest_variant", "spanning_forest"]

log = logging.getLogger("concomp.forest")


@dataclass(frozen=True)
class SpanningForest:
    """The edges of a spanning forest, as ids into the input.

    Arrays are NumPy for host input and CuPy for device input.

    Attributes
    ----------
    src, dst : array of int
        Endpoints of each forest edge, in the input's orientation.
    edge_ids : array of int64
        For :func:`spanning_forest`: the input edge id of each forest edge,
        ascending (the i-th pair of an edge list, the i-th stored entry of a CSR
        matrix, i.e. ``graph.coo()`` order). For
        :meth:`IncrementalConnectivity.spanning_forest`: the edge's position in
        its batch.
    num_nodes : int
        Number of vertices of the graph.
    num_components : int
        Number of connected components; ``num_nodes - num_components`` edges.
    batch_ids : array of int64 or None
        Incremental forests only: the batch each edge arrived in.
    """

    src: Any
    dst: Any
    edge_ids: Any
    num_nodes: int
    num_components: int
    batch_ids: Any = None

    @property
    def num_edges(self) -> int:
        """Number of forest edges (``num_nodes - num_components``)."""
        return int(self.edge_ids.shape[0])


def spanning_forest(graph: Any, *, device: str = "auto", algorithm: str | Variant = "auto",
                    num_nodes: int | None = None) -> SpanningForest:
    """A spanning forest of the undirected graph underlying ``graph``.

    Parameters
    ----------
    graph : graph-like
        Anything :func:`concomp.as_graph` accepts. Edge directions are ignored;
        self loops and repeated edges never enter the forest.
    device : {"auto", "cpu", "gpu"}
        Engine, chosen as for :func:`concomp.connected_components`.
    algorithm : str or Variant
        ``"auto"``, a preset or a variant string whose finish is a root-based
        union-find rule (``async``, ``early``, ``hooks``, ``rem_cas``,
        ``rem_lock``, ``jtb``; on the GPU also ``soman``, but not Rem's
        ``splice``, which run concurrently moves subtrees without a root link),
        with any sampler but Stages and any layout the engine offers, e.g.
        ``"kout-async-halve-csr"`` (see ``concomp.all_variants(device)`` and
        :func:`is_forest_variant`).
    num_nodes : int, optional
        Vertex count for edge-list input (default max id + 1).

    Returns
    -------
    SpanningForest
        ``num_nodes - num_components`` edges, ascending by input edge id.
        Which spanning forest is returned depends on the algorithm (and, on the
        GPU, on thread timing); every one is acyclic and spans each component.

    Raises
    ------
    InvalidVariantError
        ``algorithm`` is not root-based (min-based families move vertices
        between trees, so no vertex owns a forest edge) or not on the engine.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.forest import spanning_forest
    >>> f = spanning_forest((np.array([0, 1, 0, 3]), np.array([1, 2, 2, 3])), num_nodes=5,
    ...                     device="cpu", algorithm="none-async-halve-coo")
    >>> f.edge_ids.tolist(), f.num_components
    ([0, 1], 3)
    >>> f.src.tolist(), f.dst.tolist()
    ([0, 1], [1, 2])
    """
    g = as_graph(graph, num_nodes, with_weights=False)
    dev = choose_device(g, device)
    variant = forest_variant(g, algorithm, dev)
    log.debug("spanning_forest: %s on %s, %r", variant, dev, g)
    ids, count = forest_ids(g, variant, dev)
    return assemble(g, ids, count)


def forest_finishes(dev: str) -> frozenset:
    """Finish rules whose ``dev`` engine records a hook edge per merge.

    The root-based union-find rules everywhere; on the GPU also the families
    that register themselves in ``_gpu.families.FOREST_FINISHES`` (Soman et
    al.'s hooking, whose winning edge per tree is its spanning-tree edge).
    """
    rules = set(UNION_FIND)
    if dev == "gpu":
        try:
            from ._gpu.families import FOREST_FINISHES
        except ImportError:
            FOREST_FINISHES = ()
        rules.update(FOREST_FINISHES)
    return frozenset(rules)


def _concurrent_splice(variant: Variant, dev: str) -> bool:
    # Rem's SpliceAtomic moves subtrees between trees without a root link; run
    # concurrently, a root link may then join two parts of one component, so the
    # recorded edges can close cycles (seen on the H100). The serial CPU engine
    # applies each union whole, so its splicing is fine.
    return dev == "gpu" and str(variant.compress) == "splice"


def is_forest_variant(variant: Variant, dev: str) -> bool:
    """Whether ``variant`` can return a spanning forest on ``dev``."""
    return (variant.finish in forest_finishes(dev) and variant.sampling != Sampling.STAGES
            and not _concurrent_splice(variant, dev) and variant.supported_on(dev))


def forest_variant(g: Graph, algorithm: Any, dev: str) -> Variant:
    """The variant to run: ``algorithm`` checked for recording a forest on ``dev``."""
    variant = resolve_variant(algorithm)
    if variant is None:
        if dev == "gpu":
            from ._gpu.components import auto_variant
        else:
            from ._cpu.components import auto_variant
        variant = auto_variant(g)
        if not is_forest_variant(variant, dev):  # auto may pick a min-based family
            variant = PRESETS["afforest"]
    rules = forest_finishes(dev)
    if variant.finish not in rules or variant.sampling == Sampling.STAGES:
        names = ", ".join(repr(str(f)) for f in sorted(rules, key=str))
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} is not root-based: a spanning forest records the edge "
            f"of each root link, which on the {dev} engine only the finishes {names} do, and "
            "not under Stages sampling. Fix: pick a variant with one of those finishes and "
            "another sampler, e.g. 'kout-async-halve-csr' (all legal ones: "
            f"concomp.all_variants(device={dev!r}) with finish in that list).")
    if _concurrent_splice(variant, dev):
        raise InvalidVariantError(
            f"algorithm={str(variant)!r}: Rem's splicing run concurrently on the GPU does not "
            "yield a spanning forest (it moves subtrees without a root link). Fix: use "
            f"'{variant.sampling}-{variant.finish}-halve-{variant.layout}' or "
            "'...-split-...', or device='cpu'.")
    if not variant.supported_on(dev):
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} is not implemented by the {dev} engine; choose a "
            f"union-find variant of concomp.all_variants(device={dev!r}).")
    return variant


def forest_ids(g: Graph, variant: Variant, dev: str, index_dtype: Any = None) -> tuple[Any, int]:
    """``(ascending edge ids, number of components)`` from the engine of ``dev``.

    ``index_dtype`` forces the GPU kernels' index type (tests run int64 kernels
    on small graphs with it).
    """
    if dev == "cpu":
        from ._cpu.forest import spanning_forest_ids

        return spanning_forest_ids(g if g.device == "cpu" else g.to("cpu"), variant)
    import cupy as cp

    from ._gpu.components import run_variant

    n = g.num_nodes
    roots, hook = run_variant(g if g.device == "gpu" else g.to("gpu"), variant, record=True,
                              index_dtype=index_dtype)
    if n == 0:
        return cp.zeros(0, np.int64), 0
    count = int((roots[:n] == cp.arange(n, dtype=roots.dtype)).sum())
    hook = hook[:n]
    # JTB and BFS sampling re-root trees, so "owns an edge" is "slot set", not "non-root"
    return cp.sort(hook[hook >= 0].astype(np.int64)), count


def assemble(g: Graph, ids: Any, count: int) -> SpanningForest:
    """Gather endpoints for ``ids`` on the graph's own device."""
    if g.device == "cpu":
        ids = to_numpy(ids)
    else:
        import cupy as cp

        ids = cp.asarray(ids)
    ids = ids.astype(np.int64, copy=False)
    src, dst = g.coo()
    return SpanningForest(src=src[ids], dst=dst[ids], edge_ids=ids, num_nodes=g.num_nodes,
                          num_components=count)
