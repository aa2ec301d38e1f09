"""Direction-optimising BFS on the CPU: GConn's BFS sampler and BFS-CC (Ligra).

Both claim the vertices of one component for a source: an unvisited vertex ``w``
is one whose label is still its own id (``label[w] == w``, ``w`` not the source),
and a visit sets ``label[w] = source``. Top-down steps expand a queue; while the
frontier holds more than ``n / options.bfs_alpha`` vertices, bottom-up steps let
every unvisited vertex look for a frontier neighbour (Beamer's direction
optimisation), as the GPU's kernels do. The BFS runs on one thread: a level of a
component is a short loop, and the CPU engine runs the rest of a variant in
parallel.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ..options import Options

__all__ = ["bfs_components", "bfs_sample"]


@nb.njit(cache=True)
def _bfs(label, indptr, indices, eids, hook, record, source, alpha, cur, nxt, inq):
    """Claim ``source``'s component; return the smallest vertex visited."""
    n = label.shape[0]
    cur[0] = source
    size = 1
    smallest = source
    while size > 0:
        count = 0
        if size > n // alpha:
            for q in range(size):
                inq[cur[q]] = 1
            for v in range(n):
                if v == source or label[v] != v:
                    continue
                for j in range(indptr[v], indptr[v + 1]):
                    if inq[indices[j]]:
                        label[v] = source
                        if record:
                            hook[v] = eids[j]
                        nxt[count] = v
                        count += 1
                        break
            for q in range(size):
                inq[cur[q]] = 0
        else:
            for q in range(size):
                v = cur[q]
                for j in range(indptr[v], indptr[v + 1]):
                    w = indices[j]
                    if w != source and label[w] == w:
                        label[w] = source
                        if record:
                            hook[w] = eids[j]
                        nxt[count] = w
                        count += 1
        for q in range(count):
            smallest = min(smallest, nxt[q])
        cur, nxt = nxt, cur
        size = count
    return smallest


@nb.njit(cache=True)
def _restar(label, source, smallest):
    """Hang every vertex of ``source``'s star under ``smallest`` (parents stay smaller
    than children, which Rem's rules rely on)."""
    for v in range(label.shape[0]):
        if v == source or label[v] == source:
            label[v] = smallest


@nb.njit(cache=True)
def _components(label, indptr, indices, eids, hook, record, alpha):
    n = label.shape[0]
    cur = np.empty(n, label.dtype)
    nxt = np.empty(n, label.dtype)
    inq = np.zeros(n, np.uint8)
    for s in range(n):
        if label[s] == s and indptr[s + 1] > indptr[s]:
            _bfs(label, indptr, indices, eids, hook, record, s, alpha, cur, nxt, inq)


def bfs_sample(p, indptr, indices, eids, hook, record: bool, options: Options) -> None:
    """GConn's BFS sampler: one BFS from the highest-degree of 1024 sampled vertices; its
    component becomes a star under its smallest vertex."""
    n = p.shape[0]
    probe = np.random.default_rng(7).integers(0, n, size=min(1024, n))
    source = int(probe[np.argmax(indptr[probe + 1] - indptr[probe])])
    cur, nxt, inq = np.empty(n, p.dtype), np.empty(n, p.dtype), np.zeros(n, np.uint8)
    smallest = _bfs(
        p, indptr, indices, eids, hook, record, p.dtype.type(source), options.bfs_alpha, cur,
        nxt, inq,
    )  # fmt: skip
    _restar(p, source, smallest)


def bfs_components(indptr, indices, dtype, options: Options, eids=None, hook=None) -> np.ndarray:
    """BFS-CC: a BFS from the smallest unvisited vertex, repeated. Each source is the
    smallest vertex of its component, so the labels are minimum-vertex roots.

    With ``hook`` (and ``eids``) each visited vertex records the edge it was reached by.
    """
    label = np.arange(indptr.shape[0] - 1, dtype=dtype)
    record = hook is not None
    if hook is None:
        hook = eids = np.zeros(1, np.int64)
    _components(label, indptr, indices, eids, hook, record, options.bfs_alpha)
    return label
