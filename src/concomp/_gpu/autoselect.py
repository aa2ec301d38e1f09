"""``algorithm="auto"`` on the GPU: a variant from cheap graph statistics.

Findings behind the rules (GConn section 4, re-measured on Hopper GPUs by
``benchmarks/bench_gpu_cc.py``, results in ``benchmarks/results/``): Rem-CAS with
splicing is the fastest finish on every suite graph; with it, hook-based sampling
wins on skewed and random graphs (rmat22, er22, cong22), while on low-degree,
high-diameter graphs (gridp4k, road networks) sampling inspects most edges anyway
and the finish alone over the CSR is fastest (as GConn's Fig. 5 reports). Since
hook-based sampling became one pass (``hb_fused``, session 3), uniting N = 4 edges
per remaining root is the best or within 2% of the best N on all three sampled
suite graphs (H100: rmat22 0.187 ms against 0.184 for N = 1, er22 0.310 against
0.342 for N = 2, cong22 0.305 against 0.356 for N = 1), so degree skew no longer
changes the choice. Small graphs are bound by launches, so the three-kernel COO
variant wins there.
"""

from __future__ import annotations

from ..graph import Graph
from ..variants import Variant

#: Below this many CSR entries (both directions) a run is tens of microseconds and
#: the fewest launches win: one edge-parallel pass over the COO (measured on the
#: 27 real graphs of the suite).
SMALL_ENTRIES = 4_000_000
#: Average degree (CSR entries per vertex) under which sampling is skipped.
LOW_DEGREE = 5.0


def choose(graph: Graph) -> Variant:
    """The variant ``algorithm="auto"`` runs on the GPU for ``graph`` (cached on it)."""
    cached = graph._device_cache.get("auto_variant")
    if cached is None:
        cached = graph._device_cache["auto_variant"] = _choose(graph)
    return cached


def _choose(graph: Graph) -> Variant:
    n = max(graph.num_nodes, 1)
    entries = graph.num_edges if graph.symmetric else 2 * graph.num_edges
    if entries < SMALL_ENTRIES:
        return Variant.parse("none-rem_cas-splice-coo")
    if entries / n < LOW_DEGREE:
        return Variant.parse("none-rem_cas-splice-csr")
    return Variant.parse("hb-rem_cas-splice-csr")
