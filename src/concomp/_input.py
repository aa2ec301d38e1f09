"""The one entry for graph-like input: :func:`as_graph`, file paths included.

File paths are read by :mod:`concomp.io`; everything else is converted and checked
by :mod:`concomp._validate`. Every public function calls :func:`as_graph`.
"""

from __future__ import annotations

import os
from typing import Any

from ._validate import coerce_graph
from .graph import Graph
from .io import read_graph

__all__ = ["as_graph"]


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
    renumber: str | bool = "auto",
) -> Graph:
    """Normalise any graph-like input into a validated :class:`Graph`.

    Accepted: a :class:`Graph`; ``(src, dst)`` or ``(src, dst, weights)`` tuples;
    ``(2, m)`` and ``(m, 2)`` integer arrays (a ``(2, 2)`` array reads as
    ``(2, m)``, like a ``torch`` ``edge_index``); a list of ``(u, v)`` pairs (edges,
    however many); SciPy sparse matrices and arrays
    of any format (stored entries are edges, data are weights); pandas and polars
    frames and pyarrow tables and record batches (columns named by
    ``source``/``target``/``weight`` or found among common names); NetworkX graphs
    (nodes numbered in ``G.nodes`` order, like ``networkx.to_scipy_sparse_array``);
    ``torch`` tensors; CuPy arrays and
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
    renumber : {"auto", True, False}
        Whether edge ids are replaced by dense positions ``0 .. k-1`` over the
        ``k`` distinct ids, kept in :attr:`Graph.node_ids` (vertex ``i`` is
        ``node_ids[i]``; ascending, or first-appearance order for ids of mixed
        types that do not sort). ``"auto"`` renumbers ids that are not numbers
        (strings, objects, categorical and string columns, pyarrow string
        arrays), integer ids that are negative or beyond 2**62, and integer ids
        whose span ``max id + 1`` exceeds both 2**24 and 4 times the number of
        distinct ids; never with ``num_nodes`` given for integer ids. True
        renumbers any edge ids; False never does (ids must then be integers in
        ``[0, num_nodes)``). NetworkX graphs keep their node names in
        ``node_ids`` (``G.nodes`` order) unless False or the names are
        ``0 .. n-1`` in order. SciPy matrices, :class:`Graph` objects and
        graph files are never renumbered: their vertices are positions.

    Returns
    -------
    Graph

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.as_graph(np.array([[0, 1], [1, 2]]))
    Graph(n=3, m=2, undirected, device='cpu')
    >>> g = concomp.as_graph((np.array(["ann", "bob"]), np.array(["bob", "cy"])))
    >>> g, g.node_ids.tolist()
    (Graph(n=3, m=2, undirected, renumbered, device='cpu'), ['ann', 'bob', 'cy'])
    >>> edges = (np.array([0]), np.array([5]))
    >>> concomp.as_graph(edges, num_nodes=3)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    concomp.errors.InvalidGraphError: argument `dst`: vertex id 5 at position 0 is >=
    num_nodes=3; ids must lie in [0, 3). Fix: pass num_nodes > 5 or remove the edge.
    """
    if isinstance(graph, (str, bytes, os.PathLike)):
        graph = read_graph(graph, weighted=None if with_weights else False)
    return coerce_graph(
        graph,
        num_nodes,
        weights=weights,
        directed=directed,
        source=source,
        target=target,
        weight=weight,
        with_weights=with_weights,
        renumber=renumber,
    )
