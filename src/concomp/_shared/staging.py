"""Host primitives the streaming engines stage edge chunks with.

One pass over a chunk copies and narrows its ids into a (pinned) staging buffer
and finds their smallest and largest value (the range check), so validation costs
no extra read of the data. The GPU pipeline stages its slots with
:func:`stage_edges` and :func:`copy_parallel`; both engines check ranges with
:func:`edge_id_range`.

Two paths give the same results (``tests/test_staging.py``): numba kernels on all
cores (:mod:`concomp._shared.staging_kernels`, one fused pass per array) and NumPy on
the calling thread. The kernels run from :data:`PARALLEL_MIN` ids, and from
:data:`NUMBA_LOADED_MIN` ids in a process that has loaded numba already; NumPy runs
below. A process's first numba call costs about a second (importing numba and
loading its registries), far more than NumPy takes on such inputs: a new process's
first GPU call on a host graph of a few hundred thousand edges would otherwise be
mostly numba's start-up. Warm, the kernels are the faster (NumPy makes several
passes over the ids), which is why NumPy stops at 2**19 ids and is not used from
2**16 on once numba is loaded.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

__all__ = [
    "INT32_IDS",
    "PARALLEL_MIN",
    "NUMBA_LOADED_MIN",
    "RangeCheck",
    "copy_parallel",
    "edge_id_range",
    "first_decrease",
    "kernels_only",
    "stage_csr",
    "stage_csr_columns",
    "stage_edges",
]

#: Largest vertex id that int32 labels hold. A module constant so that tests can
#: lower it to exercise the switch to int64 labels without 2**31 vertices.
INT32_IDS = int(np.iinfo(np.int32).max) - 1
#: Ids (entries of the largest array) from which the numba kernels always run. Module
#: constants, so that tests can move them to run both paths on small inputs.
PARALLEL_MIN = 1 << 19
#: Ids from which the kernels run in a process that has loaded numba (below, NumPy is
#: as fast).
NUMBA_LOADED_MIN = 1 << 16

RangeCheck = Callable[[int, int], None]


def _numba_loaded() -> bool:
    return "numba" in sys.modules


def _kernels(size: int) -> Any:
    """The numba kernels module for an input of ``size`` ids, or None (NumPy)."""
    if size < PARALLEL_MIN and (size < NUMBA_LOADED_MIN or not _numba_loaded()):
        return None
    from . import staging_kernels

    return staging_kernels


@contextlib.contextmanager
def kernels_only() -> Iterator[None]:
    """Within the block, every staging call runs the numba kernels, whatever its size:
    :func:`concomp.warmup` stages small graphs, and must compile the kernels that later
    large inputs load. Not thread-safe (it moves :data:`PARALLEL_MIN`)."""
    global PARALLEL_MIN
    saved, PARALLEL_MIN = PARALLEL_MIN, 0
    try:
        yield
    finally:
        PARALLEL_MIN = saved


def _bounds(*arrays: np.ndarray) -> tuple[int, int]:
    """``(min, max)`` over non-empty arrays, in Python ints (NumPy path)."""
    return min(int(a.min()) for a in arrays), max(int(a.max()) for a in arrays)


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
    m = src.shape[0]
    kernels = _kernels(m)
    if kernels is None:
        np.copyto(out[:m], src, casting="unsafe")
    elif m:
        kernels.copy_ids(src, out)


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
    m = src.shape[0]
    if m == 0:
        return 0, -1
    kernels = _kernels(m)
    if kernels is None:
        np.copyto(out_src[offset : offset + m], src, casting="unsafe")
        np.copyto(out_dst[offset : offset + m], dst, casting="unsafe")
        return _bounds(src, dst)
    lo, hi = kernels.stage(*_same_type(src, dst), out_src, out_dst, np.int64(offset))
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
    kernels = _kernels(stop - start)
    if kernels is None:
        cols = indices[start:stop]
        k = stop - start
        np.copyto(out_dst[offset : offset + k], cols, casting="unsafe")
        out_src[offset : offset + k] = _rows_of(indptr, start, stop)
        return _bounds(cols)
    lo, hi = kernels.stage_csr(
        indptr, indices, np.int64(start), np.int64(stop), out_src, out_dst, np.int64(offset)
    )
    return int(lo), int(hi)


def _row_holding(indptr: np.ndarray, entry: int) -> int:
    """The row of CSR entry ``entry`` (the last row starting at or before it). The key
    takes the row pointer's own type: with any other NumPy converts the whole row
    pointer to the key's type first, on every call."""
    return int(np.searchsorted(indptr, indptr.dtype.type(entry), side="right")) - 1


def _rows_of(indptr: np.ndarray, start: int, stop: int) -> np.ndarray:
    """The row of each CSR entry ``start .. stop-1`` (NumPy path; a valid row pointer)."""
    r0 = _row_holding(indptr, start)
    r1 = _row_holding(indptr, stop - 1) + 1  # one past the last row
    ends = np.clip(indptr[r0 + 1 : r1 + 1], start, stop)
    begins = np.clip(indptr[r0:r1], start, stop)
    return np.repeat(np.arange(r0, r1, dtype=np.int64), ends - begins)


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
    kernels = _kernels(a.shape[0])
    if kernels is None:
        bad = np.flatnonzero(a[1:] < a[:-1])
        return int(bad[0]) if bad.shape[0] else -1
    bad = np.flatnonzero(kernels.decreasing_blocks(a))
    if bad.shape[0] == 0:
        return -1
    start = int(bad[0]) * kernels.BLOCK  # only the first bad block is searched again
    piece = a[start : start + kernels.BLOCK + 1]
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
    r0 = _row_holding(indptr, start)
    cap = int(out_seg.shape[0])
    last_row = _row_holding(indptr, stop - 1)
    if last_row - r0 + 2 > cap:  # too many rows for the offsets buffer: end the piece early
        last_row = r0 + cap - 2
        stop = int(indptr[last_row + 1])
    nseg = last_row - r0 + 2
    kernels = _kernels(stop - start)
    if kernels is None:
        cols = indices[start:stop]
        np.copyto(out_cols[: stop - start], cols, casting="unsafe")
        seg = np.clip(indptr[r0 : r0 + nseg] - start, 0, stop - start)
        np.copyto(out_seg[:nseg], seg, casting="unsafe")
        lo, hi = _bounds(cols)
        return stop, r0, nseg, lo, hi
    lo, hi = kernels.stage_columns(
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
    kernels = _kernels(src.shape[0])
    if kernels is None:
        return _bounds(src, dst)
    lo, hi = kernels.id_range(*_same_type(src, dst))
    return int(lo), int(hi)
