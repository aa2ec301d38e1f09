"""CPU streaming connected components, and the host primitives the GPU pipeline stages with.

:class:`CpuStreamer` keeps one parent array and unites each chunk's edges into it
as the chunk arrives (sequential union-find: numba has no CAS on the CPU). When
the vertex count is not known in advance the array grows geometrically, new slots
starting as singletons.

:func:`stage_edges`, :func:`edge_id_range` and :func:`copy_parallel` are the host
side of the GPU pipeline (``_gpu/streaming.py``): one parallel pass over a chunk
copies and narrows its ids into a pinned staging buffer and finds their smallest
and largest value (the range check), so validation costs no extra read of the data.
"""

from __future__ import annotations

from collections.abc import Callable

import numba as nb
import numpy as np

from ._threads import serialized

from ..variants import Finish, Variant
from .components import _coo_union
from .unionfind import MODE_OF, flatten

__all__ = ["CpuStreamer", "stage_edges", "edge_id_range", "copy_parallel", "INT32_IDS"]

#: Largest vertex id that int32 labels hold. A module constant so that tests can
#: lower it to exercise the switch to int64 labels without 2**31 vertices.
INT32_IDS = int(np.iinfo(np.int32).max) - 1
#: Ids handled per parallel task; large enough to amortise scheduling, small
#: enough to balance 16+ threads on a chunk of a few million edges.
_BLOCK = 1 << 16

RangeCheck = Callable[[int, int], None]


# Both kernels work on zero-based views of one block and keep min/max in the input
# type: with that, LLVM vectorises the loop (about 10x faster than indexing the
# whole arrays at ``offset + i``, whose possibly negative index defeats it).
@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def _stage(src, dst, out_src, out_dst, offset):
    m = src.shape[0]
    nblocks = (m + _BLOCK - 1) // _BLOCK
    los = np.empty(nblocks, np.int64)
    his = np.empty(nblocks, np.int64)
    for b in nb.prange(nblocks):
        start = b * _BLOCK
        stop = min(start + _BLOCK, m)
        s, d = src[start:stop], dst[start:stop]
        os, od = out_src[offset + start:offset + stop], out_dst[offset + start:offset + stop]
        lo = s[0]
        hi = s[0]
        for j in range(s.shape[0]):
            u = s[j]
            v = d[j]
            os[j] = u
            od[j] = v
            lo = min(lo, u)
            lo = min(lo, v)
            hi = max(hi, u)
            hi = max(hi, v)
        los[b] = lo
        his[b] = hi
    return los.min(), his.max()


@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def _range(src, dst):
    m = src.shape[0]
    nblocks = (m + _BLOCK - 1) // _BLOCK
    los = np.empty(nblocks, np.int64)
    his = np.empty(nblocks, np.int64)
    for b in nb.prange(nblocks):
        start = b * _BLOCK
        stop = min(start + _BLOCK, m)
        s, d = src[start:stop], dst[start:stop]
        lo = s[0]
        hi = s[0]
        for j in range(s.shape[0]):
            lo = min(lo, s[j])
            hi = max(hi, s[j])
        for j in range(d.shape[0]):
            lo = min(lo, d[j])
            hi = max(hi, d[j])
        los[b] = lo
        his[b] = hi
    return los.min(), his.max()


@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def _copy(src, out):
    m = src.shape[0]
    for b in nb.prange((m + _BLOCK - 1) // _BLOCK):
        start = b * _BLOCK
        stop = min(start + _BLOCK, m)
        s, o = src[start:stop], out[start:stop]
        for j in range(s.shape[0]):
            o[j] = s[j]


def copy_parallel(src: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = src`` on all cores (``np.copyto`` uses one).

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.streaming import copy_parallel
    >>> out = np.zeros(3, np.int32)
    >>> copy_parallel(np.array([4, 5, 6], np.int32), out)
    >>> out.tolist()
    [4, 5, 6]
    """
    if src.shape[0]:
        _copy(src, out)


def _same_type(src: np.ndarray, dst: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # one id type keeps the vectorised min/max in a single type (mixed pairs are rare)
    if src.dtype == dst.dtype:
        return src, dst
    dt = np.result_type(src.dtype, dst.dtype)
    return src.astype(dt), dst.astype(dt)


def stage_edges(src: np.ndarray, dst: np.ndarray, out_src: np.ndarray, out_dst: np.ndarray,
                offset: int = 0) -> tuple[int, int]:
    """Copy ``src``/``dst`` into ``out_*[offset:offset+m]`` (casting) and return ``(min, max)``.

    Ids are signed or at most 32-bit unsigned integers (the caller converts
    anything else). A narrowing cast wraps silently: check the returned range
    before using the copy. An empty chunk returns ``(0, -1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.streaming import stage_edges
    >>> out_s, out_d = np.zeros(5, np.int32), np.zeros(5, np.int32)
    >>> stage_edges(np.array([3, 1]), np.array([4, 0]), out_s, out_d, offset=2)
    (0, 4)
    >>> out_s.tolist(), out_d.tolist()
    ([0, 0, 3, 1, 0], [0, 0, 4, 0, 0])
    """
    if src.shape[0] == 0:
        return 0, -1
    lo, hi = _stage(*_same_type(src, dst), out_src, out_dst, np.int64(offset))
    return int(lo), int(hi)


def edge_id_range(src: np.ndarray, dst: np.ndarray) -> tuple[int, int]:
    """``(min, max)`` over both id arrays in one parallel pass (``(0, -1)`` when empty).

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._cpu.streaming import edge_id_range
    >>> edge_id_range(np.array([5, 2], np.int32), np.array([7, 9], np.uint32))
    (2, 9)
    """
    if src.shape[0] == 0:
        return 0, -1
    lo, hi = _range(*_same_type(src, dst))
    return int(lo), int(hi)


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
