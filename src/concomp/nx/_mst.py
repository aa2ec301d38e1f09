"""Minimum and maximum spanning edges and trees with NetworkX's semantics.

NetworkX's Kruskal sorts the edges stably by weight in ``G.edges`` order and keeps
each edge that joins two trees. Ranking the edges in that same order gives distinct
integer weights whose (unique) minimum spanning forest is exactly that Kruskal
forest, so concomp's engines (Kruskal on the CPU, Borůvka on the GPU) return
NetworkX's tree edge for edge, and the edges are yielded in NetworkX's order (by rank).

``algorithm="prim"`` and ``"boruvka"`` are accepted and give the same forest: with
distinct weights that is the one minimum spanning forest every algorithm finds; where
weights tie, NetworkX's Prim and Borůvka may pick another, equally light, forest.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

from ..graph import Graph
from ..msf import minimum_spanning_forest
from ._components import resolve_device
from ._graph import ConcompGraph, from_networkx

__all__ = [
    "ALGORITHMS",
    "maximum_spanning_edges",
    "maximum_spanning_tree",
    "minimum_spanning_edges",
    "minimum_spanning_tree",
]

ALGORITHMS = ("kruskal", "prim", "boruvka", "borůvka")


def _check(G: Any, algorithm: Any, weight: Any) -> ConcompGraph:
    if algorithm not in ALGORITHMS:
        raise ValueError(f"{algorithm} is not a valid choice for an algorithm.")
    g = G if isinstance(G, ConcompGraph) else from_networkx(G, preserve_all_attrs=True)
    if g.directed:
        raise nx.NetworkXNotImplemented("not implemented for directed type")
    if g.multigraph and algorithm in ("boruvka", "borůvka"):
        # NetworkX's Borůvka is declared not implemented for multigraphs
        raise nx.NetworkXNotImplemented("not implemented for multigraph type")
    if not g.has_edges():
        raise NotImplementedError(
            "the concomp graph was converted without its edge list; convert it with "
            "from_networkx(G, weight=...) or preserve_all_attrs=True"
        )
    return g


def _tree_edge_ids(
    g: ConcompGraph, minimum: bool, weight: Any, ignore_nan: bool, device: str | None
) -> np.ndarray:
    """Positions (in ``G.edges`` order) of the forest edges, in NetworkX's yield order."""
    w = g.edge_values(weight, 1)
    src, dst = g.edge_src, g.edge_dst
    assert src is not None and dst is not None
    keep = np.arange(w.shape[0])
    if w.dtype.kind == "f":
        nan = np.isnan(w)
        if nan.any():
            if not ignore_nan:
                first = int(np.flatnonzero(nan)[0])
                raise ValueError(f"NaN found as an edge weight. Edge {_edge(g, first)}")
            keep = np.flatnonzero(~nan)
            w = w[keep]
    # stable sort: ties keep G.edges order, as NetworkX's sorted() does (also reversed)
    key = w if minimum else _negated(w)
    order = np.argsort(key, kind="stable")
    rank = np.empty(order.shape[0], dtype=np.int64)
    rank[order] = np.arange(order.shape[0], dtype=np.int64)
    if keep.shape[0] == 0:
        return keep
    graph = Graph(len(g.nodes), src=src[keep], dst=dst[keep], weights=rank)
    ids = np.asarray(minimum_spanning_forest(graph, device=resolve_device(device)).edge_ids)
    ids = ids[np.argsort(rank[ids])]
    return keep[ids]


def _negated(w: np.ndarray) -> np.ndarray:
    """A key whose ascending order is ``w``'s descending order, ties kept equal.

    ``-w`` overflows for the smallest int64 and for unsigned values, so integers are
    replaced by their dense rank first.
    """
    if w.dtype.kind == "f":
        return -w
    _, dense = np.unique(w, return_inverse=True)
    return -dense.astype(np.int64).ravel()


def _edge(g: ConcompGraph, i: int, *, keys: bool = True, data: bool = True) -> tuple:
    assert g.edge_src is not None and g.edge_dst is not None
    u, v = g.nodes[int(g.edge_src[i])], g.nodes[int(g.edge_dst[i])]
    out: tuple = (u, v)
    if g.multigraph and keys and g.edge_keys is not None:
        out += (g.edge_keys[i],)
    if data:
        out += (g.edge_data[i] if g.edge_data is not None else {},)
    return out


def _spanning_edges(
    g: ConcompGraph,
    minimum: bool,
    weight: Any,
    keys: bool,
    data: bool,
    ignore_nan: bool,
    device: str | None,
) -> Iterator[tuple]:
    ids = _tree_edge_ids(g, minimum, weight, ignore_nan, device)
    for i in ids.tolist():
        yield _edge(g, i, keys=keys, data=data)


def minimum_spanning_edges(
    G: Any,
    algorithm: str = "kruskal",
    weight: Any = "weight",
    keys: bool = True,
    data: bool = True,
    ignore_nan: bool = False,
    *,
    device: str | None = None,
) -> Iterator[tuple]:
    """Generate the edges of a minimum spanning forest (NetworkX's Kruskal forest)."""
    g = _check(G, algorithm, weight)
    return _spanning_edges(g, True, weight, keys, data, ignore_nan, device)


def maximum_spanning_edges(
    G: Any,
    algorithm: str = "kruskal",
    weight: Any = "weight",
    keys: bool = True,
    data: bool = True,
    ignore_nan: bool = False,
    *,
    device: str | None = None,
) -> Iterator[tuple]:
    """Generate the edges of a maximum spanning forest (NetworkX's Kruskal forest)."""
    g = _check(G, algorithm, weight)
    return _spanning_edges(g, False, weight, keys, data, ignore_nan, device)


def _tree(g: ConcompGraph, edges: Iterator[tuple]) -> Any:
    T = g.graph_class()
    T.graph.update(g.graph_attrs)
    if g.node_data is not None:
        T.add_nodes_from(zip(g.nodes, g.node_data))
    else:
        T.add_nodes_from(g.nodes)
    T.add_edges_from(edges)
    return T


def minimum_spanning_tree(
    G: Any,
    weight: Any = "weight",
    algorithm: str = "kruskal",
    ignore_nan: bool = False,
    *,
    device: str | None = None,
) -> Any:
    """A minimum spanning forest of ``G`` as a graph of ``G``'s class, attributes kept."""
    g = _check(G, algorithm, weight)
    edges = list(_spanning_edges(g, True, weight, True, True, ignore_nan, device))
    return _tree(g, iter(edges))


def maximum_spanning_tree(
    G: Any,
    weight: Any = "weight",
    algorithm: str = "kruskal",
    ignore_nan: bool = False,
    *,
    device: str | None = None,
) -> Any:
    """A maximum spanning forest of ``G`` as a graph of ``G``'s class, attributes kept."""
    g = _check(G, algorithm, weight)
    edges = list(_spanning_edges(g, False, weight, True, True, ignore_nan, device))
    return _tree(g, iter(edges))
