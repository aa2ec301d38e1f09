"""Pairs of pinned host slots that a calling thread keeps between calls.

Host data reaches the device fastest from page-locked memory, and allocating it costs
far more than copying into it, so the pipelines that stage host data (edge uploads in
:mod:`concomp._gpu.upload`, Parquet column chunks in :mod:`concomp._gpu.parquet`) each
fill two slots in turn: one is filled on the host while the other's copy is under way.
A thread keeps its pair per use, so the pinned memory a process holds is bounded by
two slots per use and thread, whatever the size of the data.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["PinnedSlot", "thread_slots"]

_local = threading.local()


class PinnedSlot:
    """``nbytes`` of pinned host memory and the event of its last copy to the device.

    The event is never recorded when the slot is made, so synchronising on a fresh
    slot returns at once.
    """

    def __init__(self, cp: Any, nbytes: int) -> None:
        self.nbytes = nbytes
        self.mem = cp.cuda.alloc_pinned_memory(nbytes)
        self.copied = cp.cuda.Event(disable_timing=True)

    def view(self, dtype: Any = np.uint8) -> np.ndarray:
        """The whole slot as a 1-D array of ``dtype``."""
        dt = np.dtype(dtype)
        return np.frombuffer(self.mem, dt, self.nbytes // dt.itemsize)


def thread_slots(cp: Any, use: str, nbytes: int, exact: bool = False) -> list[PinnedSlot]:
    """The calling thread's two slots for ``use`` of at least ``nbytes`` each (exactly
    ``nbytes`` with ``exact``), made on first need and kept for later calls.

    Examples
    --------
    >>> class _Stub:  # a CuPy-like module, for the example only
    ...     class cuda:
    ...         alloc_pinned_memory = bytearray
    ...         class Event:
    ...             def __init__(self, disable_timing=False): pass
    >>> a, b = thread_slots(_Stub, "example", 64)
    >>> a.view(np.int32).shape, thread_slots(_Stub, "example", 32)[0] is a
    ((16,), True)
    """
    slots = getattr(_local, use, None)
    if slots is None or slots[0].nbytes < nbytes or (exact and slots[0].nbytes != nbytes):
        slots = [PinnedSlot(cp, nbytes), PinnedSlot(cp, nbytes)]
        setattr(_local, use, slots)
    return slots
