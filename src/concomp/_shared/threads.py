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
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any

__all__ = ["serialized", "layer_needs_lock"]

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
