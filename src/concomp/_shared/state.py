"""Union-find state both incremental engines share: parents plus spanning-forest hook slots.

:class:`ArrayState` only uses functions NumPy and CuPy have in common; the CPU
engine uses it with ``xp = numpy`` and the GPU engine subclasses it with
``xp = cupy``. Engines subclass it and add their kernels.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .._arrays import to_numpy
from ..variants import Variant

#: The per-vertex arrays: parents, then the forest edge each vertex owns.
STATE_ARRAYS = ("parents", "hook_src", "hook_dst", "hook_batch", "hook_pos")


class ArrayState:
    """Union-find parents plus hook slots, on the host (``xp = numpy``) or device."""

    xp: Any = np
    device = "cpu"

    def __init__(self, variant: Variant, capacity: int, dtype: Any) -> None:
        self.variant = variant
        self.capacity = 0
        self.dtype = np.dtype(dtype)
        xp = self.xp
        self.parents = xp.zeros(0, self.dtype)
        self.hook_src = xp.zeros(0, self.dtype)
        self.hook_dst = xp.zeros(0, self.dtype)
        self.hook_batch = xp.zeros(0, np.int64)
        self.hook_pos = xp.zeros(0, np.int64)
        self.resize(capacity, dtype)

    def resize(self, capacity: int, dtype: Any) -> None:
        """Grow to ``capacity`` slots of ``dtype``; new slots are singletons without hooks.

        Every new array is allocated before any attribute changes, so a failed
        allocation leaves the state as it was.
        """
        xp, dt, k = self.xp, np.dtype(dtype), self.capacity
        new = {
            "parents": xp.arange(capacity, dtype=dt),
            "hook_src": xp.full(capacity, -1, dtype=dt),
            "hook_dst": xp.full(capacity, -1, dtype=dt),
            "hook_batch": xp.full(capacity, -1, dtype=np.int64),
            "hook_pos": xp.full(capacity, -1, dtype=np.int64),
        }
        for name, arr in new.items():
            arr[:k] = getattr(self, name)
        for name, arr in new.items():
            setattr(self, name, arr)
        self.capacity, self.dtype = int(capacity), dt

    def state_bytes(self, capacity: int, dtype: Any) -> int:
        """Bytes the state of ``capacity`` slots takes (parents, two endpoints, two ids)."""
        return int(capacity) * (3 * np.dtype(dtype).itemsize + 16)

    def memory_limit(self) -> int:
        """Physical memory of the host: no state may be larger."""
        try:
            return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):  # not on every platform
            return 1 << 62

    # ------------------------------------------------------------------ reading
    def roots(self, n: int) -> Any:
        """Flattened parents of ``[0, n)``: each entry is its component's smallest vertex."""
        self._flatten(n)
        return self.parents[:n]

    def forest(self, n: int) -> tuple[Any, Any, Any, Any]:
        """``(src, dst, batch, position)`` of every forest edge, by (batch, position)."""
        xp = self.xp
        idx = xp.flatnonzero(self.hook_batch[:n] >= 0)
        batch, pos = self.hook_batch[idx], self.hook_pos[idx]
        if idx.shape[0] == 0:
            return self.hook_src[idx], self.hook_dst[idx], batch, pos
        order = xp.lexsort(xp.stack([pos, batch]))
        idx = idx[order]
        return self.hook_src[idx], self.hook_dst[idx], batch[order], pos[order]

    def export(self, n: int) -> dict[str, np.ndarray]:
        """Host copies of the state of ``[0, n)``."""
        return {name: to_numpy(getattr(self, name)[:n]) for name in STATE_ARRAYS}

    def restore(self, arrays: dict[str, np.ndarray], links: int) -> None:
        """Load ``export()`` output into a state of at least its length."""
        n = int(arrays["parents"].shape[0])
        for name in STATE_ARRAYS:
            getattr(self, name)[:n] = self.xp.asarray(arrays[name])
        self._set_links(links)

    def _flatten(self, n: int) -> None:
        raise NotImplementedError

    def _set_links(self, links: int) -> None:
        raise NotImplementedError
