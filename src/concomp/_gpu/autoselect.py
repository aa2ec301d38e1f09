"""``algorithm="auto"`` on the GPU: a variant from cheap graph statistics.

Findings behind the rules (GConn section 4, re-measured on Hopper GPUs by
``benchmarks/bench_gpu_cc.py``, results in ``benchmarks/results/``): Rem-CAS with
splicing is the fastest finish on every suite graph; with it, hook-based sampling
wins on skewed and random graphs (rmat22, er22, cong22), while on low-degree,
high-diameter graphs (gridp4k, road networks) sampling inspects most edges anyway
and the finish alone over the CSR is fastest (as GConn's Fig. 5 reports). Since
hook-based sampling became one pass (``hb_fused``, session 3), the number N of edges
each remaining root unites trades sampling time for finish time differently by
degree shape (H100, ``benchmarks/results/gpu_auto_session3``): on skewed graphs N = 4
is best or within 1% (rmat22 0.188 ms, best 0.186; cong22 0.307, next N = 3 at
0.328), on uniform ones more edges pay (er22: N = 8 0.284, N = 4 0.310, N = 2 0.348).
Small graphs are bound by launches, so the three-kernel COO variant wins there.

k-out over lower neighbours (``koutl``, session 8) changed the low-degree case: each
vertex, in id order, unites its first two neighbours of smaller id, which on a mesh
joins all but a fraction of a percent of the vertices into one component while it
skips the unions of every further lower neighbour (a fifth of a grid's edges, the
costliest ones: they close cycles deep in the trees). H100, ms, unsampled Rem ->
koutl: gridp4k 1.40 -> 1.15, a 2048 x 2048 permuted grid 0.39 -> 0.31, a permuted
200^3 grid (degree 6) 0.68 -> 0.58 (hb8 0.73). On sparser graphs fewer edges are
skipped: a 4096 x 4096 grid keeping 80% of its edges (average degree 3.2) 1.25 ->
1.15, 70% (2.8) even, 60% (2.4, road-like) 1.07 -> 1.29. On uniform random graphs
hook-based sampling takes over between average degree 6 (koutl 0.58, hb 0.61, scale
23) and 8 (koutl 0.31, hb 0.29, scale 22).

The finish after sampling became warp-cooperative in session 8 (``finish_csr_warp``),
which makes leftover vertices cheaper and so shifts the best N on skewed graphs down
(H100, ms, two record runs: rmat22 N = 1 0.147 / 0.149, N = 3 0.153 / 0.154, N = 4
0.154 / 0.169; cong22 N = 3 0.276 / 0.273, N = 4 0.272 / 0.280, N = 1 0.336 / 0.343):
N = 3 is within 5% of the best on both.
"""

from __future__ import annotations

from ..graph import Graph
from ..variants import Variant

#: Below this many CSR entries (both directions) a run is tens of microseconds and
#: the fewest launches win: one edge-parallel pass over the COO (measured on the
#: 27 real graphs of the suite).
SMALL_ENTRIES = 4_000_000
#: Average degree (CSR entries per vertex) under which sampling is skipped.
LOW_DEGREE = 3.0
#: Average degree under which graphs that are not skewed sample with koutl (and
#: above which with hb8).
MESH_DEGREE = 7.0
#: Coefficient of variation of sampled degrees above which a graph counts as skewed
#: (uniform random graphs sit near 1/sqrt(mean degree), R-MAT graphs well above 1).
SKEWED_CV = 1.0
DEGREE_SAMPLES = 4096


def degree_cv(graph: Graph) -> float:
    """Coefficient of variation of the degrees of evenly spaced sampled vertices."""
    indptr = graph.undirected_csr()[0]
    xp = graph.xp
    n = graph.num_nodes
    idx = xp.arange(0, n, max(1, n // DEGREE_SAMPLES))
    deg = (indptr[idx + 1] - indptr[idx]).astype(xp.float64)
    mean = float(deg.mean())
    return float(deg.std()) / mean if mean > 0 else 0.0


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
    if degree_cv(graph) > SKEWED_CV:
        return Variant.parse("hb3-rem_cas-splice-csr")
    if entries / n < MESH_DEGREE:
        return Variant.parse("koutl-rem_cas-splice-csr")
    return Variant.parse("hb8-rem_cas-splice-csr")
