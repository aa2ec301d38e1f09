"""Graph-like input (arrays, sparse matrices, frames, NetworkX, torch) as a validated Graph.

:func:`concomp.as_graph` (:mod:`concomp._input`) reads file paths with
:mod:`concomp.io` and hands everything else to :func:`coerce_graph` here; the
array checks live in :mod:`concomp._checks`. Messages name the argument, the
offending value and its position, what is allowed, and the fix.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._arrays import is_cupy_array, is_cupy_sparse, is_torch_tensor
from ._checks import (
    _DST_NAMES,
    _SRC_NAMES,
    _W_NAMES,
    _as_array,
    _as_id_array,
    _pick,
    _resolve_n,
    _torch_to_array,
)
from ._renumber import check_renumber, might_renumber, renumber_edges, renumber_string_columns
from ._sparse import tocsr
from .errors import InvalidGraphError
from .graph import Graph

__all__ = ["HostEdges", "coerce_graph", "edges_graph", "host_edges", "host_weights", "is_pair_list"]


def coerce_graph(
    graph: Any,
    num_nodes: int | None = None,
    *,
    weights: Any = None,
    directed: bool | None = None,
    source: str | None = None,
    target: str | None = None,
    weight: str | None = None,
    with_weights: bool = True,
    renumber: str | bool = "auto",
) -> Graph:
    """:func:`concomp.as_graph` for every input but file paths (which
    :mod:`concomp.io` reads first): see there."""
    renumber = check_renumber(renumber)
    if isinstance(graph, Graph):
        g = graph
        if weights is not None or (directed is not None and directed != g.directed):
            src, dst = g.coo()
            w = g.weights if weights is None else weights
            d = g.directed if directed is None else directed
            out = Graph.from_edges(
                src,
                dst,
                g.num_nodes if num_nodes is None else num_nodes,
                weights=w,
                directed=d,
                node_ids=g.node_ids,
            )
            if out.num_nodes == g.num_nodes and d == g.directed and not g.symmetric:
                # same edges, new weights: share what was derived from the structure
                # (the captured connected-components plan, the auto variant choice)
                out._device_cache = g._device_cache
            return out
        if num_nodes is not None and int(num_nodes) != g.num_nodes:
            if g.node_ids is not None:
                raise InvalidGraphError(
                    f"argument `num_nodes`: {num_nodes} differs from the {g.num_nodes} vertices "
                    "of a renumbered graph (its vertices are its distinct ids). Fix: drop "
                    "num_nodes."
                )
            src, dst = g.coo()
            return Graph.from_edges(src, dst, num_nodes, weights=g.weights, directed=g.directed)
        return g
    if _is_scipy_sparse(graph) or is_cupy_sparse(graph):
        return _from_sparse(graph, num_nodes, weights, bool(directed), with_weights)
    if _is_networkx(graph):
        return _from_networkx(graph, num_nodes, weights, directed, with_weights, renumber)
    if _is_dataframe(graph) or _is_arrow_table(graph):
        return _from_frame(
            graph,
            num_nodes,
            weights,
            bool(directed),
            source,
            target,
            weight,
            with_weights,
            renumber,
        )
    if is_torch_tensor(graph):
        graph = _torch_to_array(graph)
    # A tuple is (src, dst) or (src, dst, weights); a list of pairs is an (m, 2) array.
    if isinstance(graph, tuple) and len(graph) in (2, 3) and not _is_scalar_seq(graph):
        src, dst = graph[0], graph[1]
        if len(graph) == 3 and weights is None:
            weights = graph[2]
        strings = _string_columns_graph(src, dst, num_nodes, weights, bool(directed), renumber)
        if strings is not None:
            return strings
        src, dst = _as_id_array(src, "src"), _as_id_array(dst, "dst")
        return edges_graph(src, dst, num_nodes, weights, bool(directed), renumber)
    arr = graph if is_cupy_array(graph) else _as_array(graph, "graph")
    if arr.ndim == 2 and arr.shape[0] == 2 and not is_pair_list(graph):
        return edges_graph(arr[0], arr[1], num_nodes, weights, bool(directed), renumber)
    if arr.ndim == 2 and arr.shape[1] == 2:
        return edges_graph(arr[:, 0], arr[:, 1], num_nodes, weights, bool(directed), renumber)
    raise InvalidGraphError(
        f"argument `graph`: cannot read a graph from {type(graph).__name__}"
        f"{' of shape ' + str(tuple(arr.shape)) if hasattr(arr, 'shape') else ''}; "
        "allowed: (src, dst) arrays, a (2, m) or (m, 2) array, a SciPy sparse matrix, a data "
        "frame, a NetworkX graph, a torch edge_index, CuPy arrays, or a file path. "
        "Fix: pass one of those (for a dense adjacency matrix use scipy.sparse.csr_array(A))."
    )


def edges_graph(
    src: Any,
    dst: Any,
    num_nodes: int | None,
    weights: Any,
    directed: bool,
    renumber: str | bool = "auto",
) -> Graph:
    """A Graph from two id arrays, renumbered where ``renumber`` says so
    (:mod:`concomp._renumber` has the rule)."""
    if getattr(src, "ndim", None) == 1 and getattr(dst, "ndim", None) == 1:
        plan = renumber_edges(src, dst, renumber, num_nodes)
        if plan is not None:
            s, d, node_ids = plan
            return Graph.from_edges(
                s, d, int(node_ids.shape[0]), weights=weights, directed=directed, node_ids=node_ids
            )
    return Graph.from_edges(src, dst, num_nodes, weights=weights, directed=directed)


@dataclass(frozen=True)
class HostEdges:
    """Edges of a host input, taken as the caller holds them (no pass over the ids).

    Either pairs (``src``, ``dst``), a CSR (``indptr``, ``indices``), or edges that
    arrive in pieces (``chunks``: a callable giving the pieces as
    :class:`concomp.streaming.EdgeChunk`, read on use, such as a pyarrow table's record
    batches or a Parquet file's row groups; ``chunk_edges`` counts their edges). Nothing
    is validated here beyond shapes: the GPU feed checks ids while it stages them.
    ``num_nodes`` is the count the input or the caller declares, or None.
    ``weight_column`` names the weight column of pieces that carry one (the general
    path reads it; the pieces do not). ``device_chunks``, where given, gives the same
    pieces decoded on the GPU (a Parquet file's columns: chunks of CuPy arrays), for a
    caller that runs on the GPU.
    """

    src: np.ndarray | None
    dst: np.ndarray | None
    indptr: np.ndarray | None
    indices: np.ndarray | None
    num_nodes: int | None
    chunks: Callable[[], Iterable[Any]] | None = None
    chunk_edges: int = 0
    weight_column: str | None = None
    device_chunks: Callable[[], Iterable[Any] | None] | None = None

    @property
    def num_edges(self) -> int:
        if self.chunks is not None:
            return self.chunk_edges
        ids = self.src if self.src is not None else self.indices
        return int(ids.shape[0]) if ids is not None else 0


def host_edges(
    graph: Any, num_nodes: int | None = None, renumber: str | bool = "auto"
) -> HostEdges | None:
    """The edges of ``graph`` when it is host data of a kind the GPU feed takes as is.

    Recognised: ``(src, dst[, weights])`` tuples of host arrays, ``(2, m)`` and
    ``(m, 2)`` host arrays, CPU torch tensors, pandas and polars frames, and SciPy
    sparse matrices in CSR (as it is) and COO (as pairs) format. Read
    exactly as :func:`coerce_graph` reads them. Anything else (a Graph, device data,
    NetworkX, paths, a shape :func:`coerce_graph` would reject, or pairs whose ids
    ``renumber`` may renumber) gives None, and the caller takes the general path,
    which also raises the errors.
    """
    n = None if num_nodes is None else _resolve_n(num_nodes)
    renumber = check_renumber(renumber)
    if renumber is True and not _is_scipy_sparse(graph):
        return None
    if isinstance(graph, Graph) or is_cupy_array(graph) or is_cupy_sparse(graph):
        return None
    if _is_scipy_sparse(graph):
        shape = graph.shape
        if len(shape) != 2 or shape[0] != shape[1] or (n is not None and n != shape[0]):
            return None
        if graph.format == "coo":
            return _pairs(graph.row, graph.col, shape[0])
        if graph.format != "csr":  # converting here would be paid twice on the CPU path
            return None
        if not (_plain_ids(graph.indptr) and _plain_ids(graph.indices)):
            return None
        return HostEdges(None, None, graph.indptr, graph.indices, shape[0])
    if _is_dataframe(graph):
        cols = list(graph.columns)
        if len(cols) < 2:
            return None
        s = _pick(cols, None, _SRC_NAMES, "source", 0)
        t = _pick(cols, None, _DST_NAMES, "target", 1)
        if not (_integer_column(graph[s]) and _integer_column(graph[t])):
            return None  # strings, categories, objects: renumbered on the general path
        return _pairs(_column(graph, s), _column(graph, t), n, renumber)
    if is_torch_tensor(graph):
        if graph.is_cuda:
            return None
        graph = _torch_to_array(graph)
    if isinstance(graph, tuple) and len(graph) in (2, 3) and not _is_scalar_seq(graph):
        if any(is_cupy_array(a) or (is_torch_tensor(a) and a.is_cuda) for a in graph[:2]):
            return None
        return _pairs(*(_host_array(a) for a in graph[:2]), n, renumber)
    if isinstance(graph, np.ndarray) and graph.ndim == 2:
        if graph.shape[0] == 2:
            return _pairs(graph[0], graph[1], n, renumber)
        if graph.shape[1] == 2:
            return _pairs(graph[:, 0], graph[:, 1], n, renumber)
    return None


def host_weights(graph: Any) -> Any:
    """The weights :func:`coerce_graph` reads from host input that :func:`host_edges`
    takes: the third entry of a ``(src, dst, weights)`` tuple, a frame's weight column
    (found by its name), a SciPy matrix's stored values; None where there are none.
    Only their dtype is checked here (as :func:`coerce_graph` checks a matrix's)."""
    if _is_scipy_sparse(graph):
        _check_matrix_dtype(graph)
        return graph.data
    if _is_dataframe(graph):
        wcol = _pick(list(graph.columns), None, _W_NAMES, "weight", None)
        return None if wcol is None else _column(graph, wcol)
    if isinstance(graph, tuple) and len(graph) == 3:
        return graph[2]
    return None


def _check_matrix_dtype(A: Any) -> None:
    if A.data.dtype.kind not in "iufb":
        raise InvalidGraphError(
            f"argument `graph`: matrix dtype {A.data.dtype} is not numeric. "
            "Fix: convert with .astype(float)."
        )


def _host_array(a: Any) -> Any:
    if is_torch_tensor(a):
        return _torch_to_array(a) if not a.is_cuda else a
    try:
        return np.asarray(a)
    except Exception:  # ragged input: the general path names what is wrong
        return None


def _plain_ids(a: Any) -> bool:
    """Signed, or unsigned of at most 32 bits: ids the staging pass reads as they are
    (floats, uint64 and objects take the general path, which names what is wrong)."""
    kind = a.dtype.kind
    return kind == "i" or (kind == "u" and a.dtype.itemsize < 8)


def _pairs(src: Any, dst: Any, n: int | None, renumber: str | bool = False) -> HostEdges | None:
    ok = (
        isinstance(src, np.ndarray)
        and isinstance(dst, np.ndarray)
        and src.ndim == 1
        and dst.ndim == 1
        and src.shape[0] == dst.shape[0]
        and _plain_ids(src)
        and _plain_ids(dst)
    )
    if ok and renumber == "auto" and n is None and src.shape[0]:
        # negative, huge or sparse ids are renumbered on the general path
        lo = min(int(src.min()), int(dst.min()))
        hi = max(int(src.max()), int(dst.max()))
        ok = not might_renumber(lo, hi)
    return HostEdges(src, dst, None, None, n) if ok else None


# --------------------------------------------------------------------------- sources
def _is_scipy_sparse(obj: Any) -> bool:
    mod = type(obj).__module__
    if not mod.startswith("scipy.sparse"):
        return False
    import scipy.sparse as sp

    return sp.issparse(obj)


def _is_networkx(obj: Any) -> bool:
    return type(obj).__module__.startswith("networkx") and hasattr(obj, "adj")


def _is_dataframe(obj: Any) -> bool:
    mod = type(obj).__module__.split(".")[0]
    return mod in ("pandas", "polars") and hasattr(obj, "columns")


def _is_arrow_table(obj: Any) -> bool:
    """A pyarrow Table or RecordBatch: columns read by name, as a data frame's."""
    return type(obj).__module__.split(".")[0] == "pyarrow" and hasattr(obj, "column_names")


def _column_names(df: Any) -> list[Any]:
    return list(df.column_names if _is_arrow_table(df) else df.columns)


def _is_scalar_seq(seq: Any) -> bool:
    return all(np.isscalar(x) for x in seq)


def is_pair_list(obj: Any) -> bool:
    """Whether ``obj`` is a Python list of ``(u, v)`` pairs (tuples or lists of two
    scalars): a list of edges, even one of two edges, which as an array would have the
    ``(2, 2)`` shape that reads as ``(src, dst)`` rows (a torch ``edge_index``)."""
    return (
        isinstance(obj, list)
        and len(obj) > 0
        and all(isinstance(e, (tuple, list)) and len(e) == 2 and _is_scalar_seq(e) for e in obj)
    )


def _from_sparse(
    A: Any, num_nodes: int | None, weights: Any, directed: bool, with_weights: bool = True
) -> Graph:
    shape = A.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise InvalidGraphError(
            f"argument `graph`: adjacency matrix must be square, got shape "
            f"{shape}. Fix: pass an n x n matrix."
        )
    A = tocsr(A)
    _check_matrix_dtype(A)
    w = (A.data if with_weights else None) if weights is None else weights
    if num_nodes is not None and num_nodes != shape[0]:
        raise InvalidGraphError(
            f"argument `num_nodes`: {num_nodes} differs from the matrix "
            f"size {shape[0]}. Fix: drop num_nodes or resize the matrix."
        )
    return Graph.from_csr(A.indptr, A.indices, shape[0], weights=w, directed=directed)


def _from_networkx(
    G: Any,
    num_nodes: int | None,
    weights: Any,
    directed: bool | None,
    with_weights: bool = True,
    renumber: str | bool = "auto",
) -> Graph:
    nodes = list(G.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    m = G.number_of_edges()
    src = np.empty(m, dtype=np.int64)
    dst = np.empty(m, dtype=np.int64)
    w = np.empty(m, dtype=np.float64)
    has_w = False
    read_w = with_weights and weights is None  # connectivity never reads the attribute
    for k, (u, v, d) in enumerate(G.edges(data=True)):
        src[k], dst[k] = index[u], index[v]
        if not read_w:
            continue
        wt = d.get("weight")
        if wt is not None:
            has_w = True
        try:
            w[k] = 1.0 if wt is None else wt
        except (TypeError, ValueError) as exc:
            raise InvalidGraphError(
                f"argument `weights`: edge attribute 'weight' {wt!r} of edge {k} ({u!r}, {v!r}) "
                "is not a number. Fix: store numeric weights, or pass weights=... explicitly."
            ) from exc
    d = G.is_directed() if directed is None else directed
    n = len(nodes) if num_nodes is None else num_nodes
    node_ids = _networkx_names(nodes) if renumber is not False and num_nodes is None else None
    return Graph.from_edges(
        src,
        dst,
        n,
        weights=weights if weights is not None else (w if has_w else None),
        directed=d,
        node_ids=node_ids,
    )


def _networkx_names(nodes: list[Any]) -> np.ndarray | None:
    """The node names in ``G.nodes`` order, or None where they are ``0 .. n-1`` in order
    (positions and names then agree)."""
    if all(type(v) is int and v == i for i, v in enumerate(nodes)):
        return None
    names = np.empty(len(nodes), dtype=object)
    names[:] = nodes  # element-wise: tuples as names stay whole
    return names


def _from_frame(
    df: Any,
    num_nodes: int | None,
    weights: Any,
    directed: bool,
    source: str | None,
    target: str | None,
    weight: str | None,
    with_weights: bool = True,
    renumber: str | bool = "auto",
) -> Graph:
    cols = _column_names(df)
    if len(cols) < 2:
        raise InvalidGraphError(
            f"argument `graph`: a frame needs two id columns, got {cols}. "
            "Fix: pass source= and target= column names."
        )
    s = _pick(cols, source, _SRC_NAMES, "source", 0)
    t = _pick(cols, target, _DST_NAMES, "target", 1)
    wcol = _pick(cols, weight, _W_NAMES, "weight", None)
    if weights is None and wcol is not None and with_weights:
        weights = _column(df, wcol)
    get = df.column if _is_arrow_table(df) else df.__getitem__
    graph = _string_columns_graph(get(s), get(t), num_nodes, weights, directed, renumber)
    if graph is not None:
        return graph
    return edges_graph(_column(df, s), _column(df, t), num_nodes, weights, directed, renumber)


def _string_columns_graph(
    src: Any, dst: Any, num_nodes: int | None, weights: Any, directed: bool, renumber: str | bool
) -> Graph | None:
    """String ids held in Arrow, renumbered from their buffers (no Python strings per
    edge), or None for other columns."""
    plan = renumber_string_columns(src, dst, renumber, num_nodes)
    if plan is None:
        return None
    s, d, node_ids = plan
    return Graph.from_edges(
        s, d, int(node_ids.shape[0]), weights=weights, directed=directed, node_ids=node_ids
    )


def _integer_column(col: Any) -> bool:
    """Whether a pandas or polars column holds integers (read without converting it)."""
    dtype = col.dtype
    if hasattr(dtype, "is_integer"):  # polars
        return bool(dtype.is_integer())
    return getattr(dtype, "kind", "O") in "iu"


def _column(df: Any, name: str) -> np.ndarray:
    col = df.column(name) if _is_arrow_table(df) else df[name]
    if hasattr(col, "to_numpy"):
        col = col.to_numpy()
    return np.asarray(col)
