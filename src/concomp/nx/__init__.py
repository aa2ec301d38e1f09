"""concomp as a NetworkX backend: ``nx.connected_components(G, backend="concomp")``.

Installed with concomp, registered through the ``networkx.backends`` and
``networkx.backend_info`` entry points, so NetworkX finds it with no further step:

>>> import networkx as nx
>>> G = nx.Graph([(0, 1), (2, 3), (3, 4)])
>>> list(nx.connected_components(G, backend="concomp"))  # doctest: +SKIP
[{0, 1}, {2, 3, 4}]

(skipped here because a doctest run from the source tree has no installed entry
points), or for every call: ``nx.config.backend_priority = ["concomp"]`` (or the
environment variable ``NETWORKX_BACKEND_PRIORITY=concomp``). The engine is chosen by
``nx.config.backends.concomp.device`` ("auto", "cpu", "gpu") or a call's ``device=``.

The functions below work on NetworkX graphs directly too:

>>> from concomp import nx as cnx
>>> list(cnx.connected_components(G))
[{0, 1}, {2, 3, 4}]
>>> sorted(cnx.minimum_spanning_tree(nx.Graph([(0, 1, {"weight": 3}), (1, 2, {"weight": 1}),
...                                            (0, 2, {"weight": 2})])).edges)
[(0, 2), (1, 2)]

Functions
---------
NetworkX's functions, with NetworkX's results, order and errors:
connected_components, number_connected_components, is_connected, node_connected_component,
weakly_connected_components, number_weakly_connected_components, is_weakly_connected,
strongly_connected_components, number_strongly_connected_components, is_strongly_connected,
condensation, minimum_spanning_edges, maximum_spanning_edges, minimum_spanning_tree,
maximum_spanning_tree.

ConcompGraph, from_networkx, to_networkx
    The backend graph and the conversions (cached in ``G.__networkx_cache__``).
BackendInterface, get_info
    What the entry points name.
"""

from __future__ import annotations

from ._components import (
    condensation,
    connected_components,
    is_connected,
    is_strongly_connected,
    is_weakly_connected,
    node_connected_component,
    number_connected_components,
    number_strongly_connected_components,
    number_weakly_connected_components,
    strongly_connected_components,
    weakly_connected_components,
)
from ._graph import ConcompGraph, convert_from_nx, convert_to_nx, from_networkx, to_networkx
from ._interface import CALLS, BackendInterface, get_info
from ._mst import (
    maximum_spanning_edges,
    maximum_spanning_tree,
    minimum_spanning_edges,
    minimum_spanning_tree,
)

__all__ = [
    "BackendInterface",
    "get_info",
    "CALLS",
    "ConcompGraph",
    "from_networkx",
    "to_networkx",
    "convert_from_nx",
    "convert_to_nx",
    "connected_components",
    "number_connected_components",
    "is_connected",
    "node_connected_component",
    "weakly_connected_components",
    "number_weakly_connected_components",
    "is_weakly_connected",
    "strongly_connected_components",
    "number_strongly_connected_components",
    "is_strongly_connected",
    "condensation",
    "minimum_spanning_edges",
    "maximum_spanning_edges",
    "minimum_spanning_tree",
    "maximum_spanning_tree",
]
