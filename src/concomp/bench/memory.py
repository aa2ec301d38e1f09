"""Host memory one call adds at its peak, read from ``/proc/self/status`` (Linux).

The peak is ``VmHWM`` after ``/proc/self/clear_refs`` reset it to the resident size
just before the call. Free heap memory is handed back to the system first (glibc's
``malloc_trim``): after earlier calls, glibc keeps freed blocks of up to 32 MiB resident,
and a call served from them would add nothing to the resident size. Where the reset is
refused or has no effect (some kernels, gVisor), a thread samples ``VmRSS`` every
millisecond during the call instead, which can miss a peak shorter than that. Elsewhere
(no ``/proc``) nothing is measured.
"""

from __future__ import annotations

import gc
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["PeakMemory", "peak_added", "peak_memory", "status_bytes"]

_STATUS = Path("/proc/self/status")


class PeakMemory(dict):
    """``{"baseline_bytes", "peak_bytes", "added_bytes", "method"}`` of one call."""


def status_bytes(field: str) -> int:
    """``field`` (``VmRSS``, ``VmHWM``) of ``/proc/self/status`` in bytes."""
    match = re.search(rf"^{field}:\s+(\d+) kB", _STATUS.read_text(), re.M)
    if match is None:
        raise RuntimeError(f"/proc/self/status has no {field} line")
    return int(match.group(1)) * 1024


def _trim_heap() -> None:
    """Return free heap memory to the system (glibc; elsewhere nothing happens)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return status_bytes("VmHWM") <= status_bytes("VmRSS") * 1.01


def _sampled(fn: Callable[[], Any]) -> tuple[Any, int]:
    """``fn()`` and the largest resident size a thread saw, reading it every ms."""
    peak = [status_bytes("VmRSS")]
    done = threading.Event()

    def watch() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], status_bytes("VmRSS"))
            time.sleep(0.001)

    t = threading.Thread(target=watch, daemon=True)
    t.start()
    try:
        out = fn()
    finally:
        done.set()
        t.join()
    return out, max(peak[0], status_bytes("VmRSS"))


def peak_added(fn: Callable[[], Any]) -> tuple[Any, PeakMemory | None]:
    """Run ``fn`` once; return its result and the resident bytes it added at its peak
    (None where ``/proc/self/status`` does not exist).

    Examples
    --------
    >>> import numpy as np
    >>> out, mem = peak_added(lambda: int(np.ones(1 << 24, np.int64).sum()))
    >>> out, mem is None or mem["added_bytes"] > (1 << 26)
    (16777216, True)
    >>> for _ in range(3):  # freed 16 MB blocks: glibc keeps such sizes on its heap
    ...     del out; out = np.ones(1 << 22, np.int32)
    >>> _, mem = peak_added(lambda: int(np.ones(1 << 22, np.int32).sum()))
    >>> mem is None or mem["added_bytes"] > (1 << 23)
    True
    """
    if not _STATUS.exists():
        return fn(), None
    gc.collect()
    _trim_heap()
    if _reset_peak():
        base = status_bytes("VmRSS")
        out = fn()
        peak, method = status_bytes("VmHWM"), "VmHWM after clear_refs"
    else:
        base = status_bytes("VmRSS")
        out, peak = _sampled(fn)
        method = "VmRSS sampled every millisecond"
    return out, PeakMemory(
        baseline_bytes=base, peak_bytes=peak, added_bytes=max(peak - base, 0), method=method
    )


def peak_memory(fn: Callable[[], Any], entries: int) -> dict[str, Any]:
    """The host bytes one call of ``fn`` adds at its peak, in all and per CSR entry
    (:func:`peak_added`; empty where it cannot be read)."""
    _, mem = peak_added(fn)
    if mem is None:
        return {}
    added = mem["added_bytes"]
    return {
        "peak_added_bytes": added,
        "peak_bytes_per_entry": added / max(entries, 1),
        "memory_method": mem["method"],
    }
