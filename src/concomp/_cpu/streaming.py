"""CPU streaming connected components.

:class:`CpuStreamer` keeps one parent array and unites each chunk's edges into it
as the chunk arrives (sequential union-find: numba has no CAS on the CPU). When
the vertex count is not known in advance the array grows geometrically, new slots
starting as singletons. The staging primitives both engines use live in
:mod:`concomp._shared.staging`.
"""

from __future__ import annotations

import numpy as np

from .._shared.staging import INT32_IDS, RangeCheck
from ..variants import Finish, Variant
from .components import _coo_union
from .unionfind import MODE_OF, flatten

__all__ = ["CpuStreamer"]


class CpuStreamer:
    """Union-find labels on the host, fed one edge chunk at a time.

    Parameters
    ----------
    num_nodes : int or None
        Vertex count; ``None`` grows the labels as larger ids arrive.
    variant : Variant
        A streaming variant (sampling ``none``, layout ``coo``) whose finish
        the CPU engine implements (``async`` or ``rem_cas``).
    index_dtype : dtype, optional
        Force the label type (default int32 while ids fit, else int64).
    """

    def __init__(self, num_nodes: int | None, variant: Variant, index_dtype=None) -> None:
        self.fixed = num_nodes is not None
        self.n = int(num_nodes or 0)
        dt = index_dtype or (np.int32 if self.n - 1 <= INT32_IDS else np.int64)
        self.p = np.arange(max(self.n, 16), dtype=dt)
        self.mode = MODE_OF[variant.compress.value]
        self.rem = variant.finish in (Finish.REM_CAS, Finish.REM_LOCK)
        self.chunks = 0
        self.edges = 0

    def ensure_nodes(self, n: int) -> None:
        """Make ids ``0 .. n-1`` valid (a chunk's declared vertex count, say)."""
        if n > self.n:
            self._grow(n)
            self.n = n

    def add(self, src: np.ndarray, dst: np.ndarray, check: RangeCheck) -> None:
        """Unite one chunk's edges; ``check(lo, hi)`` raises for ids out of range."""
        if src.shape[0] == 0:
            check(0, -1)
            return
        # NumPy's reductions take any dtype and layout without a numba compile each
        lo = int(min(src.min(), dst.min()))
        hi = int(max(src.max(), dst.max()))
        check(lo, hi)
        self.ensure_nodes(hi + 1)
        # one label type, contiguous: the union loop compiles for two signatures only
        dt = self.p.dtype
        _coo_union(self.p, np.ascontiguousarray(src, dt), np.ascontiguousarray(dst, dt),
                   self.mode, self.rem)
        self.chunks += 1
        self.edges += int(src.shape[0])

    def roots(self) -> np.ndarray:
        """Smallest vertex id of each vertex's component, for ids ``0 .. n-1``."""
        p = self.p[: self.n]
        flatten(p)
        return p

    def _grow(self, need: int) -> None:
        p = self.p
        if need - 1 > INT32_IDS and p.dtype == np.int32:
            p = p.astype(np.int64)
        cap = p.shape[0]
        if need > cap:
            # geometric growth: a stream of slowly rising ids costs O(n) copies in all
            new_cap = max(need, 2 * cap)
            p = np.concatenate([p, np.arange(cap, new_cap, dtype=p.dtype)])
        self.p = p
