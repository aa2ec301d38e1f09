"""Helpers shared by the CPU minimum spanning forest algorithms.

Packing of the tie key ``(min(u, v), max(u, v))`` (with low key bits in front) into
one 64-bit word, and the union-find ``find`` with path halving.
"""

from __future__ import annotations

import numba as nb
import numpy as np
from numba import prange

from .._shared.threads import serialized


@serialized
@nb.njit(parallel=True, cache=True)
def _pack(src, dst, key, kmin, nbits, low, banded):
    """Words ``low bits of (key - kmin) << 2*nbits | min(u, v) << nbits | max(u, v)``.

    With ``banded`` also returns each edge's band, the key bits above ``low``
    (``low = 0`` packs the endpoint pair alone).
    """
    m = src.shape[0]
    words = np.empty(m, dtype=np.uint64)
    band = np.empty(m if banded else 0, dtype=np.uint64)
    nb_, lowmask = np.uint64(nbits), (np.uint64(1) << np.uint64(low)) - np.uint64(1)
    for i in prange(m):
        u, v = np.uint64(src[i]), np.uint64(dst[i])
        word = (min(u, v) << nb_) | max(u, v)
        if low > 0:
            k = key[i] - kmin
            if banded:
                band[i] = k >> np.uint64(low)
            word |= (k & lowmask) << np.uint64(2 * nbits)
        words[i] = word
    return words, band


def _pairs(src: np.ndarray, dst: np.ndarray, n: int) -> np.ndarray:
    """``min(u, v) << nbits | max(u, v)``: the endpoint part of the tie key."""
    return _pack(src, dst, np.zeros(1, dtype=np.uint64), np.uint64(0), _nbits(n), 0, False)[0]


def _nbits(n: int) -> int:
    return max(int(n - 1).bit_length(), 1)


@nb.njit(cache=True)
def _find(parent, x):
    while parent[x] != x:  # path halving
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


@serialized
@nb.njit(parallel=True, cache=True)
def float_keys(bits):
    """Unsigned keys in the order of the float64 values whose bits are ``bits``
    (negative values: all bits flipped; others: the sign bit set)."""
    out = np.empty(bits.shape[0], dtype=np.uint64)
    for i in prange(bits.shape[0]):
        b = bits[i]
        out[i] = ~b if b >> np.uint64(63) else b | np.uint64(1 << 63)
    return out
