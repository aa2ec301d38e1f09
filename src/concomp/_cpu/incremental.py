"""CPU engine of :class:`concomp.IncrementalConnectivity` (numba, one thread).

A batch runs its inserts in batch order, then its queries, so the CPU engine is
fully deterministic: an insert reports True exactly when no earlier edge (of an
earlier batch, or earlier in its own batch) already connected its endpoints.

:class:`ArrayState` holds the state both engines share (parents, the hook slots
of the spanning forest, growth, export); it only uses functions NumPy and CuPy
have in common, and the GPU engine subclasses it with ``xp = cupy``.
"""

from __future__ import annotations

import os
from typing import Any

import numba as nb
import numpy as np

from .._arrays import to_numpy
from ..variants import Variant
from .forest import link_mode, link_rec
from .unionfind import find, flatten

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


@nb.njit(cache=True)
def _insert_range(p, ops, u, v, mixed, result, hs, hd, hb, hp, lo, hi, batch, mode, rem):
    """Inserts of positions ``[lo, hi)``, one batch: hooks record ``i - lo``."""
    links = 0
    for i in range(lo, hi):
        if mixed and ops[i] != 0:
            continue
        a, b = u[i], v[i]
        r = link_rec(p, a, b, mode, rem)
        result[i] = r >= 0
        if r >= 0:
            hs[r], hd[r], hb[r], hp[r] = a, b, batch, i - lo
            links += 1
    return links


@nb.njit(cache=True)
def _query_range(p, ops, u, v, mixed, result, lo, hi):
    for i in range(lo, hi):
        if mixed and ops[i] != 1:
            continue
        # path splitting: the cheapest compression, and queries never link
        result[i] = find(p, u[i], 1) == find(p, v[i], 1)


@nb.njit(cache=True)
def _stream(p, ops, u, v, mixed, result, hs, hd, hb, hp, first, size, mode, rem):
    """Consecutive batches of ``size`` positions, ids ``first``, ...: inserts, then queries."""
    links, m = 0, u.shape[0]
    for k in range((m + size - 1) // size):
        lo = k * size
        hi = min(lo + size, m)
        links += _insert_range(p, ops, u, v, mixed, result, hs, hd, hb, hp, lo, hi, first + k,
                               mode, rem)
        if mixed:
            _query_range(p, ops, u, v, mixed, result, lo, hi)
    return links


@nb.njit(cache=True)
def _find_batch(p, v, out):
    for i in range(v.shape[0]):
        out[i] = find(p, v[i], 1)


class CpuIncremental(ArrayState):
    """Sequential union-find over batches (Union-Async or Rem's rule)."""

    def __init__(self, variant: Variant, capacity: int, dtype: Any) -> None:
        self.mode, self.rem = link_mode(variant)
        self.links = 0
        self._no_ops = np.zeros(1, np.int8)
        super().__init__(variant, capacity, dtype)

    def bounds(self, ops: Any, u: np.ndarray, v: np.ndarray) -> tuple[int, int, int]:
        """``(negative ids, max id, bad op codes)`` of a batch (``(0, -1, 0)`` if empty)."""
        if u.shape[0] == 0:
            return 0, -1, 0
        neg = int(min(u.min(), v.min()) < 0)
        hi = max(int(u.max()), int(v.max()))
        bad = 0 if ops is None else int(np.count_nonzero((ops != 0) & (ops != 1)))
        return neg, hi, bad

    def run(self, kind: str, ops: Any, u: np.ndarray, v: np.ndarray,
            batch: int) -> np.ndarray:
        """Apply one batch: ``kind`` is "insert", "query" or "mixed" (inserts, then queries)."""
        m = u.shape[0]
        result = np.zeros(m, dtype=bool)
        mixed = kind == "mixed"
        o = ops if mixed else self._no_ops
        if kind != "query":
            self.links += _insert_range(self.parents, o, u, v, mixed, result, self.hook_src,
                                        self.hook_dst, self.hook_batch, self.hook_pos, 0, m,
                                        np.int64(batch), self.mode, self.rem)
        if kind != "insert":
            _query_range(self.parents, o, u, v, mixed, result, 0, m)
        return result

    def run_stream(self, kind: str, ops: Any, u: np.ndarray, v: np.ndarray, first: int,
                   size: int) -> np.ndarray:
        """Apply consecutive batches of ``size`` entries (ids ``first``, ...) of a validated
        stream; ``kind`` is "insert" or "mixed"."""
        result = np.zeros(u.shape[0], dtype=bool)
        mixed = kind == "mixed"
        self.links += _stream(self.parents, ops if mixed else self._no_ops, u, v, mixed, result,
                              self.hook_src, self.hook_dst, self.hook_batch, self.hook_pos,
                              np.int64(first), np.int64(size), self.mode, self.rem)
        return result

    def find(self, v: np.ndarray) -> np.ndarray:
        out = np.empty(v.shape[0], dtype=np.int64)
        _find_batch(self.parents, v, out)
        return out

    def num_links(self) -> int:
        return self.links

    def _flatten(self, n: int) -> None:
        flatten(self.parents[:n])

    def _set_links(self, links: int) -> None:
        self.links = int(links)
