"""Components in the caller's terms: vertex-id arrays, a (vertex, component) table, a
sparse membership matrix.

Each function takes a graph-like input (and the keywords of
:func:`concomp.connected_components`) or a :class:`~concomp.results.ComponentLabels`
that call already returned, so one run serves several views.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .components import connected_components
from .results import ComponentLabels

__all__ = ["components", "components_frame", "membership_matrix"]


def _labels(graph: Any, kwargs: dict[str, Any]) -> ComponentLabels:
    if isinstance(graph, ComponentLabels):
        return graph
    kwargs.pop("return_labels", None)  # every view needs the labels
    return connected_components(graph, **kwargs)


def components(graph: Any, order: str = "size", **kwargs: Any) -> list[Any]:
    """The vertex ids of each connected component, one array per component.

    Parameters
    ----------
    graph : graph-like or ComponentLabels
        Anything :func:`concomp.connected_components` takes, or its result.
    order : {"size", "label"}
        ``"size"`` (default): largest component first, equal sizes in label
        order; ``"label"``: in label order (SciPy's: by smallest vertex).
    **kwargs
        Passed to :func:`concomp.connected_components` (``device``,
        ``algorithm``, ``renumber``, ``num_nodes``, ...).

    Returns
    -------
    list of arrays
        The input's ids (strings, 64-bit ids, NetworkX node names where the
        input was renumbered), each component's in vertex order: ascending
        ids, or ``G.nodes`` order for NetworkX graphs.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> edges = (np.array(["ann", "cy", "dee"]), np.array(["bob", "dee", "eve"]))
    >>> [c.tolist() for c in concomp.components(edges)]
    [['cy', 'dee', 'eve'], ['ann', 'bob']]
    >>> [c.tolist() for c in concomp.components(edges, order="label")]
    [['ann', 'bob'], ['cy', 'dee', 'eve']]
    """
    return _labels(graph, kwargs).components(order)


def components_frame(
    graph: Any,
    *,
    kind: str | None = None,
    columns: tuple[str, str] = ("vertex", "component"),
    **kwargs: Any,
) -> Any:
    """A ``(vertex, component)`` frame with the input's vertex ids, one row per vertex.

    Parameters
    ----------
    graph : graph-like or ComponentLabels
        Anything :func:`concomp.connected_components` takes, or its result.
        Frames with string, categorical or sparse integer id columns are
        renumbered and their ids come back in the ``vertex`` column.
    kind : {"pandas", "polars"}, optional
        The frame library; default the input's (polars for a polars frame,
        pandas otherwise).
    columns : (str, str)
        Names of the vertex and component columns.
    **kwargs
        Passed to :func:`concomp.connected_components` (``source``/``target``
        column names go through :func:`concomp.as_graph` for frames as usual).

    Returns
    -------
    pandas.DataFrame or polars.DataFrame
        Rows in vertex order; ``component`` is the canonical label (SciPy's
        numbering, by smallest vertex id).

    Examples
    --------
    >>> import pandas as pd, concomp
    >>> df = pd.DataFrame({"src": ["ann", "cy"], "dst": ["bob", "ann"]})
    >>> concomp.components_frame(df)
      vertex  component
    0    ann          0
    1    bob          0
    2     cy          0
    """
    if kind is None:
        kind = "polars" if type(graph).__module__.split(".")[0] == "polars" else "pandas"
    return _labels(graph, kwargs).to_frame(kind, columns)


def membership_matrix(graph: Any, *, dtype: Any = np.float32, **kwargs: Any) -> Any:
    """Sparse ``(n_vertices, n_components)`` matrix: a 1 at each vertex's component.

    Parameters
    ----------
    graph : graph-like or ComponentLabels
        Anything :func:`concomp.connected_components` takes, or its result.
    dtype : dtype
        Type of the stored ones (float32 by default: CuPy's sparse matrices
        take floating types only).
    **kwargs
        Passed to :func:`concomp.connected_components`.

    Returns
    -------
    scipy.sparse.csr_array or cupyx.scipy.sparse.csr_matrix
        Rows are vertices in vertex order (``ComponentLabels.vertex_ids``:
        ascending ids where the input was renumbered), columns components by
        label. ``M.T @ x`` sums a per-vertex ``x`` over each component.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> M = concomp.membership_matrix((np.array([0, 2]), np.array([1, 3])))
    >>> M.shape, M.toarray().astype(int).tolist()
    ((4, 2), [[1, 0], [1, 0], [0, 1], [0, 1]])
    """
    return _labels(graph, kwargs).membership_matrix(dtype)
