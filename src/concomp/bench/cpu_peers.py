"""CPU peers timed on the same graphs as concomp: SciPy, NetworkX, igraph, NetworKit.

Each peer gets the graph in its own structure, built before the clock starts (the
benchmark times the algorithm, not the conversion). SciPy always runs; NetworkX only
up to :data:`NETWORKX_MAX_EDGES` undirected edges (it builds Python objects per
edge); igraph and NetworKit where they are installed. Every function returns
``{peer: (Timing, result)}`` with the result in the harness's form
(``{"components": c}`` or ``{"msf_weight": w, "msf_edges": k}``).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np

from .memory import peak_memory
from .timing import Timing, measure

__all__ = [
    "NETWORKX_MAX_EDGES",
    "cc_peers",
    "forest_peers",
    "msf_peers",
    "scc_peers",
    "installed",
    "scipy_cc_memory",
]

#: NetworkX builds Python objects per edge: beyond this it would dominate the run.
NETWORKX_MAX_EDGES = 2_000_000

PeerResults = dict[str, tuple[Timing, dict[str, Any]]]


def installed(module: str) -> bool:
    """Whether ``module`` can be imported here."""
    return importlib.util.find_spec(module) is not None


def _scipy_matrix(indptr: np.ndarray, indices: np.ndarray, n: int, data: Any = None) -> Any:
    import scipy.sparse as sp

    values = np.ones(indices.shape[0], np.int8) if data is None else data
    return sp.csr_array((values, indices, indptr), shape=(n, n))


def _upper_edges(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any]:
    """Each undirected edge once (``u < v``) and its position in the symmetric CSR."""
    rows = np.repeat(np.arange(indptr.shape[0] - 1, dtype=np.int64), np.diff(indptr))
    keep = rows < indices
    return rows[keep], indices[keep].astype(np.int64), np.flatnonzero(keep)


def _networkx(n: int, u: np.ndarray, v: np.ndarray, w: np.ndarray | None = None) -> Any:
    import networkx as nx

    g = nx.Graph()
    g.add_nodes_from(range(n))
    if w is None:
        g.add_edges_from(zip(u.tolist(), v.tolist()))
    else:
        g.add_weighted_edges_from(zip(u.tolist(), v.tolist(), w.tolist()))
    return g


def _igraph(n: int, u: np.ndarray, v: np.ndarray) -> Any:
    import igraph

    return igraph.Graph(n=n, edges=np.column_stack([u, v]).tolist(), directed=False)


def _uncached(ig: Any, call: Callable[[], Any]) -> Callable[[], Any]:
    """``call`` on the igraph graph ``ig`` with its property cache emptied first.

    igraph caches properties of a graph, among them whether it is connected, and
    ``connected_components`` answers a graph known to be connected from that cache
    (one component, every vertex in it) without a search. The warm-up run would fill
    the cache and every timed run would then skip the search, which on a large
    connected graph is most of the work. Emptying the cache costs microseconds.
    """
    invalidate = getattr(ig, "__invalidate_cache", None)  # a method of igraph's C extension
    if invalidate is None:
        raise RuntimeError(
            f"igraph {_igraph_version()} has no Graph.__invalidate_cache, so its runs would "
            "time its cached answers. Fix: install python-igraph 0.10 or later."
        )

    def run() -> Any:
        invalidate()
        return call()

    return run


def _igraph_version() -> str:
    import igraph

    return str(getattr(igraph, "__version__", "(version unknown)"))


def _networkit(n: int, u: np.ndarray, v: np.ndarray) -> Any:
    import networkit as nk

    return nk.GraphFromCoo(
        (np.ones(u.shape[0]), (u.astype(np.uint64), v.astype(np.uint64))),
        n,
        weighted=False,
        directed=False,
    )


def scipy_cc_memory(indptr: np.ndarray, indices: np.ndarray, n: int) -> dict[str, Any]:
    """:func:`peak_memory` of SciPy's connected components on the symmetric CSR, called
    as :func:`cc_peers` times it."""
    from scipy.sparse.csgraph import connected_components

    a = _scipy_matrix(indptr, indices, n)
    return peak_memory(lambda: connected_components(a, directed=True, connection="weak"), a.nnz)


def _run(fn: Callable[[], Any], reps: int, result: Callable[[Any], dict]) -> tuple[Timing, dict]:
    timing = measure(fn, reps=reps)
    return timing, result(fn())


def cc_peers(indptr: np.ndarray, indices: np.ndarray, n: int, reps: int) -> PeerResults:
    """Connected components by every CPU peer available here."""
    from scipy.sparse.csgraph import connected_components

    a = _scipy_matrix(indptr, indices, n)
    # the CSR holds both directions already: weak connectivity needs no symmetrising copy
    out = {
        "scipy": _run(
            lambda: connected_components(a, directed=True, connection="weak")[0],
            reps,
            lambda c: {"components": int(c)},
        )
    }
    u, v, _ = _upper_edges(indptr, indices)
    if u.shape[0] <= NETWORKX_MAX_EDGES and installed("networkx"):
        import networkx as nx

        g = _networkx(n, u, v)
        out["networkx"] = _run(
            lambda: nx.number_connected_components(g), reps, lambda c: {"components": int(c)}
        )
    if installed("igraph"):
        ig = _igraph(n, u, v)
        out["igraph"] = _run(
            _uncached(ig, ig.connected_components), reps, lambda c: {"components": len(c)}
        )
    if installed("networkit"):
        import networkit as nk

        gk = _networkit(n, u, v)

        def run_nk() -> int:
            cc = nk.components.ConnectedComponents(gk)
            cc.run()
            return int(cc.numberOfComponents())

        out["networkit"] = _run(run_nk, reps, lambda c: {"components": c})
    return out


def scc_peers(indptr: np.ndarray, indices: np.ndarray, n: int, reps: int) -> PeerResults:
    """Strongly connected components of the directed CSR by every CPU peer available here
    (SciPy's iterative Tarjan/Pearce search)."""
    from scipy.sparse.csgraph import connected_components

    a = _scipy_matrix(indptr, indices, n)
    return {
        "scipy": _run(
            lambda: connected_components(a, directed=True, connection="strong")[0],
            reps,
            lambda c: {"components": int(c)},
        )
    }


def forest_peers(indptr: np.ndarray, indices: np.ndarray, n: int, reps: int) -> PeerResults:
    """Spanning forests: SciPy's spanning tree of the unit-weight graph, igraph,
    NetworKit; the result is ``n`` minus the forest's edges (the component count)."""
    from scipy.sparse.csgraph import minimum_spanning_tree

    a = _scipy_matrix(indptr, indices, n)
    out = {
        "scipy": _run(
            lambda: minimum_spanning_tree(a), reps, lambda t: {"components": n - int(t.nnz)}
        )
    }
    u, v, _ = _upper_edges(indptr, indices)
    if installed("igraph"):
        ig = _igraph(n, u, v)
        out["igraph"] = _run(
            _uncached(ig, lambda: ig.spanning_tree(return_tree=False)),
            reps,
            lambda ids: {"components": n - len(ids)},
        )
    if installed("networkit"):
        import networkit as nk

        gk = _networkit(n, u, v)

        def run_nk() -> int:
            sf = nk.graph.SpanningForest(gk)
            sf.run()
            return int(sf.getForest().numberOfEdges())

        out["networkit"] = _run(run_nk, reps, lambda k: {"components": n - k})
    return out


def msf_peers(
    indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray, n: int, reps: int
) -> PeerResults:
    """Minimum spanning forests (integer weights >= 1: SciPy keeps every edge)."""
    from scipy.sparse.csgraph import minimum_spanning_tree

    a = _scipy_matrix(indptr, indices, n, data=weights.astype(np.float64))

    def scipy_result(t: Any) -> dict:
        return {"msf_weight": int(round(float(t.sum()))), "msf_edges": int(t.nnz)}

    out = {"scipy": _run(lambda: minimum_spanning_tree(a), reps, scipy_result)}
    u, v, pos = _upper_edges(indptr, indices)
    w = weights[pos]
    if u.shape[0] <= NETWORKX_MAX_EDGES and installed("networkx"):
        import networkx as nx

        g = _networkx(n, u, v, w)

        def nx_result(t: Any) -> dict:
            return {"msf_weight": int(t.size(weight="weight")), "msf_edges": t.number_of_edges()}

        out["networkx"] = _run(lambda: nx.minimum_spanning_tree(g), reps, nx_result)
    if installed("igraph"):
        ig = _igraph(n, u, v)
        wl = w.tolist()

        def ig_result(ids: Any) -> dict:
            return {"msf_weight": int(w[np.asarray(ids, np.int64)].sum()), "msf_edges": len(ids)}

        out["igraph"] = _run(
            _uncached(ig, lambda: ig.spanning_tree(weights=wl, return_tree=False)),
            reps,
            ig_result,
        )
    return out
