"""GPU engine of :class:`concomp.IncrementalConnectivity`: the state stays on the device.

One batch costs one validation pass (min / max id and bad op codes in one
reduction, one 24-byte download: the only host sync), then one kernel over the
batch's inserts and one over its queries (``cuda/incremental.cu``). A large batch
on a parent array that overflows L2 inserts in two passes instead
(``Options.two_pass``). The union rule is a template parameter, from the
registry (:func:`concomp._rules.union_rules_for` ``("gpu", "incremental")``).

A stream of many small batches (:meth:`IncrementalEngine.run_stream`) is
validated once and needs no host synchronisation per batch. Batches of up to
``Options.stream_persistent_max`` entries run as one persistent launch whose
blocks are all resident and meet at a grid barrier after each batch (and after
its queries): a batch then costs a barrier rather than a kernel launch. Larger
ones read the batch index from a device counter that the last block of a batch
advances, so the same launches are captured once as a CUDA graph and replayed
(``Options.stream_graphs``). ``benchmarks/profile_stream.py`` and
``benchmarks/profile_incremental.py`` measure these choices.

Within a batch the inserts run concurrently: the partition, the queries, the
number of inserts that report True and every root (always its component's
smallest vertex) are deterministic, but when several inserts of one batch could
join the same two components, which of them wins the link (reports True and
enters the forest) depends on thread timing, as in GConn.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from typing import Any

import numpy as np

from .._rules import union_rule, union_rules_for
from .._shared.state import ArrayState
from ..options import Options
from ..variants import Finish, Variant
from . import ops
from ._compat import (
    check_device_fits,
    cupy_or_raise,
    device_info,
    device_total_bytes,
    out_of_memory_guard,
)
from ._compile import get_kernel, prefetch
from .kernels import BLOCK, ctype
from .kernels import grid_for as _grid

log = logging.getLogger("concomp.gpu")

#: Batches of a stream captured in one CUDA graph (the graph is replayed until
#: every batch ran; surplus steps find the counter past the end and do nothing).
STREAM_STEPS = 32
#: Streams of fewer batches are launched directly: capturing and instantiating a
#: graph costs more than a few launches.
STREAM_CAPTURE_MIN_BATCHES = 4
#: Blocks per SM of the batch insert kernel's grid-stride loop (``kernels.grid_for``
#: launches 32 by default): more blocks than that hide the latency of the unions'
#: dependent loads (``benchmarks/profile_incremental.py --blocks-per-sm``).
INSERT_BLOCKS_PER_SM = 256

#: Link counters the kernels add to, LINK_STRIDE int64 words apart (``LINK_SLOTS`` and
#: ``LINK_STRIDE`` in ``cuda/incremental.cu``).
LINK_SLOTS = 256
LINK_STRIDE = 4

_ID_TYPES = ("int", "long long")
_OP_TYPES = {
    np.dtype(np.int8): "signed char",
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
}
STATS_NAMES = tuple(
    f"batch_stats<{t}, {o}>" for t, o in itertools.product(_ID_TYPES, _OP_TYPES.values())
)


def batch_names(unite: str, itype: str) -> dict[str, str]:
    """Name expressions of the batch kernels for one union rule and index type."""
    return {
        "insert": f"batch_insert<{itype}, {unite}>",
        "insert_half": f"batch_insert_half<{itype}, {unite}, false>",
        "insert_half_one_side": f"batch_insert_half<{itype}, {unite}, true>",
        "query": f"batch_query<{itype}>",
        "find": f"find_roots<{itype}>",
        "flatten": f"flatten_all<{itype}>",
        "stream_insert": f"stream_insert<{itype}, {unite}>",
        "stream_query": f"stream_query<{itype}>",
        "stream_persistent": f"stream_persistent<{itype}, {unite}>",
    }


def _instantiations() -> list[str]:
    names = set(STATS_NAMES)
    for row, itype in itertools.product(union_rules_for("gpu", "incremental"), _ID_TYPES):
        for compress in row.compress:
            # a batch records forest edges while it links concurrently
            if row.records_forest("gpu", compress, concurrent=True):
                names.update(batch_names(row.cpp_policy(compress), itype).values())
    return sorted(names)


#: Every incremental.cu name expression (for ``tests/test_kernel_compile.py``).
INSTANTIATIONS = _instantiations


class IncrementalEngine(ArrayState):
    """Union-find state on the device; kernels compiled per (rule, index type)."""

    device = "gpu"
    _hooks: Any  #: (capacity, 4) int64 hook records; hook_src ... hook_pos are its columns

    def __init__(self, variant: Variant, capacity: int, dtype: Any, options: Options) -> None:
        cp = cupy_or_raise()
        self.xp = cp
        self.options = options
        row = union_rule(variant.finish)
        self.unite = row.cpp_policy(str(variant.compress))
        self.needs_aux = row.aux
        # before the first allocation: the state of a huge num_nodes can never fit
        check_device_fits(
            f"incremental connectivity state of {capacity} vertices",
            self.state_bytes(capacity, dtype),
        )
        self.aux = cp.zeros(1, np.int32)
        self._stats = cp.zeros(3, np.int64)
        # pinned: the one download per batch is a DMA, not a staged copy
        self._stats_host = cp.cuda.alloc_pinned_memory(24)
        # link counters: LINK_SLOTS of them, 32 bytes apart (see add_links in the kernels)
        self._links = cp.zeros(LINK_SLOTS * LINK_STRIDE, np.int64)
        self._no_ops = cp.zeros(1, np.int8)
        # streams: (batch index, blocks done with it), and the stream graphs run on
        self._ctrl = cp.zeros(2, np.int64)
        self._barrier = cp.zeros(1, np.uint64)  # the persistent stream's grid barrier
        self._stream: Any = None
        self._fns: dict = {}
        # a new machine compiles the insert kernel and the ids' cast to the state's type
        # while the state is allocated
        prefetch("incremental.cu", [batch_names(self.unite, ctype(dtype))["insert"]])
        casts = ops.names("astype", np.int64, dtype) if np.dtype(dtype) != np.int64 else ()
        ops.prefetch(cp, ops.names("arange", dtype) + casts)
        with out_of_memory_guard(
            "incremental connectivity state", self.state_bytes(capacity, dtype)
        ):
            super().__init__(variant, capacity, dtype)

    # ------------------------------------------------------------------ kernels
    def _kernel(self, key: str):
        # memoized here too: small batches are bound by Python overhead per launch
        fn = self._fns.get((key, self.dtype))
        if fn is None:
            names = batch_names(self.unite, ctype(self.dtype))
            fn = get_kernel("incremental.cu", names[key])
            self._fns[(key, self.dtype)] = fn
        return fn

    def _stats_kernel(self, name: str):
        fn = self._fns.get(name)
        if fn is None:
            fn = self._fns[name] = get_kernel("incremental.cu", name)
        return fn

    def _launch(self, kern, work: int, args: tuple, per_sm: int = 32) -> None:
        if work > 0:
            kern(_grid(work, BLOCK, per_sm), (BLOCK,), args)

    # ------------------------------------------------------------------ state
    def resize(self, capacity: int, dtype: Any) -> None:
        """Grow to ``capacity`` slots; every array is allocated before any attribute changes.

        The hooks live in one ``(capacity, 4)`` int64 array of records (src, dst,
        batch, position), so that a link writes one 32-byte sector (see
        ``cuda/incremental.cu``); ``hook_src`` and the others are views of its columns.
        """
        cp, dt, k = self.xp, np.dtype(dtype), self.capacity
        check_device_fits(
            f"incremental connectivity state of {capacity} vertices", self.state_bytes(capacity, dt)
        )
        with out_of_memory_guard(
            "growing the incremental connectivity state", self.state_bytes(capacity, dt)
        ):
            aux = cp.zeros(capacity if self.needs_aux else 1, np.int32)
            parents = ops.arange(cp, capacity, dt)
            hooks = ops.full(cp, capacity * 4, -1, np.int64).reshape(capacity, 4)
        if self.needs_aux:
            aux[:k] = self.aux[:k]
        parents[:k] = self.parents[:k]
        if k:
            hooks[:k] = self._hooks[:k]
        self.aux, self.parents, self._hooks = aux, parents, hooks
        self.hook_src, self.hook_dst, self.hook_batch, self.hook_pos = (
            hooks[:, j] for j in range(4)
        )
        self.capacity, self.dtype = int(capacity), dt

    def state_bytes(self, capacity: int, dtype: Any) -> int:
        return int(capacity) * (np.dtype(dtype).itemsize + 32 + (4 if self.needs_aux else 0))

    def forest(self, n: int) -> tuple[Any, Any, Any, Any]:
        src, dst, batch, pos = super().forest(n)
        return src.astype(self.dtype), dst.astype(self.dtype), batch, pos

    def export(self, n: int) -> dict[str, np.ndarray]:
        out = super().export(n)  # the endpoints in the index type, as the CPU engine saves them
        out["hook_src"] = out["hook_src"].astype(self.dtype)
        out["hook_dst"] = out["hook_dst"].astype(self.dtype)
        return out

    def memory_limit(self) -> int:
        return device_total_bytes()

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
        return int(self._links.get().sum())

    def _set_links(self, links: int) -> None:
        self._links.fill(0)
        self._links[0] = int(links)

    def _flatten(self, n: int) -> None:
        # one thread per vertex, in id order: parents point to smaller ids, so the
        # parents in use grow from a prefix that L2 holds
        if n > 0:
            self._kernel("flatten")((-(-n // BLOCK),), (BLOCK,), (self.parents, self.dtype.type(n)))

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
        if kind != "query" and self._two_pass(m):
            args = (
                self.parents,
                self.aux,
                u,
                v,
                o,
                mixed,
                np.int64(m),
                result,
                self._hooks,
                np.int64(batch),
                self._links,
            )
            # Both passes read parents through L1 (UFState::cached); the first walks
            # Rem's unions one-sided; one entry per thread, in position order.
            grid, block = (-(-m // BLOCK),), (BLOCK,)
            self._kernel("insert_half_one_side")(grid, block, (*args, np.int32(1)))
            self._flatten(self.capacity)
            self._kernel("insert_half")(grid, block, (*args, np.int32(0)))
        elif kind != "query":
            self._launch(
                self._kernel("insert"),
                m,
                (
                    self.parents,
                    self.aux,
                    u,
                    v,
                    o,
                    mixed,
                    np.int64(m),
                    result,
                    self._hooks,
                    np.int64(batch),
                    self._links,
                ),
                INSERT_BLOCKS_PER_SM,
            )
        if kind != "insert":
            self._launch(
                self._kernel("query"), m, (self.parents, u, v, o, mixed, np.int64(m), result)
            )
        return result

    def _two_pass(self, m: int) -> bool:
        """Whether an insert batch of ``m`` entries runs in two passes (``Options.two_pass``):
        under "auto", batches of at least ``two_pass_min_batch`` entries per vertex on a
        parent array larger than ``two_pass_above_bytes`` (default: L2). In CSR order
        the first pass (entries with a > b) is the static finish's order, so the
        parents it links to are the ones the rows before brought into L2."""
        o = self.options
        if o.two_pass != "auto":
            return o.two_pass == "always"
        if m < o.two_pass_min_batch * self.capacity:
            return False
        above = o.two_pass_above_bytes
        limit = device_info()["l2_bytes"] if above is None else above
        return self.capacity * self.dtype.itemsize > limit

    def run_stream(self, kind: str, ops: Any, u: Any, v: Any, first: int, size: int) -> Any:
        """Apply ``u``/``v`` as consecutive batches of ``size`` entries, ids ``first``, ....

        ``kind`` is "insert" or "mixed" (each batch's inserts, then its queries).
        The ids are validated already, and nothing is read back. Batches of up to
        ``options.stream_persistent_max`` entries run as one persistent launch (see
        :meth:`_persistent`). Otherwise each batch is an insert kernel (then a query
        kernel that advances the batch counter): with ``options.stream_graphs`` up to
        :data:`STREAM_STEPS` batches are captured as a CUDA graph and replayed, or,
        if capture fails, the same kernels are launched once per batch.
        """
        cp = self.xp
        m = int(u.shape[0])
        result = cp.empty(m, dtype=bool)
        if m == 0:
            return result
        size = min(int(size), m)  # keeps size + offsets far from overflowing in the kernels
        nb = -(-m // size)
        mixed = kind == "mixed"
        o = ops if mixed else self._no_ops
        if size <= self.options.stream_persistent_max and self._persistent(
            u, v, o, mixed, m, size, nb, first, result
        ):
            return result
        grid, block = _grid(size), (BLOCK,)
        ins, qry = self._kernel("stream_insert"), self._kernel("stream_query")
        ins_args = (
            self.parents,
            self.aux,
            u,
            v,
            o,
            np.int32(mixed),
            np.int64(m),
            np.int64(size),
            np.int64(nb),
            result,
            self._hooks,
            np.int64(first),
            self._links,
            self._ctrl,
            np.int32(not mixed),
        )
        qry_args = (
            self.parents,
            u,
            v,
            o,
            np.int64(m),
            np.int64(size),
            np.int64(nb),
            result,
            self._ctrl,
        )

        def step() -> None:
            ins(grid, block, ins_args)
            if mixed:
                qry(grid, block, qry_args)

        self._ctrl.fill(0)
        steps = max(1, min(nb, STREAM_STEPS))
        graph = None
        if self.options.stream_graphs and nb >= STREAM_CAPTURE_MIN_BATCHES:
            graph = self._capture(step, steps)
        if graph is None:
            for _ in range(nb):
                step()
            return result
        cur, stream = cp.cuda.get_current_stream(), self._stream
        # order the replays after the caller's pending work (the counter reset
        # included), and the caller's later work after them
        stream.wait_event(cur.record())
        for _ in range(-(-nb // steps)):
            graph.launch(stream)
        cur.wait_event(stream.record())
        return result

    def _persistent(
        self,
        u: Any,
        v: Any,
        o: Any,
        mixed: bool,
        m: int,
        size: int,
        nb: int,
        first: int,
        result: Any,
    ) -> bool:
        """Run the stream as one ``stream_persistent`` launch; False if the device
        cannot say how many blocks fit at once (then the caller launches per batch).

        The grid is at most the number of blocks the occupancy query says fit on
        the device at once: its barrier waits for every block, so all must be
        resident together (blocks that wait behind other work still start once
        that work ends).
        """
        kern = self._kernel("stream_persistent")
        resident = self._fns.get(("resident", self.dtype))
        if resident is None:
            try:
                per_sm = self.xp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(
                    kern.kernel.ptr, BLOCK, 0
                )
            except (AttributeError, self.xp.cuda.driver.CUDADriverError) as exc:
                # no occupancy query here: the caller launches per batch
                log.debug("incremental stream: occupancy query failed: %s", exc)
                per_sm = 0
            resident = self._fns[("resident", self.dtype)] = int(per_sm) * int(
                device_info()["sm_count"]
            )
        if resident <= 0:
            return False
        # every block must be resident at once: the barrier waits for all of them
        grid = max(1, min(-(-size // BLOCK), resident))
        self._barrier.fill(0)
        kern(
            (grid,),
            (BLOCK,),
            (
                self.parents,
                self.aux,
                u,
                v,
                o,
                np.int32(mixed),
                np.int64(m),
                np.int64(size),
                np.int64(nb),
                result,
                self._hooks,
                np.int64(first),
                self._links,
                self._barrier,
            ),
        )
        return True

    def _capture(self, step: Callable[[], None], steps: int) -> Any:
        """``steps`` calls of ``step`` captured as a CUDA graph, or None if capture fails.

        Every array the launches touch exists already: nothing is allocated
        while capturing.
        """
        cp = self.xp
        if self._stream is None:
            self._stream = cp.cuda.Stream(non_blocking=True)
        stream = self._stream
        try:
            with stream:
                stream.begin_capture()
                try:
                    for _ in range(steps):
                        step()
                finally:
                    graph = stream.end_capture()
        except Exception as exc:  # capture unsupported here: launch the kernels directly
            log.debug("incremental stream: CUDA graph capture failed: %s", exc)
            self._stream = None  # a failed capture may leave the stream unusable
            return None
        return graph

    def find(self, v: Any) -> Any:
        out = self.xp.empty(v.shape[0], dtype=np.int64)
        self._launch(self._kernel("find"), v.shape[0], (self.parents, v, np.int64(v.shape[0]), out))
        return out
