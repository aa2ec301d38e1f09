"""Component roots, spanning forests, minimum spanning forests and stream chunks with
NumPy alone, for ``algorithm="auto"`` before numba is loaded.

Importing numba and loading concomp's cached kernels costs a fresh process more than
half a second (``benchmarks/bench_first_call.py`` measures it as ``numba_floor``),
while a graph of a few hundred thousand edges takes tens of milliseconds with NumPy's
vectorised passes. So, while concomp's compiled CPU kernels are not loaded, the CPU
engine's ``auto`` answers small graphs here, and keeps count of the seconds it spent:
once they reach :data:`RENT_SECONDS` (about what loading numba costs), the next call
loads the kernels. This is the ski-rental rule: a process that calls many times never
spends more than about twice what loading numba up front would have cost, and a
process that calls once never loads numba at all. Explicit ``algorithm=`` variants
always run their compiled kernels.

Component roots come from SciPy's ``csgraph`` (one linear search in compiled code)
wherever the process has it loaded, and, where it has ``scipy.sparse`` (a SciPy
matrix came in), once the NumPy runs have spent what importing ``csgraph`` costs
(:data:`SCIPY_RENT_SECONDS`: the same rule at a smaller rent).

The algorithm hooks roots to smaller roots and compresses fully after each round:
every edge whose endpoints have different roots lowers the larger root's parent to the
smaller root (``numpy.minimum.at``), then pointer jumping makes every parent a root
again. Parents only decrease and a root is always the smallest vertex of its tree, so
the final roots are the smallest vertex ids of the components, exactly what the
compiled kernels return. A round leaves as roots only those that no smaller root
touches (in a path of roots, at most half of them); a run that needs more than
:func:`round_limit` rounds stops and the compiled kernels take the graph. For a
spanning forest each root that hooks takes one edge to its smallest neighbouring root
(the first such edge) and records it: every root hooks under a smaller one, so the
recorded edges form no cycle, and the roots that remain are the components'. A
minimum spanning forest is Borůvka's: the edges are sorted once by the tie rule
``(weight key, min(u, v), max(u, v), edge id)``, a strict total order, so each
component's first edge leaving it belongs to the unique forest (the cut property);
those edges join components (a components run on them), until no edge leaves one.
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Iterator

import numpy as np

from ..graph import Graph
from ..options import Options

__all__ = [
    "MAX_EDGES",
    "MAX_NODES",
    "MSF_MAX_EDGES",
    "RENT_SECONDS",
    "insert_links",
    "numpy_forest",
    "numpy_msf",
    "numpy_open",
    "numpy_roots",
    "round_limit",
    "stream_open",
    "unite_chunk",
]

#: Edges and vertices up to which ``auto`` may answer with NumPy (larger graphs load
#: the compiled kernels at once: one NumPy run would cost as much as loading them).
MAX_EDGES = 1 << 20
#: Below the canonical labelling's parallel kernel (``components.PARALLEL_LABELS_FROM``
#: vertices): a graph this small is numbered with NumPy too.
MAX_NODES = (1 << 20) - 1
#: Edges up to which a minimum spanning forest is answered with NumPy: as for the
#: other calls (its Borůvka contracts the graph every round, so a round costs the
#: edges left, not the vertices).
MSF_MAX_EDGES = MAX_EDGES
#: Seconds of NumPy runs after which the compiled kernels are loaded (about what
#: importing numba and loading cached kernels costs a fresh process).
RENT_SECONDS = 0.5
#: A module the compiled union-find kernels live in: once it is loaded, they are used.
_KERNELS = "concomp._cpu.unionfind"
#: Seconds of NumPy runs after which :func:`numpy_roots` imports SciPy's ``csgraph``,
#: by what the import costs: nothing where the process has it, about 0.03 s where
#: ``scipy.sparse`` is loaded (a SciPy matrix came in). A process without
#: ``scipy.sparse`` keeps the NumPy rounds: importing it costs about 0.1 s more, and
#: on edge pairs SciPy's search, with the CSR it has to build first, gains little on
#: random graphs (it gains most where ids follow a long path, as the NumPy rounds then
#: grow in number).
SCIPY_RENT_SECONDS = {"scipy.sparse.csgraph": 0.0, "scipy.sparse": 0.03}

_spent = 0.0


def round_limit(n: int) -> int:
    """Rounds a NumPy run may take before the compiled kernels take over."""
    return 2 * math.ceil(math.log2(n + 1)) + 8


def numpy_roots(graph: Graph, options: Options) -> np.ndarray | None:
    """Smallest vertex id of each vertex's component, or None where the compiled
    kernels should run instead: they are loaded already, ``options.numpy_start`` is
    False, the graph is larger than :data:`MAX_EDGES` / :data:`MAX_NODES`, the NumPy runs
    of this process have spent :data:`RENT_SECONDS`, or this run needs more than
    :func:`round_limit` rounds.

    Examples
    --------
    >>> from concomp import Graph
    >>> from concomp._cpu.numpy_start import _roots
    >>> _roots(*Graph.from_edges([3, 1], [2, 0], num_nodes=5).coo(), 5).tolist()
    [0, 0, 2, 2, 4]
    """
    if not numpy_open(graph, options):
        return None
    with _rent():
        if _scipy_paid():
            return _scipy_roots(graph)
        return _roots(*graph.coo(), graph.num_nodes)


def _scipy_paid() -> bool:
    """Whether the NumPy runs so far have spent what importing SciPy's ``csgraph`` costs
    this process (:data:`SCIPY_RENT_SECONDS`; never where ``scipy.sparse`` is not loaded)."""
    loaded = next((m for m in SCIPY_RENT_SECONDS if m in sys.modules), None)
    return loaded is not None and _spent >= SCIPY_RENT_SECONDS[loaded]


def _scipy_roots(graph: Graph) -> np.ndarray:
    """:func:`numpy_roots` by ``scipy.sparse.csgraph.connected_components`` (weak
    components of the arcs as stored): SciPy numbers the components by their smallest
    vertex, the first of each label in vertex order."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    n = graph.num_nodes
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    if graph.has_coo:
        src, dst = graph.coo()
        matrix = sp.coo_matrix((np.ones(src.shape[0], np.int8), (src, dst)), shape=(n, n))
    else:  # the rows as held; SciPy reads no values but wants an array of them
        indptr, indices, _ = graph.csr()
        ones = np.ones(indices.shape[0], np.int8)
        matrix = sp.csr_matrix((ones, indices, indptr), shape=(n, n))
    count, labels = connected_components(matrix, directed=True, connection="weak")
    first = np.empty(count, dt)
    first[labels[::-1]] = np.arange(n - 1, -1, -1, dtype=dt)  # the last write: the smallest
    return first[labels]


def numpy_forest(graph: Graph, options: Options) -> tuple[np.ndarray, int] | None:
    """Ascending input edge ids of a spanning forest and the number of components, or
    None where the compiled kernels should run (the gates of :func:`numpy_roots`).

    Examples
    --------
    >>> from concomp._cpu.numpy_start import _forest
    >>> ids, count = _forest(np.array([0, 1, 0, 3]), np.array([1, 2, 2, 3]), 5)
    >>> ids.tolist(), count  # vertex 2 hooks under 0, its smallest neighbouring root
    ([0, 2], 3)
    """
    if not numpy_open(graph, options):
        return None
    with _rent():
        return _forest(*graph.coo(), graph.num_nodes)


def numpy_msf(graph: Graph, key: np.ndarray, options: Options) -> np.ndarray | None:
    """Ascending input edge ids of the minimum spanning forest under the tie rule
    ``(key, min(u, v), max(u, v), edge id)`` (``key``: unsigned weight keys, one per
    edge), or None where the compiled kernels should run (the gates of
    :func:`numpy_roots`).

    Examples
    --------
    >>> from concomp._cpu.numpy_start import _msf
    >>> key = np.array([3, 1, 2, 0], np.uint64)
    >>> _msf(np.array([0, 1, 0, 3]), np.array([1, 2, 2, 3]), key, 4).tolist()
    [1, 2]
    """
    if not numpy_open(graph, options, MSF_MAX_EDGES):
        return None
    with _rent():
        src, dst = graph.coo()  # a small CSR's rows expand without compiled code
        return _msf(src, dst, key, graph.num_nodes)


def numpy_open(graph: Graph, options: Options, max_edges: int | None = None) -> bool:
    """Whether NumPy may answer for ``graph`` (kernels not loaded, rent unspent, at most
    ``max_edges`` edges (default :data:`MAX_EDGES`), ``options.numpy_start``)."""
    limit = MAX_EDGES if max_edges is None else max_edges
    return stream_open(graph.num_nodes, graph.num_edges, options) and graph.num_edges <= limit


@contextlib.contextmanager
def _rent() -> Iterator[None]:
    """Count the seconds of a NumPy run against :data:`RENT_SECONDS`."""
    global _spent
    start = time.perf_counter()
    try:
        yield
    finally:
        _spent += time.perf_counter() - start


def stream_open(nodes: int, edges: int, options: Options) -> bool:
    """Whether NumPy may unite a stream's chunk of ``edges`` edges into labels of
    ``nodes`` vertices (the gates of :func:`numpy_roots`)."""
    return not (
        not options.numpy_start
        or _KERNELS in sys.modules
        or _spent >= RENT_SECONDS
        or edges > MAX_EDGES
        or nodes > MAX_NODES
    )


def unite_chunk(parent: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    """``parent`` (every entry a root, each root the smallest vertex of its tree) with the
    edges ``(src, dst)`` united in and every entry a root again, or None if the run
    passed its round limit. ``parent`` may be changed in place either way, and remains a
    forest whose parents are smaller than their children, so the compiled kernels can
    unite the chunk into it from there."""
    with _rent():
        return _hook(parent, src, dst)


def _roots(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray | None:
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    return _hook(np.arange(n, dtype=dt), src, dst)


def _hook(parent: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray | None:
    n = int(parent.shape[0])
    dt = parent.dtype
    u, v = src.astype(dt, copy=False), dst.astype(dt, copy=False)
    for _ in range(round_limit(n)):
        pu, pv = parent[u], parent[v]
        apart = pu != pv
        if not apart.any():
            return parent
        # only edges whose roots differ can change anything again
        u, v, pu, pv = u[apart], v[apart], pu[apart], pv[apart]
        np.minimum.at(parent, np.maximum(pu, pv), np.minimum(pu, pv))
        parent = _jump(parent)
    return None


def _forest(src: np.ndarray, dst: np.ndarray, n: int) -> tuple[np.ndarray, int] | None:
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    parent = np.arange(n, dtype=dt)
    u, v = src.astype(dt, copy=False), dst.astype(dt, copy=False)
    ids = np.arange(u.shape[0], dtype=np.int64)
    m = max(int(u.shape[0]), 1)
    best = np.empty(n, np.int64)
    hooks: list[np.ndarray] = []
    for _ in range(round_limit(n)):
        pu, pv = parent[u], parent[v]
        apart = pu != pv
        if not apart.any():
            forest = _ascending(hooks)
            return forest, n - int(forest.shape[0])
        u, v, ids, pu, pv = u[apart], v[apart], ids[apart], pu[apart], pv[apart]
        hi = np.maximum(pu, pv)
        # each root's smallest neighbouring root, and the first edge that reaches it:
        # one key per edge, smallest per root (m * n < 2**63 for the sizes allowed here)
        key = np.minimum(pu, pv).astype(np.int64) * m + np.arange(u.shape[0])
        best.fill(np.iinfo(np.int64).max)
        np.minimum.at(best, hi, key)
        roots = np.flatnonzero(best != np.iinfo(np.int64).max)
        picked = best[roots]
        parent[roots] = (picked // m).astype(dt)
        hooks.append(ids[picked % m])
        parent = _jump(parent)
    return None


def _msf(src: np.ndarray, dst: np.ndarray, key: np.ndarray, n: int) -> np.ndarray | None:
    lo, hi = np.minimum(src, dst), np.maximum(src, dst)
    ids = np.flatnonzero(lo != hi)  # a self loop is in no forest
    # the tie rule's order; lexsort is stable, so equal (key, lo, hi) stay in id order
    ends = lo[ids].astype(np.int64) * n + hi[ids]
    ids = ids[np.lexsort((ends, key[ids]))]
    picked = _boruvka(src[ids], dst[ids], n)
    return None if picked is None else np.sort(ids[picked])


def _boruvka(cu: np.ndarray, cv: np.ndarray, c: int) -> np.ndarray | None:
    """Positions of the minimum spanning forest of the edges ``(cu[i], cv[i])`` over
    vertices ``0 .. c-1``, an edge's position being its weight (Kruskal's edges in list
    order), unordered; None past the round limit.

    Borůvka on the contracted graph: after each round the edges name the components of
    their ends, numbered 0 .. c-1, so a round costs its edges and components, not n.
    """
    none = np.iinfo(np.int64).max
    ids = np.arange(cu.shape[0])
    chosen: list[np.ndarray] = []
    for _ in range(round_limit(c)):
        apart = cu != cv
        if not apart.any():
            return np.concatenate(chosen) if chosen else np.zeros(0, np.int64)
        ids, cu, cv = ids[apart], cu[apart], cv[apart]
        at = np.arange(cu.shape[0])  # positions stay in list order
        first = np.full(c, none, np.int64)
        np.minimum.at(first, cu, at)
        np.minimum.at(first, cv, at)
        # the edges some component picked, ascending (a mark, not numpy.unique: its
        # hashing took most of a round)
        mark = np.zeros(cu.shape[0], np.bool_)
        mark[first[first != none]] = True
        picked = np.flatnonzero(mark)
        chosen.append(ids[picked])
        joined = _roots(cu[picked], cv[picked], c)
        if joined is None:
            return None
        number = np.cumsum(joined == np.arange(c, dtype=joined.dtype), dtype=joined.dtype) - 1
        renamed = number[joined]  # component -> its new component, 0 .. c'-1
        cu, cv, c = renamed[cu], renamed[cv], int(number[-1]) + 1
    return None


def insert_links(
    parent: np.ndarray, src: np.ndarray, dst: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The inserts of ``(src, dst)``, in their order, into the union-find ``parent``
    (every entry a root, the smallest vertex of its component), or None past the round
    limit (``parent`` unchanged either way).

    Returns ``(picked, parents, slots)``: the ascending positions of the edges that join
    two components (Kruskal's edges by position), the parents after the inserts (every
    entry a root again, the smallest vertex of its component), and one hook slot per
    picked edge, in the same order: the roots that stopped being roots, ascending.
    Their count equals the picked edges' (each joins two components into one). The
    seconds count against the rent.

    Examples
    --------
    >>> import numpy as np
    >>> src, dst = np.array([0, 1, 0, 3]), np.array([1, 0, 2, 2])
    >>> picked, parents, slots = insert_links(np.arange(4), src, dst)
    >>> picked.tolist(), parents.tolist(), slots.tolist()
    ([0, 2, 3], [0, 0, 0, 0], [1, 2, 3])
    """
    with _rent():
        n = int(parent.shape[0])
        picked = _boruvka(parent[src], parent[dst], n)
        if picked is None:
            return None
        picked.sort()
        joined = _hook(parent.copy(), src[picked], dst[picked])
        if joined is None:
            return None
        ids = np.arange(n, dtype=parent.dtype)
        slots = np.flatnonzero((parent == ids) & (joined != ids))
        return picked, joined, slots


def _ascending(parts: list[np.ndarray]) -> np.ndarray:
    """The edge ids picked round by round, ascending (int64)."""
    return np.sort(np.concatenate(parts)) if parts else np.zeros(0, np.int64)


def _jump(parent: np.ndarray) -> np.ndarray:
    """Pointer jumping until every parent is a root."""
    while True:
        grand = parent[parent]
        if np.array_equal(grand, parent):
            return parent
        parent = grand
