"""Scratch arrays a CPU kernel needs on every call, kept between calls up to a bound.

A labeller's run arrays hold a few bytes per pixel, and the pages of a fresh array cost
a fault and the OS zeroing them on first touch: on a 4096 x 4096 mask, more than the
scan that fills them. Users label many images of one shape (frames, slices), so the
arrays of the last call are kept for the next when they total at most
:data:`KEEP_BYTES`; larger ones are dropped after the call. One set is kept per use and
process: a call that finds it taken (another thread's call under way) makes its own.

Kept arrays are never handed to callers: they are views the kernel writes before it
reads, as it would an ``np.empty`` array.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from numpy.typing import DTypeLike

__all__ = ["KEEP_BYTES", "arrays", "kept_bytes", "release"]

#: Bytes of scratch a use keeps between calls (a 4096 x 4096 mask's labelling needs
#: about 200 MiB); larger sets are freed after the call.
KEEP_BYTES = 256 << 20

_lock = threading.Lock()
_kept: dict[str, dict[str, np.ndarray]] = {}


@contextmanager
def arrays(use: str, **shapes: tuple[int, DTypeLike]) -> Iterator[dict[str, np.ndarray]]:
    """1-D arrays ``name: (count, dtype)`` for one call of ``use``, uninitialised: the
    kept set's where it is large enough and of the dtype, new ones elsewhere. The set
    is kept for the next call when it totals at most :data:`KEEP_BYTES`.

    Examples
    --------
    >>> with arrays("example", runs=(5, np.int32)) as a:
    ...     a["runs"].shape, a["runs"].dtype.name
    ((5,), 'int32')
    >>> with arrays("example", runs=(3, np.int32)) as b:  # the same memory again
    ...     b["runs"].base is a["runs"].base
    True
    >>> release("example")
    """
    with _lock:
        kept = _kept.pop(use, {})
    full: dict[str, np.ndarray] = {}
    for name, (count, dtype) in shapes.items():
        dt = np.dtype(dtype)
        old = kept.get(name)
        if old is not None and old.dtype == dt and old.shape[0] >= count:
            full[name] = old
        else:
            full[name] = np.empty(max(int(count), 0), dtype=dt)
    try:
        yield {name: full[name][: shapes[name][0]] for name in full}
    finally:
        if sum(a.nbytes for a in full.values()) <= KEEP_BYTES:
            with _lock:
                _kept[use] = full  # a set another call kept meanwhile gives way


def kept_bytes(use: str | None = None) -> int:
    """Bytes kept between calls, for ``use`` or for all uses."""
    with _lock:
        sets = [_kept.get(use, {})] if use is not None else list(_kept.values())
        return sum(a.nbytes for s in sets for a in s.values())


def release(use: str | None = None) -> None:
    """Free the arrays kept for ``use`` (all uses where None)."""
    with _lock:
        if use is None:
            _kept.clear()
        else:
            _kept.pop(use, None)
