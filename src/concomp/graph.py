"""The graph container shared by every engine.

A :class:`Graph` is an immutable edge set over the vertices ``0 .. n-1``. It keeps
the representation it was built from (an edge list or a CSR matrix) and derives
the other one lazily, caching it. Edge ids are positions in the input: for an
edge list the i-th pair, for a CSR matrix the i-th stored entry. Spanning forests
and minimum spanning forests return those ids, so nothing about the input is lost
by the normalisation that the algorithms need (symmetrising, dropping self loops).

Arrays live on the host (NumPy) or the device (CuPy); ``graph.device`` says which.
"""

from __future__ import annotations

import contextlib
from typing import Any

import numpy as np

from ._arrays import get_xp, index_dtype_for, is_cupy_array, to_numpy
from ._checks import validate_csr, validate_edges

__all__ = ["Graph"]

#: Entries up to which a host CSR's rows are expanded by ``numpy.repeat`` (above it, the
#: parallel compiled kernel).
_REPEAT_ROWS_UP_TO = 1 << 20


class Graph:
    """An immutable graph on the vertices ``range(num_nodes)``.

    Build one with :func:`concomp.as_graph` (any graph-like input, validated) or
    the constructors :meth:`from_edges` and :meth:`from_csr`.

    Parameters
    ----------
    num_nodes : int
        Number of vertices.
    src, dst : array, optional
        Edge list (one entry per input edge).
    indptr, indices : array, optional
        CSR rows; the i-th stored entry is input edge ``i``.
    weights : array, optional
        One weight per input edge (same order as the edge ids).
    directed : bool
        Whether the edges have a direction. Connectivity is always weak
        (direction ignored); the flag matters for strong components and for
        :mod:`concomp.csgraph` conversions.
    symmetric : bool
        The caller guarantees that every edge ``(u, v)`` is also listed as
        ``(v, u)``. Undirected algorithms then use the CSR as it is instead of
        adding reverse edges.
    node_ids : array, optional
        The caller's id of each vertex when the input was renumbered
        (:func:`concomp.as_graph` with ``renumber``): vertex ``i`` is
        ``node_ids[i]``. None when the ids are the positions ``0 .. n-1``.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp import Graph
    >>> g = Graph.from_edges(np.array([0, 1]), np.array([1, 2]), num_nodes=4)
    >>> g.num_nodes, g.num_edges
    (4, 2)
    >>> indptr, indices, eid = g.undirected_csr()
    >>> indptr.tolist(), indices.tolist(), eid.tolist()
    ([0, 1, 3, 4, 4], [1, 2, 0, 1], [0, 1, 0, 1])
    """

    __slots__ = (
        "num_nodes",
        "directed",
        "symmetric",
        "weights",
        "node_ids",
        "_src",
        "_dst",
        "_indptr",
        "_indices",
        "_coo_to_csr",
        "_ucsr",
        "_num_edges",
        "_device_cache",
    )

    def __init__(
        self,
        num_nodes: int,
        *,
        src: Any = None,
        dst: Any = None,
        indptr: Any = None,
        indices: Any = None,
        weights: Any = None,
        directed: bool = False,
        symmetric: bool = False,
        node_ids: Any = None,
    ) -> None:
        self.num_nodes = int(num_nodes)
        if node_ids is not None and int(node_ids.shape[0]) != self.num_nodes:
            raise ValueError(
                f"node_ids has {node_ids.shape[0]} entries for {self.num_nodes} vertices"
            )
        self.node_ids = node_ids
        self.directed = bool(directed)
        self.symmetric = bool(symmetric)
        self.weights = weights
        self._src, self._dst = src, dst
        self._indptr, self._indices = indptr, indices
        self._coo_to_csr = None
        self._ucsr: tuple[Any, Any, Any] | None = None
        self._device_cache: dict = {}
        if src is not None:
            self._num_edges = int(src.shape[0])
        elif indices is not None:
            self._num_edges = int(indices.shape[0])
        else:
            raise TypeError("Graph needs either (src, dst) or (indptr, indices)")

    # ------------------------------------------------------------------ builders
    @classmethod
    def from_edges(
        cls,
        src: Any,
        dst: Any,
        num_nodes: int | None = None,
        *,
        weights: Any = None,
        directed: bool = False,
        symmetric: bool = False,
        node_ids: Any = None,
    ) -> Graph:
        """Validated graph from two id arrays (NumPy or CuPy) of positions ``range(n)``;
        ``node_ids`` (length ``n``) names the vertices where the ids were renumbered."""
        stats: dict = {}  # the GPU probe's answers, where the device checks read them
        n, src, dst, w = validate_edges(src, dst, num_nodes, weights=weights, stats=stats)
        g = cls(
            n,
            src=src,
            dst=dst,
            weights=w,
            directed=directed,
            symmetric=symmetric,
            node_ids=node_ids,
        )
        g._adopt_probe(stats)
        return g

    @classmethod
    def from_csr(
        cls,
        indptr: Any,
        indices: Any,
        num_nodes: int | None = None,
        *,
        weights: Any = None,
        directed: bool = False,
        symmetric: bool = False,
    ) -> Graph:
        """Validated graph from CSR arrays (NumPy or CuPy)."""
        stats: dict = {}  # the GPU probe's answers, where the device checks read them
        n, indptr, indices, w = validate_csr(
            indptr, indices, num_nodes, weights=weights, stats=stats, symmetric=symmetric
        )
        g = cls(
            n, indptr=indptr, indices=indices, weights=w, directed=directed, symmetric=symmetric
        )
        g._adopt_probe(stats)
        return g

    def _adopt_probe(self, stats: dict) -> None:
        """Cache the GPU probe's answers that validation read with its own facts
        (:mod:`concomp._gpu.probe`): the first run then needs no read of its own."""
        if stats:
            self._device_cache["probe"] = stats

    # ------------------------------------------------------------------ facts
    @property
    def num_edges(self) -> int:
        """Number of input edges (self loops and duplicates included)."""
        return self._num_edges

    @property
    def device(self) -> str:
        """``"gpu"`` when the arrays are CuPy arrays, else ``"cpu"``."""
        a = self._src if self._src is not None else self._indices
        return "gpu" if is_cupy_array(a) else "cpu"

    @property
    def xp(self):
        """The array module of the graph's arrays (``numpy`` or ``cupy``)."""
        return get_xp(self._src if self._src is not None else self._indices)

    @property
    def index_dtype(self) -> np.dtype:
        """int32 when ids and the symmetrised edge count fit, else int64."""
        return index_dtype_for(self.num_nodes, 2 * self._num_edges)

    @property
    def is_weighted(self) -> bool:
        return self.weights is not None

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        w = ", weighted" if self.weights is not None else ""
        r = ", renumbered" if self.node_ids is not None else ""
        return (
            f"Graph(n={self.num_nodes}, m={self.num_edges}, {kind}{w}{r}, device={self.device!r})"
        )

    @property
    def has_coo(self) -> bool:
        """Whether the edge pairs are held (built from pairs, or :meth:`coo` was called);
        False for a graph built from CSR arrays whose pairs were never expanded."""
        return self._src is not None

    # ------------------------------------------------------------------ views
    def coo(self) -> tuple[Any, Any]:
        """``(src, dst)`` of every input edge, in edge-id order."""
        if self._src is None:
            xp = self.xp
            if xp is np and self._num_edges <= _REPEAT_ROWS_UP_TO:
                # no compiled code for small graphs: a first call need not load numba
                rows = np.arange(self.num_nodes, dtype=self._indices.dtype)
                self._src = np.repeat(rows, np.diff(self._indptr))
            elif xp is np:
                from ._shared.csr import expand_rows

                self._src = expand_rows(self._indptr, self._indices.dtype)
            else:  # cupy.repeat takes no array counts; one binary search per entry
                pos = xp.arange(self._num_edges, dtype=self._indptr.dtype)
                row = xp.searchsorted(self._indptr, pos, side="right") - 1
                self._src = row.astype(self._indices.dtype, copy=False)
            self._dst = self._indices
        return self._src, self._dst

    def csr(self) -> tuple[Any, Any, Any]:
        """``(indptr, indices, edge_ids)`` of the input edges as given (rows = sources).

        ``edge_ids`` maps each stored entry to its input edge id (``None`` when the
        CSR order is the edge-id order, as for graphs built from CSR).
        """
        if self._indptr is None:
            src, dst = self._src, self._dst
            indptr, order = _counting_sort(src, self.num_nodes)
            self._indptr, self._indices, self._coo_to_csr = indptr, dst[order], order
        return self._indptr, self._indices, self._coo_to_csr

    def undirected_csr(self) -> tuple[Any, Any, Any]:
        """Symmetric CSR of the undirected graph, with the input edge id of each entry.

        Every input edge ``(u, v)`` with ``u != v`` appears as ``u -> v`` and
        ``v -> u`` (unless the graph is flagged ``symmetric``, whose CSR is used as
        is). Self loops are dropped; duplicate edges are kept (harmless for
        connectivity, and needed to report edge ids).
        """
        if self._ucsr is None or self._ucsr[2] is None:
            if self.symmetric:
                indptr, indices, eid = self.csr()
                if eid is None:
                    eid = self.xp.arange(self._num_edges, dtype=indices.dtype)
                self._ucsr = (indptr, indices, eid)
            else:
                self._ucsr = _symmetrise(self)
        return self._ucsr

    def undirected_rows(self) -> tuple[Any, Any]:
        """``(indptr, indices)`` of :meth:`undirected_csr` without its edge ids: for a
        graph flagged ``symmetric`` the stored CSR as is, so a run that records no
        forest allocates nothing here."""
        if self._ucsr is not None:
            return self._ucsr[0], self._ucsr[1]
        if self.symmetric:
            indptr, indices, _ = self.csr()
            self._ucsr = (indptr, indices, None)  # edge ids made on first request
            return indptr, indices
        return self.undirected_csr()[:2]

    def clear_device_cache(self) -> None:
        """Release device work buffers cached on this graph (e.g. captured CUDA graphs)."""
        self._device_cache.clear()

    def edge_weights(self) -> Any:
        """Weights in edge-id order (``None`` if unweighted)."""
        return self.weights

    def to(self, device: str) -> Graph:
        """Copy of the graph with its arrays on ``"cpu"`` or ``"gpu"``.

        A graph whose arrays exceed the device's total memory raises
        :class:`~concomp.DeviceMemoryError` before anything is copied; one that
        exceeds the memory free at the moment raises it when CuPy's allocator fails.
        """
        if device == self.device:
            return self
        guard: Any = contextlib.nullcontext()
        if device == "cpu":
            move = to_numpy
        elif device == "gpu":
            from ._gpu._compat import check_device_fits, cupy_or_raise, out_of_memory_guard

            cp = cupy_or_raise()
            need = check_device_fits(
                lambda: f"copying {self!r} to the GPU",
                self._array_bytes(),
                fix="stream its edges instead (concomp.stream_components, or "
                "max_device_bytes= where the call takes it) or use device='cpu'",
            )
            guard = out_of_memory_guard(f"copying {self!r} to the GPU", need)
            move = cp.asarray
        else:
            from .errors import InvalidGraphError

            raise InvalidGraphError(f"device={device!r} is not valid; use 'cpu' or 'gpu'")

        def mv(a):
            return None if a is None else move(a)

        with guard:
            g = Graph(
                self.num_nodes,
                src=mv(self._src),
                dst=mv(self._dst),
                indptr=mv(self._indptr),
                indices=mv(self._indices),
                weights=mv(self.weights),
                directed=self.directed,
                symmetric=self.symmetric,
                # ids that are numbers go along; strings and objects can only live on the host
                node_ids=self.node_ids
                if self.node_ids is None or self.node_ids.dtype.kind == "O"
                else mv(self.node_ids),
            )
            if self._coo_to_csr is not None:
                g._coo_to_csr = mv(self._coo_to_csr)
        return g

    def _array_bytes(self) -> int:
        """Bytes of the arrays :meth:`to` copies."""
        arrays = (self._src, self._dst, self._indptr, self._indices, self.weights)
        ids = (
            self.node_ids if self.node_ids is not None and self.node_ids.dtype.kind != "O" else None
        )
        return sum(int(a.nbytes) for a in (*arrays, ids, self._coo_to_csr) if a is not None)


def _counting_sort(keys: Any, n: int) -> tuple[Any, Any]:
    """Stable order of ``keys`` (values in [0, n)) and the CSR row pointer."""
    if is_cupy_array(keys):
        from ._gpu._compat import device_counting_sort

        return device_counting_sort(keys, n, index_dtype_for(n, keys.size))
    from ._shared.csr import counting_sort

    return counting_sort(keys, n)


def _symmetrise(g: Graph) -> tuple[Any, Any, Any]:
    """The symmetric CSR with input edge ids (:meth:`Graph.undirected_csr`)."""
    src, dst = g.coo()
    dt = g.index_dtype
    if g.device == "gpu":  # kernels of the GPU engine, no CuPy reductions
        from ._gpu._compat import device_symmetric_csr

        ptr = index_dtype_for(g.num_nodes, 2 * g.num_edges)
        return device_symmetric_csr(src, dst, g.num_nodes, dt, ptr)
    xp = g.xp
    keep = src != dst
    eid = xp.arange(g.num_edges, dtype=dt)
    if not bool(keep.all()):
        src, dst, eid = src[keep], dst[keep], eid[keep]
    s2 = xp.concatenate([src, dst]).astype(dt, copy=False)
    d2 = xp.concatenate([dst, src]).astype(dt, copy=False)
    e2 = xp.concatenate([eid, eid])
    indptr, order = _counting_sort(s2, g.num_nodes)
    return indptr, d2[order], e2[order]
