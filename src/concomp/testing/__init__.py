"""Test helpers that ship with concomp: oracles, the graph zoo and real-graph paths.

Importable by downstream projects that want to check their own use of
concomp. Nothing here imports CuPy.

Oracles (:mod:`concomp.testing.oracles`)
    ``reference_components``, ``reference_strong_components``, ``canonical``,
    ``assert_same_partition``, ``assert_components_equal``.
Graph zoo (:mod:`concomp.testing.zoo`)
    ``graph_zoo``, ``ZooGraph``, ``real_data_dir``, ``real_graph_paths``,
    ``real_graph_facts``, ``RealGraphFacts``.
"""

from __future__ import annotations

from .oracles import (
    assert_components_equal,
    assert_same_partition,
    canonical,
    reference_components,
    reference_strong_components,
)
from .zoo import (
    RealGraphFacts,
    ZooGraph,
    graph_zoo,
    real_data_dir,
    real_graph_facts,
    real_graph_paths,
)

__all__ = [
    "reference_components",
    "reference_strong_components",
    "canonical",
    "assert_same_partition",
    "assert_components_equal",
    "ZooGraph",
    "graph_zoo",
    "real_data_dir",
    "real_graph_paths",
    "real_graph_facts",
    "RealGraphFacts",
]
