"""Whether a graph's ids follow its paths: the share of its edges that join nearby ids.

Graphs numbered along their rows, paths and meshes (grids in row-major order, a path
with ids in order, trees in depth-first order, road networks as their files number
them) join mostly ids close to each other; randomly numbered graphs almost never do
(about ``2 * window / n`` of their edges). Both engines read it: the GPU to choose the
order in which union-find links (:mod:`concomp._gpu.link_order`), the CPU ``auto`` to
keep such graphs on the edge list, where id order makes the unsampled run cache-friendly.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LOCAL_SHARE", "LOCAL_WINDOW", "SAMPLES", "host_local_share", "window"]

#: Edges whose ids differ by at most this many (at most n / 64) count as local.
LOCAL_WINDOW = 1024
#: Share of local sampled edges from which a graph counts as numbered along its paths.
LOCAL_SHARE = 0.25
#: Edges sampled.
SAMPLES = 4096


def window(num_nodes: int) -> int:
    """Largest id difference of an edge that counts as local on ``num_nodes`` vertices."""
    return max(1, min(LOCAL_WINDOW, num_nodes // 64))


def host_local_share(graph: Any) -> float:
    """Share of evenly spaced edges of ``graph`` whose ends are at most
    :func:`window` ids apart (0 for a graph without edges), read with the graph's own
    array module: its edge list where it holds one, else its CSR (rows found by a
    search of the row pointer)."""
    m = graph.num_edges
    if m == 0:
        return 0.0
    xp = graph.xp
    pos = xp.linspace(0, m - 1, num=min(SAMPLES, m)).astype(xp.int64)
    if graph.has_coo:
        src, dst = graph.coo()
        u, v = src[pos], dst[pos]
    else:
        indptr, indices, _ = graph.csr()
        # positions in the row pointer's own type: any other converts all of it first
        u = xp.searchsorted(indptr, pos.astype(indptr.dtype), side="right") - 1
        v = indices[pos]
    gap = xp.abs(u.astype(xp.int64) - v.astype(xp.int64))
    return float((gap <= window(graph.num_nodes)).mean())
