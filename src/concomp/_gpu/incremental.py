"""GPU engine of :class:`concomp.IncrementalConnectivity`: the state stays on the device.

One batch costs one validation pass (min / max id and bad op codes in one
reduction, one 24-byte download: the only host sync), then one kernel over the
batch's inserts and one over its queries (``cuda/incremental.cu``). The union
rule is a template parameter; GConn's best incremental rule, Union-Async with
path splitting, is the default.

Within a batch the inserts run concurrently: the partition, the queries, the
number of inserts that report True and every root (always its component's
smallest vertex) are deterministic, but when several inserts of one batch could
join the same two components, which of them wins the link (reports True and
enters the forest) depends on thread timing, as in GConn.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .._cpu.incremental import ArrayState
from ..variants import COMPRESS_RULES, Finish, Variant
from ._compat import cupy_or_raise, device_info, out_of_memory_guard
from ._compile import get_kernel
from .kernels import BLOCK, ctype, unite_cpp
from .kernels import grid_for as _grid
#: Union rules the incremental kernels take: the root-based CAS rules whose roots
#: stay their component's minimum (Union-JTB links by rank, so it is left out).
FINISHES = (Finish.ASYNC, Finish.EARLY, Finish.HOOKS, Finish.REM_CAS, Finish.REM_LOCK)
_ID_TYPES = ("int", "long long")
_OP_TYPES = {np.dtype(np.int8): "signed char", np.dtype(np.int32): "int",
             np.dtype(np.int64): "long long"}
STATS_NAMES = tuple(
    f"batch_stats<{t}, {o}>" for t, o in itertools.product(_ID_TYPES, _OP_TYPES.values()))


def batch_names(unite: str, itype: str) -> dict[str, str]:
    """Name expressions of the batch kernels for one union rule and index type."""
    return {
        "insert": f"batch_insert<{itype}, {unite}>",
        "query": f"batch_query<{itype}>",
        "find": f"find_roots<{itype}>",
        "flatten": f"flatten_all<{itype}>",
    }


def _instantiations() -> list[str]:
    names = set(STATS_NAMES)
    for finish, itype in itertools.product(FINISHES, _ID_TYPES):
        for compress in COMPRESS_RULES[finish]:
            if compress != "splice":  # not offered: see incremental.legal_algorithms
                names.update(batch_names(unite_cpp(finish, compress), itype).values())
    return sorted(names)


#: Every incremental.cu name expression (for ``tests/test_kernel_compile.py``).
INSTANTIATIONS = _instantiations


class GpuIncremental(ArrayState):
    """Union-find state on the device; kernels compiled per (rule, index type)."""

    device = "gpu"

    def __init__(self, variant: Variant, capacity: int, dtype: Any) -> None:
        cp = cupy_or_raise()
        self.xp = cp
        self.unite = unite_cpp(variant.finish, variant.compress)
        self.needs_aux = variant.finish in (Finish.HOOKS, Finish.REM_LOCK)
        self.aux = cp.zeros(1, np.int32)
        self._stats = cp.zeros(3, np.int64)
        # pinned: the one download per batch is a DMA, not a staged copy
        self._stats_host = cp.cuda.alloc_pinned_memory(24)
        self._links = cp.zeros(1, np.int64)
        self._no_ops = cp.zeros(1, np.int8)
        self._fns: dict = {}
        with out_of_memory_guard("incremental connectivity state", capacity * 32):
            super().__init__(variant, capacity, dtype)

    # ------------------------------------------------------------------ kernels
    def _kernel(self, key: str):
        # memoized here too: small batches are bound by Python overhead per launch
        fn = self._fns.get((key, self.dtype))
        if fn is None:
            names = batch_names(self.unite, ctype(self.dtype))
            fn = get_kernel("incremental.cu", names[key], tuple(names.values()))
            self._fns[(key, self.dtype)] = fn
        return fn

    def _stats_kernel(self, name: str):
        fn = self._fns.get(name)
        if fn is None:
            fn = self._fns[name] = get_kernel("incremental.cu", name, STATS_NAMES)
        return fn

    def _launch(self, kern, work: int, args: tuple) -> None:
        if work > 0:
            kern(_grid(work), (BLOCK,), args)

    # ------------------------------------------------------------------ state
    def resize(self, capacity: int, dtype: Any) -> None:
        cp = self.xp
        with out_of_memory_guard("growing the incremental connectivity state", capacity * 32):
            aux = cp.zeros(capacity if self.needs_aux else 1, np.int32)
            if self.needs_aux:
                aux[: self.capacity] = self.aux[: self.capacity]
            super().resize(capacity, dtype)
        self.aux = aux

    def state_bytes(self, capacity: int, dtype: Any) -> int:
        return super().state_bytes(capacity, dtype) + (4 * int(capacity) if self.needs_aux else 0)

    def memory_limit(self) -> int:
        return int(device_info()["total_mem"])

    def restore(self, arrays: dict[str, np.ndarray], links: int) -> None:
        super().restore(arrays, links)
        if self.needs_aux:
            # Union-Hooks marks exactly the vertices it linked; Rem-Lock holds no lock
            # between batches.
            n = int(arrays["parents"].shape[0])
            p = self.parents[:n]
            linked = p != self.xp.arange(n, dtype=p.dtype)
            hooks = self.variant.finish == Finish.HOOKS
            self.aux[:n] = linked.astype(np.int32) if hooks else 0

    def num_links(self) -> int:
        return int(self._links.get()[0])

    def _set_links(self, links: int) -> None:
        self._links.fill(int(links))

    def _flatten(self, n: int) -> None:
        self._launch(self._kernel("flatten"), n, (self.parents, self.dtype.type(n)))

    # ------------------------------------------------------------------ batches
    def bounds(self, ops: Any, u: Any, v: Any) -> tuple[int, int, int]:
        """``(negative ids, max id, bad op codes)`` in one pass and one download."""
        m = int(u.shape[0])
        if m == 0:
            return 0, -1, 0
        o = self._no_ops if ops is None else ops
        self._stats.fill(0)  # a memset, cheaper than a kernel launch
        kern = self._stats_kernel(f"batch_stats<{ctype(u.dtype)}, {_OP_TYPES[o.dtype]}>")
        self._launch(kern, m, (u, v, o, np.int64(m), np.int32(ops is not None), self._stats))
        host = np.frombuffer(self._stats_host, np.int64, 3)
        self._stats.get(out=host)
        neg, hi, bad = (int(x) for x in host)
        return neg, hi, bad

    def run(self, kind: str, ops: Any, u: Any, v: Any, batch: int) -> Any:
        """Apply one batch: ``kind`` is "insert", "query" or "mixed" (inserts, then queries)."""
        cp = self.xp
        m = int(u.shape[0])
        result = cp.empty(m, dtype=bool)
        mixed = np.int32(kind == "mixed")
        o = ops if kind == "mixed" else self._no_ops
        if kind != "query":
            self._launch(self._kernel("insert"), m,
                         (self.parents, self.aux, u, v, o, mixed, np.int64(m), result,
                          self.hook_src, self.hook_dst, self.hook_batch, self.hook_pos,
                          np.int64(batch), self._links))
        if kind != "insert":
            self._launch(self._kernel("query"), m,
                         (self.parents, u, v, o, mixed, np.int64(m), result))
        return result

    def find(self, v: Any) -> Any:
        out = self.xp.empty(v.shape[0], dtype=np.int64)
        self._launch(self._kernel("find"), v.shape[0], (self.parents, v, np.int64(v.shape[0]), out))
        return out
