"""Byte formatters (numba) behind the text writers of :mod:`concomp.io`.

A whole file body is built as one ``uint8`` array: sizes are counted first, then
every digit is written in place, with no Python string per line.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ._lex import _NL, _SP

__all__ = ["format_adjacency", "format_edges"]


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


@nb.njit(cache=True)
def _put_weight(out, pos, i, wint, wtxt, wmode):
    if wmode == 1:
        return _put_int(out, pos, wint[i])
    for c in wtxt[i]:
        if c == 0:
            break
        out[pos] = c
        pos += 1
    return pos


@nb.njit(cache=True)
def _weight_len(i, wint, wtxt, wmode):
    if wmode == 1:
        return _ndigits(wint[i])
    t = 0
    for c in wtxt[i]:
        if c == 0:
            break
        t += 1
    return t


@nb.njit(cache=True)
def _format_edges(src, dst, wint, wtxt, wmode, base, sep, prefix):
    m = src.shape[0]
    size = 0
    for i in range(m):
        size += prefix.shape[0] + _ndigits(src[i] + base) + _ndigits(dst[i] + base) + 2
        if wmode:
            size += 1 + _weight_len(i, wint, wtxt, wmode)
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
            pos = _put_weight(out, pos + 1, i, wint, wtxt, wmode)
        out[pos] = _NL
        pos += 1
    return out


@nb.njit(cache=True)
def _format_adjacency(indptr, indices, wint, wtxt, wmode):
    nv = indptr.shape[0] - 1
    size = nv
    for i in range(indices.shape[0]):
        size += _ndigits(indices[i] + 1) + 1
        if wmode:
            size += 1 + _weight_len(i, wint, wtxt, wmode)
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
                pos = _put_weight(out, pos + 1, i, wint, wtxt, wmode)
        out[pos] = _NL
        pos += 1
    return out[:pos]


def _weight_args(weights):
    if weights is None:
        return np.zeros(0, np.int64), np.zeros((0, 1), np.uint8), 0
    if weights.dtype.kind in "iub":
        return weights.astype(np.int64, copy=False), np.zeros((0, 1), np.uint8), 1
    # NumPy's float -> bytes cast gives the shortest repr that round-trips exactly
    txt = np.asarray(weights, np.float64).astype("S32")
    return np.zeros(0, np.int64), txt.view(np.uint8).reshape(-1, 32), 2


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
    wint, wtxt, wmode = _weight_args(weights)
    return _format_edges(
        src, dst, wint, wtxt, wmode, base, ord(sep), np.frombuffer(prefix.encode(), np.uint8)
    )


def format_adjacency(
    indptr: np.ndarray, indices: np.ndarray, weights: np.ndarray | None
) -> np.ndarray:
    """Bytes of METIS neighbour lines (1-based), one line per vertex."""
    wint, wtxt, wmode = _weight_args(weights)
    return _format_adjacency(indptr, indices, wint, wtxt, wmode)
