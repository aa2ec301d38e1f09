"""String vertex ids renumbered from their Arrow buffers (the host fast path of
:mod:`concomp._renumber`).

Hashing Python string objects one by one (:func:`pandas.factorize` on an object
array) and sorting them with Python comparisons dominate renumbering string ids, and
an Arrow dictionary encode is memory bound on its string hash table. Here a numba
pass hashes every string of the Arrow offset and data buffers to 64 bits, pandas
factorizes those integers, and a second pass checks every string byte for byte
against the first string of its hash, so the codes are exact: a hash shared by two
different strings makes :func:`renumber_strings` return None and the caller takes the
object path. Only the ``k`` distinct strings are then sorted (Arrow's byte order,
which is the code point order Python sorts ``str`` by).

Arrow is the ``io`` extra: without pyarrow (or pandas, which factorizes the hashes)
every function here returns None.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from ._shared.threads import serialized

__all__ = ["arrow_strings", "renumber_strings"]


def arrow_strings(a: Any) -> Any:
    """``a`` as a pyarrow ChunkedArray of strings or bytes without nulls, or None
    (pyarrow missing, other values, nulls, or a conversion Arrow refuses).

    Takes pyarrow arrays, pandas Series (Arrow-backed, categorical or object columns)
    and NumPy ``str``, ``bytes`` and object arrays.
    """
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        if not isinstance(a, (pa.Array, pa.ChunkedArray)):
            if isinstance(a, np.ndarray):
                if a.dtype.kind not in "OUS":
                    return None
                # pyarrow cuts NumPy str and bytes items at their first NUL byte: read
                # them as the Python objects the object path sees
                a = a.astype(object)
            # pandas Series hand over their Arrow data (no copy for Arrow-backed columns)
            a = pa.array(a, from_pandas=True)
    except (pa.ArrowException, TypeError, ValueError, OverflowError):
        return None  # mixed types, unencodable strings: the object path handles them
    if isinstance(a, pa.Array):
        a = pa.chunked_array([a], type=a.type)
    if pa.types.is_dictionary(a.type):  # categorical: the categories' values
        a = a.cast(a.type.value_type)
    t = a.type
    if pa.types.is_string_view(t) or pa.types.is_binary_view(t):
        a = a.cast(pa.large_string() if pa.types.is_string_view(t) else pa.large_binary())
    elif not (
        pa.types.is_string(t)
        or pa.types.is_large_string(t)
        or pa.types.is_binary(t)
        or pa.types.is_large_binary(t)
    ):
        return None
    return a if a.null_count == 0 else None  # the object path names the missing id


def renumber_strings(src: Any, dst: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """``(codes, node_ids)`` for two ChunkedArrays of :func:`arrow_strings`, returned as
    ``(src codes, dst codes, node_ids)``: codes into ``node_ids``, the distinct
    strings in ascending order as a NumPy object array; None if pandas is missing, the
    two columns differ in type, or two different strings share a hash."""
    try:
        import pandas as pd
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return None
    if src.type != dst.type:
        return None
    chunks = [c for c in (*src.chunks, *dst.chunks) if len(c)]
    m = len(src)
    if not chunks:
        return np.empty(0, np.int32), np.empty(0, np.int32), np.empty(0, dtype=object)
    bufs = [_buffers(c) for c in chunks]
    hashes = np.empty(m + len(dst), np.uint64)
    at = 0
    for offsets, data in bufs:
        _hash_strings(offsets, data, hashes[at : at + offsets.shape[0] - 1])
        at += offsets.shape[0] - 1
    codes, _ = pd.factorize(hashes.view(np.int64), sort=False)
    codes = np.asarray(codes)
    k = int(codes.max()) + 1
    first = _first_positions(codes, k)
    distinct = _take_first(chunks, first, pa)
    order = np.asarray(pc.sort_indices(distinct))
    rank = np.empty(k, dtype=np.int32 if k <= np.iinfo(np.int32).max else np.int64)
    rank[order] = np.arange(k, dtype=rank.dtype)
    out = _verified_codes(bufs, codes, distinct, rank)
    if out is None:
        return None  # two strings share a hash: exactness first
    node_ids = distinct.take(pa.array(order)).to_numpy(zero_copy_only=False)
    return out[:m], out[m:], np.asarray(node_ids, dtype=object)


def _take_first(chunks: list[Any], first: np.ndarray, pa: Any) -> Any:
    """The strings at the increasing positions ``first`` of the chunks laid end to end,
    as one Array (taken chunk by chunk: a ChunkedArray take resolves every index)."""
    bounds = np.cumsum([0, *(len(c) for c in chunks)])
    cut = np.searchsorted(first, bounds)
    parts = [
        c.take(pa.array(first[cut[j] : cut[j + 1]] - bounds[j]))
        for j, c in enumerate(chunks)
        if cut[j + 1] > cut[j]
    ]
    return pa.concat_arrays(parts)


def _verified_codes(
    bufs: list[tuple[np.ndarray, np.ndarray]], codes: np.ndarray, distinct: Any, rank: np.ndarray
) -> np.ndarray | None:
    """``rank[codes]`` once every string equals the first string of its code byte for
    byte, else None."""
    d_off, d_data = _buffers(distinct)
    lengths = np.diff(d_off)
    width = (int(lengths.max()) + 7) // 8 if lengths.size else 0
    out = np.empty(codes.shape[0], dtype=rank.dtype)
    rows = _rows(d_off, d_data, width) if width <= _MAX_WORDS else None
    at = 0
    for offsets, data in bufs:
        n = offsets.shape[0] - 1
        part = codes[at : at + n]
        if rows is not None:
            same = _same_as_rows(offsets, data, part, rows, width, rank, out[at : at + n])
        else:
            same = _same_strings(offsets, data, part, d_off, d_data)
            out[at : at + n] = rank[part]
        if not same:
            return None
        at += n
    return out


#: Distinct strings of at most this many 8-byte words are checked against fixed-width
#: rows (one cache line each: the length, then the bytes); longer ones byte by byte.
_MAX_WORDS = 7


def _buffers(chunk: Any) -> tuple[np.ndarray, np.ndarray]:
    """A string Array's offsets (``len + 1`` of them) and data bytes as NumPy views."""
    import pyarrow as pa

    _, off, data = chunk.buffers()[:3]
    wide = pa.types.is_large_string(chunk.type) or pa.types.is_large_binary(chunk.type)
    dt = np.int64 if wide else np.int32
    offsets = np.frombuffer(off, dtype=dt)[chunk.offset : chunk.offset + len(chunk) + 1]
    raw = np.frombuffer(data, dtype=np.uint8) if data is not None else np.empty(0, np.uint8)
    return offsets, raw


def _hash_strings(offsets: np.ndarray, data: np.ndarray, out: np.ndarray) -> None:
    _hash_kernel(offsets, data, _words_of(data), out)


@nb.njit(cache=True)
def _words_of(data: np.ndarray) -> np.ndarray:
    """The whole 8-byte words of ``data`` (Arrow buffers are 64-byte aligned)."""
    return data[: data.shape[0] // 8 * 8].view(np.uint64)


@nb.njit(cache=True, inline="always")
def _word(data: np.ndarray, words: np.ndarray, a: int, w: int, length: int) -> np.uint64:
    """Bytes ``8w .. 8w+7`` of the string of ``length`` bytes at ``a`` as one
    little-endian word, zero past its end (two aligned loads, bytes at the buffer's
    end)."""
    start = a + 8 * w
    rest = min(length - 8 * w, 8)
    q = start >> 3
    if q + 1 < words.shape[0]:
        shift = np.uint64((start & 7) * 8)
        v = words[q] >> shift
        if shift != 0:
            v |= words[q + 1] << (np.uint64(64) - shift)
    else:
        v = np.uint64(0)
        for j in range(rest):
            v |= np.uint64(data[start + j]) << np.uint64(8 * j)
    if rest < 8:
        v &= (np.uint64(1) << np.uint64(8 * rest)) - np.uint64(1)
    return v


@nb.njit(cache=True, parallel=True)
def _hash_kernel_(
    offsets: np.ndarray, data: np.ndarray, words: np.ndarray, out: np.ndarray
) -> None:
    # a multiply-xorshift step per 8 bytes, seeded with the length, then the
    # splitmix64 finaliser to spread the bits
    for i in nb.prange(out.shape[0]):
        a = offsets[i]
        length = offsets[i + 1] - a
        h = np.uint64(length) * np.uint64(0x9E3779B97F4A7C15)
        for w in range((length + 7) >> 3):
            h = (h ^ _word(data, words, a, w, length)) * np.uint64(0xFF51AFD7ED558CCD)
            h ^= h >> np.uint64(29)
        h ^= h >> np.uint64(30)
        h *= np.uint64(0xBF58476D1CE4E5B9)
        h ^= h >> np.uint64(27)
        h *= np.uint64(0x94D049BB133111EB)
        h ^= h >> np.uint64(31)
        out[i] = h


_hash_kernel = serialized(_hash_kernel_)


@nb.njit(cache=True)
def _first_positions(codes: np.ndarray, k: int) -> np.ndarray:
    """The position of each code's first occurrence."""
    first = np.full(k, -1, dtype=np.int64)
    for i in range(codes.shape[0]):
        c = codes[i]
        if first[c] < 0:
            first[c] = i
    return first


@nb.njit(cache=True, parallel=True)
def _same_strings_(
    offsets: np.ndarray,
    data: np.ndarray,
    codes: np.ndarray,
    d_off: np.ndarray,
    d_data: np.ndarray,
) -> bool:
    bad = 0
    for i in nb.prange(codes.shape[0]):
        a, b = offsets[i], offsets[i + 1]
        c = codes[i]
        x, y = d_off[c], d_off[c + 1]
        if b - a != y - x:
            bad += 1
            continue
        for j in range(b - a):
            if data[a + j] != d_data[x + j]:
                bad += 1
                break
    return bad == 0


_same_strings = serialized(_same_strings_)


@nb.njit(cache=True)
def _rows(d_off: np.ndarray, d_data: np.ndarray, words: int) -> np.ndarray:
    """Distinct string ``c`` as row ``c`` of ``words + 1`` words: its length, then its
    bytes (zero padded, in memory order)."""
    k = d_off.shape[0] - 1
    w1 = words + 1
    rows = np.zeros(k * w1, dtype=np.uint64)
    raw = rows.view(np.uint8)
    for c in range(k):
        a = d_off[c]
        rows[c * w1] = d_off[c + 1] - a
        for j in range(d_off[c + 1] - a):
            raw[c * w1 * 8 + 8 + j] = d_data[a + j]
    return rows


@nb.njit(cache=True, parallel=True)
def _same_as_rows_(
    offsets: np.ndarray,
    data: np.ndarray,
    codes: np.ndarray,
    rows: np.ndarray,
    width: int,
    rank: np.ndarray,
    out: np.ndarray,
) -> bool:
    # Blocks: first gather the rows of a block's codes (independent loads, many in
    # flight), then compare them with the block's strings 8 bytes at a time; each
    # code's rank goes to ``out`` on the way.
    n = codes.shape[0]
    w1 = width + 1
    block = 2048
    words = _words_of(data)
    bad = 0
    for b in nb.prange((n + block - 1) // block):
        lo = b * block
        hi = min(n, lo + block)
        buf = np.empty((hi - lo) * w1, dtype=np.uint64)
        for i in range(lo, hi):
            c = codes[i]
            out[i] = rank[c]
            for w in range(w1):
                buf[(i - lo) * w1 + w] = rows[c * w1 + w]
        for i in range(lo, hi):
            a = offsets[i]
            length = offsets[i + 1] - a
            r = (i - lo) * w1
            if buf[r] != length:
                bad += 1
                continue
            for w in range((length + 7) >> 3):
                if _word(data, words, a, w, length) != buf[r + 1 + w]:
                    bad += 1
                    break
    return bad == 0


_same_as_rows = serialized(_same_as_rows_)
