"""Kruskal's minimum spanning forest on the CPU: packed-word sort, then union-find.

When the key range and both endpoint ids fit in one 64-bit word (after splitting the
edges into key bands if up to 16 key bits too wide) the packed words are sorted with
NumPy's vectorised sort and the smallest edge id of each chosen word is found by
matching bucket against bucket; otherwise the keys are argsorted and runs of equal
keys ordered by ``(min, max, id)``. See :mod:`concomp._cpu.msf` for the edge order.
"""

from __future__ import annotations

import itertools

import numba as nb
import numpy as np
from numba import prange

from .._shared.threads import serialized
from .msf_common import _find, _nbits, _pack

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)  # Fibonacci hashing multiplier


def kruskal(src: np.ndarray, dst: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """Kruskal's algorithm: sort the edges by the tie key, then union-find.

    Key range and endpoint pair usually fit one 64-bit word; when the key range
    is up to 16 bits too wide, the edges are first split into that many key
    bands (a counting sort on the top key bits), each band then fits, and the
    bands run in order over one union-find.
    """
    if src.shape[0] == 0 or n < 2:
        return np.zeros(0, dtype=np.int64)
    kmin = key.min()
    span, nbits = int(key.max() - kmin).bit_length(), _nbits(n)
    low = 64 - 2 * nbits  # key bits left in a word beside the endpoint pair
    if low < 1 or span - low > 16:
        return _kruskal_general(src, dst, key, n)
    parent = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
    low = min(low, span)
    words, band = _pack(src, dst, key, kmin, nbits, low, span > low)
    if span == low:
        bands = [(words, None)]
    else:
        words, eids, starts = _partition(
            words, band, 1 << (span - low), nb.get_num_threads(), _id_like(words)
        )
        bands = [(words[a:z], eids[a:z]) for a, z in itertools.pairwise(starts) if z > a]
    found = []
    for band_words, band_ids in bands:
        chosen = _kruskal_words(np.sort(band_words), parent, nbits)
        ids = _ids_of_words(band_words, chosen, low + 2 * nbits)
        found.append(ids if band_ids is None else band_ids[ids].astype(np.int64))
    return np.sort(np.concatenate(found))


def _kruskal_general(src: np.ndarray, dst: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """Argsort of the keys, runs of equal keys ordered by ``(pair, id)``, union-find."""
    parent = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
    order = np.argsort(key)
    _order_ties(order, key, src, dst)
    return np.sort(_kruskal_order(order, src, dst, parent))


def _order_ties(order: np.ndarray, key: np.ndarray, src: np.ndarray, dst: np.ndarray) -> None:
    """Reorder, in place, the runs of equal keys in ``order`` (an argsort of ``key``) by
    ``(min(u, v), max(u, v), edge id)``.

    Only the edges whose key is shared are sorted again, and each run keeps its
    positions. Where the run number, the endpoint pair and the edge id fit one 64-bit
    word the words are sorted, else the four columns are sorted lexicographically. Done
    in NumPy rather than numba because a numba kernel calling ``np.sort`` and
    ``np.argsort`` took seconds to compile on a new machine.
    """
    keys = key[order]
    equal = keys[1:] == keys[:-1]
    tied = np.zeros(order.shape[0], dtype=bool)
    tied[1:] = equal
    tied[:-1] |= equal
    at = np.flatnonzero(tied)
    if at.shape[0] == 0:
        return
    ids = order[at]
    u, v = src[ids], dst[ids]
    lo, hi = np.minimum(u, v).astype(np.uint64), np.maximum(u, v).astype(np.uint64)
    new_run = np.ones(at.shape[0], dtype=np.uint64)
    new_run[1:] = ~equal[at[1:] - 1]
    run = np.cumsum(new_run) - np.uint64(1)
    id_bits = _nbits(order.shape[0])
    pair_bits = _nbits(int(hi.max()) + 1)
    if _nbits(int(run[-1]) + 1) + 2 * pair_bits + id_bits <= 64:
        word = run << np.uint64(2 * pair_bits + id_bits)
        word |= lo << np.uint64(pair_bits + id_bits)
        word |= hi << np.uint64(id_bits)
        word |= ids.astype(np.uint64)
        word.sort()
        order[at] = (word & np.uint64((1 << id_bits) - 1)).astype(order.dtype)
    else:
        order[at] = ids[np.lexsort((ids, hi, lo, run))]


def _id_like(a: np.ndarray) -> np.ndarray:
    return np.zeros(0, dtype=np.int32 if a.shape[0] < 2**31 else np.int64)


def kruskal_by_position(key: np.ndarray, src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """Kruskal with ties broken by position alone: SciPy's csgraph rule.

    Returns the chosen positions, ascending. ``(key, position)`` packs into one
    word whenever the key range leaves room, so a plain sort replaces the
    stable argsort that dominates SciPy's own run time.
    """
    m = key.shape[0]
    if m == 0 or n < 2:
        return np.zeros(0, dtype=np.int64)
    kmin = key.min()
    pbits = max(int(m - 1).bit_length(), 1)
    if int(key.max() - kmin).bit_length() + pbits <= 64:
        words = np.sort(((key - kmin) << np.uint64(pbits)) | np.arange(m, dtype=np.uint64))
        order = (words & np.uint64((1 << pbits) - 1)).astype(np.int64)
    else:
        order = np.argsort(key, kind="stable")
    parent = np.arange(n, dtype=np.int32 if n < 2**31 else np.int64)
    return np.sort(_kruskal_order(order, src, dst, parent))


@nb.njit(cache=True)
def _kruskal_words(words, parent, nbits):
    mask = (np.uint64(1) << np.uint64(nbits)) - np.uint64(1)
    out = np.empty(parent.shape[0] - 1, dtype=np.uint64)
    k = 0
    for w in words:
        a = _find(parent, np.int64((w >> np.uint64(nbits)) & mask))
        b = _find(parent, np.int64(w & mask))
        if a != b:
            parent[max(a, b)] = min(a, b)
            out[k] = w
            k += 1
            if k == out.shape[0]:
                break
    return out[:k]


@nb.njit(cache=True)
def _kruskal_order(order, src, dst, parent):
    out = np.empty(parent.shape[0] - 1, dtype=np.int64)
    k = 0
    for e in order:
        a, b = _find(parent, src[e]), _find(parent, dst[e])
        if a != b:
            parent[max(a, b)] = min(a, b)
            out[k] = e
            k += 1
            if k == out.shape[0]:
                break
    return out[:k]


def _ids_of_words(packed: np.ndarray, chosen: np.ndarray, bits: int) -> np.ndarray:
    """Smallest edge id carrying each chosen packed word (chosen: sorted, distinct).

    A stable partition of the edges by the top bits of their words (a parallel
    counting sort) gives every bucket a small slice of ``chosen`` that stays in
    L1 while the bucket's edges are matched against it, so the m lookups cost a
    few cache hits each instead of a trip to memory.
    """
    bucket_bits = min(10, bits)
    shift = np.uint64(bits - bucket_bits)
    words, eids, starts = _partition(
        packed, packed >> shift, 1 << bucket_bits, nb.get_num_threads(), _id_like(packed)
    )
    cuts = np.searchsorted(chosen, np.arange((1 << bucket_bits) + 1, dtype=np.uint64) << shift)
    cuts[-1] = chosen.shape[0]
    ids = np.full(chosen.shape[0], -1, dtype=np.int64)
    # the hash table fits the widest bucket's slice of `chosen` at most half full
    widest = max(int(np.diff(cuts).max()), 1)
    tbits = max(int(np.ceil(np.log2(2 * widest))), 4)
    _match_buckets(words, eids, starts, chosen, cuts, ids, tbits, nb.get_num_threads())
    return ids


@serialized
@nb.njit(parallel=True, cache=True)
def _partition(packed, bucket, buckets, workers, id_like):
    """Stable parallel counting sort of ``(word, position)`` by ``bucket`` (ids typed as
    ``id_like``)."""
    m = packed.shape[0]
    counts = np.zeros((workers, buckets), dtype=np.int64)
    for w in prange(workers):
        for i in range(w * m // workers, (w + 1) * m // workers):
            counts[w, bucket[i]] += 1
    offsets = np.empty((workers, buckets), dtype=np.int64)
    starts = np.empty(buckets + 1, dtype=np.int64)
    acc = 0
    for b in range(buckets):  # bucket-major: worker 0's edges, then worker 1's
        starts[b] = acc
        for w in range(workers):
            offsets[w, b] = acc
            acc += counts[w, b]
    starts[buckets] = acc
    words = np.empty(m, dtype=np.uint64)
    eids = np.empty(m, dtype=id_like.dtype)
    for w in prange(workers):
        off = offsets[w]
        for i in range(w * m // workers, (w + 1) * m // workers):
            b = bucket[i]
            words[off[b]], eids[off[b]] = packed[i], i
            off[b] += 1
    return words, eids, starts


@serialized
@nb.njit(parallel=True, cache=True)
def _match_buckets(words, eids, starts, chosen, cuts, ids, tbits, workers):
    """Per bucket: hash its slice of ``chosen`` into a table of ``2**tbits`` slots, then
    probe its edges.

    Each worker owns a run of buckets and one scratch table, so the ``ids``
    writes never collide (a chosen word lives in exactly one bucket).
    """
    buckets = starts.shape[0] - 1
    tmask, tshift = (1 << tbits) - 1, np.uint64(64 - tbits)
    for w in prange(workers):
        table = np.zeros(1 << tbits, dtype=np.int64)  # slot -> chosen index + 1, 0: empty
        for b in range(w * buckets // workers, (w + 1) * buckets // workers):
            lo, hi = cuts[b], cuts[b + 1]
            if lo == hi:
                continue
            for j in range(lo, hi):
                h = np.int64((chosen[j] * _GOLDEN) >> tshift)
                while table[h]:
                    h = (h + 1) & tmask
                table[h] = j + 1
            for i in range(starts[b], starts[b + 1]):  # ascending ids: first hit is smallest
                h = np.int64((words[i] * _GOLDEN) >> tshift)
                while table[h] and chosen[table[h] - 1] != words[i]:
                    h = (h + 1) & tmask
                j = table[h] - 1
                if j >= 0 and ids[j] < 0:
                    ids[j] = eids[i]
            for j in range(lo, hi):  # clear only the slots this bucket used
                h = np.int64((chosen[j] * _GOLDEN) >> tshift)
                while table[h]:
                    table[h] = 0
                    h = (h + 1) & tmask
