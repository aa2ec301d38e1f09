"""The one place that turns graph-like input into a validated :class:`Graph`.

Every public function calls :func:`as_graph`. Messages name the argument, the
offending value and its position, what is allowed, and the fix.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ._arrays import get_xp, index_dtype_for, is_cupy_array, is_cupy_sparse, is_torch_tensor
from .errors import InvalidGraphError
from .graph import Graph

__all__ = ["as_graph", "edges_to_graph", "csr_to_graph", "check_ids", "check_weights",
           "check_num_nodes", "check_count", "host_memory", "MAX_NODES"]

#: Largest vertex (and edge) count the engines index. They work in int64 and form
#: ``n + 1`` offsets, ``2 * m`` symmetrised entries and ``2 * n`` slots; 2**62 keeps
#: every such sum inside int64 (``np.arange(n)`` is silently empty from 2**63 - 1 on,
#: and the kernels would then write out of bounds).
MAX_NODES = 1 << 62
#: Bytes per vertex that any run needs at the very least (one int64 label per vertex).
BYTES_PER_NODE = 8

_SRC_NAMES = ("source", "src", "u", "from", "node_1", "id_1", "i", "row", "head")
_DST_NAMES = ("target", "dst", "v", "to", "node_2", "id_2", "j", "col", "tail")
_W_NAMES = ("weight", "weights", "w", "wt", "value", "rating")


def as_graph(
    graph: Any,
    num_nodes: int | None = None,
    *,
    weights: Any = None,
    directed: bool | None = None,
    source: str | None = None,
    target: str | None = None,
    weight: str | None = None,
    with_weights: bool = True,
) -> Graph:
    """Normalise any graph-like input into a validated :class:`Graph`.

    Accepted: a :class:`Graph`; ``(src, dst)`` or ``(src, dst, weights)`` tuples;
    ``(2, m)`` and ``(m, 2)`` integer arrays (a ``(2, 2)`` array reads as
    ``(2, m)``, like a ``torch`` ``edge_index``); SciPy sparse matrices and arrays
    of any format (stored entries are edges, data are weights); pandas and polars
    frames (columns named by ``source``/``target``/``weight`` or found among
    common names); NetworkX graphs (nodes numbered in ``G.nodes`` order, like
    ``networkx.to_scipy_sparse_array``); ``torch`` tensors; CuPy arrays and
    ``cupyx`` sparse matrices (kept on the GPU); paths to graph files.

    Parameters
    ----------
    graph : graph-like
        The input.
    num_nodes : int, optional
        Number of vertices; default max id + 1 (or the matrix/file size).
    weights : array, optional
        One weight per edge, overriding weights carried by the input.
    directed : bool, optional
        Override whether the input is treated as directed.
    source, target, weight : str, optional
        Column names for data frames.
    with_weights : bool
        False drops weights carried by the input (connectivity never reads them,
        so NaN weights are then no error).

    Returns
    -------
    Graph

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.as_graph(np.array([[0, 1], [1, 2]]))
    Graph(n=3, m=2, undirected, device='cpu')
    >>> concomp.as_graph((np.array([0]), np.array([5])), num_nodes=3)
    Traceback (most recent call last):
    ...
    concomp.errors.InvalidGraphError: argument `dst`: vertex id 5 at position 0 is >= num_nodes=3; ids must lie in [0, 3). Fix: pass num_nodes > 5 or remove the edge.
    """
    if isinstance(graph, Graph):
        g = graph
        if weights is not None or (directed is not None and directed != g.directed):
            src, dst = g.coo()
            w = g.weights if weights is None else weights
            d = g.directed if directed is None else directed
            out = edges_to_graph(src, dst, g.num_nodes if num_nodes is None else num_nodes,
                                 weights=w, directed=d)
            if out.num_nodes == g.num_nodes and d == g.directed and not g.symmetric:
                # same edges, new weights: share what was derived from the structure
                # (the captured connected-components plan, the auto variant choice)
                out._device_cache = g._device_cache
            return out
        if num_nodes is not None and int(num_nodes) != g.num_nodes:
            src, dst = g.coo()
            return edges_to_graph(src, dst, num_nodes, weights=g.weights, directed=g.directed)
        return g
    if isinstance(graph, (str, os.PathLike)):
        from .io import read_graph

        g = read_graph(graph, weighted=None if with_weights else False)
        return as_graph(g, num_nodes, weights=weights, directed=directed)
    if _is_scipy_sparse(graph) or is_cupy_sparse(graph):
        return _from_sparse(graph, num_nodes, weights, bool(directed), with_weights)
    if _is_networkx(graph):
        return _from_networkx(graph, num_nodes, weights, directed, with_weights)
    if _is_dataframe(graph):
        return _from_frame(graph, num_nodes, weights, bool(directed), source, target,
                           weight, with_weights)
    if is_torch_tensor(graph):
        graph = _torch_to_array(graph)
    # A tuple is (src, dst) or (src, dst, weights); a list of pairs is an (m, 2) array.
    if isinstance(graph, tuple) and len(graph) in (2, 3) and not _is_scalar_seq(graph):
        src, dst = graph[0], graph[1]
        if len(graph) == 3 and weights is None:
            weights = graph[2]
        src, dst = _as_id_array(src, "src"), _as_id_array(dst, "dst")
        return edges_to_graph(src, dst, num_nodes, weights=weights, directed=bool(directed))
    arr = graph if is_cupy_array(graph) else _as_array(graph, "graph")
    if arr.ndim == 2 and arr.shape[0] == 2:
        return edges_to_graph(arr[0], arr[1], num_nodes, weights=weights, directed=bool(directed))
    if arr.ndim == 2 and arr.shape[1] == 2:
        return edges_to_graph(arr[:, 0], arr[:, 1], num_nodes, weights=weights,
                              directed=bool(directed))
    raise InvalidGraphError(
        f"argument `graph`: cannot read a graph from {type(graph).__name__}"
        f"{' of shape ' + str(tuple(arr.shape)) if hasattr(arr, 'shape') else ''}; "
        "allowed: (src, dst) arrays, a (2, m) or (m, 2) array, a SciPy sparse matrix, a data "
        "frame, a NetworkX graph, a torch edge_index, CuPy arrays, or a file path. "
        "Fix: pass one of those (for a dense adjacency matrix use scipy.sparse.csr_array(A))."
    )


# --------------------------------------------------------------------------- sizes
def host_memory() -> int:
    """Physical memory of this machine in bytes (2**62 where the platform cannot say).

    Physical rather than currently free memory: what other processes hold comes and
    goes, and a refusal should not depend on the moment.
    """
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def check_count(count: int, name: str, *, what: str = "vertices",
                per_item: int = BYTES_PER_NODE, where: str | None = None,
                cause: str = "", fix: str = "relabel the vertices to 0 .. n-1 (dense ids, e.g. "
                "numpy.unique(ids, return_inverse=True))", error: type = InvalidGraphError,
                memory: int | None = None) -> int:
    """Return ``count`` as an int, or raise if the engines cannot index or hold it.

    The one up-front size check of every entry point (graphs, streams, incremental
    state, file headers): ``count`` must be at most :data:`MAX_NODES` (int64
    arithmetic) and ``count * per_item`` bytes must fit in this machine's memory.

    Parameters
    ----------
    count : int
        The vertex (or entry) count to check.
    name : str
        The argument it comes from (used as ``argument `name```), unless ``where``
        names the place instead (a file and line).
    what : str
        What is counted ("vertices", "entries").
    per_item : int
        Least bytes each counted item needs.
    cause : str
        Where the count comes from, e.g. "vertex id 9 at position 0 needs".
    fix : str
        The remedy the message proposes.
    error : type
        Exception class (``GraphFormatError`` for file headers).
    memory : int, optional
        Memory limit in bytes (default :func:`host_memory`).
    """
    count = int(count)
    head = where if where is not None else f"argument `{name}`"
    subject = f"{cause} {count} {what}" if cause else f"{count} {what}"
    if count > MAX_NODES:
        raise error(f"{head}: {subject} exceed what the engines can index (at most 2**62 = "
                    f"{MAX_NODES}, to keep int64 offsets and sums exact). Fix: {fix}.")
    limit = host_memory() if memory is None else int(memory)
    need = count * per_item
    if need > limit:
        raise error(f"{head}: {subject} need at least {need / 2**30:.4g} GiB ({per_item} "
                    f"bytes each), more than this machine's {limit / 2**30:.4g} GiB of memory. "
                    f"Fix: {fix}.")
    return count


def check_num_nodes(n: Any, name: str = "num_nodes", **kwargs: Any) -> int:
    """``n`` as a vertex count the engines can index and memory can hold (see
    :func:`check_count`); ``n`` itself must already be a non-negative int."""
    return check_count(n, name, what="vertices", **kwargs)


# --------------------------------------------------------------------------- checks
def _as_array(a: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(a)
    except Exception as exc:  # ragged lists and other odd objects
        raise InvalidGraphError(f"argument `{name}`: cannot convert {type(a).__name__} to an "
                                f"array ({exc}). Fix: pass a 1-D integer array.") from exc


def _as_id_array(a: Any, name: str) -> Any:
    if is_torch_tensor(a):
        a = _torch_to_array(a)
    return a if is_cupy_array(a) else _as_array(a, name)


def check_ids(a: Any, name: str, num_nodes: int | None) -> Any:
    """Return ``a`` as an integer id array; raise for bad dtype, NaN, negatives, ids >= n."""
    xp = get_xp(a)
    if a.ndim != 1:
        raise InvalidGraphError(f"argument `{name}`: expected a 1-D array of vertex ids, got shape "
                                f"{tuple(a.shape)}. Fix: pass a flat array (use .ravel()).")
    kind = a.dtype.kind
    if kind == "b" or kind not in "iuf":
        raise InvalidGraphError(f"argument `{name}`: vertex ids must be integers, got dtype "
                                f"{a.dtype}. Fix: convert with .astype(numpy.int64).")
    if kind == "f":
        bad = xp.flatnonzero(~xp.isfinite(a) | (a != xp.floor(a)))
        if bad.size:
            i = int(bad[0])
            raise InvalidGraphError(
                f"argument `{name}`: vertex id {float(a[i])!r} at position {i} is not an integer "
                f"(dtype {a.dtype}); ids must be whole numbers. Fix: remove NaN/fractional ids or "
                "map labels to integers first.")
        big = xp.flatnonzero(xp.abs(a) > MAX_NODES)
        if big.size:
            i = int(big[0])
            raise InvalidGraphError(
                f"argument `{name}`: vertex id {float(a[i])!r} at position {i} is too large"
                f"{' in magnitude' if a[i] < 0 else ''}; ids must lie in [0, 2**62] (int64 "
                "indexing). Fix: relabel the vertices to 0 .. n-1.")
        a = a.astype(np.int64)
    if a.size == 0:
        return a.astype(np.int64) if kind == "f" else a
    lo = int(a.min())
    if lo < 0:
        i = int(xp.flatnonzero(a < 0)[0])
        raise InvalidGraphError(
            f"argument `{name}`: vertex id {int(a[i])} at position {i} is negative; ids must lie "
            f"in [0, num_nodes). Fix: shift ids to start at 0 (0-based) or drop the edge.")
    hi = int(a.max())
    if hi > MAX_NODES:
        i = int(xp.flatnonzero(a > MAX_NODES)[0])
        raise InvalidGraphError(
            f"argument `{name}`: vertex id {int(a[i])} at position {i} is too large; ids must "
            f"lie in [0, 2**62] (int64 indexing). Fix: relabel the vertices to 0 .. n-1.")
    if kind == "u" and a.dtype.itemsize >= 8:
        a = a.astype(np.int64)  # every id is <= 2**62 now
    if num_nodes is None:
        i = int(xp.argmax(a))
        check_num_nodes(hi + 1, name, cause=f"vertex id {hi} at position {i} implies")
    else:
        if hi >= num_nodes:
            i = int(xp.flatnonzero(a >= num_nodes)[0])
            raise InvalidGraphError(
                f"argument `{name}`: vertex id {int(a[i])} at position {i} is >= num_nodes="
                f"{num_nodes}; ids must lie in [0, {num_nodes}). Fix: pass num_nodes > {hi} or "
                "remove the edge.")
    return a


def check_weights(w: Any, m: int, name: str = "weights") -> Any:
    """Return ``w`` as a numeric 1-D array of length ``m``; NaN raises."""
    if w is None:
        return None
    if is_torch_tensor(w):
        w = _torch_to_array(w)
    w = w if is_cupy_array(w) else _as_array(w, name)
    xp = get_xp(w)
    if w.ndim == 0:
        w = xp.full(m, w)
    if w.ndim != 1 or w.shape[0] != m:
        raise InvalidGraphError(f"argument `{name}`: expected {m} weights (one per edge), got "
                                f"shape {tuple(w.shape)}. Fix: pass one weight per edge.")
    if w.dtype.kind == "b":
        w = w.astype(np.int8)
    if w.dtype.kind not in "iuf":
        raise InvalidGraphError(f"argument `{name}`: weights must be numbers, got dtype {w.dtype}."
                                " Fix: convert with .astype(float).")
    if w.dtype.kind == "f" and w.size:
        nan = xp.flatnonzero(xp.isnan(w))
        if nan.size:
            raise InvalidGraphError(
                f"argument `{name}`: weight NaN at position {int(nan[0])} ({int(nan.size)} NaN in "
                "all); weights must be numbers (+inf and -inf are allowed). Fix: drop those edges "
                "or replace NaN with a number.")
    return w


def _resolve_n(num_nodes: Any, *arrays: Any, name: str = "num_nodes") -> int | None:
    if num_nodes is None:
        return None
    if isinstance(num_nodes, (bool, np.bool_)) or not isinstance(num_nodes, (int, np.integer)):
        raise InvalidGraphError(f"argument `{name}`: expected a non-negative int, got "
                                f"{num_nodes!r}. Fix: pass an int (or None for max id + 1).")
    if num_nodes < 0:
        raise InvalidGraphError(f"argument `{name}`: {num_nodes} is negative. Fix: pass a "
                                "count >= 0.")
    return check_num_nodes(int(num_nodes), name, fix="pass the number of vertices the graph "
                           "has; ids must be dense (relabel them to 0 .. n-1)")


def edges_to_graph(src: Any, dst: Any, num_nodes: int | None = None, *, weights: Any = None,
                   directed: bool = False, symmetric: bool = False) -> Graph:
    """Validated :class:`Graph` from two id arrays."""
    src, dst = _as_id_array(src, "src"), _as_id_array(dst, "dst")
    if get_xp(src) is not get_xp(dst):
        raise InvalidGraphError("arguments `src` and `dst` live on different devices (one NumPy, "
                                "one CuPy). Fix: move both to the same device.")
    n = _resolve_n(num_nodes)
    src, dst = check_ids(src, "src", n), check_ids(dst, "dst", n)
    if src.shape[0] != dst.shape[0]:
        raise InvalidGraphError(f"arguments `src` and `dst` differ in length ({src.shape[0]} vs "
                                f"{dst.shape[0]}). Fix: pass one source and one target per edge.")
    m = int(src.shape[0])
    if n is None:
        n = 0 if m == 0 else int(max(int(src.max()), int(dst.max()))) + 1
    w = check_weights(weights, m)
    dt = index_dtype_for(n, 2 * m)
    return Graph(n, src=src.astype(dt, copy=False), dst=dst.astype(dt, copy=False), weights=w,
                 directed=directed, symmetric=symmetric)


def csr_to_graph(indptr: Any, indices: Any, num_nodes: int | None = None, *, weights: Any = None,
                 directed: bool = False, symmetric: bool = False) -> Graph:
    """Validated :class:`Graph` from CSR arrays; the i-th stored entry is edge ``i``."""
    indptr, indices = _as_id_array(indptr, "indptr"), _as_id_array(indices, "indices")
    if indptr.ndim != 1 or indptr.shape[0] < 1:
        raise InvalidGraphError(f"argument `indptr`: expected a 1-D array of length n + 1, got "
                                f"shape {tuple(indptr.shape)}. Fix: pass a CSR row pointer.")
    if indptr.dtype.kind not in "iu":
        # a float row pointer would be truncated silently by the cast to the index type
        raise InvalidGraphError(f"argument `indptr`: offsets must be integers, got dtype "
                                f"{indptr.dtype}. Fix: pass an integer row pointer (e.g. "
                                "indptr.astype(numpy.int64) after checking it).")
    if indptr.dtype.kind == "u" and indptr.dtype.itemsize >= 8:
        if indptr.shape[0] and int(indptr.max()) > MAX_NODES:
            raise InvalidGraphError(f"argument `indptr`: offset {int(indptr.max())} exceeds "
                                    "2**62 (int64 indexing). Fix: rebuild the CSR arrays.")
        indptr = indptr.astype(np.int64)
    rows = int(indptr.shape[0]) - 1
    n = check_num_nodes(rows, "indptr", cause="a row pointer of length n + 1 means") \
        if num_nodes is None else _resolve_n(num_nodes)
    if n != rows:
        raise InvalidGraphError(f"argument `indptr`: length {rows + 1} means {rows} rows but "
                                f"num_nodes={n}; the matrix must be square. Fix: pass n + 1 "
                                "offsets.")
    indices = check_ids(indices, "indices", n)
    xp = get_xp(indptr)
    if int(indptr[0]) != 0 or int(indptr[-1]) != indices.shape[0] or (
            rows and bool((xp.diff(indptr) < 0).any())):
        raise InvalidGraphError("argument `indptr`: must start at 0, never decrease and end at "
                                f"len(indices)={indices.shape[0]}. Fix: rebuild the CSR arrays.")
    m = int(indices.shape[0])
    w = check_weights(weights, m)
    dt = index_dtype_for(n, 2 * m)
    return Graph(n, indptr=indptr.astype(dt, copy=False), indices=indices.astype(dt, copy=False),
                 weights=w, directed=directed, symmetric=symmetric)


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


def _is_scalar_seq(seq: Any) -> bool:
    return all(np.isscalar(x) for x in seq)


def _torch_to_array(t: Any) -> Any:
    if t.is_cuda:
        from ._gpu._compat import cupy_or_raise

        cupy = cupy_or_raise()
        return cupy.from_dlpack(t.detach())
    return t.detach().cpu().numpy()


def _from_sparse(A: Any, num_nodes: int | None, weights: Any, directed: bool,
                 with_weights: bool = True) -> Graph:
    shape = A.shape
    if len(shape) != 2 or shape[0] != shape[1]:
        raise InvalidGraphError(f"argument `graph`: adjacency matrix must be square, got shape "
                                f"{shape}. Fix: pass an n x n matrix.")
    A = A.tocsr()
    if A.data.dtype.kind not in "iufb":
        raise InvalidGraphError(f"argument `graph`: matrix dtype {A.data.dtype} is not numeric. "
                                "Fix: convert with .astype(float).")
    w = (A.data if with_weights else None) if weights is None else weights
    if num_nodes is not None and num_nodes != shape[0]:
        raise InvalidGraphError(f"argument `num_nodes`: {num_nodes} differs from the matrix "
                                f"size {shape[0]}. Fix: drop num_nodes or resize the matrix.")
    return csr_to_graph(A.indptr, A.indices, shape[0], weights=w, directed=directed)


def _from_networkx(G: Any, num_nodes: int | None, weights: Any, directed: bool | None,
                   with_weights: bool = True) -> Graph:
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
    return edges_to_graph(src, dst, n, weights=weights if weights is not None else
                          (w if has_w else None), directed=d)


def _pick(columns: list[str], explicit: str | None, names: tuple[str, ...], role: str,
          fallback: int | None) -> str | None:
    if explicit is not None:
        if explicit not in columns:
            raise InvalidGraphError(f"argument `{role}`: column {explicit!r} not in the frame "
                                    f"(columns: {columns}). Fix: pass an existing column name.")
        return explicit
    lower = {str(c).lower(): c for c in columns}
    for name in names:
        if name in lower:
            return lower[name]
    if fallback is not None and len(columns) > fallback:
        return columns[fallback]
    return None


def _from_frame(df: Any, num_nodes: int | None, weights: Any, directed: bool,
                source: str | None, target: str | None, weight: str | None,
                with_weights: bool = True) -> Graph:
    cols = list(df.columns)
    if len(cols) < 2:
        raise InvalidGraphError(f"argument `graph`: a frame needs two id columns, got {cols}. "
                                "Fix: pass source= and target= column names.")
    s = _pick(cols, source, _SRC_NAMES, "source", 0)
    t = _pick(cols, target, _DST_NAMES, "target", 1)
    wcol = _pick(cols, weight, _W_NAMES, "weight", None)
    src, dst = _column(df, s), _column(df, t)
    if weights is None and wcol is not None and with_weights:
        weights = _column(df, wcol)
    return edges_to_graph(src, dst, num_nodes, weights=weights, directed=directed)


def _column(df: Any, name: str) -> np.ndarray:
    col = df[name]
    if hasattr(col, "to_numpy"):
        col = col.to_numpy()
    return np.asarray(col)
