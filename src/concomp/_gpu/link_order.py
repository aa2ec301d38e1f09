"""Which link order a GPU union-find run uses (``Options.link_order``; ``uf.cuh`` has
the orders and why there are two).

Linked by id, the concurrent unions of a graph whose ids follow its long paths
(paths, meshes and grids numbered along their rows, trees in depth-first order,
road networks as their files number them) build parent chains as long as the
paths. The keyed order (a fixed pseudo-random permutation of the ids) keeps
every chain short on any id order, and the id order is faster elsewhere. Such
graphs show themselves by their edges: most of them join ids close to each
other. :func:`keyed` samples edges at hashed positions and keys the run when at least
:data:`LOCAL_SHARE` of them join ids at most :data:`LOCAL_WINDOW` apart, or
``n / 64`` on graphs of fewer than ``64 * LOCAL_WINDOW`` vertices (a path or a
row-major grid: a half or more; random ids: about ``2 * window / n``, under 4%).
"""

from __future__ import annotations

from typing import Any

from .._shared import locality
from .._shared.locality import LOCAL_SHARE, LOCAL_WINDOW, SAMPLES
from ..graph import Graph
from ..options import Options

__all__ = [
    "LOCAL_SHARE",
    "LOCAL_WINDOW",
    "SAMPLES",
    "keyed",
    "keyed_stream",
    "local_share",
    "window",
]


def window(graph: Graph) -> int:
    """Largest id difference of an edge that counts as local on ``graph``."""
    return locality.window(graph.num_nodes)


def local_share(graph: Graph) -> float:
    """Share of sampled edges of ``graph`` (:func:`concomp._shared.locality.sample_positions`)
    whose ends are at most ``min(LOCAL_WINDOW, n // 64)`` ids apart (0 for a graph
    without edges); on the device in one probe launch."""
    if graph.num_edges and graph.device == "gpu":
        from .probe import probe

        return probe(graph, degrees=False)["local_share"]
    return locality.host_local_share(graph)


def keyed(graph: Graph, options: Options) -> bool:
    """Whether a union-find run on ``graph`` links in the keyed order (cached on it)."""
    if options.link_order != "auto":
        return options.link_order == "keyed"
    cached: Any = graph._device_cache.get("link_keyed")
    if cached is None:
        cached = graph._device_cache["link_keyed"] = local_share(graph) >= LOCAL_SHARE
    return bool(cached)


def keyed_stream(options: Options) -> bool:
    """Whether a stream links in the keyed order: its edges are not known in advance,
    so "auto" keys it (short chains on any id order)."""
    return options.link_order != "id"
