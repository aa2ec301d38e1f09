"""Spanning forests of undirected graphs: the union-find engines with hook recording.

A root-based union-find turns into a spanning-forest algorithm by one store:
when a link makes root ``r`` a non-root, the edge being processed is written to
``r``'s slot. Each vertex is linked at most once, so the slots hold ``n - c``
distinct edges, one per merge of two components (GConn, Algorithm 2; Soman et
al., section 3). The root-based families (Shiloach-Vishkin, the root-update
Liu-Tarjan rules, ECL-CC, Afforest, Cong & Muzio's CC and CC-updt) hook each root
by one compare-and-swap and record its edge the same way, BFS-CC keeps its BFS
trees, on both engines. Sampling (k-out, hook-based, BFS) keeps working because
every sampled union records its edge too.

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

from ._arrays import astype, take, to_device, to_numpy
from ._dispatch import GPU_MIN_EDGES, choose_device, driver
from ._host_input import device_graph, host_route, merged_device_graph
from ._input import as_graph
from ._rules import FOREST_FAMILIES, union_rules_for
from .errors import InvalidVariantError
from .graph import Graph
from .options import Options, resolve_options
from .variants import PRESETS, UNION_FIND, Finish, Sampling, Variant, resolve_variant

__all__ = ["SpanningForest", "is_forest_variant", "spanning_forest"]

log = logging.getLogger("concomp.forest")


@dataclass(frozen=True)
class SpanningForest:
    """The edges of a spanning forest, as ids into the input.

    Arrays are NumPy for host input and CuPy for device input.

    Attributes
    ----------
    src, dst : array
        Endpoints of each forest edge, in the input's orientation and ids
        (the ids in ``node_ids`` where the input was renumbered).
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
    node_ids : array or None
        The input's id of each vertex where it was renumbered (see
        :func:`concomp.as_graph`), else None.
    """

    src: Any
    dst: Any
    edge_ids: Any
    num_nodes: int
    num_components: int
    batch_ids: Any = None
    node_ids: Any = None

    @property
    def num_edges(self) -> int:
        """Number of forest edges (``num_nodes - num_components``)."""
        return int(self.edge_ids.shape[0])


def spanning_forest(
    graph: Any,
    *,
    device: str = "auto",
    algorithm: str | Variant = "auto",
    num_nodes: int | None = None,
    options: Options | None = None,
    renumber: str | bool = "auto",
) -> SpanningForest:
    """A spanning forest of the undirected graph underlying ``graph``.

    Parameters
    ----------
    graph : graph-like
        Anything :func:`concomp.as_graph` accepts. Edge directions are ignored;
        self loops and repeated edges never enter the forest.
    device : {"auto", "cpu", "gpu"}
        Engine, chosen as for :func:`concomp.connected_components` (``"auto"``: the GPU
        from 2e6 host edges on, when one is
        usable). Host data of the kinds the GPU feed reads (NumPy pairs, ``(2, m)`` /
        ``(m, 2)`` arrays, SciPy CSR and COO, pandas and polars frames, CPU torch
        tensors, pyarrow tables, Parquet paths) build no host graph on the way to the
        GPU: their ids cross the bus once, through pinned slots, into a device graph,
        and the forest comes back as NumPy arrays.
    algorithm : str or Variant
        ``"auto"``, a preset or a variant string whose finish records a forest
        on the engine, with any sampler but Stages, e.g. ``"kout-async-halve-csr"``
        (see ``concomp.all_variants(device)`` and :func:`is_forest_variant`): the
        root-based union-find rules (``async``, ``early``, ``hooks``, ``rem_cas``,
        ``rem_lock``, ``jtb``; on the GPU not with Rem's ``splice``, which run
        concurrently moves subtrees without a root link) and ``soman``; on the CPU
        also GConn's root-based families ``sv``, ``lt`` with a root-update rule
        (second letter ``r``), ``ecl``, ``afforest``, ``graft``, ``graft_updt``
        and ``bfs_cc``.
    num_nodes : int, optional
        Vertex count for edge-list input (default max id + 1).
    options : concomp.options.Options, optional
        Engine settings (default: the measured defaults).
    renumber : {"auto", True, False}
        Renumber vertex ids that are not dense integers (see
        :func:`concomp.as_graph`); the forest's endpoints keep the input's ids.

    Returns
    -------
    SpanningForest
        ``num_nodes - num_components`` edges, ascending by input edge id.
        Which spanning forest is returned depends on the algorithm and on thread
        timing; every one is acyclic and spans each component.

    Raises
    ------
    InvalidVariantError
        ``algorithm`` records no forest on the engine (min-based families move
        vertices between trees, so no vertex owns a forest edge) or is not on it.

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
    >>> spanning_forest((np.array(["a", "b", "c"]), np.array(["b", "c", "a"]))).dst.tolist()
    ['b', 'c']
    """
    opts = resolve_options(options)
    route = host_route(
        graph,
        num_nodes,
        renumber,
        device,
        what="spanning_forest",
        min_edges=GPU_MIN_EDGES,
        edge_ids=True,
    )
    if route is not None and route.device == "gpu":
        # host data: the ids cross once into a device graph, and the forest comes back
        if route.merge:  # a COO matrix: edge ids are its CSR's, built on the device
            run = merged_device_graph(route, summed=False)
        else:
            run = device_graph(route.edges)
        return _to_host(_run(run, run, algorithm, "gpu", opts))
    g = as_graph(
        graph if route is None else route.graph, num_nodes, with_weights=False, renumber=renumber
    )
    dev = choose_device(g, device, what="spanning_forest") if route is None else route.device
    # on the engine's device before `auto` looks at it: the GPU's statistics are
    # device passes, never host structures built on the way
    return _run(g, g if g.device == dev else g.to(dev), algorithm, dev, opts)


def _run(g: Graph, run: Graph, algorithm: Any, dev: str, opts: Options) -> SpanningForest:
    """The forest of ``run`` (``g`` on the engine's device), gathered on ``g``'s device."""
    if resolve_variant(algorithm) is None:
        quick = driver(dev, "forest", "auto_forest_ids")(run, opts)
        if quick is not None:
            log.debug("spanning_forest: auto -> the %s engine's forest without its kernels", dev)
            return assemble(g, *quick)
    variant = forest_variant(run, algorithm, dev, opts)
    log.debug("spanning_forest: %s on %s, %r", variant, dev, g)
    ids, count = driver(dev, "forest", "spanning_forest_ids")(run, variant, opts)
    return assemble(g, ids, count)


def _to_host(f: SpanningForest) -> SpanningForest:
    """``f`` with NumPy arrays (host input gets host results)."""
    return SpanningForest(
        src=to_numpy(f.src),
        dst=to_numpy(f.dst),
        edge_ids=to_numpy(f.edge_ids),
        num_nodes=f.num_nodes,
        num_components=f.num_components,
    )


def is_forest_variant(variant: Variant, dev: str) -> bool:
    """Whether ``variant`` can return a spanning forest on ``dev``."""
    return bool(driver(dev, "forest", "records_forest")(variant))


def _forest_finishes(dev: str) -> list[str]:
    """Names of the finishes that record a forest on ``dev`` (for error messages)."""
    names = [row.name for row in union_rules_for(dev, "forest")]
    return names + [f for f, engines in FOREST_FAMILIES.items() if dev in engines]


def forest_variant(g: Graph, algorithm: Any, dev: str, options: Options | None = None) -> Variant:
    """The variant to run: ``algorithm`` checked for recording a forest on ``dev``."""
    variant = resolve_variant(algorithm)
    if variant is None:
        variant = driver(dev, "components", "auto_variant")(
            g, resolve_options(options), forest=True
        )
        if not is_forest_variant(variant, dev):  # auto may pick a min-based family
            variant = PRESETS["afforest"]
    if is_forest_variant(variant, dev):
        return variant
    finishes = _forest_finishes(dev)
    root_based = variant.finish in UNION_FIND or dev in FOREST_FAMILIES.get(
        str(variant.finish), frozenset()
    )
    if root_based and variant.finish == Finish.LT and variant.sampling != Sampling.STAGES:
        rule = str(variant.compress)
        raise InvalidVariantError(
            f"algorithm={str(variant)!r}: Liu-Tarjan's update rule {rule[1]!r} moves vertices "
            "that are not roots between trees, so no vertex owns a forest edge. Fix: use a "
            f"root-update rule (second letter 'r'), e.g. "
            f"'{variant.sampling}-lt-{rule[0]}r{rule[2:]}-{variant.layout}'."
        )
    if not root_based or variant.sampling == Sampling.STAGES:
        names = ", ".join(repr(f) for f in finishes)
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} is not root-based: a spanning forest records the edge "
            f"of each root link, which on the {dev} engine only the finishes {names} do, and "
            "not under Stages sampling. Fix: pick a variant with one of those finishes and "
            "another sampler, e.g. 'kout-async-halve-csr' (all legal ones: "
            f"concomp.all_variants(device={dev!r}) with finish in that list)."
        )
    if not variant.supported_on(dev) or str(variant.finish) not in finishes:
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} is not implemented by the {dev} engine; choose one of "
            f"concomp.all_variants(device={dev!r}) whose finish is one of "
            f"{', '.join(map(repr, finishes))}."
        )
    raise InvalidVariantError(
        f"algorithm={str(variant)!r}: Rem's splicing run concurrently on the {dev} engine "
        "does not yield a spanning forest (it moves subtrees without a root link). Fix: use "
        f"'{variant.sampling}-{variant.finish}-halve-{variant.layout}' or "
        "'...-split-...'" + (", or device='cpu'." if dev == "gpu" else ".")
    )


def assemble(g: Graph, ids: Any, count: int) -> SpanningForest:
    """Gather endpoints for ``ids`` on the graph's own device."""
    ids = astype(to_numpy(ids) if g.device == "cpu" else to_device(ids), np.int64)
    src, dst = g.coo()
    src, dst = take(src, ids), take(dst, ids)
    if g.node_ids is not None:
        src, dst = take(g.node_ids, src), take(g.node_ids, dst)
    return SpanningForest(
        src=src,
        dst=dst,
        edge_ids=ids,
        num_nodes=g.num_nodes,
        num_components=count,
        node_ids=g.node_ids,
    )
