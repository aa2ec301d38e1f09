"""Byte formatters (numba) behind the text writers of :mod:`concomp.io`.

A whole file body is built as one ``uint8`` array: sizes are counted first, then
every digit is written in place, with no Python string per line. Float weights are
turned into their shortest round-trip text by Arrow's formatter where pyarrow is
installed (several times NumPy's speed), by NumPy otherwise; either way the tokens
reach the formatters as one byte buffer with offsets.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized
from ._lex import _NL, _SP

__all__ = ["format_adjacency", "format_column", "format_edges"]

#: Floats per thread task of the Arrow formatter.
_FLOAT_BLOCK = 1 << 20


@nb.njit(cache=True, inline="always")
def _ndigits(x):
    d = 1 if x >= 0 else 2
    x = abs(x)
    while x >= 10:
        x //= 10
        d += 1
    return d


@nb.njit(cache=True)
def _put_int(out, pos, x):
    if x < 0:
        out[pos] = 45
        pos += 1
        x = -x
    end = pos + _ndigits(x)
    p = end - 1
    while True:
        out[p] = 48 + x % 10
        x //= 10
        p -= 1
        if x == 0:
            break
    return end


@nb.njit(cache=True, inline="always")
def _needs_dot(woff, wdat, i):
    """Whether float token ``i`` reads as an integer ("1"): it then gets ".0" appended."""
    for k in range(woff[i], woff[i + 1]):
        c = wdat[k]
        if c == 46 or c == 101 or c == 69 or c == 110:
            return False
    return True


@nb.njit(cache=True)
def _put_weight(out, pos, i, wint, woff, wdat, wmode):
    if wmode == 1:
        return _put_int(out, pos, wint[i])
    for k in range(woff[i], woff[i + 1]):
        out[pos] = wdat[k]
        pos += 1
    if _needs_dot(woff, wdat, i):
        out[pos] = 46
        out[pos + 1] = 48
        pos += 2
    return pos


@nb.njit(cache=True)
def _weight_len(i, wint, woff, wdat, wmode):
    if wmode == 1:
        return _ndigits(wint[i])
    return woff[i + 1] - woff[i] + (2 if _needs_dot(woff, wdat, i) else 0)


@nb.njit(cache=True)
def _format_edges(src, dst, wint, woff, wdat, wmode, base, sep, prefix):
    m = src.shape[0]
    size = 0
    for i in range(m):
        size += prefix.shape[0] + _ndigits(src[i] + base) + _ndigits(dst[i] + base) + 2
        if wmode:
            size += 1 + _weight_len(i, wint, woff, wdat, wmode)
    out = np.empty(size, np.uint8)
    pos = 0
    for i in range(m):
        for c in prefix:
            out[pos] = c
            pos += 1
        pos = _put_int(out, pos, src[i] + base)
        out[pos] = sep
        pos = _put_int(out, pos + 1, dst[i] + base)
        if wmode:
            out[pos] = sep
            pos = _put_weight(out, pos + 1, i, wint, woff, wdat, wmode)
        out[pos] = _NL
        pos += 1
    return out


@nb.njit(cache=True)
def _format_adjacency(indptr, indices, wint, woff, wdat, wmode):
    nv = indptr.shape[0] - 1
    size = nv
    for i in range(indices.shape[0]):
        size += _ndigits(indices[i] + 1) + 1
        if wmode:
            size += 1 + _weight_len(i, wint, woff, wdat, wmode)
    out = np.empty(size, np.uint8)
    pos = 0
    for r in range(nv):
        for i in range(indptr[r], indptr[r + 1]):
            if i > indptr[r]:
                out[pos] = _SP
                pos += 1
            pos = _put_int(out, pos, indices[i] + 1)
            if wmode:
                out[pos] = _SP
                pos = _put_weight(out, pos + 1, i, wint, woff, wdat, wmode)
        out[pos] = _NL
        pos += 1
    return out[:pos]


#: Values per parallel task of :func:`format_column`.
_COLUMN_BLOCK = 1 << 16


@serialized
@nb.njit(cache=True, parallel=True)
def _format_column(values, base):
    # two passes over blocks: lengths, then text at each block's offset (no per-value
    # offsets array: the digits are counted again, which is cheaper than storing them)
    m = values.shape[0]
    nblocks = (m + _COLUMN_BLOCK - 1) // _COLUMN_BLOCK
    starts = np.zeros(nblocks + 1, np.int64)
    for b in nb.prange(nblocks):
        size = 0
        for i in range(b * _COLUMN_BLOCK, min((b + 1) * _COLUMN_BLOCK, m)):
            size += _ndigits(np.int64(values[i]) + base) + 1
        starts[b + 1] = size
    for b in range(nblocks):
        starts[b + 1] += starts[b]
    out = np.empty(starts[nblocks], np.uint8)
    for b in nb.prange(nblocks):
        pos = starts[b]
        for i in range(b * _COLUMN_BLOCK, min((b + 1) * _COLUMN_BLOCK, m)):
            pos = _put_int(out, pos, np.int64(values[i]) + base)
            out[pos] = _NL
            pos += 1
    return out


def format_column(values: np.ndarray, base: int = 0) -> np.ndarray:
    """Bytes (uint8 array) of one integer per line, shifted by ``base``.

    Examples
    --------
    >>> format_column(np.array([3, -1, 10])).tobytes()
    b'3\\n-1\\n10\\n'
    """
    values = np.asarray(values)
    if values.dtype.kind not in "iu" or values.dtype.itemsize > 8 or values.dtype == np.uint64:
        values = values.astype(np.int64)
    return _format_column(np.ascontiguousarray(values), np.int64(base))


def float_tokens(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(offsets, bytes)`` of the shortest text that reads back as each float exactly.

    Examples
    --------
    >>> off, data = float_tokens(np.array([0.1, 1e20, 2.0]))
    >>> [data[a:b].tobytes() for a, b in zip(off[:-1], off[1:])]
    [b'0.1', b'1e+20', b'2']
    """
    try:
        import pyarrow as pa
        import pyarrow.compute as pc
    except ImportError:
        return _numpy_float_tokens(weights)
    from concurrent.futures import ThreadPoolExecutor

    w = np.ascontiguousarray(weights, np.float32 if weights.dtype == np.float32 else np.float64)
    blocks = [w[i : i + _FLOAT_BLOCK] for i in range(0, max(w.shape[0], 1), _FLOAT_BLOCK)]
    with ThreadPoolExecutor() as pool:  # Arrow's cast releases the GIL
        texts = list(pool.map(lambda b: pc.cast(pa.array(b), pa.large_string()), blocks))
    lengths = [np.frombuffer(t.buffers()[1], np.int64, len(t) + 1, t.offset * 8) for t in texts]
    datas = [
        np.frombuffer(t.buffers()[2], np.uint8, int(n[-1]) - int(n[0]), int(n[0]))
        if t.buffers()[2] is not None
        else np.zeros(0, np.uint8)
        for t, n in zip(texts, lengths)
    ]
    sizes = np.concatenate([np.diff(n) for n in lengths])
    offsets = np.zeros(sizes.shape[0] + 1, np.int64)
    np.cumsum(sizes, out=offsets[1:])
    return offsets, np.concatenate(datas)


def _numpy_float_tokens(weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    # NumPy's float -> bytes cast gives the shortest repr that round-trips exactly
    txt = np.asarray(weights).astype("S32").view(np.uint8).reshape(-1, 32)
    filled = txt != 0
    offsets = np.zeros(txt.shape[0] + 1, np.int64)
    np.cumsum(filled.sum(axis=1), out=offsets[1:])
    return offsets, txt[filled]


def _weight_args(weights):
    none = np.zeros(1, np.int64), np.zeros(0, np.uint8)
    if weights is None:
        return (np.zeros(0, np.int64), *none, 0)
    if weights.dtype.kind in "iub":
        return (weights.astype(np.int64, copy=False), *none, 1)
    return (np.zeros(0, np.int64), *float_tokens(weights), 2)


def format_edges(
    src: np.ndarray,
    dst: np.ndarray,
    weights: np.ndarray | None,
    *,
    base: int = 0,
    sep: str = "\t",
    prefix: str = "",
) -> np.ndarray:
    """Bytes (uint8 array) of ``[prefix]u<sep>v[<sep>w]`` lines; ids shifted by ``base``."""
    wint, woff, wdat, wmode = _weight_args(weights)
    return _format_edges(
        src, dst, wint, woff, wdat, wmode, base, ord(sep), np.frombuffer(prefix.encode(), np.uint8)
    )


def format_adjacency(
    indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None
) -> np.ndarray:
    """Bytes of METIS neighbour lines (1-based), one line per vertex."""
    wint, woff, wdat, wmode = _weight_args(weights)
    return _format_adjacency(indptr, indices, wint, woff, wdat, wmode)
