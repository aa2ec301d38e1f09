"""The backend graph: a NetworkX graph as CSR arrays plus its node-label mapping.

:func:`from_networkx` reads NetworkX's adjacency once. Node ``i`` is the ``i``-th node
of ``G`` (``list(G)`` order) and the CSR row ``i`` lists its neighbours in ``G``'s own
adjacency order, so every order NetworkX derives from iteration (component order, the
depth-first search of its strong components, ``G.edges`` order) can be reproduced from
the arrays. Edge attributes and node and graph attributes are kept only where asked for
(NetworkX's ``edge_attrs`` / ``preserve_*_attrs`` arguments).

The conversion is stored in NetworkX's backend cache, ``G.__networkx_cache__``, under
the same keys NetworkX's dispatcher uses, so a second call on an unchanged graph does
not convert again; NetworkX clears that cache whenever the graph is changed through its
methods (``add_edge``, ``remove_node``, ...).
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain, compress
from typing import Any

import networkx as nx
import numpy as np

from ..graph import Graph

__all__ = ["BACKEND_NAME", "ConcompGraph", "from_networkx", "to_networkx"]

BACKEND_NAME = "concomp"


class ConcompGraph:
    """A NetworkX graph held as arrays for concomp's engines.

    Build one with :func:`from_networkx`; :func:`to_networkx` turns it back.

    Attributes
    ----------
    nodes : list
        Node labels; vertex ``i`` of the arrays is ``nodes[i]``.
    indptr, indices : ndarray of int64
        CSR of NetworkX's adjacency: row ``i`` lists the neighbours of ``nodes[i]``
        (successors for directed graphs), one entry per neighbour whatever the number
        of parallel edges, in ``G``'s adjacency order.
    directed, multigraph : bool
    edge_src, edge_dst : ndarray of int64 or None
        One entry per edge in ``G.edges`` order (each parallel edge of a multigraph
        separately); present when edge attributes were asked for.
    edge_keys : list or None
        Multigraph keys of those edges.
    edge_data : list of dict or None
        The edges' attribute dicts (NetworkX's own dicts) when all edge attributes
        were preserved.
    node_data : list of dict or None
        Node attribute dicts, when node attributes were preserved.
    graph_attrs : dict
        ``G.graph`` (a shallow copy), when graph attributes were preserved.
    """

    __networkx_backend__ = BACKEND_NAME

    def __init__(
        self,
        nodes: list,
        indptr: np.ndarray,
        indices: np.ndarray,
        *,
        directed: bool,
        multigraph: bool,
        graph_class: type | None = None,
    ) -> None:
        self.nodes = nodes
        self.indptr = indptr
        self.indices = indices
        self.directed = directed
        self.multigraph = multigraph
        self.graph_class = graph_class or _nx_class(directed, multigraph)
        self.edge_src: np.ndarray | None = None
        self.edge_dst: np.ndarray | None = None
        self.edge_keys: list | None = None
        self.edge_data: list | None = None
        self.node_data: list | None = None
        self.graph_attrs: dict = {}
        self._edge_values: dict[tuple[Any, Any], np.ndarray] = {}
        self._index: dict | None = None
        self.__networkx_cache__: dict = {}

    # NetworkX's decorators (not_implemented_for) and tests ask these
    def is_directed(self) -> bool:
        return self.directed

    def is_multigraph(self) -> bool:
        return self.multigraph

    def number_of_nodes(self) -> int:
        return len(self.nodes)

    def __len__(self) -> int:
        return len(self.nodes)

    def __iter__(self):
        return iter(self.nodes)

    def __contains__(self, node: Any) -> bool:
        try:
            return node in self.index
        except TypeError:
            return False

    def __repr__(self) -> str:
        kind = self.graph_class.__name__
        return f"ConcompGraph({kind}, {len(self.nodes)} nodes, {self.indices.shape[0]} adjacencies)"

    @property
    def index(self) -> dict:
        """Node label -> vertex number."""
        if self._index is None:
            self._index = dict(zip(self.nodes, range(len(self.nodes))))
        return self._index

    def concomp_graph(self) -> Graph:
        """The adjacency as a :class:`concomp.Graph` (directed graphs keep direction)."""
        return Graph(
            len(self.nodes),
            indptr=self.indptr,
            indices=self.indices,
            directed=self.directed,
            symmetric=not self.directed,
        )

    def has_edges(self) -> bool:
        return self.edge_src is not None

    def edge_values(self, attr: Any, default: Any = 1) -> np.ndarray:
        """The attribute ``attr`` of every edge (``default`` where absent) as an array.

        Raises NotImplementedError when the values are not numbers.
        """
        key = (attr, default)
        if key not in self._edge_values:
            if self.edge_data is None:
                raise NotImplementedError(
                    f"the concomp graph was converted without edge attribute {attr!r}"
                )
            if attr is None:
                values = np.ones(len(self.edge_data), dtype=np.int64)
            else:
                values = np.asarray([d.get(attr, default) for d in self.edge_data])
            if values.shape[0] == 0:
                values = values.astype(np.float64)
            if values.dtype.kind == "b":
                values = values.astype(np.int64)
            if values.dtype.kind not in "iuf":
                raise NotImplementedError(
                    f"edge attribute {attr!r} holds values that are not numbers "
                    f"(array dtype {values.dtype}); concomp ranks numeric weights only"
                )
            self._edge_values[key] = values
        return self._edge_values[key]


def _nx_class(directed: bool, multigraph: bool) -> type:
    if multigraph:
        return nx.MultiDiGraph if directed else nx.MultiGraph
    return nx.DiGraph if directed else nx.Graph


def _adjacency_csr(rows: list, nodes: list, index: dict | None) -> tuple[np.ndarray, np.ndarray]:
    """CSR arrays of the neighbour mappings ``rows`` (NumPy consumes the iterators in C)."""
    n = len(rows)
    deg = np.fromiter(map(len, rows), dtype=np.int64, count=n)
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=indptr[1:])
    nnz = int(indptr[-1])
    flat: Iterator[Any] = chain.from_iterable(rows)
    if index is not None:
        flat = map(index.__getitem__, flat)
    indices = np.fromiter(flat, dtype=np.int64, count=nnz)
    return indptr, indices


def _is_range(nodes: list) -> bool:
    """Nodes are exactly 0 .. n-1 in order: their labels are their vertex numbers."""
    return all(type(v) is int for v in nodes) and nodes == list(range(len(nodes)))


def _edges(g: ConcompGraph, rows: list, with_data: bool) -> None:
    """Fill the edge list of ``g`` in ``G.edges`` order (``G.edges(keys=True, data=True)``)."""
    n = len(g.nodes)
    row = np.repeat(np.arange(n, dtype=np.int64), np.diff(g.indptr))
    # an undirected edge is listed at its endpoint that comes first in node order
    once = np.ones(row.shape[0], dtype=bool) if g.directed else g.indices >= row
    src, dst = row[once], g.indices[once]
    keep = once.tolist() if not g.directed else None
    entries: Any = chain.from_iterable(r.values() for r in rows)  # per neighbour
    if keep is not None:
        entries = compress(entries, keep)
    if g.multigraph:
        keydicts = list(entries)
        counts = np.fromiter(map(len, keydicts), dtype=np.int64, count=len(keydicts))
        src, dst = np.repeat(src, counts), np.repeat(dst, counts)
        g.edge_keys = list(chain.from_iterable(keydicts))
        data = list(chain.from_iterable(k.values() for k in keydicts)) if with_data else None
    else:
        data = list(entries) if with_data else None
    g.edge_src, g.edge_dst, g.edge_data = src, dst, data


def convert_from_nx(
    G: Any,
    edge_attrs: dict | None = None,
    node_attrs: dict | None = None,
    preserve_edge_attrs: bool = False,
    preserve_node_attrs: bool = False,
    preserve_graph_attrs: bool = False,
    name: str | None = None,
    graph_name: str | None = None,
) -> ConcompGraph:
    """NetworkX's backend conversion hook (see :func:`from_networkx`)."""
    if isinstance(G, ConcompGraph):
        return G
    if not isinstance(G, nx.Graph):
        raise TypeError(f"expected a NetworkX graph, got {type(G).__name__}")
    nodes = list(G)
    index = None if _is_range(nodes) else dict(zip(nodes, range(len(nodes))))
    adj = G._adj
    rows = list(map(adj.__getitem__, nodes))
    if type(adj) is not dict:
        # graph views filter lazily and their len() need not match what iterates
        rows = [dict(r.items()) for r in rows]
    indptr, indices = _adjacency_csr(rows, nodes, index)
    g = ConcompGraph(
        nodes,
        indptr,
        indices,
        directed=G.is_directed(),
        multigraph=G.is_multigraph(),
        graph_class=type(G) if type(G).__module__.startswith("networkx") else None,
    )
    g._index = index
    if preserve_edge_attrs or edge_attrs:
        _edges(g, rows, with_data=True)
        if not preserve_edge_attrs and edge_attrs:
            # only the named attributes: read them now, drop the dicts
            data = g.edge_data or []
            g.edge_data = [
                {a: d.get(a, default) for a, default in edge_attrs.items() if a in d} for d in data
            ]
            for a, default in edge_attrs.items():
                g.edge_values(a, 1 if default is None else default)
    if preserve_node_attrs:
        nd = G._node
        g.node_data = list(map(nd.__getitem__, nodes))
    elif node_attrs:
        nd = G._node
        g.node_data = [{a: d[a] for a in node_attrs if a in d} for d in map(nd.__getitem__, nodes)]
    if preserve_graph_attrs:
        g.graph_attrs = dict(G.graph)
    return g


def _cache_key(
    edge_attrs: dict | None, preserve_edge_attrs: bool, preserve_node_attrs: bool
) -> tuple:
    # the key NetworkX's dispatcher uses for the same conversion
    return (
        frozenset(edge_attrs.items()) if edge_attrs is not None else preserve_edge_attrs,
        preserve_node_attrs,
    )


def from_networkx(
    G: Any,
    weight: str | None = None,
    *,
    default: Any = 1,
    preserve_all_attrs: bool = False,
    use_cache: bool = True,
) -> ConcompGraph:
    """Convert a NetworkX graph to a :class:`ConcompGraph`.

    Parameters
    ----------
    G : networkx.Graph, DiGraph, MultiGraph or MultiDiGraph
        Any hashable node labels (ints, strings, tuples, ...).
    weight : str, optional
        Edge attribute to keep as the edge weight (``default`` where absent, as
        NetworkX reads ``d.get(weight, 1)``).
    default : number
        Weight of edges without the attribute.
    preserve_all_attrs : bool
        Keep every edge, node and graph attribute (what :func:`to_networkx` needs
        to rebuild ``G`` exactly).
    use_cache : bool
        Look the conversion up in, and store it into, ``G.__networkx_cache__``
        (NetworkX's backend cache, cleared by NetworkX when ``G`` changes).

    Examples
    --------
    >>> import networkx as nx
    >>> from concomp.nx import from_networkx, to_networkx
    >>> G = nx.Graph([("a", "b", {"weight": 2.5}), ("c", "d")])
    >>> g = from_networkx(G, weight="weight")
    >>> g.nodes, g.edge_values("weight").tolist()
    (['a', 'b', 'c', 'd'], [2.5, 1.0])
    >>> sorted(to_networkx(g).edges(data=True))
    [('a', 'b', {'weight': 2.5}), ('c', 'd', {})]
    """
    if isinstance(G, ConcompGraph):
        return G
    edge_attrs = None if weight is None or preserve_all_attrs else {weight: default}
    key = _cache_key(edge_attrs, preserve_all_attrs, preserve_all_attrs)
    cache = getattr(G, "__networkx_cache__", None) if use_cache else None
    if cache is not None:
        found = _cached(cache, key)
        if found is not None:
            return found
    g = convert_from_nx(
        G,
        edge_attrs=edge_attrs,
        preserve_edge_attrs=preserve_all_attrs,
        preserve_node_attrs=preserve_all_attrs,
        preserve_graph_attrs=True,
    )
    if cache is not None:
        _store(cache, key, g)
    return g


def _cached(cache: dict, key: tuple) -> ConcompGraph | None:
    """A cached conversion that holds at least what ``key`` asks for."""
    get = getattr(nx.utils.backends, "_get_from_cache", None)
    if get is not None:
        _, found = get(cache, key, backend_name=BACKEND_NAME)
    else:  # NetworkX before 3.4: exact keys only
        found = cache.get("backends", {}).get(BACKEND_NAME, {}).get(key)
    return found if isinstance(found, ConcompGraph) else None


def _store(cache: dict, key: tuple, g: ConcompGraph) -> None:
    put = getattr(nx.utils.backends, "_set_to_cache", None)
    if put is not None:
        put(cache, key, g, backend_name=BACKEND_NAME)
    else:
        cache.setdefault("backends", {}).setdefault(BACKEND_NAME, {})[key] = g


def to_networkx(g: ConcompGraph) -> Any:
    """The NetworkX graph a :class:`ConcompGraph` holds (attributes where they were kept).

    Edges are rebuilt from the edge list when one was kept (keys, attributes and all),
    otherwise from the adjacency (parallel edges of a multigraph then come back once).
    """
    G = g.graph_class()
    G.graph.update(g.graph_attrs)
    nodes = g.nodes
    if g.node_data is not None:
        G.add_nodes_from(zip(nodes, g.node_data))
    else:
        G.add_nodes_from(nodes)
    if g.edge_src is not None and g.edge_dst is not None:
        us = map(nodes.__getitem__, g.edge_src.tolist())
        vs = map(nodes.__getitem__, g.edge_dst.tolist())
        data = g.edge_data if g.edge_data is not None else [{}] * g.edge_src.shape[0]
        if g.multigraph and g.edge_keys is not None:
            G.add_edges_from(zip(us, vs, g.edge_keys, data))
        else:
            G.add_edges_from(zip(us, vs, data))
    else:
        row = np.repeat(np.arange(len(nodes)), np.diff(g.indptr))
        G.add_edges_from(
            zip(map(nodes.__getitem__, row.tolist()), map(nodes.__getitem__, g.indices.tolist()))
        )
    return G


def convert_to_nx(obj: Any, *, name: str | None = None) -> Any:
    """NetworkX's hook for results: backend graphs become NetworkX graphs, the rest passes."""
    if isinstance(obj, ConcompGraph):
        return to_networkx(obj)
    return obj
