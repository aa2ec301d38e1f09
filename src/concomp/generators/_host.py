"""numba kernels behind :mod:`concomp.generators` (CPU engine).

Every random number is a counter-based word ``mix64(key + (c + 1) * GAMMA)`` (the
splitmix64 output for counter ``c``), so a value depends only on the seed-derived key
and its index: results are identical for any thread count, and the CuPy versions in
:mod:`concomp.generators._xp` reproduce them bit for bit.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized

__all__ = [
    "rmat_edges",
    "uniform_edges",
    "feistel_permutation",
    "symmetric_csr",
    "pair_weights_coo",
    "pair_weights_csr",
]

GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_LO32 = np.uint64(0xFFFFFFFF)
_ONE = np.uint64(1)
_FEISTEL_ROUNDS = 4
# runs at most this long are sorted by insertion sort (cheaper than radix passes)
_SMALL_ROW = 32
# edges per block of the R-MAT kernel (its u, v scratch stays in L1)
_BLOCK = 512


@nb.njit(inline="always")
def mix64(z):
    """splitmix64 output function applied to state ``z`` (all uint64 arithmetic)."""
    z = z + GAMMA
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@nb.njit(inline="always")
def word(key, c):
    return mix64(key + c * GAMMA)


# --------------------------------------------------------------------------- edges
@nb.njit(inline="always")
def _quadrant_bits(r, ta, tab, tabc, u, v):
    # quadrant q in 0..3 (branch-free: the choice is a coin flip no predictor can learn);
    # its high bit extends the source id, its low bit the destination id
    q = np.uint64(r >= ta) + np.uint64(r >= tab) + np.uint64(r >= tabc)
    return (u << _ONE) | (q >> _ONE), (v << _ONE) | (q & _ONE)


@serialized
@nb.njit(parallel=True, cache=True)
def rmat_edges(key, scale, ta, tab, tabc, perm, use_perm, src, dst):
    """R-MAT endpoints, one 32-bit uniform per recursion level (two levels per word).

    Level ``l`` picks a quadrant by comparing its uniform with the integer thresholds
    ``ta <= tab <= tabc`` (cumulative a, a+b, a+b+c scaled by 2**32) and sets bit
    ``scale-1-l`` of the source (lower half) and destination (right half). Edges are
    processed in blocks with the levels outside the edge loop, so the inner loop is
    straight-line code over independent edges that LLVM vectorises.
    """
    m = src.shape[0]
    per_edge = np.uint64((scale + 1) // 2)
    pairs = scale // 2
    nblocks = (m + _BLOCK - 1) // _BLOCK
    for blk in nb.prange(nblocks):
        e0 = blk * _BLOCK
        cnt = min(_BLOCK, m - e0)
        u = np.zeros(_BLOCK, dtype=np.uint64)
        v = np.zeros(_BLOCK, dtype=np.uint64)
        for j in range(pairs):
            for i in range(cnt):
                w = word(key, np.uint64(e0 + i) * per_edge + np.uint64(j))
                a, b = _quadrant_bits(w & _LO32, ta, tab, tabc, u[i], v[i])
                u[i], v[i] = _quadrant_bits(w >> np.uint64(32), ta, tab, tabc, a, b)
        if scale % 2:
            for i in range(cnt):
                w = word(key, np.uint64(e0 + i) * per_edge + np.uint64(pairs))
                u[i], v[i] = _quadrant_bits(w & _LO32, ta, tab, tabc, u[i], v[i])
        # separate gather loop: independent loads overlap their cache misses
        if use_perm:
            for i in range(cnt):
                src[e0 + i] = perm[u[i]]
                dst[e0 + i] = perm[v[i]]
        else:
            for i in range(cnt):
                src[e0 + i] = u[i]
                dst[e0 + i] = v[i]


@serialized
@nb.njit(parallel=True, cache=True)
def uniform_edges(key, n, src, dst):
    """G(n, m) endpoints: the two 32-bit halves of one word, scaled to [0, n)."""
    nn = np.uint64(n)
    for e in nb.prange(src.shape[0]):
        w = word(key, np.uint64(e))
        src[e] = ((w & _LO32) * nn) >> np.uint64(32)
        dst[e] = ((w >> np.uint64(32)) * nn) >> np.uint64(32)


@nb.njit(inline="always")
def _feistel(key, x, half, mask):
    left = x >> half
    right = x & mask
    for r in range(_FEISTEL_ROUNDS):
        f = word(key, (right << np.uint64(2)) | np.uint64(r)) & mask
        left, right = right, left ^ f
    return (left << half) | right


@serialized
@nb.njit(parallel=True, cache=True)
def feistel_permutation(key, n, half, out):
    """``out[i]`` = a keyed bijection of ``[0, n)``: balanced Feistel network on
    ``2 * half`` bits with cycle walking (re-encrypt until the value is below ``n``)."""
    h = np.uint64(half)
    mask = (_ONE << h) - _ONE
    nn = np.uint64(n)
    for i in nb.prange(n):
        x = _feistel(key, np.uint64(i), h, mask)
        while x >= nn:
            x = _feistel(key, x, h, mask)
        out[i] = x


# --------------------------------------------------------------------------- cleaning
# Cleaning sorts keys of both directions of every non-loop edge: one scatter into
# buckets of consecutive rows (a few thousand, so each thread writes that many
# sequential streams), then an LSD radix sort of each bucket while it is in cache,
# then unique. Much faster than np.unique or a per-row comparison sort. Within a
# bucket the key is (row offset in the bucket, column); with enough buckets it fits
# 32 bits, which halves the memory traffic (and, for rmat22, 0.5 GiB of memory).
_DIGIT = 11
_RADIX = 1 << _DIGIT
_MAX_TOP_32 = 14  # at most 2**14 buckets for 32-bit keys; beyond that use 64-bit keys


@serialized
@nb.njit(parallel=True, cache=True)
def _bucket_counts(src, dst, shift, counts):
    chunks = counts.shape[0]
    m = src.shape[0]
    for t in nb.prange(chunks):
        row = counts[t]
        for e in range(m * t // chunks, m * (t + 1) // chunks):
            u, v = src[e], dst[e]
            if u != v:
                row[u >> shift] += 1
                row[v >> shift] += 1


@nb.njit(cache=True)
def _bucket_offsets(counts, starts):
    # counts[t, b] becomes the write cursor of chunk t in bucket b; starts[b] the bucket start
    chunks, nb_ = counts.shape
    off = 0
    for b in range(nb_):
        starts[b] = off
        for t in range(chunks):
            c = counts[t, b]
            counts[t, b] = off
            off += c
    starts[nb_] = off


@serialized
@nb.njit(parallel=True, cache=True)
def _bucket_scatter(src, dst, bits, shift, cursors, keys):
    chunks = cursors.shape[0]
    m = src.shape[0]
    low = (np.int64(1) << shift) - 1
    for t in nb.prange(chunks):
        cur = cursors[t]
        for e in range(m * t // chunks, m * (t + 1) // chunks):
            u, v = np.int64(src[e]), np.int64(dst[e])
            if u != v:
                keys[cur[u >> shift]] = ((u & low) << bits) | v
                cur[u >> shift] += 1
                keys[cur[v >> shift]] = ((v & low) << bits) | u
                cur[v >> shift] += 1


@nb.njit(inline="always")
def _radix_sort(a, tmp, key_bits):
    """LSD radix sort of the non-negative integers ``a`` by their low ``key_bits`` bits."""
    k = a.shape[0]
    if k <= _SMALL_ROW:
        for i in range(1, k):
            x = a[i]
            j = i - 1
            while j >= 0 and a[j] > x:
                a[j + 1] = a[j]
                j -= 1
            a[j + 1] = x
        return
    cnt = np.empty(_RADIX, dtype=np.int64)
    inp, out = a, tmp
    for shift in range(0, key_bits, _DIGIT):
        cnt[:] = 0
        for i in range(k):
            cnt[(np.int64(inp[i]) >> shift) & (_RADIX - 1)] += 1
        total = 0
        for d in range(_RADIX):
            c = cnt[d]
            cnt[d] = total
            total += c
        for i in range(k):
            d = (np.int64(inp[i]) >> shift) & (_RADIX - 1)
            out[cnt[d]] = inp[i]
            cnt[d] += 1
        inp, out = out, inp
    if inp is not a:
        a[:] = inp


@serialized
@nb.njit(parallel=True, cache=True)
def _sort_unique_buckets(keys, starts, key_bits, uniq):
    nbuckets = starts.shape[0] - 1
    for b in nb.prange(nbuckets):
        a = keys[starts[b] : starts[b + 1]]
        k = a.shape[0]
        _radix_sort(a, np.empty(k, dtype=keys.dtype), key_bits)
        out = 0
        for i in range(k):
            if out == 0 or a[i] != a[out - 1]:
                a[out] = a[i]
                out += 1
        uniq[b + 1] = out


@serialized
@nb.njit(parallel=True, cache=True)
def _emit_csr(keys, starts, uniq, bits, shift, indptr, indices):
    # buckets own disjoint row ranges, so their row counts never collide
    col_mask = (np.int64(1) << bits) - 1
    for b in nb.prange(starts.shape[0] - 1):
        base = uniq[b]
        first_row = np.int64(b) << shift
        for i in range(uniq[b + 1] - uniq[b]):
            x = np.int64(keys[starts[b] + i])
            indices[base + i] = x & col_mask
            indptr[first_row + (x >> bits) + 1] += 1


def symmetric_csr(
    src: np.ndarray, dst: np.ndarray, n: int, out_dtype
) -> tuple[np.ndarray, np.ndarray]:
    """Symmetric CSR (both directions, rows sorted) without self loops or duplicates."""
    bits = max(1, (n - 1).bit_length())
    top = min(bits, max(_DIGIT, 2 * bits - 32))
    key_dtype = np.uint32 if 2 * bits - top <= 32 and top <= _MAX_TOP_32 else np.int64
    if key_dtype is np.int64:
        top = min(bits, _DIGIT)
    shift = bits - top  # row bits kept in the key
    chunks = nb.get_num_threads()
    counts = np.zeros((chunks, 1 << top), dtype=np.int64)
    _bucket_counts(src, dst, shift, counts)
    starts = np.empty((1 << top) + 1, dtype=np.int64)
    _bucket_offsets(counts, starts)
    keys = np.empty(int(starts[-1]), dtype=key_dtype)
    _bucket_scatter(src, dst, bits, shift, counts, keys)
    uniq = np.zeros((1 << top) + 1, dtype=np.int64)
    _sort_unique_buckets(keys, starts, shift + bits, uniq)
    np.cumsum(uniq, out=uniq)
    indptr = np.zeros(n + 1, dtype=np.int64)
    indices = np.empty(int(uniq[-1]), dtype=out_dtype)
    _emit_csr(keys, starts, uniq, bits, shift, indptr, indices)
    np.cumsum(indptr, out=indptr)
    return indptr, indices


# --------------------------------------------------------------------------- weights
@nb.njit(inline="always")
def _pair_store(out, i, key, u, v, low, span, as_int):
    # hash of the unordered pair, so both directions of an undirected edge agree
    w = word(word(key, np.uint64(min(u, v))), np.uint64(max(u, v)))
    if as_int:
        out[i] = np.int64(low) + np.int64(w % np.uint64(span))
    else:
        out[i] = low + span * (np.float64(w >> np.uint64(11)) * (1.0 / 9007199254740992.0))


@serialized
@nb.njit(parallel=True, cache=True)
def pair_weights_coo(key, src, dst, low, span, as_int, out):
    """Weight of edge ``i`` from a hash of ``(min, max)`` of its endpoints.

    Integers: ``low + word % span``; floats: ``low + span * U[0, 1)`` with 53-bit ``U``.
    """
    for i in nb.prange(src.shape[0]):
        _pair_store(out, i, key, src[i], dst[i], low, span, as_int)


@serialized
@nb.njit(parallel=True, cache=True)
def pair_weights_csr(key, indptr, indices, low, span, as_int, out):
    """Like :func:`pair_weights_coo` for CSR entries (row = source)."""
    for u in nb.prange(indptr.shape[0] - 1):
        for i in range(indptr[u], indptr[u + 1]):
            _pair_store(out, i, key, u, indices[i], low, span, as_int)
