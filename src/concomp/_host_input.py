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
(:mod:`concomp._gpu.upload`); a CSR crosses as its row pointer and columns. Everything
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
from ._sparse import tocsr
from ._validate import HostEdges, _is_scipy_sparse, host_edges
from .errors import InvalidGraphError
from .graph import Graph
from .streaming import _ids_in_range, chunk_ids, host_chunks

__all__ = ["HostRoute", "device_graph", "host_route", "route_edges"]

log = logging.getLogger("concomp.dispatch")


@dataclass(frozen=True)
class HostRoute:
    """Host edges the GPU feed takes as they are, and the engine chosen for them.

    ``graph`` is the input the general path reads where ``device`` is ``"cpu"`` (the
    caller's, or the CSR a SciPy COO matrix becomes, once).
    """

    edges: HostEdges
    device: str
    graph: Any


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
        The call reports input edge ids: a SciPy COO matrix is then read as the CSR
        :func:`concomp.as_graph` makes of it (duplicates summed, row order), whose
        entries are the edge ids, instead of as its pairs.
    reads_weights : bool
        The call reads the input's weights: pieces with a weight column (pyarrow
        tables, Parquet files) then take the general path, which reads it.
    """
    if edge_ids and _is_scipy_sparse(graph) and graph.format == "coo":
        graph = tocsr(graph)
    edges = host_edges(graph, num_nodes, renumber) or host_chunks(graph, num_nodes, renumber)
    if edges is None or (reads_weights and edges.weight_column is not None):
        return None
    return HostRoute(edges, route_edges(edges, device, what=what, min_edges=min_edges), graph)


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
    from ._gpu._compat import check_device_fits, cupy_or_raise, out_of_memory_guard

    cp = cupy_or_raise()
    m = edges.num_edges
    w = _host_weights(weights, m)
    n = edges.num_nodes
    rows = 0 if edges.indptr is None else int(edges.indptr.shape[0])
    what = f"staging {m} host edges to the GPU"
    need = check_device_fits(
        what,
        16 * m + 8 * rows + (0 if w is None else int(w.nbytes)),
        fix="use device='cpu', or concomp.connected_components, which streams host edges",
    )
    with out_of_memory_guard(what, need):
        if edges.indptr is not None and edges.indices is not None:
            g = _csr_graph(edges.indptr, edges.indices, n)
        else:
            g = _pairs_graph(edges)
        if w is not None:
            # one pageable copy (no host pass over the weights); NaN is found on the device
            if w.ndim == 0:
                w = cp.full(m, w.item(), dtype=w.dtype)
            g.weights = check_weights(w if is_cupy_array(w) else cp.asarray(w), m)
    log.debug("host edges staged to the GPU as %r", g)
    return g


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
    src, dst, lo, hi = staged_edges_to_device(_Pieces(edges), m)
    _check_range(edges, lo, hi, n)
    n = (hi + 1 if m else 0) if n is None else n
    dt = index_dtype_for(n, 2 * m)
    return Graph(n, src=src.astype(dt, copy=False), dst=dst.astype(dt, copy=False))


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
