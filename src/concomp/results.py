"""Component labels in the caller's terms: the ids the input used, groups, tables, matrices.

:func:`concomp.connected_components` returns a :class:`ComponentLabels`: the
``(n_components, labels)`` pair SciPy returns (a tuple, unpacked as before), which
also carries the vertex ids. ``labels[i]`` is the component of vertex ``i``; vertex
``i`` is ``node_ids[i]`` where the input was renumbered (strings, sparse 64-bit ids,
NetworkX node names) and ``i`` itself where ``node_ids`` is None.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arrays import get_xp, is_cupy_array, sparse_module, to_numpy
from .errors import InvalidGraphError

__all__ = ["FRAME_KINDS", "ORDERS", "ComponentLabels"]

#: ``order=`` values of :meth:`ComponentLabels.components`.
ORDERS = ("size", "label")
#: ``kind=`` values of :meth:`ComponentLabels.to_frame`.
FRAME_KINDS = ("pandas", "polars")


class ComponentLabels(tuple[int, Any]):
    """``(n_components, labels)`` with the vertex ids they refer to.

    A 2-tuple, so ``n, labels = concomp.connected_components(...)`` reads as it
    always has; the attributes and methods below shape the result in the ids
    of the input.

    Attributes
    ----------
    num_components : int
        Number of components (the tuple's first entry).
    labels : array
        Component of each vertex (the tuple's second entry), NumPy or CuPy.
    node_ids : array or None
        The input's id of each vertex where the input was renumbered
        (ascending distinct ids, or ``G.nodes`` order for NetworkX graphs);
        None where the vertices are the ids ``0 .. n-1`` themselves. Ids that
        are numbers live where ``labels`` live; strings and objects on the host.
    canonical : bool
        Whether ``labels`` are SciPy's numbering ``0 .. n_components-1``
        (False: raw root labels, the smallest vertex position of each component).

    Examples
    --------
    >>> import numpy as np, concomp
    >>> res = concomp.connected_components((np.array(["a", "c"]), np.array(["b", "d"])))
    >>> n, labels = res
    >>> n, labels.tolist(), res.node_ids.tolist()
    (2, [0, 0, 1, 1], ['a', 'b', 'c', 'd'])
    >>> res.to_dict()
    {'a': 0, 'b': 0, 'c': 1, 'd': 1}
    """

    node_ids: Any
    canonical: bool

    def __new__(
        cls, num_components: int, labels: Any, node_ids: Any = None, canonical: bool = True
    ) -> ComponentLabels:
        self = super().__new__(cls, (int(num_components), labels))
        self.node_ids = node_ids
        self.canonical = bool(canonical)
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        return (ComponentLabels, (self[0], self[1], self.node_ids, self.canonical))

    @property
    def num_components(self) -> int:
        return int(self[0])

    @property
    def labels(self) -> Any:
        return self[1]

    @property
    def vertex_ids(self) -> Any:
        """The id of each vertex: ``node_ids``, or ``range(n)`` where that is None."""
        if self.node_ids is not None:
            return self.node_ids
        xp = get_xp(self.labels)
        return xp.arange(self.labels.shape[0], dtype=self.labels.dtype)

    def dense_labels(self) -> Any:
        """Labels numbered ``range(n_components)`` (raw roots renumbered in order)."""
        if self.canonical:
            return self.labels
        xp = get_xp(self.labels)
        _, inverse = xp.unique(self.labels, return_inverse=True)
        return inverse.reshape(-1).astype(self.labels.dtype, copy=False)

    def components(self, order: str = "size") -> list[Any]:
        """The vertex ids of each component, one array per component.

        Parameters
        ----------
        order : {"size", "label"}
            ``"size"``: largest component first, equal sizes by label (the
            component holding the smaller vertex first); ``"label"``: by label.

        Returns
        -------
        list of arrays
            Each array lists a component's vertex ids in vertex order (ascending
            ids, or ``G.nodes`` order for NetworkX), as :attr:`vertex_ids` holds
            them: NumPy or CuPy, strings and objects as NumPy object arrays.
        """
        if order not in ORDERS:
            raise InvalidGraphError(
                f"argument `order`: {order!r} is not valid; allowed: {ORDERS}. Fix: pass "
                "order='size' (largest first) or order='label' (by component label)."
            )
        ids, labels = self._aligned()
        xp = get_xp(labels)
        count = self.num_components
        by_label = xp.argsort(labels, kind="stable")
        sizes = xp.bincount(labels, minlength=count)
        ends = to_numpy(xp.cumsum(sizes)).tolist()
        groups = [ids[by_label[a:b]] for a, b in zip([0, *ends[:-1]], ends)]
        if order == "label":
            return groups
        rank = np.argsort(-to_numpy(sizes), kind="stable").tolist()
        return [groups[c] for c in rank]

    def membership_matrix(self, dtype: Any = np.float32) -> Any:
        """Sparse ``(n_vertices, n_components)`` matrix with a 1 at ``(i, labels[i])``.

        Rows are the vertices in :attr:`vertex_ids` order, columns the components
        by label. A ``scipy.sparse.csr_array`` for NumPy labels, a
        ``cupyx.scipy.sparse.csr_matrix`` for CuPy labels. ``M.T @ x`` sums ``x``
        over each component; ``M.sum(axis=0)`` gives the sizes.
        """
        labels = self.dense_labels()
        xp = get_xp(labels)
        n = int(labels.shape[0])
        indptr = xp.arange(n + 1, dtype=np.int64 if n > np.iinfo(np.int32).max else np.int32)
        data = xp.ones(n, dtype=dtype)
        sparse = sparse_module(labels)
        build = sparse.csr_matrix if is_cupy_array(labels) else sparse.csr_array
        return build(
            (data, labels.astype(indptr.dtype, copy=False), indptr),
            shape=(n, self.num_components),
        )

    def to_frame(self, kind: str = "pandas", columns: tuple[str, str] = ("vertex", "component")):
        """A ``(vertex, component)`` table on the host, one row per vertex.

        Parameters
        ----------
        kind : {"pandas", "polars"}
            The frame library.
        columns : (str, str)
            Names of the vertex-id and the component-label columns.
        """
        if kind not in FRAME_KINDS:
            raise InvalidGraphError(
                f"argument `kind`: {kind!r} is not valid; allowed: {FRAME_KINDS}. Fix: pass "
                "one of those."
            )
        data = {columns[0]: to_numpy(self.vertex_ids), columns[1]: to_numpy(self.labels)}
        if kind == "polars":
            import polars as pl

            return pl.DataFrame(data)
        import pandas as pd

        return pd.DataFrame(data)

    def to_dict(self) -> dict[Any, int]:
        """``{vertex id: component label}`` (NetworkX input: ``{node: label}``)."""
        return dict(zip(to_numpy(self.vertex_ids).tolist(), to_numpy(self.labels).tolist()))

    # ------------------------------------------------------------------ helpers
    def _aligned(self) -> tuple[Any, Any]:
        """Vertex ids and dense labels on one device (the host where the ids are objects)."""
        ids, labels = self.vertex_ids, self.dense_labels()
        if is_cupy_array(labels) and not is_cupy_array(ids):
            labels = to_numpy(labels)
        return ids, labels
