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

__all__ = [
    "JITTER",
    "LOCAL_SHARE",
    "LOCAL_WINDOW",
    "SAMPLES",
    "host_local_share",
    "sample_positions",
    "window",
]

#: Edges whose ids differ by at most this many (at most n / 64) count as local.
LOCAL_WINDOW = 1024
#: Share of local sampled edges from which a graph counts as numbered along its paths.
LOCAL_SHARE = 0.25
#: Edges sampled.
SAMPLES = 4096
#: Multiplier of the hash that places each sample inside its stretch of the edges.
JITTER = 0x9E3779B97F4A7C15


def window(num_nodes: int) -> int:
    """Largest id difference of an edge that counts as local on ``num_nodes`` vertices."""
    return max(1, min(LOCAL_WINDOW, num_nodes // 64))


def sample_positions(xp: Any, m: int, num: int) -> Any:
    """Positions of ``num <= m`` sampled edges among ``m``: one in each of ``num`` equal
    stretches, placed inside it by a hash of the stretch's number.

    Evenly spaced positions alias with a CSR whose rows all have one length: on a
    4096 x 4096 grid of one-way streets, rows of two entries, every sample fell on a
    row's second entry, the vertical one (none local, where half the arcs are). The
    hash breaks any such period; ``cuda/probe.cu`` computes the same positions.
    """
    i = xp.arange(num, dtype=xp.int64)
    pos = (i * m) // num
    stride = m // num
    if stride > 1:
        mixed = (i.astype(xp.uint64) * xp.uint64(JITTER)) >> xp.uint64(33)
        pos += (mixed % xp.uint64(stride)).astype(xp.int64)
    return pos


def host_local_share(graph: Any) -> float:
    """Share of sampled edges of ``graph`` (:func:`sample_positions`) whose ends are at
    most :func:`window` ids apart (0 for a graph without edges), read with the graph's
    own array module: its edge list where it holds one, else its CSR (rows found by a
    search of the row pointer)."""
    m = graph.num_edges
    if m == 0:
        return 0.0
    xp = graph.xp
    pos = sample_positions(xp, m, min(SAMPLES, m))
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
