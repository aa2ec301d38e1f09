"""COO entries sorted into CSR order, for :func:`concomp._shared.csr.coo_to_csr` (numba).

SciPy's ``coo.tocsr()`` is a counting sort by row, whose writes land anywhere in
the output (a cache miss each), then a comparison sort of every row. Here the
entries are first split by the top bits of their row into a few hundred buckets
(few enough write streams that the writes stay in cache), and each bucket, rows
whose entries fit in cache, is then sorted where it lies: counting sorts by the
column's digits, lowest first, then a stable one by row. Linear in the entries
and in n.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .threads import serialized

__all__ = ["merge_duplicates", "sort_entries"]

#: Top row bits that pick a bucket.
_BUCKET_BITS = 8
#: Column bits per counting-sort pass inside a bucket.
_DIGIT_BITS = 10
#: Bucket sorts per thread: the spare ones even out buckets of unequal size.
_TASKS_PER_THREAD = 4


def sort_entries(
    row: np.ndarray, col: np.ndarray, data: np.ndarray | None, n: int, index_dtype: np.dtype
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, int] | None:
    """``(indptr, indices, data, duplicates)``: the entries sorted by row, then column
    (stable), and the number of entries whose row and column an earlier one has; None
    if an id lies outside ``[0, n)`` or a row and a column do not fit one 64-bit key.

    ``data`` (or None) is moved as it is; ``indptr`` and ``indices`` are ``index_dtype``.
    """
    m = int(row.shape[0])
    colbits = max(int(n - 1).bit_length(), 1)
    shift = max(colbits - _BUCKET_BITS, 0)  # a bucket holds 2**shift rows
    if shift + colbits > 64:
        return None
    row, col = np.ascontiguousarray(row), np.ascontiguousarray(col)
    threads = nb.get_num_threads()
    counts = np.zeros((max(1, min(threads, m >> 16)), ((n - 1) >> shift) + 1), dtype=np.int64)
    if not _bucket_counts(row, col, n, shift, counts):
        return None
    # bucket-major offsets: bucket b holds chunk 0's entries, then chunk 1's, ...
    flat = counts.T.ravel()
    offsets = (np.cumsum(flat) - flat).reshape(counts.shape[::-1]).T.copy()
    starts = np.append(offsets[0], m)
    moved = np.empty(0, dtype=np.uint8) if data is None else data  # numba has no None here
    # a bucket's keys need only its rows' low bits: often 32 bits in all
    keys = np.empty(m, dtype=np.uint32 if shift + colbits <= 32 else np.uint64)
    bucketed = np.empty_like(moved)
    _scatter_to_buckets(row, col, moved, shift, colbits, offsets, keys, bucketed)
    indptr = np.zeros(n + 1, dtype=index_dtype)
    indices = np.empty(m, dtype=index_dtype)
    values = np.empty_like(moved)
    tasks = min(counts.shape[1], threads * _TASKS_PER_THREAD)
    dups = _sort_buckets(keys, bucketed, starts, shift, colbits, tasks, indptr, indices, values)
    return indptr, indices, None if data is None else values, int(dups)


def merge_duplicates(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """A CSR with sorted rows with each run of equal columns merged into one entry,
    whose value is the run's sum: wrapping in the integer type, logical or for
    booleans (as SciPy adds them); floating-point sums in the order stored."""
    merged_ptr = np.zeros_like(indptr)
    _distinct_per_row(indptr, indices, merged_ptr)
    np.cumsum(merged_ptr, out=merged_ptr)
    logical = data is not None and data.dtype.kind == "b"
    none = np.empty(0, dtype=np.uint8)
    values = none if data is None else (data.view(np.uint8) if logical else data)
    out_indices = np.empty(int(merged_ptr[-1]), dtype=indices.dtype)
    out = np.empty(out_indices.shape[0] if data is not None else 0, dtype=values.dtype)
    _merge_runs(indptr, indices, values, merged_ptr, out_indices, out, logical)
    return merged_ptr, out_indices, None if data is None else out.view(data.dtype)


@serialized
@nb.njit(parallel=True, cache=True, nogil=True)
def _bucket_counts(row, col, n, shift, counts):
    """Entries per chunk of the input and bucket; False if an id lies outside
    ``[0, n)``, which the scatters would otherwise write out of bounds with."""
    m = row.shape[0]
    chunks = counts.shape[0]
    ok = np.ones(chunks, dtype=np.bool_)
    for t in nb.prange(chunks):
        for i in range(t * m // chunks, (t + 1) * m // chunks):
            r = row[i]
            c = col[i]
            if r < 0 or r >= n or c < 0 or c >= n:
                ok[t] = False
                break
            counts[t, r >> shift] += 1
    return ok.all()


@serialized
@nb.njit(parallel=True, cache=True, nogil=True)
def _scatter_to_buckets(row, col, data, shift, colbits, offsets, keys, bucketed):
    """Stable scatter of ``(local row << colbits | col, data)`` into the bucket ranges
    that ``offsets`` (per chunk and bucket) start; a local row is a row's low bits,
    its bucket the rest."""
    m = row.shape[0]
    chunks = offsets.shape[0]
    cb = np.uint64(colbits)
    low = (1 << shift) - 1
    for t in nb.prange(chunks):
        fill = offsets[t]
        for i in range(t * m // chunks, (t + 1) * m // chunks):
            r = row[i]
            b = r >> shift
            p = fill[b]
            fill[b] = p + 1
            keys[p] = (np.uint64(r & low) << cb) | np.uint64(col[i])
            if data.shape[0]:
                bucketed[p] = data[i]


@serialized
@nb.njit(parallel=True, cache=True, nogil=True)
def _sort_buckets(keys, bucketed, starts, shift, colbits, tasks, indptr, indices, data):
    """Sort every bucket into its place in the CSR, in ``tasks`` runs of buckets;
    the number of duplicate entries (a row's column met again)."""
    buckets = starts.shape[0] - 1
    dups = np.zeros(tasks, dtype=np.int64)
    for t in nb.prange(tasks):
        lo, hi = t * buckets // tasks, (t + 1) * buckets // tasks
        dups[t] = _sort_run(keys, bucketed, starts, lo, hi, shift, colbits, indptr, indices, data)
    return dups.sum()


# A function of its own: numba hoists allocations out of a prange body, where all
# tasks would then share (and race on) the same scratch arrays.
@nb.njit(cache=True, nogil=True)
def _sort_run(keys, bucketed, starts, lo, hi, shift, colbits, indptr, indices, data):
    """Sort the buckets ``lo:hi``; their duplicate entries."""
    size = 0
    for b in range(lo, hi):
        size = max(size, starts[b + 1] - starts[b])
    spare = (np.empty(size, keys.dtype), np.empty(size, keys.dtype))
    spare_data = (np.empty(size, data.dtype), np.empty(size, data.dtype))
    counts = np.empty(max(1 << _DIGIT_BITS, 1 << shift) + 1, dtype=np.int64)
    n = indptr.shape[0] - 1
    dups = 0
    for b in range(lo, hi):
        e0, e1 = starts[b], starts[b + 1]
        k, d = keys[e0:e1], bucketed[e0:e1]
        low = 0
        while low < colbits:  # by column digits, lowest first, into the spare arrays
            bits = min(_DIGIT_BITS, colbits - low)
            out, out_d = spare[0][: e1 - e0], spare_data[0][: e1 - e0] if data.shape[0] else d
            _by_digit(k, d, low, bits, counts, out, out_d)
            k, d = out, out_d
            spare = (spare[1], spare[0])
            spare_data = (spare_data[1], spare_data[0])
            low += bits
        r0 = b << shift
        dups += _by_row(
            k, d, e0, r0, min(n, r0 + (1 << shift)), colbits, counts, indptr, indices, data
        )
    return dups


@nb.njit(cache=True, nogil=True)
def _by_digit(keys, data, low, bits, counts, out, out_data):
    """Stable counting sort of ``keys`` (and ``data``) by bits ``low:low + bits``."""
    mask = np.uint64((1 << bits) - 1)
    s = np.uint64(low)
    counts[: (1 << bits) + 1] = 0
    for j in range(keys.shape[0]):
        counts[((keys[j] >> s) & mask) + 1] += 1
    for v in range(1 << bits):
        counts[v + 1] += counts[v]
    for j in range(keys.shape[0]):
        k = keys[j]
        v = (k >> s) & mask
        q = counts[v]
        counts[v] = q + 1
        out[q] = k
        if data.shape[0]:
            out_data[q] = data[j]


@nb.njit(cache=True, nogil=True)
def _by_row(keys, data, e0, r0, r1, colbits, counts, indptr, indices, out_data):
    """Stable counting sort of one bucket (rows ``r0:r1``, sorted by column) into the
    CSR from position ``e0`` on, with its row pointers; its duplicate entries."""
    cb = np.uint64(colbits)
    cmask = (np.uint64(1) << cb) - np.uint64(1)
    counts[: r1 - r0 + 1] = 0
    for j in range(keys.shape[0]):
        counts[np.int64(keys[j] >> cb) + 1] += 1
    counts[0] = e0
    for v in range(r1 - r0):
        counts[v + 1] += counts[v]
        indptr[r0 + v + 1] = counts[v + 1]
    dups = 0
    for j in range(keys.shape[0]):
        k = keys[j]
        v = np.int64(k >> cb)
        q = counts[v]
        counts[v] = q + 1
        c = k & cmask
        # columns reach a row in ascending order: a duplicate follows its twin
        if q > (e0 if v == 0 else indptr[r0 + v]) and indices[q - 1] == c:
            dups += 1
        indices[q] = c
        if data.shape[0]:
            out_data[q] = data[j]
    return dups


@serialized
@nb.njit(parallel=True, cache=True, nogil=True)
def _distinct_per_row(indptr, indices, rows):
    """Distinct columns of each row (at ``r + 1``) of a CSR with sorted rows."""
    for r in nb.prange(indptr.shape[0] - 1):
        k = 0
        for j in range(indptr[r], indptr[r + 1]):
            if j == indptr[r] or indices[j] != indices[j - 1]:
                k += 1
        rows[r + 1] = k


@serialized
@nb.njit(parallel=True, cache=True, nogil=True)
def _merge_runs(indptr, indices, data, merged_ptr, out_indices, out_data, logical):
    """Sum each row's runs of equal columns into the merged CSR (logical or for
    booleans, as SciPy adds its bool type); integer sums wrap in their type, as SciPy's
    do."""
    for r in nb.prange(indptr.shape[0] - 1):
        q = merged_ptr[r] - 1
        for j in range(indptr[r], indptr[r + 1]):
            if j == indptr[r] or indices[j] != indices[j - 1]:
                q += 1
                out_indices[q] = indices[j]
                if data.shape[0]:
                    out_data[q] = data[j]
            elif data.shape[0]:
                out_data[q] = max(out_data[q], data[j]) if logical else out_data[q] + data[j]
