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


@nb.njit(cache=True)
def _expand(indptr, rows):
    for v in range(indptr.shape[0] - 1):
        for j in range(indptr[v], indptr[v + 1]):
            rows[j] = v


def expand_rows(indptr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The row of every stored entry of a CSR row pointer (the COO sources), in one
    linear pass: ``np.searchsorted`` costs a binary search per entry, and ``np.repeat``
    with an array of counts is no faster.

    Examples
    --------
    >>> expand_rows(np.array([0, 2, 2, 3]), np.dtype(np.int32)).tolist()
    [0, 0, 2]
    """
    rows = np.empty(int(indptr[-1]), dtype=dtype)
    _expand(indptr, rows)
    return rows
