"""What NetworkX reads of the backend before it runs anything: :func:`get_info`.

NetworkX calls ``get_info`` (the ``networkx.backend_info`` entry point) while it is
itself being imported. This module imports nothing of NetworkX, so that call works in
either import order: with ``networkx`` imported first, and with ``concomp.nx``
imported first, whose import of NetworkX then asks for the backend's information while
``concomp.nx`` is only partly initialised.
"""

from __future__ import annotations

from typing import Any

__all__ = ["BACKEND_NAME", "DEVICE_DOC", "FUNCTION_DOCS", "get_info"]

#: The backend's name in NetworkX (``backend="concomp"``).
BACKEND_NAME = "concomp"

DEVICE_DOC = (
    '"auto" (default: ``nx.config.backends.concomp.device``), "cpu" or "gpu": the '
    "concomp engine; auto takes the GPU for large graphs when one is usable (strong "
    "components always run on the CPU)."
)

#: NetworkX function name -> (extra documentation for its docstring, takes ``device=``)
FUNCTION_DOCS: dict[str, tuple[str, bool]] = {
    "connected_components": ("", True),
    "number_connected_components": ("", True),
    "is_connected": ("", True),
    "node_connected_component": (
        (
            "Labels the whole graph; with automatic dispatch it runs only on "
            "graphs already converted (NetworkX searches just the one "
            "component)."
        ),
        True,
    ),
    "weakly_connected_components": ("", True),
    "number_weakly_connected_components": ("", True),
    "is_weakly_connected": ("", True),
    "strongly_connected_components": (
        "Runs on concomp's CPU engine (iterative Tarjan search), in NetworkX's order.",
        True,
    ),
    "number_strongly_connected_components": ("Runs on concomp's CPU engine.", True),
    "is_strongly_connected": ("Runs on concomp's CPU engine.", True),
    "condensation": (
        "Strong components on concomp's CPU engine; ``scc=`` given is left to NetworkX.",
        True,
    ),
    "minimum_spanning_edges": (
        (
            "Returns NetworkX's Kruskal forest for every ``algorithm`` (the "
            "same forest where weights are distinct; ties may differ from "
            "NetworkX's Prim/Borůvka)."
        ),
        True,
    ),
    "maximum_spanning_edges": ("As ``minimum_spanning_edges``.", True),
    "minimum_spanning_tree": ("As ``minimum_spanning_edges``.", True),
    "maximum_spanning_tree": ("As ``minimum_spanning_edges``.", True),
}


def get_info() -> dict[str, Any]:
    """Backend metadata for NetworkX (``networkx.backend_info`` entry point).

    Examples
    --------
    >>> info = get_info()
    >>> info["backend_name"], info["default_config"]
    ('concomp', {'device': 'auto'})
    """
    from .. import __version__

    functions: dict[str, dict[str, Any]] = {}
    for name, (doc, takes_device) in FUNCTION_DOCS.items():
        entry: dict[str, Any] = {}
        if doc:
            entry["additional_docs"] = doc
        if takes_device:
            entry["additional_parameters"] = {"device : str, optional": DEVICE_DOC}
        functions[name] = entry
    return {
        "backend_name": BACKEND_NAME,
        "project": "concomp",
        "package": "concomp",
        "short_summary": "GPU (CuPy) and numba CPU engines for graph connectivity.",
        "version": __version__,
        "default_config": {"device": "auto"},
        "functions": functions,
    }
