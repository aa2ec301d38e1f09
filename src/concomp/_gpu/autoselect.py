"""``algorithm="auto"`` on the GPU: a variant from cheap graph statistics.

The rules, and why they hold (GConn section 4; ``benchmarks/bench_gpu_cc.py``
measures every rule and variant on the benchmark suite, results in
``benchmarks/results/``):

- Rem-CAS with splicing is the finish of every choice: it is the fastest finish
  on every suite graph.
- Graphs with fewer CSR entries than ``Options.auto_small_entries`` run the
  unsampled COO finish: their runs are bound by launches, and one edge-parallel
  pass is the fewest.
- Graphs of average degree below :data:`LOW_DEGREE` (road networks, sparse
  meshes) run the unsampled CSR finish: sampling inspects most of their edges
  anyway (GConn, Fig. 5).
- Skewed graphs (degree coefficient of variation above :data:`SKEWED_CV`: R-MAT,
  power-law) sample hook-based with N = 3 edges per remaining root. The
  warp-cooperative finish after sampling makes leftover vertices cheap, so a
  small N, which keeps sampling short, is within a few percent of the best N.
- Other graphs below :data:`MESH_DEGREE` (meshes, grids, uniform random graphs of
  low degree) sample k-out over lower neighbours: each vertex, in id order,
  unites its first two neighbours of smaller id, which joins almost every vertex
  of a mesh into one component while it skips the unions of every further lower
  neighbour, the costliest ones (they close cycles deep in the trees).
- Denser uniform graphs sample hook-based with N = 8: on uniform degrees more
  sampled edges per root pay for themselves.
"""

from __future__ import annotations

from ..graph import Graph
from ..options import Options
from ..variants import Variant

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
    """Coefficient of variation of the degrees of evenly spaced sampled vertices (on a
    device graph gathered with the link order's edge sample, :mod:`concomp._gpu.probe`)."""
    if graph.device == "gpu":
        from . import link_order
        from .probe import probe

        facts = probe(
            graph, degrees=True, degree_samples=DEGREE_SAMPLES,
            edge_samples=link_order.SAMPLES, window=link_order.window(graph),
        )  # fmt: skip
        return facts["degree_cv"]
    indptr = graph.undirected_rows()[0]
    xp = graph.xp
    n = graph.num_nodes
    idx = xp.arange(0, n, max(1, n // DEGREE_SAMPLES))
    deg = (indptr[idx + 1] - indptr[idx]).astype(xp.float64)
    mean = float(deg.mean())
    return float(deg.std()) / mean if mean > 0 else 0.0


def choose(graph: Graph, options: Options) -> Variant:
    """The variant ``algorithm="auto"`` runs on the GPU for ``graph`` (cached on it)."""
    key = ("auto_variant", options.auto_small_entries)
    cached = graph._device_cache.get(key)
    if cached is None:
        cached = graph._device_cache[key] = _choose(graph, options)
    return cached


def _choose(graph: Graph, options: Options) -> Variant:
    n = max(graph.num_nodes, 1)
    entries = graph.num_edges if graph.symmetric else 2 * graph.num_edges
    if entries < options.auto_small_entries:
        return Variant.parse("none-rem_cas-splice-coo")
    if entries / n < LOW_DEGREE:
        return Variant.parse("none-rem_cas-splice-csr")
    if degree_cv(graph) > SKEWED_CV:
        return Variant.parse("hb3-rem_cas-splice-csr")
    if entries / n < MESH_DEGREE:
        return Variant.parse("koutl-rem_cas-splice-csr")
    return Variant.parse("hb8-rem_cas-splice-csr")
