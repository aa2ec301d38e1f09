"""Host data headed for the GPU engine, with no host :class:`~concomp.Graph` on the way.

The one place where a public call that takes a graph asks whether its host input is of a
kind the GPU feed reads as the caller holds it (NumPy pairs, ``(2, m)`` / ``(m, 2)``
arrays, SciPy CSR and COO, pandas and polars frames, CPU torch tensors:
:func:`concomp._validate.host_edges`; pyarrow tables and Parquet paths:
:func:`concomp.streaming.host_chunks`), and which engine runs it
(:func:`concomp._dispatch.resolve_device` with the edge count, logged with its reason):
:func:`host_route`. Anything else (device data, Graphs, NetworkX, ids that are
renumbered, other files and formats) takes the general path, :func:`concomp.as_graph`.

Connected components stream routed edges through the device
(:func:`concomp.streaming.host_roots`). The calls that need the whole graph on the
device (spanning forests, minimum spanning forests) get it from :func:`device_graph`:
the ids cross the bus once, through two pinned slots per thread, narrowed to int32
while they fit, and their range found in the pass that stages them
(:mod:`concomp._gpu.upload`); a CSR crosses as its row pointer and columns. A SciPy COO
matrix, whose edge ids are the entries of the CSR SciPy makes of it, crosses as its pairs
and is merged into that CSR on the device (:func:`merged_device_graph`). Everything
else the algorithms need (symmetrising, the CSR of pairs) is built on the device by the
Graph itself. Bad ids raise the general path's message, located only once the range
says something is wrong.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._arrays import index_dtype_for, is_cupy_array, is_torch_tensor
from ._checks import _as_array, _torch_to_array, check_ids, check_indptr, check_weights
from ._dispatch import resolve_device
from ._sparse import merge_coo, tocsr
from ._validate import HostEdges, _is_scipy_sparse, host_edges, host_weights
from .errors import InvalidGraphError
from .graph import Graph
from .streaming import _ids_in_range, chunk_ids, host_chunks

__all__ = ["HostRoute", "device_graph", "host_route", "merged_device_graph", "route_edges"]

log = logging.getLogger("concomp.dispatch")

#: COO matrices with at least this many rows are not merged on the device: a row and a
#: column then no longer share the 64-bit sort key of :func:`concomp._sparse.merge_coo`.
MERGE_MAX_NODES = 2**31


@dataclass(frozen=True)
class HostRoute:
    """Host edges the GPU feed takes as they are, and the engine chosen for them.

    ``graph`` is the caller's input, which the general path reads where ``device`` is
    ``"cpu"``.
    """

    edges: HostEdges
    device: str
    graph: Any
    #: ``edges`` are a SciPy COO matrix's pairs, for a call that numbers edges by the CSR
    #: SciPy makes of it: :func:`merged_device_graph` merges them into that CSR on the device
    merge: bool = False


def host_route(
    graph: Any,
    num_nodes: int | None,
    renumber: str | bool,
    device: Any,
    *,
    what: str,
    min_edges: int,
    edge_ids: bool = False,
    reads_weights: bool = False,
) -> HostRoute | None:
    """The route of host input that the GPU feed reads as it is, or None (general path).

    Parameters
    ----------
    graph, num_nodes, renumber
        As the public call received them.
    device : {"auto", "cpu", "gpu"}
        The call's ``device``; ``"auto"`` takes the GPU from ``min_edges`` edges on.
    what : str
        The call, named in the debug log.
    min_edges : int
        The call's threshold for ``device="auto"``.
    edge_ids : bool
        The call reports input edge ids: a SciPy COO matrix's edge ids are then the
        entries of the CSR :func:`concomp.as_graph` makes of it (duplicates summed, row
        order). Its pairs are routed as they are, marked ``merge``: the GPU builds that
        CSR on the device (:func:`merged_device_graph`); the CPU engine reads ``graph``.
    reads_weights : bool
        The call reads the input's weights: pieces with a weight column (pyarrow
        tables, Parquet files) then take the general path, which reads it.
    """
    edges = host_edges(graph, num_nodes, renumber) or host_chunks(graph, num_nodes, renumber)
    if edges is None or (reads_weights and edges.weight_column is not None):
        return None
    merge = edge_ids and _is_scipy_sparse(graph) and graph.format == "coo"
    dev = route_edges(edges, device, what=what, min_edges=min_edges)
    return HostRoute(edges, dev, graph, merge=bool(merge and edges.src is not None))


def route_edges(edges: HostEdges, device: Any, *, what: str, min_edges: int) -> str:
    """The engine for host ``edges``: :func:`concomp._dispatch.resolve_device` with their
    count (``device="auto"`` takes a usable GPU from ``min_edges`` edges on), logged."""
    return resolve_device(
        device, data_device="cpu", num_edges=edges.num_edges, min_edges=min_edges, what=what
    )


def device_graph(edges: HostEdges, weights: Any = None) -> Graph:
    """A Graph on the GPU holding host ``edges`` (and ``weights``, one per edge), built
    from device arrays: the ids are staged through pinned slots and checked by their range.

    Edge ids are those of :func:`concomp.as_graph` on the same input: the i-th pair,
    the i-th stored entry of a CSR. Raises the general path's
    :class:`~concomp.errors.InvalidGraphError` for bad ids, row pointers and weights,
    and :class:`~concomp.errors.DeviceMemoryError` for a graph the device cannot hold.
    """
    from ._gpu._compat import out_of_memory_guard

    m = edges.num_edges
    w = _host_weights(weights, m)
    rows = 0 if edges.indptr is None else int(edges.indptr.shape[0])
    what = f"staging {m} host edges to the GPU"
    with out_of_memory_guard(what, _fits(what, 16 * m + 8 * rows, w)):
        if edges.indptr is not None and edges.indices is not None:
            g = _csr_graph(edges.indptr, edges.indices, edges.num_nodes)
        else:
            g = _pairs_graph(edges)
        _attach_weights(g, w)
    log.debug("host edges staged to the GPU as %r", g)
    return g


def merged_device_graph(route: HostRoute, weights: Any = None, *, summed: bool = True) -> Graph:
    """The device graph of a ``merge`` route: a SciPy COO matrix's pairs, merged on the
    device into the CSR SciPy makes of the matrix (rows in order, columns ascending,
    duplicates merged: :func:`concomp._sparse.merge_coo`), so that edge ids are that
    CSR's entries, as on the general path. No CSR is built on the host.

    Weights: the matrix's values summed where entries repeat (``summed``, the
    default; without it the graph has none), or ``weights``, one per merged entry.
    Two exceptions, where SciPy converts the matrix on the host and that CSR crosses to
    the device (:func:`device_graph`): floating-point values with duplicate entries
    (SciPy sums them in an order of its own, which changes a floating-point sum), and
    matrices of ``2**31`` rows or more (a row and a column no longer share the 64-bit
    sort key).
    """
    from ._gpu._compat import cupy_or_raise, out_of_memory_guard

    cp = cupy_or_raise()
    edges = route.edges
    m, n = edges.num_edges, edges.num_nodes
    values = _host_weights(host_weights(route.graph), m) if summed and weights is None else None
    what = f"staging {m} host edges to the GPU and merging them"
    merged = None
    if n is not None and n < MERGE_MAX_NODES:
        # the sort holds 64-bit keys, their order and the sorted keys: 40 bytes per entry;
        # the row pointer's search 16 bytes per row
        with out_of_memory_guard(what, _fits(what, 56 * m + 16 * (n + 1), values)):
            merged = _merge_on_device(cp, edges, values)
    if merged is None:
        log.debug("a COO matrix's CSR built by SciPy on the host (float duplicates or n)")
        csr = tocsr(route.graph)
        csr_edges = HostEdges(None, None, csr.indptr, csr.indices, int(csr.shape[0]))
        return device_graph(
            csr_edges, (csr.data if summed else None) if weights is None else weights
        )
    g, sums = merged
    w = _host_weights(weights, g.num_edges)
    with out_of_memory_guard(what, _fits(what, 0, w)):
        _attach_weights(g, w if weights is not None else sums)
    log.debug("host COO entries merged on the GPU as %r", g)
    return g


def _fits(what: str, nbytes: int, weights: Any) -> int:
    """:func:`concomp._gpu._compat.check_device_fits` for ``nbytes`` and the weights."""
    from ._gpu._compat import check_device_fits

    extra = int(weights.nbytes) if weights is not None and hasattr(weights, "nbytes") else 0
    return check_device_fits(
        what,
        nbytes + extra,
        fix="use device='cpu', or concomp.connected_components, which streams host edges",
    )


def _attach_weights(g: Graph, w: Any) -> None:
    """``w`` (host or device, one per edge of ``g`` or a scalar) as ``g``'s weights:
    one pageable copy, no host pass over them (NaN is found on the device)."""
    if w is None:
        return
    from ._gpu._compat import cupy_or_raise

    cp = cupy_or_raise()
    k = g.num_edges
    if w.ndim == 0:
        w = cp.full(k, w.item(), dtype=w.dtype)
    g.weights = check_weights(w if is_cupy_array(w) else cp.asarray(w), k)


def _merge_on_device(cp: Any, edges: HostEdges, values: Any) -> tuple[Graph, Any] | None:
    """The CSR SciPy makes of a COO matrix's pairs ``edges`` as a device Graph, with
    ``values`` summed per merged entry; None where :func:`concomp._sparse.merge_coo`
    declines (floating-point values with duplicates)."""
    from ._gpu._compat import staged_edges_to_device

    m, n = edges.num_edges, edges.num_nodes
    src, dst, lo, hi = staged_edges_to_device(_Pieces(edges), m)
    _check_range(edges, lo, hi, n)
    vals = None
    if values is not None:
        vals = values if is_cupy_array(values) else cp.asarray(values)
        if vals.ndim == 0:
            vals = cp.full(m, vals.item(), dtype=vals.dtype)
    merged = merge_coo(cp, src, dst, vals, n, index_dtype_for(n, 2 * m))
    if merged is None:
        return None
    indptr, indices, sums = merged
    return Graph(n, indptr=indptr, indices=indices), sums


def _host_weights(weights: Any, m: int) -> Any:
    """``weights`` as an array for the device, checked for what needs no pass over the
    values (shape, dtype; NaN is found on the device); wrong ones raise here."""
    if weights is None:
        return None
    w = _torch_to_array(weights) if is_torch_tensor(weights) else weights
    if not is_cupy_array(w):
        w = _as_array(w, "weights")
    if w.dtype.kind not in "iufb" or w.ndim > 1 or (w.ndim == 1 and w.shape[0] != m):
        check_weights(w, m)  # raises with the general path's message
    return w


def _csr_graph(indptr: np.ndarray, indices: np.ndarray, n: int | None) -> Graph:
    """The CSR's columns and row pointer on the device, checked as :func:`host_roots`
    checks them (the row pointer on the host, the columns by their staged range)."""
    from ._gpu._compat import staged_ids_to_device

    m = int(indices.shape[0])
    rows = int(indptr.shape[0]) - 1
    n = rows if n is None else n
    check_indptr(indptr, m)
    cols, lo, hi = staged_ids_to_device(indices)
    _ids_in_range([(indices, "indices")], n)(lo, hi)
    ptr, _, _ = staged_ids_to_device(indptr)
    dt = index_dtype_for(n, 2 * m)
    return Graph(n, indptr=ptr.astype(dt, copy=False), indices=cols.astype(dt, copy=False))


class _Pieces:
    """The id pairs of routed edges, read anew on each iteration (a Parquet file's row
    groups are read again, never held whole)."""

    def __init__(self, edges: HostEdges) -> None:
        self.edges = edges

    def __iter__(self) -> Iterator[tuple[Any, Any]]:
        e = self.edges
        if e.chunks is None:
            yield e.src, e.dst
            return
        for chunk in e.chunks():
            yield chunk_ids(chunk)


def _pairs_graph(edges: HostEdges) -> Graph:
    from ._gpu._compat import staged_edges_to_device

    m, n = edges.num_edges, edges.num_nodes
    decoded = edges.device_chunks() if edges.device_chunks is not None else None
    if decoded is not None:  # a Parquet file decoded on the device: nothing to stage
        src, dst, lo, hi = _joined(list(decoded))
    else:
        src, dst, lo, hi = staged_edges_to_device(_Pieces(edges), m)
    _check_range(edges, lo, hi, n)
    n = (hi + 1 if m else 0) if n is None else n
    dt = index_dtype_for(n, 2 * m)
    return Graph(n, src=src.astype(dt, copy=False), dst=dst.astype(dt, copy=False))


def _joined(chunks: list[Any]) -> tuple[Any, Any, int, int]:
    """Device chunks' ids as one array each (one wide dtype), and their range."""
    from ._gpu._compat import cupy_or_raise, fused_id_range

    cp = cupy_or_raise()
    if not chunks:
        return cp.zeros(0, cp.int32), cp.zeros(0, cp.int32), 0, -1
    dt = np.result_type(*[c.src.dtype for c in chunks])
    src = chunks[0].src if len(chunks) == 1 else cp.concatenate([c.src.astype(dt) for c in chunks])
    dst = chunks[0].dst if len(chunks) == 1 else cp.concatenate([c.dst.astype(dt) for c in chunks])
    lo, hi, _ = fused_id_range(src, dst)
    return src, dst, lo, hi


def _check_range(edges: HostEdges, lo: int, hi: int, n: int | None) -> None:
    """Raise what :func:`concomp.streaming.host_roots` raises for ids outside
    ``[0, n)`` (or, without ``n``, ids that no vertex count the host can hold allows),
    naming the piece that holds one; only a bad range reads the ids again."""
    pairs = [(edges.src, "src"), (edges.dst, "dst")] if edges.chunks is None else []
    try:
        _ids_in_range(pairs, n)(lo, hi)
    except InvalidGraphError:
        if edges.chunks is None:
            raise
        for chunk in edges.chunks():
            src, dst = chunk_ids(chunk)
            for a, name in ((src, "src"), (dst, "dst")):
                try:
                    check_ids(a, name, n)
                except InvalidGraphError as exc:
                    raise InvalidGraphError(f"{chunk.label}: {exc}") from None
        raise
