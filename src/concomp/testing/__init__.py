"""Test helpers that ship with concomp: oracles, the graph zoo and real-graph paths.

Importable by downstream projects that want to check their own use of
concomp. Nothing here imports CuPy.

Oracles (:mod:`concomp.testing.oracles`)
    ``reference_components``, ``reference_strong_components``, ``scipy_strong_roots``,
    ``canonical``,
    ``assert_same_partition``, ``assert_components_equal``.
Forest checkers (:mod:`concomp.testing.forest`, :mod:`concomp.testing.msf`)
    ``assert_spanning_forest``, ``scipy_labels``, ``assert_minimum_spanning_forest``,
    ``kruskal_reference``.
Graph zoo (:mod:`concomp.testing.zoo`)
    ``graph_zoo``, ``ZooGraph``, ``real_data_dir``, ``real_graph_paths``,
    ``real_graph_facts``, ``RealGraphFacts``.
"""

from __future__ import annotations

from .forest import assert_spanning_forest, scipy_labels
from .msf import assert_minimum_spanning_forest, kruskal_reference
from .oracles import (
    assert_components_equal,
    assert_same_partition,
    canonical,
    reference_components,
    reference_strong_components,
    scipy_strong_roots,
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
    "assert_spanning_forest",
    "scipy_labels",
    "assert_minimum_spanning_forest",
    "kruskal_reference",
    "reference_components",
    "reference_strong_components",
    "scipy_strong_roots",
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
