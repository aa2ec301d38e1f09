"""``algorithm="auto"`` on the GPU: a variant from cheap graph statistics.

The rules, and why they hold (GConn section 4; ``python -m concomp.bench variants
--device gpu`` times every variant on chosen corpus graphs, results in
``benchmarks/results/``):

- Rem-CAS with splicing is the finish of every choice: it is the fastest finish
  on every suite graph.
- The unsampled finish runs on the layout the graph holds (:func:`held_layout`):
  over the symmetric CSR where it has one, over the edge list otherwise. Both
  finishes take about the same time once their input exists, while making the
  other layout costs more than either: a sort of every entry for the CSR, a
  binary search per entry to expand CSR rows into pairs. On a graph run once (most
  graphs) that is most of the call: on a path of 2**24 vertices given as device
  pairs, the CSR finish's call took 3.23 ms against 1.07 ms for the COO finish; on a
  road graph of 1.2 M vertices given as a device CSR, 0.36 ms against 0.51 ms the
  other way (one H200, ``benchmarks/bench_fresh_calls.py``,
  ``benchmarks/results/2026-11-29-h200-b6ebbbe-fresh-calls.json``).
- A graph that holds no symmetric CSR (an edge list) runs the unsampled COO finish
  the first time it is run: every sampler and the CSR finish need the CSR, and
  building it (a sort of every entry) costs more than the COO finish's one pass over
  the edges, so a graph run once (most graphs) is fastest without it. Run again, the
  rules below decide, and a sampled choice builds the CSR once for every later run.
  R-MAT scale 22 as fresh device pairs: 1.01 ms, against 10.3 ms when its first run
  built the CSR to sample (``…-h200-342af3b-fresh-calls-ab.json``, the trees before
  and after this rule in one run).
- Graphs with fewer CSR entries than ``Options.auto_small_entries`` run the
  unsampled finish: their runs are bound by launches, and one pass is the fewest.
- Edge lists whose symmetric CSR would take more than :data:`CSR_FREE_SHARE` of the
  device memory free now to build (:func:`csr_build_bytes`) run the unsampled COO
  finish: it reads the edges as they are, while every sampler and the CSR finish
  need the CSR, whose sort would otherwise exhaust the device.
- Graphs of average degree below :data:`LOW_DEGREE` (road networks, sparse
  meshes) run the unsampled finish: sampling inspects most of their edges anyway
  (GConn, Fig. 5).
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
from .probe_launch import DEGREE_SAMPLES

#: Average degree (CSR entries per vertex) under which sampling is skipped.
LOW_DEGREE = 3.0
#: Average degree under which graphs that are not skewed sample with koutl (and
#: above which with hb8).
MESH_DEGREE = 7.0
#: Coefficient of variation of sampled degrees above which a graph counts as skewed
#: (uniform random graphs sit near 1/sqrt(mean degree), R-MAT graphs well above 1).
SKEWED_CV = 1.0
#: Share of the free device memory that building a symmetric CSR may take.
CSR_FREE_SHARE = 0.5


def csr_build_bytes(graph: Graph) -> int:
    """Peak device bytes of building ``graph``'s symmetric CSR (0 when it holds one).

    The doubled sources, targets and edge ids, the stable sort's order (64-bit) and
    the radix passes' double buffers of keys and order, then the row pointer and the
    counts.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> g = concomp.as_graph((np.array([0, 1]), np.array([1, 2])))
    >>> csr_build_bytes(g)  # 4 entries of 44 bytes, 3 vertices of 12
    212
    """
    if graph._ucsr is not None or (graph.symmetric and graph._indptr is not None):
        return 0
    it = graph.index_dtype.itemsize
    return 2 * graph.num_edges * (5 * it + 24) + graph.num_nodes * (it + 8)


def held_layout(graph: Graph) -> str:
    """``"csr"`` when ``graph`` holds its symmetric CSR (built, or given as a CSR flagged
    symmetric), else ``"coo"``: the layout an unsampled finish reads without building
    anything first.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> g = concomp.as_graph((np.array([0, 1]), np.array([1, 2])))
    >>> held_layout(g)
    'coo'
    >>> _ = g.undirected_csr()
    >>> held_layout(g)
    'csr'
    """
    return "csr" if csr_build_bytes(graph) == 0 else "coo"


def _device_free(graph: Graph) -> int | None:
    """Free device memory for a device graph (None for a host graph)."""
    if graph.device != "gpu":
        return None
    from ._compat import free_device_bytes

    return free_device_bytes()


def degree_cv(graph: Graph) -> float:
    """Coefficient of variation of the degrees of evenly spaced sampled vertices (on a
    device graph gathered with the link order's edge sample, :mod:`concomp._gpu.probe`)."""
    if graph.device == "gpu":
        from .probe import probe

        return probe(graph, degrees=True)["degree_cv"]
    indptr = graph.undirected_rows()[0]
    xp = graph.xp
    n = graph.num_nodes
    idx = xp.arange(0, n, max(1, n // DEGREE_SAMPLES))
    deg = (indptr[idx + 1] - indptr[idx]).astype(xp.float64)
    mean = float(deg.mean())
    return float(deg.std()) / mean if mean > 0 else 0.0


def choose(graph: Graph, options: Options) -> Variant:
    """The variant ``algorithm="auto"`` runs on the GPU for ``graph`` (cached on it from
    the first choice that the graph's layout does not decide alone)."""
    key = ("auto_variant", options.auto_small_entries)
    cached = graph._device_cache.get(key)
    if cached is None:
        if held_layout(graph) == "coo" and not graph._device_cache.get("auto_ran_coo"):
            graph._device_cache["auto_ran_coo"] = True  # run again: the rules decide
            return Variant.parse("none-rem_cas-splice-coo")
        cached = graph._device_cache[key] = _choose(graph, options)
    return cached


def _choose(graph: Graph, options: Options) -> Variant:
    n = max(graph.num_nodes, 1)
    entries = graph.num_edges if graph.symmetric else 2 * graph.num_edges
    unsampled = Variant.parse(f"none-rem_cas-splice-{held_layout(graph)}")
    if entries < options.auto_small_entries:
        return unsampled
    free = _device_free(graph)
    if free is not None and csr_build_bytes(graph) > CSR_FREE_SHARE * free:
        return Variant.parse("none-rem_cas-splice-coo")
    if entries / n < LOW_DEGREE:
        return unsampled
    if degree_cv(graph) > SKEWED_CV:
        return Variant.parse("hb3-rem_cas-splice-csr")
    if entries / n < MESH_DEGREE:
        return Variant.parse("koutl-rem_cas-splice-csr")
    return Variant.parse("hb8-rem_cas-splice-csr")
