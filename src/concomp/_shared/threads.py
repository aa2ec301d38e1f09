"""One rule for calling numba's parallel kernels from several threads.

numba's ``workqueue`` threading layer (its fallback where neither OpenMP nor TBB
can be loaded) is not thread-safe: two threads launching parallel kernels at once
abort the whole process ("Terminating: Nested parallel kernel launch detected").
The ``omp`` and ``tbb`` layers are. Every ``parallel=True`` kernel of concomp is
therefore wrapped by :func:`serialized`: under ``workqueue`` its launches take one
process-wide lock (concurrent callers run one kernel at a time, correctly); under
the other layers they run without it. Until the first launch shows which layer
numba loaded, launches take the lock.

Such kernels must be called from Python, never from another numba function (the
wrapper is a Python function); the test suite checks the concurrent rule in a
process forced onto ``workqueue`` (``tests/test_robustness.py``).

A launch whose largest array argument has fewer than :data:`SERIAL_BELOW`
elements runs on the calling thread alone (``numba.set_num_threads(1)`` for that
launch): waking the pool costs more than such a loop, and on a busy machine the
wait for every pool thread to be scheduled dominates a small call.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["SERIAL_BELOW", "serialized", "layer_needs_lock"]

#: Arrays smaller than this run a parallel kernel on one thread (see the module docstring).
SERIAL_BELOW = 1 << 15

_LOCK = threading.RLock()
_layer: str | None = None  # numba's threading layer, once a launch has loaded one


def layer_needs_lock() -> bool:
    """True while parallel launches must be serialised (``workqueue``, or not known yet)."""
    return _layer is None or _layer == "workqueue"


def serialized(kernel: Callable) -> Callable:
    """Wrap a ``parallel=True`` numba kernel so that concurrent calls are safe under any
    threading layer (see the module docstring)."""

    @functools.wraps(kernel)
    def call(*args: Any) -> Any:
        if _largest(args) < SERIAL_BELOW:
            return _on_one_thread(launch, args)
        return launch(*args)

    def launch(*args: Any) -> Any:
        global _layer
        if not layer_needs_lock():
            return kernel(*args)
        with _LOCK:
            out = kernel(*args)
            if _layer is None:
                import numba  # already loaded by the kernel; a local import keeps this module light

                try:
                    _layer = numba.threading_layer()
                except ValueError:  # this kernel launched no threads: still unknown
                    pass
            return out

    call.kernel = kernel  # the numba dispatcher itself
    return call


def _largest(args: tuple) -> int:
    return max((a.size for a in args if hasattr(a, "dtype") and hasattr(a, "size")), default=0)


def _on_one_thread(launch: Callable, args: tuple) -> Any:
    import numba  # already loaded by the kernel's module

    before = numba.get_num_threads()
    if before == 1:
        return launch(*args)
    numba.set_num_threads(1)
    try:
        return launch(*args)
    finally:
        numba.set_num_threads(before)
