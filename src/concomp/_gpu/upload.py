"""Host edge ids onto the device through two pinned slots.

A pageable ``cupy.asarray`` of int64 ids crosses the bus at a fraction of its speed and
needs separate passes for the id range. Here the ids travel in pieces of
:data:`SLOT_EDGES` edges: one parallel pass on all cores
(:func:`concomp._shared.staging.stage_edges`) copies a piece into a pinned slot,
narrowed to int32 while the ids fit, and finds its range, while the previous slot's
copy to the device is under way. Each calling thread keeps its two slots for later
calls, so the pinned memory a process holds is bounded (two slots per thread that
uploads) whatever the size of the edges: a Dask worker's memory limit counts it.
Used where host edges go to the GPU as a whole, not through the streaming pipeline: a
partition of :mod:`concomp.dask`, and the device graphs that the public calls other than
connected components build from host data (:mod:`concomp._host_input`). One id array (a
CSR's columns or row pointer) travels through the same slots with
:func:`ids_to_device`: its two halves fill the two halves of each slot.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from .._shared.staging import INT32_IDS, stage_edges
from .pinned import PinnedSlot, thread_slots

__all__ = ["SLOT_EDGES", "edges_to_device", "ids_to_device"]

#: Edges per pinned slot (two int64 ids each: 32 MiB a slot).
SLOT_EDGES = 1 << 21
_INT32_MIN = int(np.iinfo(np.int32).min)


def _slots(cp: Any) -> list[PinnedSlot]:
    """This thread's two upload slots of :data:`SLOT_EDGES` int64 id pairs."""
    return thread_slots(cp, "upload", 2 * SLOT_EDGES * 8, exact=True)


def edges_to_device(
    cp: Any, pieces: Iterable[tuple[np.ndarray, np.ndarray]], num_edges: int | None = None
) -> tuple[Any, Any, int, int]:
    """The pieces' ids concatenated on the device, and their smallest and largest id.

    Parameters
    ----------
    cp : module
        CuPy, as :mod:`concomp._gpu._compat` (the one module that imports it) passes it.
    pieces : iterable of (src, dst)
        1-D NumPy arrays of signed or at most 32-bit unsigned integers, ``src`` and
        ``dst`` of one length per piece. Iterated again from the start where an id
        does not fit int32 (a list, or an object whose ``__iter__`` reads the pieces
        anew, such as a file's row groups).
    num_edges : int, optional
        The pieces' total length, where the caller knows it without reading them
        (default: counted with one pass over the pieces).

    Returns
    -------
    src, dst : cupy.ndarray
        int32 when every id fits, else int64.
    lo, hi : int
        The range of all ids (``(0, -1)`` when there are none), found in the copy
        pass, for the caller's range check.
    """
    m = sum(int(s.shape[0]) for s, _ in pieces) if num_edges is None else int(num_edges)
    if m == 0:
        return cp.zeros(0, np.int32), cp.zeros(0, np.int32), 0, -1
    for dtype in (np.int32, np.int64):  # an id beyond int32: start again in int64
        src, dst = cp.empty(m, dtype), cp.empty(m, dtype)
        span = _upload(cp, pieces, (src, dst), dtype)
        if span is not None:
            return src, dst, span[0], span[1]
        del src, dst
    raise AssertionError("int64 holds every id the staging pass reads")


def ids_to_device(cp: Any, ids: np.ndarray) -> tuple[Any, int, int]:
    """One 1-D id array on the device (int32 when every id fits, else int64) and its
    ``(min, max)`` (``(0, -1)`` when empty), staged like :func:`edges_to_device`: its
    first and second halves travel as the two columns of the pieces, and an odd last
    id on its own."""
    m = int(ids.shape[0])
    if m == 0:
        return cp.zeros(0, np.int32), 0, -1
    h = m // 2
    last = int(ids[-1])
    for dtype in (np.int32, np.int64):
        if dtype is np.int32 and not _INT32_MIN <= last <= INT32_IDS:
            continue
        out = cp.empty(m, dtype)
        span = _upload(cp, [(ids[:h], ids[h : 2 * h])], (out[:h], out[h : 2 * h]), dtype)
        if span is None:
            continue
        lo, hi = span
        if m % 2:
            out[m - 1 :].set(np.array([last], dtype))
            lo, hi = (last, last) if hi < lo else (min(lo, last), max(hi, last))
        return out, lo, hi
    raise AssertionError("int64 holds every id the staging pass reads")


def _upload(
    cp: Any, pieces: Iterable[tuple[np.ndarray, np.ndarray]], outs: tuple[Any, Any], dtype: Any
) -> tuple[int, int] | None:
    """Stage and copy every piece as ``dtype`` into the device arrays ``outs``; the ids'
    range, or None as soon as an id does not fit ``dtype``."""
    slots = _slots(cp)
    stream = cp.cuda.get_current_stream()
    src, dst = outs
    lo, hi, at, turn = 0, -1, 0, 0
    try:
        for s, d in pieces:
            for a in range(0, int(s.shape[0]), SLOT_EDGES):
                k = min(SLOT_EDGES, int(s.shape[0]) - a)
                slot = slots[turn % 2]
                turn += 1
                slot.copied.synchronize()  # this slot's previous copy has left it
                host = slot.view(dtype)
                x, y = stage_edges(
                    s[a : a + k], d[a : a + k], host[:k], host[SLOT_EDGES : SLOT_EDGES + k]
                )
                if dtype is np.int32 and (x < _INT32_MIN or y > INT32_IDS):
                    return None  # the copies already queued finish in the `finally`
                lo, hi = (x, y) if hi < lo else (min(lo, x), max(hi, y))
                src[at : at + k].set(host[:k], stream)
                dst[at : at + k].set(host[SLOT_EDGES : SLOT_EDGES + k], stream)
                slot.copied.record(stream)
                at += k
    finally:
        # the slots are refilled by this thread's next call: every copy must have left
        stream.synchronize()
    return lo, hi
