"""Strongly connected components on the CPU: Tarjan's depth-first search in Pearce's
space-efficient form (iterative, in numba), and trimming with min-label propagation
(:mod:`concomp._cpu.scc_propagation`).

:func:`scc_labels` returns root labels (each vertex's smallest strongly
connected vertex) by either algorithm; :func:`strong_component_labels` serves
:mod:`concomp.csgraph` with SciPy's numbering.

SciPy numbers strong components in the order its depth-first search completes
them. Its search is equivalent to a recursive DFS started from the vertices
``0 .. n-1`` in order that scans each vertex's successors from the *last*
stored CSR entry to the first. This driver performs exactly that search
(without recursion, so deep graphs cannot overflow the stack) and numbers the
components in completion order, so its labels equal
``scipy.sparse.csgraph.connected_components(A, connection="strong")``
entry for entry, for any CSR (duplicates, self loops, unsorted indices).

References
----------
R. E. Tarjan, "Depth-first search and linear graph algorithms", SIAM J.
Computing 1(2), 1972. D. J. Pearce, "A space-efficient algorithm for finding
strongly connected components", Information Processing Letters 116(1), 2016.
"""

from __future__ import annotations

import logging

import numba as nb
import numpy as np
from numpy.typing import DTypeLike

from .._shared.hugepages import scratch_zeros
from .._shared.locality import LOCAL_SHARE, host_local_share
from .._shared.threads import serialized
from ..graph import Graph
from ..options import Options
from .scc_propagation import propagation_roots

__all__ = [
    "acyclic_in_id_order",
    "scc_algorithm",
    "scc_component_labels",
    "scc_labels",
    "strong_component_labels",
]

log = logging.getLogger("concomp")


#: A search frame's flag: the vertex's index was never lowered (it may be its
#: component's root).
_ROOT = 1


@nb.njit(cache=True, inline="always")
def _nearest_successor(indptr, indices, v):
    """The successor of ``v`` closest to it in id (the first such stored)."""
    best = indices[indptr[v]]
    for j in range(indptr[v] + 1, indptr[v + 1]):
        w = indices[j]
        if abs(np.int64(w) - v) < abs(np.int64(best) - v):
            best = w
    return best


@nb.njit(cache=True)
def _pearce(indptr, indices, rindex, frame, stack, nearest):
    """Tarjan's search in Pearce's form; return the number of components.

    ``rindex[v]`` (0 while unseen) is v's discovery index, lowered to the smallest
    index v reaches while its component is open, and finally ``n - 1 - k`` for the
    ``k``-th component completed: completed components count down from ``n - 1``, above
    every open index, so they never lower an open vertex. One array per vertex besides
    the explicit call stack (``frame``, a row per level: the vertex, the next CSR
    position + 1 to look at, scanning downwards, and the flag ``_ROOT``; one row, so
    that entering and leaving a level touch one place of memory, not three) and
    Pearce's ``stack`` of vertices whose component is still open (an array of its own:
    kept in the frames' free rows instead, it was slower on a grid's giant component,
    whose search fills the frames and then the stack).

    Successors are scanned from the last stored to the first, SciPy's order. With
    ``nearest``, a vertex just entered descends at once into its successor closest in
    id while that one is unseen, so that a run of entries follows the nearest
    successors in one tight loop; each vertex then scans as before (which looks at
    that successor again, as the entry of a descent is looked at again on the way
    back). The components are the same in any order, only their numbering changes;
    where ids follow the graph's geometry (grids, meshes, road networks as their files
    number them) the search then walks along memory instead of jumping a row of the
    grid at every step. The look for the nearest successor reads the vertex's row
    once more.
    """
    n = indptr.shape[0] - 1
    index = 1
    c = n - 1
    top = 0
    for start in range(n):
        if rindex[start] != 0:
            continue
        depth = 0
        w = start  # the vertex to enter, if any (-1: none)
        while True:
            # enter w, then its nearest successors while they are unseen
            while w >= 0:
                rindex[w] = index
                index += 1
                hi = indptr[w + 1]
                frame[depth, 0] = w
                frame[depth, 1] = hi
                frame[depth, 2] = _ROOT
                depth += 1
                if not nearest or hi - indptr[w] < 2:
                    break
                near = _nearest_successor(indptr, indices, w)
                if rindex[near] != 0:
                    break
                w = near
            if depth == 0:
                break
            d = depth - 1
            v = frame[d, 0]
            pos = frame[d, 1]
            lo = indptr[v]
            rv = rindex[v]
            w = -1
            while pos > lo:
                x = indices[pos - 1]
                rx = rindex[x]
                if rx == 0:
                    # descend; entry pos - 1 is looked at again on the way back up,
                    # when x's final index can lower v's
                    frame[d, 1] = pos
                    rindex[v] = rv
                    w = x
                    break
                if rx < rv:
                    rv = rx
                    frame[d, 2] = 0
                pos -= 1
            if w >= 0:
                continue
            rindex[v] = rv
            depth -= 1
            if frame[d, 2] & _ROOT:
                # v completes its component: v and the open vertices found after it
                index -= 1
                while top > 0 and rv <= rindex[stack[top - 1]]:
                    top -= 1
                    rindex[stack[top]] = c
                    index -= 1
                rindex[v] = c
                c -= 1
            else:
                stack[top] = v
                top += 1
    return n - 1 - c


def strong_component_labels(indptr: np.ndarray, indices: np.ndarray) -> tuple[int, np.ndarray]:
    """Strongly connected components of the CSR graph ``(indptr, indices)``.

    Parameters
    ----------
    indptr, indices : ndarray
        CSR arrays (rows = sources), iterated exactly as stored.

    Returns
    -------
    count : int
    labels : ndarray of int32
        SciPy's numbering: components in the order the DFS completes them.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.scc import strong_component_labels
    >>> # 0 -> 1 -> 2 -> 1, 3 isolated
    >>> strong_component_labels(np.array([0, 1, 2, 3, 3]), np.array([1, 2, 1]))
    (3, array([1, 0, 0, 2], dtype=int32))
    """
    n = int(indptr.shape[0]) - 1
    count, rindex, _ = _search(indptr, indices, nearest=False)
    labels = (n - 1) - rindex  # the k-th completed component holds n - 1 - k
    return count, labels.astype(np.int32 if n <= np.iinfo(np.int32).max else np.int64)


def _search(
    indptr: np.ndarray, indices: np.ndarray, nearest: bool
) -> tuple[int, np.ndarray, np.ndarray]:
    """``(count, rindex, scratch)`` of :func:`_pearce`: ``rindex[v]`` is ``n - 1 - k`` for
    the ``k``-th component completed, ``scratch`` an array of ``n`` free to reuse."""
    n = int(indptr.shape[0]) - 1
    dt = np.int32 if max(n, int(indices.shape[0])) < np.iinfo(np.int32).max else np.int64
    indptr = np.ascontiguousarray(indptr, dtype=dt)
    indices = np.ascontiguousarray(indices, dtype=dt)
    # scratch as whole 2 MiB-aligned mappings on huge pages where the system lends them
    # (concomp._shared.hugepages): the search ran faster on them than on NumPy's arrays
    rindex = scratch_zeros(n, dt)
    frame = scratch_zeros(3 * n, dt).reshape(n, 3)
    stack = scratch_zeros(n, dt)
    count = _pearce(indptr, indices, rindex, frame, stack, nearest)
    return int(count), rindex, stack


@nb.njit(cache=True)
def _component_firsts(rindex, count, first, numbered):
    """``first[c]`` for the component of final search index ``n - count + c``: its
    smallest vertex, or with ``numbered`` its number in the order of the smallest
    vertices (canonical labels). An ascending pass that stops once every component has
    been met; ``first`` holds at least ``count`` entries of scratch."""
    base = rindex.shape[0] - count
    for k in range(count):
        first[k] = -1
    nxt = 0
    for v in range(rindex.shape[0]):
        c = rindex[v] - base
        if first[c] < 0:
            first[c] = nxt if numbered else v
            nxt += 1
            if nxt == count:
                break


@serialized
@nb.njit(cache=True, parallel=True)
def _gather_firsts(rindex, base, first, out):
    """``out[v] = first[rindex[v] - base]``, in parallel."""
    for v in nb.prange(rindex.shape[0]):
        out[v] = first[rindex[v] - base]


def _member_labels(
    rindex: np.ndarray, count: int, scratch: np.ndarray, numbered: bool, dtype: DTypeLike
) -> np.ndarray:
    """Each vertex's component as its smallest vertex, or with ``numbered`` as canonical
    labels, from the search's final indices (:func:`_search`; ``scratch`` its free
    array). One component needs no pass: its smallest vertex is 0, numbered 0."""
    n = rindex.shape[0]
    if count == 1:
        return np.zeros(n, dtype=dtype)
    _component_firsts(rindex, count, scratch, numbered)
    out = np.empty(n, dtype=dtype)
    _gather_firsts(rindex, n - count, scratch, out)
    return out


#: Rows a block of :func:`_against_id_order` checks before it looks whether another
#: block has already decided.
_ORDER_BLOCK = 1 << 14


@serialized
@nb.njit(cache=True, parallel=True)
def _against_id_order(indptr, indices, found):
    """``found[0]``: an arc runs to a smaller id; ``found[1]``: one runs to a larger id
    (self loops count for neither). Blocks of rows in parallel; every block stops once
    both are found, so a graph with arcs both ways costs about one block."""
    n = indptr.shape[0] - 1
    for b in nb.prange((n + _ORDER_BLOCK - 1) // _ORDER_BLOCK):
        if found[0] & found[1]:
            continue
        down = False
        up = False
        for u in range(b * _ORDER_BLOCK, min(n, (b + 1) * _ORDER_BLOCK)):
            for j in range(indptr[u], indptr[u + 1]):
                w = indices[j]
                down |= w < u
                up |= w > u
            if down & up:
                break
        if down:
            found[0] = True
        if up:
            found[1] = True


def acyclic_in_id_order(indptr: np.ndarray, indices: np.ndarray) -> bool:
    """Whether every arc (self loops aside) runs to a larger id, or every one to a
    smaller id: then the ids are a topological order, no cycle exists, and every vertex
    is a strong component of its own. One parallel pass over the arcs at most; it stops
    at the first arcs found both ways.

    Examples
    --------
    >>> import numpy as np
    >>> acyclic_in_id_order(np.array([0, 1, 2, 2]), np.array([1, 2]))  # 0 -> 1 -> 2
    True
    >>> acyclic_in_id_order(np.array([0, 1, 2, 3]), np.array([1, 2, 0]))  # a ring
    False
    """
    found = np.zeros(2, dtype=np.bool_)
    _against_id_order(indptr, indices, found)
    return not (found[0] and found[1])


def directed_csr(graph: Graph) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` of the arcs in one index dtype: the stored arcs of a directed
    graph, both directions of every edge of an undirected one."""
    if graph.directed:
        indptr, indices, _ = graph.csr()
    else:
        indptr, indices = graph.undirected_rows()
    dt = np.int32 if graph.index_dtype == np.int32 else np.int64
    return indptr.astype(dt, copy=False), indices.astype(dt, copy=False)


def scc_algorithm(graph: Graph, options: Options) -> str:
    """The algorithm ``algorithm="auto"`` runs: always ``"tarjan"`` on the CPU.

    Tarjan's search is linear in every case. Propagation's sweeps grow with the
    diameter and its rounds with the number of components left after trimming; on a
    two-core machine it is slower than Tarjan (and SciPy) on every directed corpus
    graph it ran on (``benchmarks/results/2026-11-29-cpu-aba2a64-scc-propagation.json``
    against ``…-cpu-17bcc87-scc.json``), so ``auto`` never picks it.
    """
    return "tarjan"


def _tarjan_search(
    graph: Graph, indptr: np.ndarray, indices: np.ndarray
) -> tuple[int, np.ndarray, np.ndarray] | None:
    """The search's ``(count, rindex, scratch)`` (:func:`_search`) over the graph's arcs
    ``(indptr, indices)`` (:func:`directed_csr`), or None where the ids are a
    topological order: every vertex is then a component of its own, each its own
    label, and no search is needed."""
    if acyclic_in_id_order(indptr, indices):
        # ids in topological order (a chain or a DAG numbered along its arcs, such as
        # citations by date): no cycle, so every vertex is its own component
        log.debug(
            "scc: every arc runs one way in id order: %d single-vertex components",
            graph.num_nodes,
        )
        return None
    # components do not depend on the order the search takes successors in. Where ids
    # follow the graph's geometry the nearest successor first keeps the search along
    # memory; elsewhere "nearest" means nothing and looking for it costs a pass over
    # each row
    nearest = host_local_share(graph) >= LOCAL_SHARE
    return _search(indptr, indices, nearest=nearest)


def scc_component_labels(
    graph: Graph, algorithm: str, options: Options, count_only: bool = False
) -> tuple[int, np.ndarray | None] | None:
    """``(count, labels)`` numbered like the canonical labels of the weak components,
    straight from Tarjan's search (one pass over its final indices instead of root
    labels and a numbering of them); ``(count, None)`` with ``count_only`` (the search
    counts them); None for ``"propagation"``, whose roots are numbered by the caller.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp import Graph
    >>> from concomp.options import DEFAULTS
    >>> g = Graph.from_edges(np.array([0, 1, 2, 3]), np.array([1, 2, 1, 0]), directed=True)
    >>> count, labels = scc_component_labels(g, "auto", DEFAULTS)
    >>> count, labels.tolist()
    (3, [0, 1, 1, 2])
    """
    if algorithm == "auto":
        algorithm = scc_algorithm(graph, options)
    if algorithm != "tarjan":
        return None
    n = graph.num_nodes
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    found = _tarjan_search(graph, *directed_csr(graph))
    if found is None:
        return n, None if count_only else np.arange(n, dtype=dt)
    count, rindex, scratch = found
    if count_only:
        return count, None
    return count, _member_labels(rindex, count, scratch, True, dt)


def scc_labels(graph: Graph, algorithm: str, options: Options) -> np.ndarray:
    """Root labels of the strongly connected components: entry ``v`` is the smallest
    vertex of ``v``'s component.

    ``algorithm`` is ``"tarjan"`` (serial, linear), ``"propagation"`` (parallel
    trimming and min-label propagation) or ``"auto"`` (:func:`scc_algorithm`).

    Examples
    --------
    >>> import numpy as np
    >>> from concomp import Graph
    >>> from concomp.options import DEFAULTS
    >>> from concomp._cpu.scc import scc_labels
    >>> g = Graph.from_edges(np.array([0, 1, 2, 3]), np.array([1, 2, 1, 0]), directed=True)
    >>> scc_labels(g, "tarjan", DEFAULTS).tolist()
    [0, 1, 1, 3]
    >>> scc_labels(g, "propagation", DEFAULTS).tolist()
    [0, 1, 1, 3]
    """
    if algorithm == "auto":
        algorithm = scc_algorithm(graph, options)
        log.debug("scc algorithm=auto -> %s on cpu", algorithm)
    indptr, indices = directed_csr(graph)
    n = graph.num_nodes
    if algorithm == "propagation":
        return propagation_roots(indptr, indices, n)
    if algorithm != "tarjan":
        raise ValueError(f"the CPU engine has no SCC algorithm {algorithm!r}")
    found = _tarjan_search(graph, indptr, indices)
    if found is None:
        return np.arange(n, dtype=indices.dtype)
    count, rindex, scratch = found
    return _member_labels(rindex, count, scratch, False, rindex.dtype)
