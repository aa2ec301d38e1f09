"""Minimum (and maximum) spanning forests: Borůvka, Prim and Kruskal on CPU and GPU.

Ties break by ``(weight, min(u, v), max(u, v), edge id)``. Under that strict
order the minimum spanning forest is unique, so every algorithm on every
device returns the same edge set, which the tests check edge for edge.

References
----------
.. [1] W. Wang, Y. Huang, S. Guo, "Design and Implementation of GPU-Based
   Prim's Algorithm", 2011 (``../shared/papers/wang2011_gpu_prim_mst.txt``).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._arrays import astype, take, to_numpy
from ._dispatch import choose_device, driver, requested_device
from ._host_input import device_graph, host_route, merged_device_graph
from ._input import as_graph
from ._renumber import positions
from ._validate import host_weights
from .errors import InvalidVariantError
from .graph import Graph
from .options import Options, resolve_options

__all__ = ["ALGORITHMS", "GPU_MIN_EDGES", "MinimumSpanningForest", "minimum_spanning_forest"]

log = logging.getLogger("concomp.msf")

#: Accepted ``algorithm=`` values; "auto" is Kruskal on the CPU, Borůvka on the GPU.
ALGORITHMS = ("auto", "boruvka", "prim", "kruskal")
#: With ``device="auto"`` a host graph goes to a usable GPU from this many edges on.
GPU_MIN_EDGES = 100_000


@dataclass(frozen=True)
class MinimumSpanningForest:
    """The edges of a spanning forest and their total weight.

    Arrays are NumPy for host input and CuPy for device input. Edges are listed
    by ascending input edge id, each with the endpoints as the input gave them.

    Attributes
    ----------
    src, dst : array
        Endpoints of each forest edge (input orientation and ids: the ids in
        ``node_ids`` where the input was renumbered).
    edge_ids : array of int64
        Input edge id of each forest edge, ascending.
    weights : array
        Weight of each forest edge (int64 ones for an unweighted graph).
    total_weight : int or float
        Sum of ``weights``.
    num_nodes : int
        Number of vertices of the graph.
    node_ids : array or None
        The input's id of each vertex where it was renumbered (see
        :func:`concomp.as_graph`), else None.
    """

    src: Any
    dst: Any
    edge_ids: Any
    weights: Any
    total_weight: int | float
    num_nodes: int
    node_ids: Any = None

    @property
    def num_edges(self) -> int:
        """Number of forest edges (``num_nodes`` minus the number of components)."""
        return int(self.edge_ids.shape[0])

    def to_scipy(self):
        """The forest as an ``n x n`` ``scipy.sparse.csr_array`` (one entry per edge).

        Zero-weight edges are stored as explicit zeros, so ``nnz`` equals
        :attr:`num_edges` (SciPy's csgraph would read them as "no edge").
        Rows and columns are vertex positions: where the input was renumbered,
        position ``i`` is the vertex ``node_ids[i]``.
        """
        import scipy.sparse as sp

        n = self.num_nodes
        src, dst = to_numpy(self.src), to_numpy(self.dst)
        if self.node_ids is not None:
            ids = to_numpy(self.node_ids)
            src, dst = positions(ids, src), positions(ids, dst)
        a = sp.coo_array((to_numpy(self.weights), (src, dst)), shape=(n, n))
        return a.tocsr()


def minimum_spanning_forest(
    graph: Any,
    weights: Any = None,
    *,
    algorithm: str = "auto",
    maximum: bool = False,
    device: str = "auto",
    options: Options | None = None,
    renumber: str | bool = "auto",
) -> MinimumSpanningForest:
    """Minimum (or maximum) spanning forest of an undirected weighted graph.

    Parameters
    ----------
    graph : graph-like
        Anything :func:`concomp.as_graph` accepts. Edge direction is ignored and
        self loops never enter the forest; parallel edges compete like any other.
    weights : array, optional
        One weight per input edge, overriding the graph's own weights. Integers
        and floats, negative, zero and infinite weights are fine; NaN raises
        :class:`~concomp.errors.InvalidGraphError`. An unweighted graph counts
        every edge as weight 1 (any spanning forest is then minimal, and the tie
        rule picks one).
    algorithm : {"auto", "boruvka", "prim", "kruskal"}
        ``"auto"`` is Kruskal on the CPU (sort + union-find, the fastest there)
        and Borůvka on the GPU. ``"prim"`` on the CPU is the binary-heap
        textbook version; on the GPU it is Wang et al.'s design (module References), one round
        of kernels per vertex: a baseline for small graphs. ``"kruskal"`` runs
        on the CPU only.
    maximum : bool
        Return the maximum spanning forest (the same tie rule on the negated
        weight).
    device : {"auto", "cpu", "gpu"}
        ``"auto"`` uses the GPU for CuPy input, or for host graphs of at least
        :data:`GPU_MIN_EDGES` edges when a GPU is usable; the environment
        variable ``CONCOMP_DEVICE`` can set it. Host data of the kinds the GPU feed
        reads (as :func:`concomp.forest.spanning_forest` lists them; pyarrow tables and
        Parquet files only without a weight column) build no host graph on the way to
        the GPU: the ids cross once through pinned slots, the weights in one copy, and
        the forest comes back as NumPy arrays.
    options : concomp.options.Options, optional
        Engine settings (default: the measured defaults).
    renumber : {"auto", True, False}
        Renumber vertex ids that are not dense integers (see
        :func:`concomp.as_graph`); the forest's endpoints keep the input's ids.

    Returns
    -------
    MinimumSpanningForest
        Unlike :func:`scipy.sparse.csgraph.minimum_spanning_tree`, zero-weight
        edges are kept (SciPy drops them from its output).

    Raises
    ------
    InvalidGraphError
        Bad graph input or NaN weights.
    InvalidVariantError
        Unknown ``algorithm``, or ``"kruskal"`` with ``device="gpu"``.
    DeviceUnavailableError
        ``device="gpu"`` where no GPU engine can run.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.msf import minimum_spanning_forest
    >>> src, dst = np.array([0, 1, 0, 3]), np.array([1, 2, 2, 4])
    >>> f = minimum_spanning_forest((src, dst), np.array([2.0, 1.0, 3.0, 0.0]))
    >>> f.edge_ids.tolist(), f.total_weight, f.num_edges
    ([0, 1, 3], 3.0, 3)
    >>> minimum_spanning_forest((src, dst), [2, 1, 3, 0], maximum=True).edge_ids.tolist()
    [0, 2, 3]
    """
    algorithm = _check_algorithm(algorithm)
    opts = resolve_options(options)
    what = "minimum_spanning_forest"
    route = host_route(
        graph,
        None,
        renumber,
        device,
        what=what,
        min_edges=GPU_MIN_EDGES,
        edge_ids=True,
        reads_weights=weights is None,
    )
    if route is not None:
        dev = _engine(algorithm, route.device, device)
        if dev == "gpu":
            # host data: the ids cross once into a device graph, and the forest comes back
            if route.merge:  # a COO matrix: its values are summed where entries repeat
                run = merged_device_graph(route, weights)
            else:
                run = device_graph(
                    route.edges, host_weights(route.graph) if weights is None else weights
                )
            return _forest(run, _run(run, algorithm, maximum, dev, opts), to_host=True)
        g = as_graph(route.graph, weights=weights, renumber=renumber)
    else:
        g = as_graph(graph, weights=weights, renumber=renumber)
        dev = _engine(
            algorithm, choose_device(g, device, min_edges=GPU_MIN_EDGES, what=what), device
        )
    return _forest(g, _run(g if g.device == dev else g.to(dev), algorithm, maximum, dev, opts))


def _engine(algorithm: str, dev: str, device: Any) -> str:
    """The engine for ``algorithm`` where the dispatch chose ``dev`` (Kruskal is CPU only)."""
    if algorithm == "kruskal" and dev == "gpu":
        if requested_device(device) == "gpu":
            raise InvalidVariantError(
                "argument `algorithm`: 'kruskal' runs on the CPU only, but device='gpu' was "
                "asked for; on the GPU use 'boruvka' or 'prim'. Fix: pass algorithm='auto' or "
                "device='cpu'."
            )
        log.debug("minimum_spanning_forest: 'kruskal' runs on the CPU only -> cpu")
        return "cpu"
    return dev


def _run(run: Graph, algorithm: str, maximum: bool, dev: str, opts: Options) -> Any:
    """Input edge ids of the forest of ``run``, a graph on ``dev``'s device."""
    if algorithm == "auto":
        quick = driver(dev, "msf", "auto_msf_ids")(run, maximum, opts)
        if quick is not None:
            log.debug("minimum_spanning_forest: auto -> the %s engine without its kernels", dev)
            return quick
        algorithm = "boruvka" if dev == "gpu" else "kruskal"
    log.debug("minimum_spanning_forest: algorithm=%s device=%s %r", algorithm, dev, run)
    return driver(dev, "msf", "minimum_spanning_forest_ids")(run, algorithm, maximum, opts)


def _check_algorithm(algorithm: Any) -> str:
    if not isinstance(algorithm, str) or algorithm.lower() not in ALGORITHMS:
        raise InvalidVariantError(
            f"argument `algorithm`: {algorithm!r} is not valid; use one of {ALGORITHMS}."
        )
    return algorithm.lower()


def exact_int_sum(w: Any) -> int:
    """Exact sum of integer weights as a Python int (int64 sums wrap silently).

    Each weight splits into a high part (``w >> 32``) and a low part (``w & 0xffffffff``):
    a sum of up to 2**31 parts of 32 bits cannot leave int64, and the two sums recombine
    exactly.
    """
    if w.shape[0] == 0:
        return 0
    if w.dtype.kind == "u" and w.dtype.itemsize == 8:
        hi, lo = (w >> np.uint64(32)).astype(np.int64), (w & np.uint64(0xFFFFFFFF)).astype(np.int64)
    else:
        w = w.astype(np.int64, copy=False)
        hi, lo = w >> 32, w & 0xFFFFFFFF
    total, step = 0, 1 << 31
    for a in range(0, w.shape[0], step):
        total += (int(hi[a : a + step].sum()) << 32) + int(lo[a : a + step].sum())
    return total


def _forest(g: Graph, ids: Any, to_host: bool = False) -> MinimumSpanningForest:
    """Gather the forest's endpoints and weights on the graph's own device (then, with
    ``to_host``, move them to the host: host input gets NumPy results and the total
    that the host sums)."""
    xp = g.xp
    ids = astype(to_numpy(ids) if g.device == "cpu" else xp.asarray(ids), np.int64)
    src, dst = g.coo()
    w = xp.ones(ids.shape[0], dtype=np.int64) if g.weights is None else take(g.weights, ids)
    src, dst = take(src, ids), take(dst, ids)
    if g.node_ids is not None:
        src, dst = take(g.node_ids, src), take(g.node_ids, dst)
    if to_host:
        ids, src, dst, w = (to_numpy(a) for a in (ids, src, dst, w))
    # floats add up in float64 whatever their width, so every device reports the same total
    if w.dtype.kind == "f":
        total = w.sum(dtype=np.float64).item() if ids.shape[0] else 0.0
    else:
        total = exact_int_sum(w)
    return MinimumSpanningForest(
        src=src,
        dst=dst,
        edge_ids=ids,
        weights=w,
        total_weight=total,
        num_nodes=g.num_nodes,
        node_ids=g.node_ids,
    )
