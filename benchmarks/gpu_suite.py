"""The benchmark graphs of ``../shared/reference-numbers.md``, generated on the GPU with CuPy.

Every graph is symmetrised with self loops and duplicate edges removed, and
returned as a :class:`concomp.Graph` holding a symmetric CSR (both directions)
on the device, with its COO view built too, so timed regions see the graph
"already on the device" as the peers' numbers do.
"""

from __future__ import annotations

import numpy as np

import concomp

SUITE = {
    # name: (kind, params)
    "rmat22": ("rmat", dict(scale=22, ef=16, abc=(0.57, 0.19, 0.19), seed=1)),
    "er22": ("rmat", dict(scale=22, ef=16, abc=(0.25, 0.25, 0.25), seed=2)),
    "gridp4k": ("grid", dict(rows=4096, cols=4096, seed=3)),
    "cong22": ("rmat", dict(scale=22, ef=16, abc=(0.45, 0.15, 0.15), seed=4)),
}
QUICK = {
    "rmat16": ("rmat", dict(scale=16, ef=16, abc=(0.57, 0.19, 0.19), seed=1)),
    "er16": ("rmat", dict(scale=16, ef=16, abc=(0.25, 0.25, 0.25), seed=2)),
    "gridp256": ("grid", dict(rows=256, cols=256, seed=3)),
    "cong16": ("rmat", dict(scale=16, ef=16, abc=(0.45, 0.15, 0.15), seed=4)),
}


def _rmat_edges(cp, scale, ef, abc, seed):
    n, m = 1 << scale, ef << scale
    a, b, c = abc
    rng = cp.random.default_rng(seed)
    u = cp.zeros(m, cp.int64)
    v = cp.zeros(m, cp.int64)
    for bit in range(scale):
        r = rng.random(m, dtype=cp.float32)
        u |= (r >= a + b).astype(cp.int64) << bit
        v |= (((r >= a) & (r < a + b)) | (r >= a + b + c)).astype(cp.int64) << bit
    perm = cp.argsort(rng.random(n, dtype=cp.float64)).astype(cp.int64)
    return perm[u], perm[v], n


def _grid_edges(cp, rows, cols, seed):
    n = rows * cols
    ids = cp.argsort(cp.random.default_rng(seed).random(n)).astype(cp.int64).reshape(rows, cols)
    u = cp.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    v = cp.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return u, v, n


def symmetric_csr_graph(cp, u, v, n) -> concomp.Graph:
    """Clean (no self loops, no duplicates), symmetrise, and build the device CSR."""
    keep = u != v
    u, v = u[keep], v[keep]
    key = cp.unique(cp.minimum(u, v) * n + cp.maximum(u, v))
    lo, hi = key // n, key % n
    src = cp.concatenate([lo, hi])
    dst = cp.concatenate([hi, lo])
    order = cp.argsort(src * n + dst)
    src, dst = src[order], dst[order]
    dt = np.int32 if 2 * key.size < 2**31 and n < 2**31 else np.int64
    indptr = cp.zeros(n + 1, dt)
    cp.cumsum(cp.bincount(src, minlength=n), out=indptr[1:])
    g = concomp.Graph.from_csr(indptr, dst.astype(dt), n, symmetric=True)
    g.coo()  # build the COO view now, outside any timed region
    return g


def make(name: str) -> concomp.Graph:
    import cupy as cp

    kind, p = {**SUITE, **QUICK}[name]
    if kind == "rmat":
        u, v, n = _rmat_edges(cp, p["scale"], p["ef"], p["abc"], p["seed"])
    else:
        u, v, n = _grid_edges(cp, p["rows"], p["cols"], p["seed"])
    g = symmetric_csr_graph(cp, u, v, n)
    del u, v
    cp.get_default_memory_pool().free_all_blocks()
    return g
