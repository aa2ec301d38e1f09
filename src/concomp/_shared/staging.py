"""Host primitives the streaming engines stage edge chunks with (numba, all cores).

One parallel pass over a chunk copies and narrows its ids into a (pinned)
staging buffer and finds their smallest and largest value (the range check), so
validation costs no extra read of the data. The GPU pipeline stages its slots
with :func:`stage_edges` and :func:`copy_parallel`; both engines check ranges
with :func:`edge_id_range`.
"""

from __future__ import annotations

from collections.abc import Callable

import numba as nb
import numpy as np

from .threads import serialized

__all__ = [
    "INT32_IDS",
    "RangeCheck",
    "copy_parallel",
    "edge_id_range",
    "first_decrease",
    "stage_csr",
    "stage_csr_columns",
    "stage_edges",
]

#: Largest vertex id that int32 labels hold. A module constant so that tests can
#: lower it to exercise the switch to int64 labels without 2**31 vertices.
INT32_IDS = int(np.iinfo(np.int32).max) - 1
#: Ids handled per parallel task; large enough to amortise scheduling, small
#: enough to balance 16+ threads on a chunk of a few million edges.
_BLOCK = 1 << 16

RangeCheck = Callable[[int, int], None]


# Both kernels work on zero-based views of one block and keep min/max in the input
# type: with that, LLVM vectorises the loop (much faster than indexing the
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
        os, od = out_src[offset + start : offset + stop], out_dst[offset + start : offset + stop]
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
def _stage_csr(indptr, indices, start, stop, out_src, out_dst, offset):
    m = stop - start
    nblocks = (m + _BLOCK - 1) // _BLOCK
    los = np.empty(nblocks, np.int64)
    his = np.empty(nblocks, np.int64)
    for b in nb.prange(nblocks):
        first = start + b * _BLOCK
        last = min(first + _BLOCK, stop)
        d = indices[first:last]
        os = out_src[offset + first - start : offset + last - start]
        od = out_dst[offset + first - start : offset + last - start]
        # the columns: a plain copy with min/max, which LLVM vectorises
        lo = d[0]
        hi = d[0]
        for j in range(d.shape[0]):
            v = d[j]
            od[j] = v
            lo = min(lo, v)
            hi = max(hi, v)
        # the rows: one fill per row segment (a per-entry row test defeats vectorising
        # and made this pass several times slower than staging edge pairs). The row
        # holding ``first`` is the last row whose offset is <= first; empty rows cost
        # one step each, so all blocks together visit each row at most once.
        row = np.searchsorted(indptr, first, side="right") - 1
        pos = first
        while pos < last:
            end = min(indptr[row + 1], last)
            r = os.dtype.type(row)
            for j in range(pos - first, end - first):
                os[j] = r
            pos = max(pos, end)
            row += 1
        los[b] = lo
        his[b] = hi
    return los.min(), his.max()


@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def _stage_columns(indptr, indices, start, stop, out_cols, r0, nseg, out_seg):
    m = stop - start
    nblocks = (m + _BLOCK - 1) // _BLOCK
    sblocks = (nseg + _BLOCK - 1) // _BLOCK
    los = np.zeros(nblocks, np.int64)
    his = np.zeros(nblocks, np.int64)
    for b in nb.prange(nblocks + sblocks):
        if b < nblocks:  # the columns: a copy with min/max, which LLVM vectorises
            first = start + b * _BLOCK
            last = min(first + _BLOCK, stop)
            d = indices[first:last]
            od = out_cols[first - start : last - start]
            lo = d[0]
            hi = d[0]
            for j in range(d.shape[0]):
                v = d[j]
                od[j] = v
                lo = min(lo, v)
                hi = max(hi, v)
            los[b] = lo
            his[b] = hi
        else:  # the rows' offsets relative to ``start``, clamped to the piece
            k0 = (b - nblocks) * _BLOCK
            for k in range(k0, min(k0 + _BLOCK, nseg)):
                out_seg[k] = min(max(indptr[r0 + k] - start, 0), m)
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
def _decreasing_blocks(a):
    # one flag per block: a[i + 1] < a[i] for some i of the block (a block also looks
    # one entry past its end, so a drop across a block boundary is seen)
    m = a.shape[0] - 1
    nblocks = (m + _BLOCK - 1) // _BLOCK
    bad = np.zeros(max(nblocks, 1), np.bool_)
    for b in nb.prange(nblocks):
        start = b * _BLOCK
        stop = min(start + _BLOCK, m)
        lo, hi = a[start:stop], a[start + 1 : stop + 1]
        drop = False
        for j in range(lo.shape[0]):
            drop |= hi[j] < lo[j]
        bad[b] = drop
    return bad


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
    >>> from concomp._shared.staging import copy_parallel
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


def stage_edges(
    src: np.ndarray, dst: np.ndarray, out_src: np.ndarray, out_dst: np.ndarray, offset: int = 0
) -> tuple[int, int]:
    """Copy ``src``/``dst`` into ``out_*[offset:offset+m]`` (casting) and return ``(min, max)``.

    Ids are signed or at most 32-bit unsigned integers (the caller converts
    anything else). A narrowing cast wraps silently: check the returned range
    before using the copy. An empty chunk returns ``(0, -1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._shared.staging import stage_edges
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


def stage_csr(
    indptr: np.ndarray,
    indices: np.ndarray,
    start: int,
    stop: int,
    out_src: np.ndarray,
    out_dst: np.ndarray,
    offset: int = 0,
) -> tuple[int, int]:
    """Stage CSR entries ``start .. stop-1`` as edges: their rows into ``out_src`` and
    their columns into ``out_dst`` (from ``offset`` on, casting); return the columns'
    ``(min, max)``.

    ``indptr`` must be a valid row pointer (starts at 0, never decreases, ends at
    ``len(indices)``): the rows are found from it, so they need no range check.
    Like :func:`stage_edges`, a narrowing cast of a column wraps silently: check the
    returned range. An empty range returns ``(0, -1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._shared.staging import stage_csr
    >>> indptr, indices = np.array([0, 2, 2, 3]), np.array([1, 2, 0])
    >>> out_s, out_d = np.zeros(3, np.int32), np.zeros(3, np.int32)
    >>> stage_csr(indptr, indices, 1, 3, out_s, out_d)
    (0, 2)
    >>> out_s[:2].tolist(), out_d[:2].tolist()
    ([0, 2], [2, 0])
    """
    if stop <= start:
        return 0, -1
    lo, hi = _stage_csr(
        indptr, indices, np.int64(start), np.int64(stop), out_src, out_dst, np.int64(offset)
    )
    return int(lo), int(hi)


def first_decrease(a: np.ndarray) -> int:
    """Index ``i`` of the first ``a[i + 1] < a[i]`` (-1 if ``a`` never decreases), on all cores.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._shared.staging import first_decrease
    >>> first_decrease(np.array([0, 2, 2, 5])), first_decrease(np.array([0, 3, 1, 4]))
    (-1, 1)
    """
    if a.shape[0] < 2:
        return -1
    bad = np.flatnonzero(_decreasing_blocks(a))
    if bad.shape[0] == 0:
        return -1
    start = int(bad[0]) * _BLOCK  # only the first bad block is searched again
    piece = a[start : start + _BLOCK + 1]
    return start + int(np.flatnonzero(piece[1:] < piece[:-1])[0])


def stage_csr_columns(
    indptr: np.ndarray,
    indices: np.ndarray,
    start: int,
    stop: int,
    out_cols: np.ndarray,
    out_seg: np.ndarray,
) -> tuple[int, int, int, int, int]:
    """Stage CSR entries ``start ..`` for a device that expands the rows itself.

    The columns go to ``out_cols[0:k]`` (casting) and the offsets of their rows,
    relative to ``start`` and clamped to ``[0, k]``, to ``out_seg[0:nseg]``
    (int32): ``out_seg[i]`` is where row ``r0 + i`` starts in the piece, and
    ``out_seg[nseg - 1] == k`` ends the last row. A piece takes entries up to
    ``stop``, or fewer where its rows would not fit in ``out_seg``; ``k = stop' -
    start``. Returns ``(stop', r0, nseg, min, max)`` (min/max of the columns, for
    the range check; a narrowing cast wraps silently, as in :func:`stage_edges`).
    ``indptr`` must be a valid row pointer. Needs ``start < stop`` and
    ``len(out_seg) >= 2``.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._shared.staging import stage_csr_columns
    >>> indptr, indices = np.array([0, 2, 2, 5]), np.array([1, 2, 0, 1, 2])
    >>> cols, seg = np.zeros(5, np.int32), np.zeros(4, np.int32)
    >>> stage_csr_columns(indptr, indices, 1, 5, cols, seg)
    (5, 0, 4, 0, 2)
    >>> cols[:4].tolist(), seg.tolist()  # rows 0, 1 (empty), 2 start at 0, 1, 1
    ([2, 0, 1, 2], [0, 1, 1, 4])
    """
    r0 = int(np.searchsorted(indptr, start, side="right")) - 1
    cap = int(out_seg.shape[0])
    last_row = int(np.searchsorted(indptr, stop - 1, side="right")) - 1
    if last_row - r0 + 2 > cap:  # too many rows for the offsets buffer: end the piece early
        last_row = r0 + cap - 2
        stop = int(indptr[last_row + 1])
    nseg = last_row - r0 + 2
    lo, hi = _stage_columns(
        indptr,
        indices,
        np.int64(start),
        np.int64(stop),
        out_cols,
        np.int64(r0),
        np.int64(nseg),
        out_seg,
    )
    return stop, r0, nseg, int(lo), int(hi)


def edge_id_range(src: np.ndarray, dst: np.ndarray) -> tuple[int, int]:
    """``(min, max)`` over both id arrays in one parallel pass (``(0, -1)`` when empty).

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._shared.staging import edge_id_range
    >>> edge_id_range(np.array([5, 2], np.int32), np.array([7, 9], np.uint32))
    (2, 9)
    """
    if src.shape[0] == 0:
        return 0, -1
    lo, hi = _range(*_same_type(src, dst))
    return int(lo), int(hi)
