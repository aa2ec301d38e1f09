"""Host edge ids onto the device in one staged copy.

A pageable ``cupy.asarray`` of int64 ids crosses the bus at a fraction of its speed and
needs separate passes for the id range. Here one parallel pass on all cores
(:func:`concomp._shared.staging.stage_edges`) copies the ids into pinned host memory,
narrowed to int32 while they fit, and finds their range; one copy then moves the pinned
block to the device. Used where host edges go to the GPU as a whole (a partition of
:mod:`concomp.dask`), not through the streaming pipeline.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .._shared.staging import INT32_IDS, stage_edges
from ._compat import cupy_module

__all__ = ["edges_to_device"]

_INT32_MIN = int(np.iinfo(np.int32).min)


def edges_to_device(pieces: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[Any, Any, int, int]:
    """The pieces' ids concatenated on the device, and their smallest and largest id.

    Parameters
    ----------
    pieces : sequence of (src, dst)
        1-D NumPy arrays of signed or at most 32-bit unsigned integers, ``src`` and
        ``dst`` of one length per piece.

    Returns
    -------
    src, dst : cupy.ndarray
        int32 when every id fits, else int64.
    lo, hi : int
        The range of all ids (``(0, -1)`` when there are none), found in the copy
        pass, for the caller's range check.
    """
    cp = cupy_module()
    m = sum(int(s.shape[0]) for s, _ in pieces)
    if m == 0:
        return cp.zeros(0, np.int32), cp.zeros(0, np.int32), 0, -1
    for dtype in (np.int32, np.int64):
        mem = cp.cuda.alloc_pinned_memory(2 * m * np.dtype(dtype).itemsize)
        host = np.frombuffer(mem, dtype, 2 * m)
        lo, hi, at = 0, -1, 0
        for s, d in pieces:
            k = int(s.shape[0])
            if k:
                a, b = stage_edges(s, d, host[:m], host[m:], offset=at)
                lo, hi = (a, b) if hi < lo else (min(lo, a), max(hi, b))
            at += k
        if dtype is np.int64 or (lo >= _INT32_MIN and hi <= INT32_IDS):
            break  # int32 kept every id exactly
    out = cp.empty(2 * m, dtype)
    out.set(host)
    # the pinned block goes back to CuPy's pool when `mem` is dropped: the copy must be done
    cp.cuda.get_current_stream().synchronize()
    return out[:m], out[m:], lo, hi
