"""The object NetworkX loads through the ``networkx.backends`` entry point.

NetworkX looks each dispatchable function up by name on :class:`BackendInterface`,
asks :meth:`~BackendInterface.can_run` (can the backend honour these arguments?) and,
for automatic dispatch only (``nx.config.backend_priority``), :meth:`~BackendInterface.
should_run` (would it be faster?). Both return True or a string saying why not, which
NetworkX logs (logger ``networkx.utils.backends``, debug level).

Every call that reaches a backend function is counted in :data:`CALLS` (by function
name), so a test run can say how many calls the backend served.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from typing import Any

from . import _components, _mst
from ._graph import ConcompGraph, convert_from_nx, convert_to_nx
from ._info import BACKEND_NAME, FUNCTION_DOCS, get_info

__all__ = ["CALLS", "FUNCTIONS", "SMALL_GRAPH_NODES", "BackendInterface", "get_info"]

#: Calls that reached the backend, by NetworkX function name.
CALLS: Counter[str] = Counter()

#: Below this many nodes ``should_run`` declines: converting the graph and launching the
#: engine cost more than NetworkX's own loop over a few hundred nodes.
SMALL_GRAPH_NODES = 200

#: NetworkX function name -> concomp's implementation
_IMPLEMENTATIONS: dict[str, Callable[..., Any]] = {
    "connected_components": _components.connected_components,
    "number_connected_components": _components.number_connected_components,
    "is_connected": _components.is_connected,
    "node_connected_component": _components.node_connected_component,
    "weakly_connected_components": _components.weakly_connected_components,
    "number_weakly_connected_components": _components.number_weakly_connected_components,
    "is_weakly_connected": _components.is_weakly_connected,
    "strongly_connected_components": _components.strongly_connected_components,
    "number_strongly_connected_components": _components.number_strongly_connected_components,
    "is_strongly_connected": _components.is_strongly_connected,
    "condensation": _components.condensation,
    "minimum_spanning_edges": _mst.minimum_spanning_edges,
    "maximum_spanning_edges": _mst.maximum_spanning_edges,
    "minimum_spanning_tree": _mst.minimum_spanning_tree,
    "maximum_spanning_tree": _mst.maximum_spanning_tree,
}
#: name -> (implementation, extra documentation for NetworkX's docstrings, takes device=)
FUNCTIONS: dict[str, tuple[Callable[..., Any], str, bool]] = {
    name: (impl, FUNCTION_DOCS[name][0], FUNCTION_DOCS[name][1])
    for name, impl in _IMPLEMENTATIONS.items()
}


def _counted(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        CALLS[name] += 1
        return func(*args, **kwargs)

    return staticmethod(call)


def _graph_arg(args: tuple, kwargs: dict) -> Any:
    return args[0] if args else kwargs.get("G")


def _is_cached(G: Any) -> bool:
    cache = getattr(G, "__networkx_cache__", None) or {}
    return bool(cache.get("backends", {}).get(BACKEND_NAME))


class BackendInterface:
    """concomp as a NetworkX backend (``backend="concomp"``)."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)

    @staticmethod
    def can_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """True, or why concomp cannot honour this call's arguments."""
        if name not in FUNCTIONS:
            return f"concomp does not implement {name}"
        if name == "condensation":
            scc = args[1] if len(args) > 1 else kwargs.get("scc")
            if scc is not None:
                return "scc= is given: the components are known, nothing is left to compute"
        return True

    @staticmethod
    def should_run(name: str, args: tuple, kwargs: dict) -> bool | str:
        """True, or why NetworkX's own function would be as fast (automatic dispatch)."""
        G = _graph_arg(args, kwargs)
        if isinstance(G, ConcompGraph) or _is_cached(G):
            return True
        if name == "node_connected_component":
            return (
                "NetworkX searches only the component of n; converting the whole graph costs more"
            )
        n = len(G) if G is not None else 0
        if n < SMALL_GRAPH_NODES:
            return (
                f"the graph has {n} nodes (< {SMALL_GRAPH_NODES}): NetworkX's own loop is "
                "faster than converting it"
            )
        return True

    @staticmethod
    def on_start_tests(items: list) -> None:
        """NetworkX's test-suite hook; every concomp function is expected to pass."""


for _name, (_func, _doc, _device) in FUNCTIONS.items():
    setattr(BackendInterface, _name, _counted(_name, _func))
