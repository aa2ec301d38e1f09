"""Linear-time CSR construction on the CPU (counting sort, numba)."""

from __future__ import annotations

import numba as nb
import numpy as np

from .._arrays import index_dtype_for


@nb.njit(cache=True)
def _histogram(keys, n, counts):
    for i in range(keys.shape[0]):
        counts[keys[i] + 1] += 1


@nb.njit(cache=True)
def _scatter(keys, indptr, order):
    fill = indptr[:-1].copy()
    for i in range(keys.shape[0]):
        k = keys[i]
        order[fill[k]] = i
        fill[k] += 1


def counting_sort(keys: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(indptr, order)``: the CSR row pointer of ``keys`` and a stable sort order.

    ``keys`` are vertex ids in ``[0, n)``; ``order`` lists edge positions row by row.
    """
    dt = index_dtype_for(n, keys.shape[0])
    indptr = np.zeros(n + 1, dtype=dt)
    _histogram(keys, n, indptr)
    np.cumsum(indptr, out=indptr)
    order = np.empty(keys.shape[0], dtype=dt)
    _scatter(keys, indptr, order)
    return indptr, order
