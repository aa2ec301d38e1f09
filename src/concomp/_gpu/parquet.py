"""A Parquet file's two id columns decoded on the GPU (kernels: ``cuda/parquet.cu``).

Decoding a file of edges on the host (pyarrow) runs at a few GB/s of ids on all
cores, far below the bus: on a file of 2.6e8 edges it took longer than everything
else in the call together. Here the host only reads: the id columns' chunks go,
as they lie in the file, through two pinned slots to one device buffer (reading the
next slot on all cores while the last one crosses the bus), and the host parses just
the page headers there (:mod:`concomp._shared.parquet_pages`). Decompression (Snappy)
and decoding (PLAIN and dictionary pages) run on the device, into int32 ids where
every value fits (int64 otherwise). A slot's pages are decompressed as soon as its
bytes are on the device, while later slots are read; the values are decoded once every
page is in.

Files the kernels do not read (another codec or encoding, nested or nullable
columns with nulls, row groups larger than the device can hold at once) give None
from :func:`parquet_chunks`, with the reason in the debug log; the caller then reads
them with pyarrow. A file holding more than a share of the device's free memory is
decoded in rounds of whole row groups, one chunk of edges per round.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._shared import parquet_pages as pages
from ..errors import GraphFormatError
from ._compat import cupy_or_raise, free_device_bytes
from ._compile import get_kernel
from .pinned import PinnedSlot, thread_slots

log = logging.getLogger("concomp.gpu")

__all__ = ["INSTANTIATIONS", "decode_round", "parquet_chunks"]

_TYPES = {4: "int", 8: "long long"}
INSTANTIATIONS = ["pq_snappy"] + [
    f"pq_values<{p}, {o}>" for p in _TYPES.values() for o in _TYPES.values()
]

#: Bytes of each of the two pinned slots the column chunks pass through (a larger
#: column chunk gets slots of its size).
SLOT_BYTES = 64 << 20
#: Bytes one thread reads with one call.
_READ_PIECE = 4 << 20
#: Share of the device's free memory one round of row groups may take.
_DEVICE_SHARE = 0.5
#: Threads of a ``pq_snappy`` block (``PQ_SNAPPY_THREADS`` in ``cuda/parquet.cu``).
SNAPPY_THREADS = 32
#: log2 of the threads of one warp that decompress a page together (``pq_snappy``): they
#: walk its chain of elements in step and share its long literals. One thread per page,
#: 32 pages to a warp, left each lane to its own page's branches, and a page of short
#: elements (ids in order, as road networks number them) waited on 31 others.
_LANES_LOG2 = 5
#: Streams the slots' Snappy launches take turns on (a launch lasts several slots' reads).
_SNAPPY_STREAMS = 16

# status codes of cuda/parquet.cu
_NARROW = 6
_MESSAGES = {
    1: "a Snappy-compressed page is malformed",
    2: "a page decompresses to another size than its header says",
    3: "a page holds fewer values than its header says",
    4: "a dictionary index lies past the dictionary",
    5: "dictionary indices are wider than 32 bits",
    7: "a page uses an encoding the decoder does not read",
    8: "a page refers to a dictionary its column chunk lacks",
}
# decode table columns (PV_* in cuda/parquet.cu)
_PV_COLS = 9

_pool_lock = threading.Lock()
_pool: ThreadPoolExecutor | None = None


def _readers() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(os.cpu_count() or 1, thread_name_prefix="concomp-pq-read")
        return _pool


def _slots(cp: Any, need: int) -> list[PinnedSlot]:
    """This thread's two pinned slots of at least ``need`` bytes (kept for later calls)."""
    return thread_slots(cp, "parquet", max(SLOT_BYTES, need))


@dataclass
class _Round:
    """Row groups decoded together: their chunks (indices into the plan's) and rows."""

    chunks: list[int]
    rows: int
    raw: int  #: compressed bytes of the chunks
    scratch: int  #: bound on decompressed bytes (the chunks' uncompressed sizes)


def parquet_chunks(
    name: str, columns: tuple[str, str], opened: Any = None
) -> Iterator[tuple[str, Any, Any]] | None:
    """The file's edges as ``(where, src, dst)``: the row groups of a round (named as
    "row groups 0..9") and their ids as device arrays, or None where the file is beyond
    the decoder (the reason is logged; nothing has been read).

    ``columns`` names the source and target columns; ``opened`` is the file's
    ``pyarrow.parquet.ParquetFile`` where the caller has opened it (its footer is then
    not parsed again). Raises :class:`~concomp.errors.GraphFormatError` for a corrupt
    file, naming the row group and the column.
    """
    if opened is None:
        import pyarrow.parquet as pq

        opened = pq.ParquetFile(name)
    pf = opened
    leaves = [pf.schema.column(i).path for i in range(len(pf.schema))]
    if columns[0] not in leaves or columns[1] not in leaves:
        return None  # a nested schema: pyarrow reads it
    idx = (leaves.index(columns[0]), leaves.index(columns[1]))
    plan = pages.column_plan(pf, idx)
    if isinstance(plan, str):
        log.debug("%s: read by pyarrow, not on the GPU (%s)", name, plan)
        return None
    if plan.rows == 0:
        return None  # no pages: the host path gives the empty chunk
    rounds = _rounds(pf, plan, idx)
    if rounds is None:
        log.debug("%s: a row group exceeds the device's share; read by pyarrow", name)
        return None
    log.debug("%s: decoded on the GPU in %d round(s) of row groups", name, len(rounds))
    return _decoded(name, plan, rounds)


def _rounds(pf: Any, plan: pages.ColumnPlan, idx: tuple[int, int]) -> list[_Round] | None:
    """Row groups in rounds that each fit :data:`_DEVICE_SHARE` of the free memory."""
    free = free_device_bytes()
    budget = int(_DEVICE_SHARE * free) if free else 1 << 62
    out: list[_Round] = []
    cur = _Round([], 0, 0, 0)
    by_group: dict[int, list[int]] = {}
    for i, c in enumerate(plan.chunks):
        by_group.setdefault(c.group, []).append(i)
    for g, members in sorted(by_group.items()):
        meta = pf.metadata.row_group(g)
        rows = meta.num_rows
        raw = sum(plan.chunks[i].size for i in members)
        scratch = sum(
            meta.column(idx[plan.chunks[i].column]).total_uncompressed_size
            for i in members
            if plan.chunks[i].codec
        )
        need = raw + scratch + 16 * rows  # int64 ids where int32 do not hold them
        if need > budget:
            return None
        if cur.chunks and (cur.raw + cur.scratch + 16 * cur.rows) + need > budget:
            out.append(cur)
            cur = _Round([], 0, 0, 0)
        cur.chunks += members
        cur.rows += rows
        cur.raw += raw
        cur.scratch += scratch
    if cur.chunks:
        out.append(cur)
    return out


def _decoded(
    name: str, plan: pages.ColumnPlan, rounds: list[_Round]
) -> Iterator[tuple[str, Any, Any]]:
    cp = cupy_or_raise()
    fd = os.open(name, os.O_RDONLY)
    try:
        for rnd in rounds:
            first = plan.chunks[rnd.chunks[0]].group
            last = plan.chunks[rnd.chunks[-1]].group
            where = f"row groups {first}..{last}" if first != last else f"row group {first}"
            src, dst = decode_round(cp, fd, name, plan, rnd)
            yield where, src, dst
    finally:
        os.close(fd)


def _submit_reads(
    fd: int, view: np.ndarray, ranges: list[tuple[int, int, int]], name: str
) -> list[Future]:
    """Start filling ``view[at:at + size]`` with the file's bytes from ``offset`` on for
    every ``(at, offset, size)`` of ``ranges``, in pieces read on all cores at once."""
    pool = _readers()

    def piece(at: int, offset: int, size: int) -> None:
        mv = view.data[at : at + size]
        done = 0
        while done < size:  # pread may return less than asked
            got = os.preadv(fd, [mv[done:]], offset + done)
            if got == 0:
                raise GraphFormatError(
                    f"{name}: the file ends at byte {offset + done}, inside a column chunk "
                    "its footer places there. Fix: write the file again."
                )
            done += got

    return [
        pool.submit(piece, at + lo, offset + lo, min(_READ_PIECE, size - lo))
        for at, offset, size in ranges
        for lo in range(0, size, _READ_PIECE)
    ]


def _slot_fills(chunks: list[pages.ChunkRef], room: int) -> list[tuple[int, int]]:
    """Consecutive chunk ranges ``[k, j)`` that each fill one slot of ``room`` bytes."""
    out, k = [], 0
    while k < len(chunks):
        j, fill = k, 0
        while j < len(chunks) and fill + chunks[j].size <= room:
            fill += chunks[j].size
            j += 1
        out.append((k, j))
        k = j
    return out


def decode_round(cp: Any, fd: int, name: str, plan: pages.ColumnPlan, rnd: _Round) -> tuple:
    """The two id columns of one round's row groups as device arrays (int32 where every
    id fits, else int64).

    A pipeline over the two pinned slots: while the threads read the next slot, the
    host parses the page headers of the one just read, its bytes cross to the device
    and its pages are decompressed there. The values are decoded once every page is in.
    """
    chunks = [plan.chunks[i] for i in rnd.chunks]
    max_def = np.array([plan.max_def[c.column] for c in chunks], np.int64)
    slots = _slots(cp, max(c.size for c in chunks))
    fills = _slot_fills(chunks, slots[0].nbytes)
    buf = cp.empty(rnd.raw + rnd.scratch, dtype=cp.uint8)
    copy = cp.cuda.Stream(non_blocking=True)

    def start(g: int) -> tuple[np.ndarray, np.ndarray, list[Future]]:
        k, j = fills[g]
        sizes = np.array([c.size for c in chunks[k:j]], np.int64)
        rel = np.cumsum(sizes) - sizes
        slot = slots[g % 2]
        slot.copied.synchronize()  # the slot's previous copy to the device is done
        ranges = [(int(a), c.offset, c.size) for a, c in zip(rel, chunks[k:j])]
        return rel, sizes, _submit_reads(fd, slot.view(), ranges, name)

    tables: list[np.ndarray] = []
    places: list[np.ndarray] = []
    statuses: list[Any] = []  # per slot, each page's error code
    unpack = [cp.cuda.Stream(non_blocking=True) for _ in range(min(_SNAPPY_STREAMS, len(fills)))]
    pos, grown = 0, 0  # raw bytes placed on the device; scratch bytes given out
    pending = start(0)
    reads: list[Future] = []
    try:
        for g, (k, j) in enumerate(fills):
            slot = slots[g % 2]
            rel, sizes, reads = pending
            for f in reads:
                f.result()
            fill = int(sizes.sum())
            cp.cuda.runtime.memcpyAsync(
                buf.data.ptr + pos,
                slot.view().ctypes.data,
                fill,
                cp.cuda.runtime.memcpyHostToDevice,
                copy.ptr,
            )
            slot.copied.record(copy)
            if g + 1 < len(fills):  # the next slot reads while this one is parsed
                pending = start(g + 1)
            table, err, bad = pages.page_table(slot.view(), rel, rel + sizes)

            def what(c: int, k: int = k) -> str:
                return _chunk_name(name, chunks[k + c])

            pages.check_table(table, err, bad, max_def[k:j], what)
            table[:, 0] += k
            table[:, 2] += pos
            jobs, place, grown = _slot_jobs(table, chunks, rnd, grown, name)
            # The slot's pages decompress now, on a stream of their own, while later slots
            # are read: a page takes one thread the time of its whole chain of elements, so
            # only the last slot's pages are left for after the reads.
            stream = unpack[g % len(unpack)]
            stream.wait_event(slot.copied)
            with stream:
                statuses.append(cp.zeros(table.shape[0], dtype=cp.int32))
                _snappy(cp, buf, jobs, statuses[-1])
            tables.append(table)
            places.append(place)
            pos += fill
    except BaseException:
        # let the reads in flight and the kernels queued finish first: neither may write
        # into pinned slots or device memory that a later call is given
        _settle(reads + pending[2], (copy, *unpack))
        raise
    table = np.concatenate(tables)
    decode = _tables(table, np.concatenate(places), chunks, plan, name)
    main = cp.cuda.get_current_stream()
    for stream in (copy, *unpack):
        main.wait_event(stream.record())
    status = cp.concatenate(statuses)
    out = _values(cp, buf, decode, plan, rnd.rows, status, cp.int32)
    codes = cp.asnumpy(status)
    if (codes == _NARROW).any():  # an id above int32: decode again into int64
        status[status == _NARROW] = 0  # errors of the decompression stay
        out = _values(cp, buf, decode, plan, rnd.rows, status, cp.int64)
        codes = cp.asnumpy(status)
    bad_pages = np.flatnonzero(codes)
    if bad_pages.shape[0]:
        p = int(bad_pages[0])
        message = _MESSAGES.get(int(codes[p]), f"page error {int(codes[p])}")
        raise GraphFormatError(
            f"{_chunk_name(name, chunks[int(table[p, 0])])}: {message} (decoding on the GPU). "
            f"{pages.FORMAT_FIX}"
        )
    return out


def _settle(reads: list[Future], streams: tuple) -> None:
    """Wait for ``reads`` (their errors are left to the one being raised) and ``streams``."""
    for f in reads:
        f.exception()
    for stream in streams:
        stream.synchronize()


def _snappy(cp: Any, buf: Any, jobs: tuple[np.ndarray, np.ndarray], status: Any) -> None:
    """Launch ``pq_snappy`` over the jobs on the current stream, ``2**_LANES_LOG2``
    threads to a page."""
    nj = int(jobs[0].shape[0])
    if nj:
        get_kernel("parquet.cu", "pq_snappy")(
            (-(-(nj << _LANES_LOG2) // SNAPPY_THREADS),),
            (SNAPPY_THREADS,),
            (
                buf,
                cp.asarray(jobs[0]),
                np.int64(nj),
                cp.asarray(jobs[1]),
                status,
                np.int32(_LANES_LOG2),
            ),
        )


def _chunk_name(name: str, chunk: pages.ChunkRef) -> str:
    return f"{name}: row group {chunk.group}, {'source' if chunk.column == 0 else 'target'} column"


def _slot_jobs(
    table: np.ndarray, chunks: list[pages.ChunkRef], rnd: _Round, grown: int, name: str
) -> tuple[tuple[np.ndarray, np.ndarray], np.ndarray, int]:
    """The Snappy jobs ``(in_pos, in_len, out_pos, out_len)`` of one slot's pages (with
    each job's page, counted in the slot), where each page's value bytes lie (an
    ``(n, 2)`` array of position and length in the buffer), and the scratch bytes given
    out with them (``grown`` before).

    Compressed pages decompress into the scratch part (after the raw bytes, in page
    order); a V2 page's levels are stored uncompressed before its values. Raises
    :class:`~concomp.errors.GraphFormatError` where the pages decompress to more bytes
    than the footer's sizes allow.
    """
    size, usize, levels = table[:, 3], table[:, 4], table[:, 7]
    codec = np.array([c.codec for c in chunks], np.int64)[table[:, 0]]
    compressed = (codec != 0) & (table[:, 8] != 0)
    vlen = np.where(compressed, usize - levels, size - levels)
    more = np.where(compressed, vlen, 0)
    if (vlen < 0).any() or grown + int(more.sum()) > rnd.scratch:
        c = int(table[np.flatnonzero((vlen < 0) | compressed)[0], 0])
        raise GraphFormatError(
            f"{_chunk_name(name, chunks[c])}: its pages decompress to more bytes than the "
            f"footer gives the column chunk. {pages.FORMAT_FIX}"
        )
    scratch = rnd.raw + grown + np.cumsum(more) - more
    vpos = np.where(compressed, scratch, table[:, 2] + levels)
    jobs = np.stack([table[:, 2] + levels, size - levels, scratch, vlen], axis=1)[compressed]
    job_pages = np.flatnonzero(compressed).astype(np.int32)
    return (jobs, job_pages), np.stack([vpos, vlen], axis=1), grown + int(more.sum())


def _tables(
    table: np.ndarray,
    place: np.ndarray,
    chunks: list[pages.ChunkRef],
    plan: pages.ColumnPlan,
    name: str,
) -> tuple[np.ndarray, np.ndarray]:
    """The decode table (``PV_*`` columns of ``cuda/parquet.cu``) of a round's data
    pages, and those pages (rows of ``table``); ``place`` holds each page's value bytes
    (position, length).

    Raises :class:`~concomp.errors.GraphFormatError` where the pages contradict the
    footer: a dictionary page shorter than its values, or pages that hold another
    number of values than the chunk.
    """
    kind = table[:, 1]
    vpos, vlen = place[:, 0], place[:, 1]
    dict_pos = np.full(len(chunks), -1, np.int64)
    dict_count = np.zeros(len(chunks), np.int64)
    for p in np.flatnonzero(kind == pages.DICTIONARY_PAGE):
        c = int(table[p, 0])
        if dict_pos[c] >= 0 or vlen[p] < table[p, 5] * plan.widths[chunks[c].column]:
            raise GraphFormatError(
                f"{_chunk_name(name, chunks[c])}: a second dictionary page, or one shorter "
                f"than its values. {pages.FORMAT_FIX}"
            )
        dict_pos[c], dict_count[c] = vpos[p], table[p, 5]
    data = np.flatnonzero((kind == pages.DATA_PAGE) | (kind == pages.DATA_PAGE_V2))
    c_of, values = table[data, 0], table[data, 5]
    chunk_rows = np.array([c.rows for c in chunks], np.int64)
    got = np.bincount(c_of, weights=values, minlength=len(chunks)).astype(np.int64)
    if (got != chunk_rows).any():
        c = int(np.flatnonzero(got != chunk_rows)[0])
        raise GraphFormatError(
            f"{_chunk_name(name, chunks[c])}: its pages hold {int(got[c])} values, the "
            f"footer says {int(chunk_rows[c])}. {pages.FORMAT_FIX}"
        )
    col = np.array([c.column for c in chunks], np.int64)
    chunk_row = np.zeros(len(chunks), np.int64)  # each column's chunks follow from row 0
    for k in (0, 1):
        mine = np.flatnonzero(col == k)
        chunk_row[mine] = np.cumsum(chunk_rows[mine]) - chunk_rows[mine]
    # a page's rows start after the pages before it in its chunk (pages are in chunk order)
    before = np.cumsum(values) - values
    first = np.r_[True, c_of[1:] != c_of[:-1]] if data.shape[0] else np.zeros(0, bool)
    before -= np.maximum.accumulate(np.where(first, before, 0))
    decode = np.stack(
        [
            vpos[data],
            vlen[data],
            values,
            table[data, 6],
            chunk_row[c_of] + before,
            dict_pos[c_of],
            dict_count[c_of],
            ((kind[data] == pages.DATA_PAGE) & (np.array(plan.max_def)[col[c_of]] > 0)),
            col[c_of],
        ],
        axis=1,
    ).astype(np.int64)
    return decode, data.astype(np.int32)


def _values(
    cp: Any, buf: Any, decode: tuple, plan: pages.ColumnPlan, rows: int, status: Any, out_t: Any
) -> tuple[Any, Any]:
    """Launch ``pq_values`` for each column's pages into new ``out_t`` arrays."""
    table, page_ids = decode
    out = (cp.empty(rows, dtype=out_t), cp.empty(rows, dtype=out_t))
    o = _TYPES[np.dtype(out_t).itemsize]
    for k in (0, 1):
        mine = np.flatnonzero(table[:, 8] == k)
        if not mine.shape[0]:
            continue
        npg = int(mine.shape[0])
        kernel = get_kernel("parquet.cu", f"pq_values<{_TYPES[plan.widths[k]]}, {o}>")
        kernel(
            (min(npg, 65535),),
            (256,),
            (
                buf,
                cp.asarray(table[mine]),
                np.int32(npg),
                out[0],
                out[1],
                status,
                cp.asarray(page_ids[mine]),
            ),
        )
    return out
