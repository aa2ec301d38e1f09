"""concomp: graph connectivity on GPUs, with a CPU engine wherever there is no GPU.

Public API
----------
Graph, as_graph
    The validated graph container and the function that builds it from any
    graph-like input.
connected_components, number_connected_components, component_sizes, largest_component
    Static (weak) connected components. Vertex ids of any kind (strings, sparse
    64-bit integers, NetworkX node names) are renumbered and kept (``renumber=``).
components, components_frame, membership_matrix, ComponentLabels
    Results in the input's ids: vertex-id arrays per component, a
    (vertex, component) frame, a sparse membership matrix.
strongly_connected_components, is_strongly_connected, condensation, Condensation
    Strongly connected components of directed graphs and their condensation (DAG).
spanning_forest, SpanningForest
    A spanning forest (n - c input edges) on the CPU or GPU, any root-based variant.
IncrementalConnectivity
    Batches of edge inserts and connectivity queries on a growing vertex set,
    with save/load.
stream_components
    Components of an edge stream (chunks from memory, files, Parquet), through the
    GPU in pinned double-buffered chunks, or on the CPU.
minimum_spanning_forest, MinimumSpanningForest
    Minimum (or maximum) spanning forests: Boruvka, Prim, Kruskal on CPU and GPU.
label, label_stats, LabelStats
    Connected-component labelling of images and volumes (2-D, 3-D, N-D), and the
    regions' sizes, bounding boxes and centroids.
ndimage, measure
    Drop-in ``label`` functions for ``scipy.ndimage`` and ``skimage.measure``.
read_graph, write_graph
    Graph files: SNAP, CSV, Matrix Market, DIMACS, PACE, METIS, npz, Parquet.
generators
    R-MAT, G(n, m), grids, kNN, Delaunay, Barabasi-Albert, weights, benchmark suite.
variants
    The design space: ``Variant``, ``all_variants``.
options
    ``Options``: the engines' tuning settings, passed as ``options=`` to every entry point.
csgraph
    Drop-in replacements for ``scipy.sparse.csgraph`` functions.
errors
    ``InvalidGraphError``, ``DeviceUnavailableError``, ...
warmup
    Compile the CPU (and GPU) kernels ahead of time, into the on-disk caches.

``import concomp`` imports neither CuPy nor numba (nor SciPy): the engines load
on first use.
"""

from __future__ import annotations

from . import errors, generators, options, variants
from ._input import as_graph
from .components import (
    component_sizes,
    connected_components,
    largest_component,
    number_connected_components,
)
from .errors import (
    DeviceMemoryError,
    DeviceUnavailableError,
    EngineCapabilityError,
    GraphFormatError,
    InvalidGraphError,
    InvalidImageError,
    InvalidOptionsError,
    InvalidStateError,
    InvalidVariantError,
)
from .forest import SpanningForest, spanning_forest
from .graph import Graph
from .image import LabelStats, label, label_stats
from .incremental import IncrementalConnectivity
from .io import read_graph, write_graph
from .membership import components, components_frame, membership_matrix
from .msf import MinimumSpanningForest, minimum_spanning_forest
from .options import Options
from .results import ComponentLabels
from .scc import Condensation, condensation, is_strongly_connected, strongly_connected_components
from .streaming import stream_components
from .variants import Variant, all_variants
from .warmup import warmup

__version__ = "0.1.0"

__all__ = [
    "Graph",
    "as_graph",
    "connected_components",
    "number_connected_components",
    "component_sizes",
    "largest_component",
    "components",
    "components_frame",
    "membership_matrix",
    "ComponentLabels",
    "strongly_connected_components",
    "is_strongly_connected",
    "condensation",
    "Condensation",
    "spanning_forest",
    "SpanningForest",
    "IncrementalConnectivity",
    "minimum_spanning_forest",
    "MinimumSpanningForest",
    "stream_components",
    "label",
    "label_stats",
    "LabelStats",
    "read_graph",
    "write_graph",
    "generators",
    "Variant",
    "all_variants",
    "Options",
    "options",
    "variants",
    "errors",
    "InvalidGraphError",
    "InvalidVariantError",
    "DeviceUnavailableError",
    "DeviceMemoryError",
    "GraphFormatError",
    "InvalidOptionsError",
    "EngineCapabilityError",
    "InvalidStateError",
    "InvalidImageError",
    "warmup",
    "__version__",
]
