"""concomp: graph connectivity on GPUs, with a CPU engine wherever there is no GPU.

Public API
----------
Graph, as_graph
    The validated graph container and the function that builds it from any
    graph-like input.
connected_components, number_connected_components, component_sizes, largest_component
    Static (weak) connected components.
variants
    The design space: ``Variant``, ``all_variants``.
csgraph
    Drop-in replacements for ``scipy.sparse.csgraph`` functions.
errors
    ``InvalidGraphError``, ``DeviceUnavailableError``, ...

``import concomp`` imports neither CuPy nor numba.cuda.
"""

from __future__ import annotations

from . import errors, variants
from ._validate import as_graph
from .components import (
    component_sizes,
    connected_components,
    largest_component,
    number_connected_components,
)
from .errors import (
    DeviceMemoryError,
    DeviceUnavailableError,
    GraphFormatError,
    InvalidGraphError,
    InvalidVariantError,
)
from .graph import Graph
from .variants import Variant, all_variants

__version__ = "0.1.0"

__all__ = [
    "Graph",
    "as_graph",
    "connected_components",
    "number_connected_components",
    "component_sizes",
    "largest_component",
    "Variant",
    "all_variants",
    "variants",
    "errors",
    "InvalidGraphError",
    "InvalidVariantError",
    "DeviceUnavailableError",
    "DeviceMemoryError",
    "GraphFormatError",
    "__version__",
]
