"""Graphs of the profiling scripts, from the benchmark corpus (``concomp.generators.corpus``)."""

from __future__ import annotations

import numpy as np

import concomp
from concomp.generators.corpus import CORPUS

#: GConn on the H100, all edges (both directions) as one batch, ms (reference-numbers.md).
TARGET_MS = {"rmat22": 1.57, "er22": 1.73, "gridp4k": 2.98, "cong22": 1.73}


def load_stream(name: str, device: str, quick: bool):
    """``(n, (src, dst) in CSR order, (src, dst) permuted, components)`` of a corpus graph."""
    g = CORPUS[name].build(device, quick=quick)
    if device == "gpu":
        import cupy as cp

        rng = cp.random.default_rng(17)
    else:
        rng = np.random.default_rng(17)
    src, dst = g.coo()
    perm = rng.random(src.shape[0]).argsort()  # CuPy's Generator has no permutation()
    count = concomp.connected_components(g, device=device, return_labels=False)
    return g.num_nodes, (src, dst), (src[perm], dst[perm]), count
