"""``algorithm="auto"`` on the GPU: a variant from cheap graph statistics.

Findings behind the rules (GConn section 4, re-measured on the H100 by
``benchmarks/``): k-out sampling with Union-Async or Rem-CAS is the best
all-rounder; on very low-degree, road-like graphs sampling inspects most edges
anyway, so the finish alone over the CSR is as fast.
"""

from __future__ import annotations

from ..graph import Graph
from ..variants import Variant

#: Average degree (CSR entries per vertex) under which sampling is skipped.
LOW_DEGREE = 2.5


def choose(graph: Graph) -> Variant:
    n = max(graph.num_nodes, 1)
    entries = graph.num_edges if graph.symmetric else 2 * graph.num_edges
    if entries / n < LOW_DEGREE:
        return Variant.parse("none-async-halve-csr")
    return Variant.parse("kout-async-halve-csr")
