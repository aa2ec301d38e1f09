"""Drop-in replacements for :mod:`scipy.sparse.csgraph`.

Same signatures, defaults, output types and numbering as SciPy, on concomp's
engines. Covered:

``connected_components(csgraph, directed=True, connection="weak", return_labels=True)``
    Weak components run on concomp's union-find engine (host input on the engine
    ``device="auto"`` picks, or ``CONCOMP_DEVICE``: on a usable GPU from
    3e5 stored entries on, the matrix's row pointer and columns streamed through the
    pinned feed as they are; the labels come back as NumPy); strong components on
    an iterative Tarjan search (:mod:`concomp._cpu.scc`) that visits vertices
    in SciPy's order, so the labels equal SciPy's entry for entry: ``int32``
    labels, a Python ``int`` count.
``minimum_spanning_tree(csgraph, overwrite=False)``
    SciPy's output matrix type, orientation and entries (see
    :mod:`concomp.csgraph._mst`). Imported on first use.

What counts as an edge is SciPy's definition, because the input goes through
SciPy's own conversion (``scipy.sparse.csgraph._validation.validate_graph``):

- sparse input (every SciPy format, matrix or array): every stored entry is an
  edge, explicit zeros, ``inf`` and ``NaN`` included;
- dense input (ndarray, ``np.matrix``): nonzero entries are edges; ``0``,
  ``NaN`` and ``+-inf`` are not;
- masked arrays: every unmasked entry is an edge, zeros included.

Differences from SciPy 1.17, on purpose:

- nested Python lists are accepted (SciPy 1.17 raises ``AttributeError``
  because it reads ``csgraph.dtype``; older SciPy accepted them);
- SciPy's strong-component search never returns on a CSR matrix whose row
  stores the same column twice with only already-visited columns between the
  two entries (for example ``indices=[1, 1]`` in one row; only non-canonical
  CSR built by hand can hold such rows). concomp returns the components, numbered as
  SciPy's search would number them;
- CuPy arrays and ``cupyx.scipy.sparse`` matrices are accepted and give CuPy
  labels (weak components run on the GPU engine; strong ones on the CPU, because
  their numbering is the completion order of SciPy's sequential search), like
  ``cupyx.scipy.sparse.csgraph`` but with SciPy's numbering. For the partition
  alone on the GPU use :func:`concomp.strongly_connected_components`.

Examples
--------
>>> import numpy as np
>>> from concomp import csgraph
>>> A = np.array([[0, 1, 0, 0],
...               [0, 0, 1, 0],
...               [0, 1, 0, 0],
...               [0, 0, 0, 0]])
>>> csgraph.connected_components(A)
(2, array([0, 0, 0, 1], dtype=int32))
>>> csgraph.connected_components(A, connection="strong")
(3, array([1, 0, 0, 2], dtype=int32))
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from .._arrays import get_xp, is_cupy_array, is_cupy_sparse, to_device, to_numpy
from .._dispatch import HOST_STREAM_MIN_EDGES, driver, unsupported
from .._host_input import route_edges
from .._sparse import csr_structure, tocsr
from .._validate import HostEdges
from ..graph import Graph
from ..options import DEFAULTS
from ..streaming import host_roots

log = logging.getLogger("concomp.csgraph")

__all__ = ["connected_components", "minimum_spanning_tree"]

_LAZY = {"minimum_spanning_tree": "._mst"}


def connected_components(
    csgraph: Any,
    directed: bool = True,
    connection: str = "weak",
    return_labels: bool = True,
) -> tuple[int, Any] | int:
    """Connected components of a graph given as an ``N x N`` matrix, exactly like SciPy.

    Parameters
    ----------
    csgraph : array_like or sparse array or matrix
        The ``N x N`` adjacency matrix (see the module notes for what counts
        as an edge). CuPy arrays and ``cupyx`` sparse matrices are accepted.
    directed : bool
        If True, ``csgraph[i, j]`` is an edge from ``i`` to ``j`` only. With
        ``connection="weak"`` the direction never matters.
    connection : {"weak", "strong"}
        For directed graphs: weak components (paths in either direction) or
        strong ones (paths both ways). Case-insensitive, as in SciPy.
    return_labels : bool
        If False, return only the count.

    Returns
    -------
    n_components : int
    labels : ndarray of int32
        Length ``N``. Weak components are numbered by their smallest vertex,
        strong components in the order SciPy's depth-first search completes
        them. CuPy in, CuPy out.

    Raises
    ------
    ValueError
        ``connection`` other than ``"weak"``/``"strong"`` (SciPy's message), a
        matrix that is not square or not two-dimensional.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> from concomp.csgraph import connected_components
    >>> A = sp.csr_array(([1, 1, 1], ([0, 1, 3], [1, 0, 4])), shape=(5, 5))
    >>> connected_components(A, directed=False)
    (3, array([0, 0, 1, 2, 2], dtype=int32))
    >>> connected_components(A, connection="strong", return_labels=False)
    4
    """
    mode = connection.lower()
    if mode not in ("weak", "strong"):
        raise ValueError("connection must be 'weak' or 'strong'")
    if mode == "weak":
        directed = False
    if is_cupy_array(csgraph) or is_cupy_sparse(csgraph):
        count, labels = _device_components(csgraph, bool(directed))
    elif not directed and _is_scipy_sparse(csgraph):
        count, labels = _weak_host(_sparse_edges(csgraph))
    else:
        A = _host_csr(csgraph, bool(directed))
        if directed:
            scc = driver("cpu", "scc", "strong_component_labels")
            count, labels = scc(A.indptr, A.indices)
        else:
            count, labels = _weak_host(HostEdges(None, None, A.indptr, A.indices, A.shape[0]))
    if return_labels:
        return count, labels
    return count


def _is_scipy_sparse(obj: Any) -> bool:
    if not type(obj).__module__.startswith("scipy.sparse"):
        return False
    import scipy.sparse as sp

    return sp.issparse(obj)


def _sparse_edges(csgraph: Any) -> HostEdges:
    """The stored entries of a SciPy sparse matrix as edges, for weak components.

    Weak components read only which entries are stored, so the values are never
    converted (SciPy's own validation copies them to float64: 8 bytes per entry). CSC
    is used as it is: its arrays are the CSR of the transpose, which has the same weak
    components. COO is read as its coordinate pairs: duplicates and explicit zeros are
    stored entries like any other, so no CSR is built. SciPy's messages for bad shapes
    are kept.
    """
    if csgraph.ndim != 2:
        raise ValueError("compressed-sparse graph must be 2-D")
    if csgraph.shape[0] != csgraph.shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")
    n = int(csgraph.shape[0])
    if csgraph.format in ("csr", "csc"):
        return HostEdges(None, None, csgraph.indptr, csgraph.indices, n)
    if csgraph.format == "coo":
        return HostEdges(csgraph.row, csgraph.col, None, None, n)
    indptr, indices = csr_structure(csgraph)
    return HostEdges(None, None, indptr, indices, n)


def _host_csr(csgraph: Any, directed: bool):
    """SciPy's conversion of any host input to a float64 CSR matrix, with SciPy's errors."""
    if isinstance(csgraph, (list, tuple)):
        csgraph = np.asarray(csgraph)
    try:
        from scipy.sparse.csgraph._validation import validate_graph
    except ImportError:  # a private SciPy module: keep working if it moves
        return _csr_like_scipy(csgraph, directed)
    if _is_scipy_sparse(csgraph) and csgraph.format == "coo":
        csgraph = tocsr(csgraph)  # the CSR SciPy would make of it, made faster
    return validate_graph(csgraph, directed, dense_output=False)


def _csr_like_scipy(csgraph: Any, directed: bool):
    """Fallback for :func:`_host_csr` with SciPy's edge semantics and messages."""
    import scipy.sparse as sp

    if sp.issparse(csgraph):
        if not directed and csgraph.format == "csc":
            csgraph = csgraph.T
        A = tocsr(csgraph).astype(np.float64, copy=False)
    elif np.ma.isMaskedArray(csgraph):
        A = _dense_to_csr(np.ma.getdata(csgraph), ~np.ma.getmaskarray(csgraph))
    else:
        dense = np.asarray(csgraph)
        if dense.ndim == 2:
            keep = dense != 0
            if dense.dtype.kind in "fc":
                keep &= np.isfinite(dense)
        else:
            keep = dense
        A = _dense_to_csr(dense, keep)
    if A.shape[0] != A.shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")
    return A


def _dense_to_csr(values: np.ndarray, keep: np.ndarray):
    import scipy.sparse as sp

    if values.ndim != 2:
        raise ValueError("graph should have two dimensions")
    if values.shape[0] != values.shape[1]:
        raise ValueError("graph should be a square array")
    rows, cols = np.nonzero(keep)
    data = np.asarray(values[rows, cols].real, dtype=np.float64)
    return sp.csr_matrix((data, (rows, cols)), shape=values.shape)


def _weak_host(edges: HostEdges) -> tuple[int, np.ndarray]:
    """Weak components of host ``edges`` (a CSR or coordinate pairs), on the engine
    ``device="auto"`` picks (or ``CONCOMP_DEVICE``): on the GPU the arrays stream
    through the pinned feed as they are (:func:`concomp.streaming.host_roots`), and the
    labels come back to the host; on the CPU, :func:`_weak_graph`."""
    what = "csgraph.connected_components"
    if route_edges(edges, "auto", what=what, min_edges=HOST_STREAM_MIN_EDGES) == "cpu":
        n = edges.num_nodes
        if edges.indptr is not None:
            graph = Graph.from_csr(edges.indptr, edges.indices, n, directed=False)
        else:
            graph = Graph.from_edges(edges.src, edges.dst, n, directed=False)
        return _weak_graph(graph, "cpu")
    roots = host_roots(edges, None, None, DEFAULTS)
    count, labels = driver("gpu", "streaming", "stream_labels")(roots, None, True)
    return count, labels.astype(np.int32, copy=False)


def _weak(indptr: Any, indices: Any, n: int, device: str) -> tuple[int, Any]:
    """Weak components of a CSR graph on concomp's engine, in SciPy's numbering."""
    return _weak_graph(Graph.from_csr(indptr, indices, n, directed=False), device)


def _weak_graph(graph: Graph, device: str) -> tuple[int, Any]:
    """Weak components of ``graph`` on concomp's engine, in SciPy's numbering."""
    from ..components import canonical_labels, component_roots

    count, labels = canonical_labels(component_roots(graph, device=device))
    return count, labels.astype(np.int32, copy=False)


def _device_components(csgraph: Any, directed: bool) -> tuple[int, Any]:
    """CuPy / cupyx input: weak components on the GPU engine; strong ones on the CPU.

    SciPy numbers strong components in the order its sequential depth-first search
    completes them. The GPU engine finds the same partition (``scc_labels``), but that
    order is not a function of the partition: it depends on which arcs the search
    meets first, and recovering it means running that search over the condensation,
    a sequential walk over every arc between components. So the GPU engine declares
    ``scc.strong_component_labels`` unsupported and the search runs on the CPU."""
    if csgraph.ndim != 2:
        raise ValueError("graph should have two dimensions")
    if csgraph.shape[0] != csgraph.shape[1]:
        raise ValueError("graph should be a square array")
    n = int(csgraph.shape[0])
    if is_cupy_sparse(csgraph):
        A = csgraph.tocsr()
        indptr, indices = A.indptr, A.indices
    else:
        xp = get_xp(csgraph)
        keep = csgraph != 0
        if csgraph.dtype.kind in "fc":
            keep &= xp.isfinite(csgraph)
        rows, indices = xp.nonzero(keep)  # row-major: already grouped by row
        indptr = xp.zeros(n + 1, dtype=np.int64)
        xp.cumsum(xp.bincount(rows, minlength=n), out=indptr[1:])
    if not directed:
        return _weak(indptr, indices, n, "gpu")
    reason = unsupported("gpu", "scc", "strong_component_labels")
    dev = "cpu" if reason else "gpu"
    if reason:
        log.debug(
            "connected_components(connection='strong') on CuPy input runs on the CPU engine: %s",
            reason,
        )
        indptr, indices = to_numpy(indptr), to_numpy(indices)
    count, labels = driver(dev, "scc", "strong_component_labels")(indptr, indices)
    return count, to_device(labels)


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        try:
            module = importlib.import_module(_LAZY[name], __name__)
        except ImportError as exc:
            raise AttributeError(f"concomp.csgraph.{name} is not available: {exc}") from exc
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
