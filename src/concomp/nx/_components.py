"""Connected, weakly and strongly connected components with NetworkX's semantics.

Weak and undirected components run on concomp's engines (``device="auto"``: the GPU for
large graphs when one is usable). Their labels are SciPy's numbering, components
ordered by their smallest vertex, which is NetworkX's order too (it yields a component
when its breadth-first search starts at the first node of ``G`` not yet seen).

The strong component count and ``is_strongly_connected`` run on
:func:`concomp.strongly_connected_components` (any engine: only the partition matters).
The functions whose output order NetworkX fixes (``strongly_connected_components``
yields components in its Tarjan search's completion order; ``condensation`` numbers them
so) run on the CPU engine's iterative Tarjan search: it visits vertices ``0 .. n-1`` and
scans each row from its last entry to its first; with every row reversed it makes
exactly the depth-first search of NetworkX's nonrecursive Tarjan (neighbours in
adjacency order), so the components come out in NetworkX's order. That order is a
property of one sequential search, which the parallel engines do not make.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import networkx as nx
import numpy as np

from .._dispatch import driver
from ..components import connected_components as _cc
from ..scc import strongly_connected_components as _scc
from ._graph import ConcompGraph, from_networkx

__all__ = [
    "condensation",
    "connected_components",
    "is_connected",
    "is_strongly_connected",
    "is_weakly_connected",
    "node_connected_component",
    "number_connected_components",
    "number_strongly_connected_components",
    "number_weakly_connected_components",
    "strongly_connected_components",
    "weakly_connected_components",
]

_NULL = "Connectivity is undefined for the null graph."


def resolve_device(device: str | None) -> str:
    """``device``, else ``nx.config.backends.concomp.device``, else ``"auto"``."""
    if device is not None:
        return device
    cfg = getattr(nx.config.backends, "concomp", None)
    return getattr(cfg, "device", None) or "auto"


def _graph(G: Any, *, directed: bool) -> ConcompGraph:
    g = G if isinstance(G, ConcompGraph) else from_networkx(G)
    if g.directed != directed:
        kind = "undirected" if directed else "directed"
        raise nx.NetworkXNotImplemented(f"not implemented for {kind} type")
    return g


def _labels(g: ConcompGraph, device: str | None) -> tuple[int, np.ndarray]:
    if not g.nodes:
        return 0, np.zeros(0, dtype=np.int32)
    count, labels = _cc(g.concomp_graph(), device=resolve_device(device), output_device="cpu")
    return int(count), labels


def _sets(nodes: list, count: int, labels: np.ndarray) -> Iterator[set]:
    """The node sets of components ``0 .. count-1``, in that order."""
    order = np.argsort(labels, kind="stable").tolist()
    ends = np.cumsum(np.bincount(labels, minlength=count)).tolist()
    start = 0
    get = nodes.__getitem__
    for end in ends:
        yield set(map(get, order[start:end]))
        start = end


def connected_components(G: Any, *, device: str | None = None) -> Iterator[set]:
    """Generate the node sets of ``G``'s connected components (NetworkX's order)."""
    g = _graph(G, directed=False)
    count, labels = _labels(g, device)
    return _sets(g.nodes, count, labels)


def number_connected_components(G: Any, *, device: str | None = None) -> int:
    """Number of connected components of an undirected graph."""
    return _labels(_graph(G, directed=False), device)[0]


def is_connected(G: Any, *, device: str | None = None) -> bool:
    """Whether an undirected graph is connected; the null graph raises."""
    g = _graph(G, directed=False)
    if not g.nodes:
        raise nx.NetworkXPointlessConcept(_NULL)
    return _labels(g, device)[0] == 1


def node_connected_component(G: Any, n: Any, *, device: str | None = None) -> set:
    """The node set of the component holding node ``n`` (KeyError if ``n`` is absent)."""
    g = _graph(G, directed=False)
    i = g.index[n]
    _, labels = _labels(g, device)
    get = g.nodes.__getitem__
    return set(map(get, np.flatnonzero(labels == labels[i]).tolist()))


def weakly_connected_components(G: Any, *, device: str | None = None) -> Iterator[set]:
    """Generate the node sets of a directed graph's weak components."""
    g = _graph(G, directed=True)
    count, labels = _labels(g, device)
    return _sets(g.nodes, count, labels)


def number_weakly_connected_components(G: Any, *, device: str | None = None) -> int:
    """Number of weakly connected components of a directed graph."""
    return _labels(_graph(G, directed=True), device)[0]


def is_weakly_connected(G: Any, *, device: str | None = None) -> bool:
    """Whether a directed graph is weakly connected; the null graph raises."""
    g = _graph(G, directed=True)
    if not g.nodes:
        raise nx.NetworkXPointlessConcept(_NULL)
    return _labels(g, device)[0] == 1


def _strong_labels(g: ConcompGraph) -> tuple[int, np.ndarray]:
    """Strong components numbered in NetworkX's yield order (see the module notes)."""
    indptr, indices = g.indptr, g.indices
    n = len(g.nodes)
    row = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    reversed_rows = indices[indptr[row] + indptr[row + 1] - 1 - np.arange(indices.shape[0])]
    count, labels = driver("cpu", "scc", "strong_component_labels")(indptr, reversed_rows)
    return int(count), labels


def strongly_connected_components(G: Any, *, device: str | None = None) -> Iterator[set]:
    """Generate the node sets of a directed graph's strong components (NetworkX's order).

    ``device`` is accepted like the other functions' and ignored: NetworkX's order comes
    from the CPU engine's Tarjan search (see the module notes).
    """
    g = _graph(G, directed=True)
    count, labels = _strong_labels(g)
    return _sets(g.nodes, count, labels)


def _strong_count(g: ConcompGraph, device: str | None) -> int:
    if not g.nodes:
        return 0
    return int(_scc(g.concomp_graph(), device=resolve_device(device), return_labels=False))


def number_strongly_connected_components(G: Any, *, device: str | None = None) -> int:
    """Number of strongly connected components of a directed graph."""
    return _strong_count(_graph(G, directed=True), device)


def is_strongly_connected(G: Any, *, device: str | None = None) -> bool:
    """Whether a directed graph is strongly connected; the null graph raises."""
    g = _graph(G, directed=True)
    if not g.nodes:
        raise nx.NetworkXPointlessConcept(_NULL)
    return _strong_count(g, device) == 1


def condensation(G: Any, scc: Any = None, *, device: str | None = None) -> nx.DiGraph:
    """The condensation of a directed graph, as ``networkx.condensation`` builds it.

    ``scc`` given (components already known) is declined by ``can_run``; here it is
    honoured by numbering the given components in their order. ``device`` is accepted
    for uniformity and ignored: the numbering is NetworkX's, from the CPU Tarjan search.
    """
    g = _graph(G, directed=True)
    mapping: dict = {}
    C = nx.DiGraph()
    C.graph["mapping"] = mapping
    if not g.nodes:
        return C
    if scc is None:
        count, labels = _strong_labels(g)
        members = dict(enumerate(_sets(g.nodes, count, labels)))
        mapping.update(zip(g.nodes, labels.tolist()))
    else:
        members = dict(enumerate(scc))
        count = len(members)
        for i, component in members.items():
            mapping.update((v, i) for v in component)
        labels = np.fromiter(map(mapping.__getitem__, g.nodes), dtype=np.int64)
    C.add_nodes_from(range(count))
    row = np.repeat(labels, np.diff(g.indptr))
    col = labels[g.indices]
    cross = row != col
    C.add_edges_from(zip(row[cross].tolist(), col[cross].tolist()))
    nx.set_node_attributes(C, members, "members")
    return C
