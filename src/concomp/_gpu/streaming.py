"""GPU streaming connected components: edges stream from host memory through the union-find.

Only the labels live on the device for the whole run; edges pass through two
device slots of ``chunk_edges`` edges each. A chunk takes three steps, each on
its own resource, so that consecutive chunks overlap::

    host (numba, all cores)   copy + narrow + range-check chunk i+1 into pinned slot (i+1)%2
    copy stream               pinned slot i%2 -> device slot i%2      (cudaMemcpyAsync)
    compute stream            finish_coo over device slot i%2         (edge-parallel unite)

Events order the steps: the copy into a device slot waits for the kernel that
last read it, the kernel waits for its copy, and the host waits for a pinned
slot's previous copy before refilling it. Small input chunks are packed into one
slot and large ones split, so each launch sees a full slot.

Chunks that are already in pinned host memory (and of the label type) skip the
host copy; chunks already on the device skip the transfer.

Device memory: labels (``p``, plus ``aux`` and JTB's packed words for the rules
whose registry row asks for them) and the two edge slots. :func:`plan_chunk_edges`
sizes the slots from ``max_device_bytes``. The union rules are the cc.cu policies
(GConn's Union-Async, Rem-CAS, ...), launched through the ``finish_coo`` kernel
without sampling (``use_lmax=0``). Labels come back through pinned bounce buffers
(:func:`download`).

Slots of ``Options.chunk_edges`` edges (default 2**22, 32 MiB of int32 ids) stay
in the host's last-level cache between the staging copy and the DMA that reads
them, so host memory serves only the staging read of ordinary (pageable) input;
larger slots leave the cache first, smaller ones pay more per-slot overhead
(``benchmarks/bench_streaming.py --chunk-edges`` measures it).

References
----------
Hong, Dhulipala, Shun: GConn (PACT 2020); Dhulipala, Hong, Shun: ConnectIt
(VLDB 2021). Both in ``../shared/papers/``.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .._arrays import is_cupy_array
from .._rules import UNION_RULES, union_rule
from .._shared.staging import (
    INT32_IDS,
    copy_parallel,
    edge_id_range,
    stage_csr_columns,
    stage_edges,
)
from ..errors import DeviceMemoryError
from ..graph import Graph
from ..options import DEFAULTS, Options
from ..variants import Finish, Layout, Sampling, Variant
from . import ops
from ._compat import check_device_fits, cupy_or_raise, device_total_bytes, out_of_memory_guard
from .components import canonical_labels
from .kernels import BLOCK, cc_kernels
from .kernels import grid_for as _grid
from .link_order import keyed_stream
from .probe import canonical_numbers, prefetch_canonical

log = logging.getLogger("concomp.gpu.streaming")

__all__ = [
    "MIN_CHUNK_EDGES",
    "Streamer",
    "canonical_on_device",
    "components_out_of_core",
    "default_variant",
    "download",
    "fits_in_memory",
    "in_core_bytes",
    "label_bytes_per_vertex",
    "out_of_core_roots",
    "parquet_chunks",
    "plan_chunk_edges",
    "should_stream",
    "stream_labels",
    "streaming_variant_of",
]

#: Below this a slot costs more in launches and host round trips than it moves.
MIN_CHUNK_EDGES = 256
SLOTS = 2
#: Bytes kept free of the budget for kernel scalars and allocator rounding.
_RESERVE = 1 << 12
#: Without a budget, use at most this share of the free device memory.
_FREE_SHARE = 0.8
_CUDA_MEMORY_TYPE_HOST = 1  # cudaMemoryTypeHost: page-locked host memory
#: Bytes per pinned bounce buffer when labels come back to the host.
_BOUNCE_BYTES = 1 << 25

RangeCheck = Callable[[int, int], None]


# ----------------------------------------------------------------------------- budgeting
def label_bytes_per_vertex(variant: Variant, dtype: Any) -> int:
    """Device bytes per vertex for the union-find state of ``variant``."""
    b = np.dtype(dtype).itemsize
    row = union_rule(variant.finish)
    if row.aux:
        b += 4
    if row.packed:
        b += 8
    return b


def _slot_bytes_per_edge(dtype: Any) -> int:
    return SLOTS * 2 * np.dtype(dtype).itemsize


def plan_chunk_edges(
    max_device_bytes: int | None,
    num_nodes: int | None,
    dtype: Any,
    variant: Variant,
    chunk_edges: int | None = None,
) -> int:
    """Edges per device slot so that labels and both slots fit in ``max_device_bytes``.

    With ``num_nodes=None`` (labels that grow) the slots take at most half of the
    budget, leaving the rest for the labels. Raises :class:`DeviceMemoryError`
    naming the bytes needed when not even the labels and a minimal slot fit.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp._gpu.streaming import plan_chunk_edges
    >>> from concomp.variants import Variant
    >>> v = Variant.parse("none-async-halve-coo")
    >>> plan_chunk_edges(None, 10**6, np.int32, v)
    4194304
    >>> plan_chunk_edges(4_000_000 + 4096 + 16 * 5000, 10**6, np.int32, v)
    5000
    """
    want = int(chunk_edges or DEFAULTS.chunk_edges)
    if max_device_bytes is None:
        return max(want, MIN_CHUNK_EDGES)
    per_edge = _slot_bytes_per_edge(dtype)
    labels = int(num_nodes or 0) * label_bytes_per_vertex(variant, dtype)
    room = int(max_device_bytes) - labels - _RESERVE
    if num_nodes is None:
        room //= 2
    fit = room // per_edge if room > 0 else 0
    if fit < MIN_CHUNK_EDGES:
        need = labels + _RESERVE + MIN_CHUNK_EDGES * per_edge * (2 if num_nodes is None else 1)
        what = (
            f"the labels of {num_nodes} vertices ({labels} bytes) and"
            if num_nodes
            else "labels that grow as ids arrive and"
        )
        raise DeviceMemoryError(
            f"argument `max_device_bytes`: {int(max_device_bytes)} bytes cannot hold {what} two "
            f"edge slots of {MIN_CHUNK_EDGES} edges; streaming needs at least {need} bytes. Fix: "
            f"pass max_device_bytes >= {need}"
            + (", or num_nodes" if num_nodes is None else "")
            + ", or use device='cpu'."
        )
    return int(min(want, fit))


def in_core_bytes(graph: Graph) -> int:
    """Rough device bytes the in-memory GPU engine needs for a host graph.

    The edge arrays moved to the device plus the union-find state and the
    symmetric CSR that the default (CSR) variants build.
    """
    n, m = graph.num_nodes, graph.num_edges
    it = np.dtype(graph.index_dtype).itemsize
    return 2 * m * it + (n * 40 + m * 24 if n else 0)


def should_stream(graph: Graph, max_device_bytes: int | None = None) -> bool:
    """Whether ``connected_components`` should stream a host graph's edges.

    True when the in-memory engine would exceed ``max_device_bytes`` or, without
    a budget, the free device memory. A graph already on the device never streams.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> from concomp._gpu.streaming import should_stream
    >>> g = concomp.Graph.from_edges(np.arange(999), np.arange(1, 1000))
    >>> should_stream(g, max_device_bytes=1 << 30), should_stream(g, max_device_bytes=1 << 16)
    (False, True)
    """
    if graph.device == "gpu":
        return False
    if max_device_bytes is None:
        max_device_bytes = _free_device_bytes()
    return in_core_bytes(graph) > max_device_bytes


def _free_device_bytes() -> int:
    cp = cupy_or_raise()
    free, _ = cp.cuda.runtime.memGetInfo()
    return int(free + cp.get_default_memory_pool().free_bytes())


def parquet_chunks(
    name: str, columns: tuple[str, str], opened: Any = None
) -> Iterator[tuple[str, Any, Any]] | None:
    """A Parquet file's id columns decoded on the device (:mod:`concomp._gpu.parquet`),
    as ``(where, src, dst)`` per round of row groups, or None where the file is beyond
    its decoder. ``opened``: the file's ``pyarrow.parquet.ParquetFile``, if open."""
    from .parquet import parquet_chunks as decoded

    return decoded(name, columns, opened)


def default_variant() -> Variant:
    """The union-find variant a stream runs with when ``algorithm="auto"``: GConn's
    Union-Async with path halving, without sampling, over the COO.

    Where the kernel rather than the copy limits the pipeline (a uniform random
    graph) it unites faster than Rem-CAS (``benchmarks/bench_streaming.py``).
    """
    return Variant(Sampling.NONE, Finish.ASYNC, "halve", Layout.COO)


def streaming_variant_of(variant: Variant | None) -> Variant:
    """The edge-parallel, sampling-free version of a union-find variant (default
    :func:`default_variant`).

    Streaming unites edges as they arrive, so sampling (which needs the whole
    CSR) does not apply; the finish and compression rules carry over for every
    rule the registry lets the GPU stream with.
    """
    if variant is None:
        return default_variant()
    finish = str(variant.finish)
    if finish not in UNION_RULES or not union_rule(finish).supports("gpu", "streaming"):
        return default_variant()
    return Variant(Sampling.NONE, variant.finish, variant.compress, Layout.COO)


@functools.cache
def _csr_rows_kernel() -> Any:
    """``row[j] = r0 + (the last i with seg[i] <= j)``: the row of a slot's entry ``j``
    from the offsets where its rows start (binary search; ``seg[0] == 0`` and
    ``seg[nseg - 1]`` is the slot's entry count, so ``i <= nseg - 2``)."""
    cp = cupy_or_raise()
    return cp.ElementwiseKernel(
        "raw int32 seg, int32 nseg, T r0",
        "T row",
        """
        int lo = 0, hi = nseg - 2;
        const int j = (int)i;
        while (lo < hi) {
            const int mid = (lo + hi + 1) >> 1;
            if (seg[mid] <= j) lo = mid; else hi = mid - 1;
        }
        row = r0 + (T)lo;
        """,
        "concomp_csr_rows",
    )


def _offsets_share(chunk: int, rows: int, entries: int, itemsize: int) -> int:
    """Slots (of ``itemsize`` bytes) at the end of a device column buffer of ``chunk``
    that hold a CSR piece's row offsets (int32), in the CSR's own proportion of rows to
    entries, between a sixteenth and half of the buffer: a fixed share cut the pieces
    of a CSR of low degree short by their rows (a path's, one entry per row, at a
    quarter of the buffer) and so took more pieces, each with its fixed cost.

    Examples
    --------
    >>> _offsets_share(1 << 22, 1 << 24, 1 << 24, 4)  # a path: half for the offsets
    2097152
    >>> _offsets_share(1 << 22, 1 << 24, 1 << 25, 4)  # two entries a row: a third
    1398103
    >>> _offsets_share(1 << 22, 1 << 22, 1 << 26, 4)  # 16 a row: the least, a sixteenth
    262144
    >>> _offsets_share(1 << 22, 1 << 24, 1 << 24, 8)  # int64 slots hold two offsets each
    1398103
    """
    per_slot = itemsize // 4  # int32 offsets a slot of the buffer holds
    # columns and offsets run out together: chunk - tail = per_slot * tail * entries / rows
    want = -(-chunk * rows // (rows + per_slot * entries)) if rows + entries else 0
    return max(chunk // 16, min(chunk // 2, want + 1))


# ----------------------------------------------------------------------------- the pipeline
class _Slot:
    """One pinned host buffer, one device buffer, and the events that order their reuse."""

    def __init__(self, cp, chunk: int, dtype: np.dtype) -> None:
        it = dtype.itemsize
        self.mem = cp.cuda.alloc_pinned_memory(2 * chunk * it)
        self.hsrc = np.frombuffer(self.mem, dtype, chunk, 0)
        self.hdst = np.frombuffer(self.mem, dtype, chunk, chunk * it)
        self.dsrc = cp.empty(chunk, dtype)
        self.ddst = cp.empty(chunk, dtype)
        self.h2d_done = cp.cuda.Event(disable_timing=True)
        self.compute_done = cp.cuda.Event(disable_timing=True)
        self.fill = 0
        self.hi = -1
        self.held: tuple = ()  # pinned input copied straight from: keep it alive until copied


class Streamer:
    """Union-find labels on the device, fed edge chunks through a two-slot copy/compute pipeline.

    Parameters
    ----------
    num_nodes : int or None
        Vertex count; ``None`` grows the labels geometrically as ids arrive.
    variant : Variant
        A union-find variant with sampling ``none`` and layout ``coo``.
    options : Options
        ``chunk_edges``: edges per slot (shrunk to fit the budget); ``int32_ids``:
        labels stay 32-bit until an id passes it (capped at the staging limit).
    max_device_bytes : int, optional
        Device memory budget for labels plus edge slots (approximate: allocator
        rounding and a few scalars aside). Default: the chunk size, capped by the
        free device memory.
    index_dtype : dtype, optional
        Force the label type (tests force int64 on small graphs).
    one_way : bool
        The input lists every undirected edge in both directions; unite only one.
    """

    p: Any  #: the device labels (union-find parents), allocated by ``_setup``

    def __init__(
        self,
        num_nodes: int | None,
        variant: Variant,
        options: Options,
        *,
        max_device_bytes: int | None = None,
        index_dtype: Any = None,
        one_way: bool = False,
    ) -> None:
        cp = self.cp = cupy_or_raise()
        self.t0 = time.perf_counter()
        self.variant = variant
        self.fixed = num_nodes is not None
        self.n = int(num_nodes or 0)
        self.budget = max_device_bytes
        self.chunk_request = options.chunk_edges
        # the staging copy narrows to int32 only below INT32_IDS (it marks wrapped ids)
        self.int32_ids = min(options.int32_ids, INT32_IDS)
        self.one_way = np.int32(bool(one_way))
        self.keyed = np.int32(keyed_stream(options))
        own = np.dtype(np.int32 if self.n - 1 <= self.int32_ids else np.int64)
        # a forced label type too narrow for num_nodes gives way (the labels would wrap)
        forced = None if index_dtype is None else np.dtype(index_dtype)
        dt = own if forced is None or forced.itemsize < own.itemsize else forced
        self.compute = cp.cuda.Stream(non_blocking=True)
        self.copy = cp.cuda.Stream(non_blocking=True)
        self.launches = 0
        self.edges = 0
        self.staged_edges = 0
        self.cap = 0
        self._setup(dt, max(self.n, 1) if self.fixed else 1024)

    # -------------------------------------------------------------- state
    def _setup(self, dt: np.dtype, cap: int) -> None:
        """(Re)build kernels, labels of capacity ``cap`` and the slots for label type ``dt``."""
        cp = self.cp
        self.dt, self.I = dt, dt.type
        self.k = cc_kernels(self.variant.finish, str(self.variant.compress), dt.str, False)
        renames = bool(self.keyed) or self.k.jtb  # roots() renames roots to the minima
        # a new machine compiles the stream's kernels side by side, while chunks upload
        self.k.prefetch(["finish_coo", "compress"] + (["root_min", "apply_root_min"] * renames))
        ops.prefetch(cp, ops.names("arange", dt) + ops.names("full", dt) * renames)
        prefetch_canonical(dt, np.int32 if max(self.n, 1) <= np.iinfo(np.int32).max else np.int64)
        self.jtb = self.k.jtb
        self.needs_aux = self.k.needs_aux
        budget = self.budget
        if budget is None:
            labels = max(self.n, 1) * label_bytes_per_vertex(self.variant, dt)
            budget = int(_free_device_bytes() * _FREE_SHARE)
            if labels + _RESERVE > budget:
                raise DeviceMemoryError(
                    f"streaming connected components: the labels of {self.n} vertices need "
                    f"{labels} bytes on the GPU but only {budget} bytes are usable. Fix: free GPU "
                    "memory or use device='cpu'."
                )
        self.chunk = plan_chunk_edges(
            budget, self.n if self.fixed else None, dt, self.variant, self.chunk_request
        )
        # growth stops at the budget, and never passes what the device has at all
        self.limit = min(budget, device_total_bytes())
        check_device_fits(
            lambda: (
                f"streaming connected components ({self.n} vertices, {self.chunk} edges per slot)"
            ),
            self._device_bytes(cap),
            fix="pass num_nodes no larger than the graph (ids must be dense: relabel them to "
            "0 .. n-1) or use device='cpu'",
        )
        with out_of_memory_guard("streaming connected components", self._device_bytes(cap)):
            with self.compute:
                if self.cap == 0:
                    self._alloc_labels(cap)
                else:  # widening: same parents, wider type (aux and packed keep theirs)
                    self.p = self.p.astype(dt)
                self.dummy = cp.zeros(1, dt)
            self.slots = [_Slot(cp, self.chunk, dt) for _ in range(SLOTS)]
        self.cur = 0

    def _device_bytes(self, cap: int) -> int:
        return cap * label_bytes_per_vertex(
            self.variant, self.dt
        ) + self.chunk * _slot_bytes_per_edge(self.dt)

    def _alloc_labels(self, cap: int) -> None:
        cp = self.cp
        self.p = ops.arange(cp, cap, self.dt)
        self.aux = cp.zeros(cap if self.needs_aux else 1, np.int32)
        self.packed = ops.arange(cp, cap, np.uint64) if self.jtb else cp.zeros(1, np.uint64)
        self.cap = cap

    def _grow_to(self, need: int) -> None:
        """Make ids ``< need`` valid: larger labels on the compute stream, new slots singletons."""
        self.n = max(self.n, need)
        if need <= self.cap:
            return
        cp, old = self.cp, self.cap
        new = max(need, 2 * old)
        per_vertex = label_bytes_per_vertex(self.variant, self.dt)
        room = (self.limit - _RESERVE - self.chunk * _slot_bytes_per_edge(self.dt)) // per_vertex
        if need > room:
            raise DeviceMemoryError(
                f"streaming connected components: vertex id {need - 1} needs labels of {need} "
                f"vertices ({need * per_vertex} bytes) besides {self.chunk} edges per slot, over "
                f"the device budget of {self.limit} bytes (max_device_bytes, at most the "
                "device's memory). Fix: make the ids dense (relabel them to 0 .. n-1), pass "
                "num_nodes so the slots are sized for the labels, raise max_device_bytes, or "
                "use device='cpu'."
            )
        new = min(new, room)
        with out_of_memory_guard("growing the streaming labels", new * per_vertex), self.compute:
            # stream-ordered: the copy runs after every kernel already queued on the old array
            p = cp.empty(new, self.dt)
            p[:old] = self.p
            p[old:] = cp.arange(old, new, dtype=self.dt)
            self.p = p
            if self.needs_aux:
                aux = cp.zeros(new, np.int32)
                aux[:old] = self.aux
                self.aux = aux
            if self.jtb:
                packed = cp.empty(new, np.uint64)
                packed[:old] = self.packed
                packed[old:] = cp.arange(old, new, dtype=np.uint64)
                self.packed = packed
        self.cap = new

    def _widen(self) -> None:
        """Switch to int64 labels mid-stream (an id beyond int32 arrived)."""
        log.debug("streaming: an id exceeds int32, switching to int64 labels")
        self._flush()
        self._drain()
        self.slots = []
        self._setup(np.dtype(np.int64), self.cap)

    # -------------------------------------------------------------- feeding
    def ensure_nodes(self, n: int) -> None:
        """Make ids ``0 .. n-1`` valid (a chunk's declared vertex count, say)."""
        if n - 1 > self.int32_ids and self.dt == np.int32:
            self._widen()
        self._grow_to(n)

    def add(self, src: Any, dst: Any, check: RangeCheck) -> None:
        """Unite one chunk's edges (NumPy or CuPy id arrays).

        ``check(lo, hi)`` is called with the id range of each piece before any of
        it reaches a kernel, and raises for ids out of range.
        """
        if is_cupy_array(src) or is_cupy_array(dst):
            self._add_device(src, dst, check)
        elif src.shape[0] == 0:
            check(0, -1)
        elif self._pinned_as_is(src, dst):
            self._add_pinned(src, dst, check)
        else:
            self._add_staged(src, dst, check)

    def add_csr(self, indptr: np.ndarray, indices: np.ndarray, check: RangeCheck) -> None:
        """Unite the edges of a host CSR (row ``r`` to ``indices[indptr[r]:indptr[r + 1]]``).

        Only the columns and, per slot, the offsets of the rows it spans cross the
        bus; the device expands the rows (:func:`_csr_rows_kernel`). So a CSR moves
        half the bytes of the same edges as pairs, and the host pass that stages the
        columns also finds their range for ``check``. A slot's row offsets live in
        the tail of its device column buffer (:func:`_offsets_share` sizes it) and in
        its (otherwise unused) pinned row buffer, so the device budget is the same as
        for pairs. ``indptr`` must be
        a valid row pointer of at most ``num_nodes`` rows (the caller checks it).
        """
        rows = int(indptr.shape[0]) - 1
        if rows:
            self.ensure_nodes(rows)
        m, pos = int(indices.shape[0]), 0
        if m == 0:
            check(0, -1)
            return
        self._flush()  # a partly filled slot of pairs goes first, so slots stay in turn
        while pos < m:
            slot = self.slots[self.cur]
            slot.h2d_done.synchronize()  # the pinned buffers' previous copy has left
            slot.held = ()
            tail = _offsets_share(self.chunk, rows, m, self.dt.itemsize)
            room = self.chunk - tail
            seg_h = slot.hsrc.view(np.int32)[: tail * self.dt.itemsize // 4]
            stop, r0, nseg, lo, hi = stage_csr_columns(
                indptr, indices, pos, min(m, pos + room), slot.hdst, seg_h
            )
            check(lo, hi)
            if hi > self.int32_ids and self.dt == np.int32:
                self._widen()  # a column wrapped in the narrowing copy: stage it again
                continue
            self._launch_csr(slot, stop - pos, max(hi, r0 + nseg - 2), r0, nseg, room)
            self.staged_edges += stop - pos
            pos = stop

    def _launch_csr(self, slot: _Slot, k: int, hi: int, r0: int, nseg: int, room: int) -> None:
        """Copy a slot of CSR columns and row offsets, expand the rows, queue the unite."""
        cp = self.cp
        rt = cp.cuda.runtime
        self._grow_to(hi + 1)
        it = self.dt.itemsize
        seg_d = slot.ddst[room:].view(np.int32)
        self.copy.wait_event(slot.compute_done)  # the device slot's previous kernel is done
        rt.memcpyAsync(
            slot.ddst.data.ptr, slot.hdst.ctypes.data, k * it, rt.memcpyHostToDevice, self.copy.ptr
        )
        rt.memcpyAsync(
            seg_d.data.ptr, slot.hsrc.ctypes.data, nseg * 4, rt.memcpyHostToDevice, self.copy.ptr
        )
        slot.h2d_done.record(self.copy)
        self.compute.wait_event(slot.h2d_done)
        with self.compute:
            _csr_rows_kernel()(seg_d, np.int32(nseg), self.I(r0), slot.dsrc[:k])
            self._unite(slot.dsrc, slot.ddst, k)
        slot.compute_done.record(self.compute)
        slot.fill, slot.hi = 0, -1
        self.cur = (self.cur + 1) % SLOTS
        self.edges += k

    def _add_staged(self, src: np.ndarray, dst: np.ndarray, check: RangeCheck) -> None:
        m, pos = int(src.shape[0]), 0
        while pos < m:
            slot = self.slots[self.cur]
            if slot.fill == 0:
                slot.h2d_done.synchronize()  # the pinned buffer's previous copy has left
                slot.held = ()
            take = min(m - pos, self.chunk - slot.fill)
            lo, hi = stage_edges(
                src[pos : pos + take], dst[pos : pos + take], slot.hsrc, slot.hdst, slot.fill
            )
            check(lo, hi)
            if hi > self.int32_ids and self.dt == np.int32:
                self._widen()  # the narrowing copy wrapped: stage this piece again as int64
                continue
            slot.fill += take
            slot.hi = max(slot.hi, hi)
            pos += take
            self.staged_edges += take
            if slot.fill == self.chunk:
                self._flush()

    def _pinned_as_is(self, src: np.ndarray, dst: np.ndarray) -> bool:
        """Both arrays are contiguous, of the label type, and in page-locked host memory."""
        rt = self.cp.cuda.runtime
        for a in (src, dst):
            if a.dtype != self.dt or not a.flags.c_contiguous:
                return False
            try:
                attrs = rt.pointerGetAttributes(a.ctypes.data)
            except rt.CUDARuntimeError:
                return False
            # CuPy >= 13 names the field ``type``, older releases ``memoryType``
            kind = getattr(attrs, "type", getattr(attrs, "memoryType", -1))
            if kind != _CUDA_MEMORY_TYPE_HOST:
                return False
        return True

    def _add_pinned(self, src: np.ndarray, dst: np.ndarray, check: RangeCheck) -> None:
        """Copy straight from the caller's page-locked arrays, one slot's worth at a time."""
        self._flush()  # a partly filled slot goes first, so slots stay in turn
        m, it = int(src.shape[0]), self.dt.itemsize
        for a in range(0, m, self.chunk):
            b = min(a + self.chunk, m)
            lo, hi = edge_id_range(src[a:b], dst[a:b])  # overlaps the previous piece's transfer
            check(lo, hi)
            if hi > self.int32_ids and self.dt == np.int32:
                self._widen()  # int64 labels now: the int32 input must be widened on the host
                self._add_staged(src[a:], dst[a:], check)
                break
            slot = self.slots[self.cur]
            slot.h2d_done.synchronize()
            slot.held = (src, dst)
            self._launch_slot(slot, b - a, hi, src.ctypes.data + a * it, dst.ctypes.data + a * it)
        # the caller may refill its pinned buffer once we return: let the copies finish first
        self.copy.synchronize()

    def _add_device(self, src: Any, dst: Any, check: RangeCheck) -> None:
        cp = self.cp
        if src.shape[0] == 0:
            check(0, -1)
            return
        lo = min(int(src.min()), int(dst.min()))
        hi = max(int(src.max()), int(dst.max()))
        check(lo, hi)
        if hi > self.int32_ids and self.dt == np.int32:
            self._widen()
        self._grow_to(hi + 1)
        # the caller produced these arrays on its own stream: order our kernel after it
        ready = cp.cuda.Event(disable_timing=True)
        ready.record(cp.cuda.get_current_stream())
        self.compute.wait_event(ready)
        with self.compute:
            s, d = cp.asarray(src, self.dt), cp.asarray(dst, self.dt)
            self._unite(s, d, int(s.shape[0]))
        # the caller may free or overwrite its arrays once we return
        self.compute.synchronize()
        self.edges += int(src.shape[0])

    def _flush(self) -> None:
        """Send the current slot's staged edges to the device and queue their kernel."""
        slot = self.slots[self.cur] if self.slots else None
        if slot is None or slot.fill == 0:
            return
        self._launch_slot(slot, slot.fill, slot.hi, slot.hsrc.ctypes.data, slot.hdst.ctypes.data)

    def _launch_slot(self, slot: _Slot, k: int, hi: int, hsrc: int, hdst: int) -> None:
        cp = self.cp
        rt = cp.cuda.runtime
        self._grow_to(hi + 1)
        nbytes = k * self.dt.itemsize
        self.copy.wait_event(slot.compute_done)  # the device slot's previous kernel is done
        rt.memcpyAsync(slot.dsrc.data.ptr, hsrc, nbytes, rt.memcpyHostToDevice, self.copy.ptr)
        rt.memcpyAsync(slot.ddst.data.ptr, hdst, nbytes, rt.memcpyHostToDevice, self.copy.ptr)
        slot.h2d_done.record(self.copy)
        self.compute.wait_event(slot.h2d_done)
        with self.compute:
            self._unite(slot.dsrc, slot.ddst, k)
        slot.compute_done.record(self.compute)
        slot.fill, slot.hi = 0, -1
        self.cur = (self.cur + 1) % SLOTS
        self.edges += k

    def _unite(self, src: Any, dst: Any, k: int) -> None:
        """Queue ``finish_coo`` over ``k`` edges on the current (compute) stream.

        No sampling phase, so no skip test (``use_lmax=0``); the unused hook-edge
        and lmax pointers get a one-element dummy.
        """
        self.k.finish_coo(
            _grid(k),
            (BLOCK,),
            (
                self.p,
                self.aux,
                self.packed,
                self.keyed,
                src,
                dst,
                self.dummy,
                np.int64(k),
                self.dummy,
                np.int32(0),
                self.one_way,
            ),
        )
        self.launches += 1

    def _drain(self) -> None:
        self.copy.synchronize()
        self.compute.synchronize()

    # -------------------------------------------------------------- results
    def roots(self) -> Any:
        """Flush, then the smallest vertex id of each vertex's component (CuPy, length n)."""
        self._flush()
        self._drain()
        self.slots = []  # the edge slots are done: their memory serves the relabelling
        n, I = self.n, self.I
        with self.compute:
            if n:
                self.k.compress(
                    _grid(n), (BLOCK,), (self.p, self.aux, self.packed, self.keyed, I(n))
                )
            p = self.p[:n]
            if n and (self.keyed or self.jtb):
                # roots are the first vertices in the link order (uf.cuh) or JTB's
                # by rank, not the minima: rename them; one thread per vertex in id
                # order (root_min)
                minv = ops.full(self.cp, n, np.iinfo(self.dt).max, self.dt)
                self.k.root_min((-(-n // BLOCK),), (BLOCK,), (p, minv, I(n)))
                self.k.apply_root_min(_grid(n), (BLOCK,), (p, minv, I(n)))
        self.compute.synchronize()
        self.seconds = time.perf_counter() - self.t0
        return p

    def info(self) -> dict:
        """What the run did: launches, edges, slot size, label type (tests and benchmarks)."""
        return {
            "launches": self.launches,
            "edges": self.edges,
            "chunk_edges": self.chunk,
            "staged_edges": self.staged_edges,
            "num_nodes": self.n,
            "index_dtype": str(self.dt),
            "variant": str(self.variant),
            "seconds": getattr(self, "seconds", None),
        }


# ----------------------------------------------------------------------------- entry points
def canonical_on_device(roots: Any, max_device_bytes: int | None = None) -> tuple[int, Any]:
    """SciPy-numbered labels from device roots, on the device when it fits, else on the host.

    Needs two label arrays besides ``roots`` (:func:`concomp._gpu.probe.canonical_numbers`);
    the budget check allows ``3 * itemsize + 1`` bytes per vertex, room for the prefix
    sum's scratch. :func:`concomp._gpu.components.canonical_labels` is the host fallback.
    """
    cp = cupy_or_raise()
    n = int(roots.shape[0])
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    if n == 0:
        return 0, np.zeros(0, dt)
    it = roots.dtype.itemsize
    extra = n * (3 * it + 1)
    if max_device_bytes is not None and extra + n * it > max_device_bytes:
        return canonical_labels(cp.asnumpy(roots))
    try:
        return canonical_numbers(roots, dt)
    except cp.cuda.memory.OutOfMemoryError:
        cp.get_default_memory_pool().free_all_blocks()
        return canonical_labels(cp.asnumpy(roots))


def download(a: Any) -> np.ndarray:
    """A device array as NumPy, through two pinned bounce buffers.

    ``a.get()`` copies into pageable memory at a fraction of the bus bandwidth;
    here each piece crosses at pinned speed while the host copies the previous
    one out of the other buffer on all cores.
    """
    cp = cupy_or_raise()
    if a.nbytes <= _BOUNCE_BYTES:
        return cp.asnumpy(a)
    a = cp.ascontiguousarray(a).ravel()
    n, it = int(a.shape[0]), a.dtype.itemsize
    out = np.empty(n, a.dtype)
    per = _BOUNCE_BYTES // it
    starts = list(range(0, n, per))
    stream = cp.cuda.Stream(non_blocking=True)
    ready = cp.cuda.Event(disable_timing=True)
    ready.record(cp.cuda.get_current_stream())  # ``a`` was computed on the caller's stream
    stream.wait_event(ready)
    bufs = [cp.cuda.alloc_pinned_memory(per * it) for _ in range(2)]
    views = [np.frombuffer(b, a.dtype, per) for b in bufs]
    done = [cp.cuda.Event(disable_timing=True) for _ in range(2)]
    rt = cp.cuda.runtime

    def issue(k: int) -> None:
        s = starts[k]
        cnt = min(per, n - s)
        rt.memcpyAsync(
            views[k % 2].ctypes.data,
            a.data.ptr + s * it,
            cnt * it,
            rt.memcpyDeviceToHost,
            stream.ptr,
        )
        done[k % 2].record(stream)

    issue(0)
    for k, s in enumerate(starts):
        if k + 1 < len(starts):
            issue(k + 1)  # its buffer held piece k-1, already copied out below
        done[k % 2].synchronize()
        cnt = min(per, n - s)
        copy_parallel(views[k % 2][:cnt], out[s : s + cnt])
    return out.reshape(a.shape)


def stream_labels(roots: Any, max_device_bytes: int | None, to_host: bool) -> tuple[int, Any]:
    """``(count, canonical labels)`` of a stream's roots within the memory budget.

    On the device where the budget allows (else on the host); ``to_host`` brings
    device labels back as NumPy through the pinned bounce buffers.
    """
    count, labels = canonical_on_device(roots, max_device_bytes)
    if to_host and is_cupy_array(labels):
        labels = download(labels)
    return count, labels


def fits_in_memory(graph: Graph, max_device_bytes: int | None, options: Options) -> bool:
    """Whether the in-memory GPU engine can hold ``graph`` (see :func:`should_stream`)."""
    return not should_stream(graph, max_device_bytes)


def components_out_of_core(
    graph: Graph, variant: Variant | None, max_device_bytes: int | None, options: Options
) -> Any:
    """Root labels (CuPy) of a host graph whose edges stream through the device.

    The out-of-core path of ``connected_components(..., max_device_bytes=...)``:
    only the labels stay on the device; the edges go through :class:`Streamer`
    in slots sized by the budget. ``variant`` keeps its finish and compression
    rules (sampling is dropped; see :func:`streaming_variant_of`).
    """
    return out_of_core_roots(graph, variant, max_device_bytes, options)


def out_of_core_roots(
    graph: Graph,
    variant: Variant | None,
    max_device_bytes: int | None,
    options: Options,
    info: dict | None = None,
) -> Any:
    """:func:`components_out_of_core`; ``info``, a dict, receives the run's statistics."""
    v = streaming_variant_of(variant)
    host = graph.to("cpu")
    eng = Streamer(
        graph.num_nodes,
        v,
        options,
        max_device_bytes=max_device_bytes,
        index_dtype=options.index_dtype,
        one_way=graph.symmetric,
    )

    def trusted(lo: int, hi: int) -> None:  # a Graph's ids were validated when it was built
        return None

    if host.has_coo:
        src, dst = host.coo()
        step = eng.chunk
        for a in range(0, graph.num_edges, step):
            eng.add(src[a : a + step], dst[a : a + step], trusted)
    else:  # a CSR: its rows are expanded while the slots are staged
        indptr, indices, _ = host.csr()
        eng.add_csr(indptr, indices, trusted)
    roots = eng.roots()
    stats = eng.info()
    log.debug("out-of-core GPU components: %s", stats)
    if info is not None:
        info.update(stats)
    return roots
