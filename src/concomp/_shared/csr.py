"""Linear-time CSR construction on the CPU (counting sort, numba)."""

from __future__ import annotations

import numba as nb
import numpy as np

from .._arrays import index_dtype_for
from .threads import serialized


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


@serialized
@nb.njit(cache=True, parallel=True)
def _expand(indptr, rows, blocks):
    """The entries cut into ``blocks`` equal ranges, one task each (so a hub's long row
    is shared out too): a range finds the row of its first entry by a binary search,
    then walks the rows along."""
    m = rows.shape[0]
    for b in nb.prange(blocks):
        lo, hi = b * m // blocks, (b + 1) * m // blocks
        if lo >= hi:
            continue
        v = np.searchsorted(indptr, lo, side="right") - 1
        for j in range(lo, hi):
            while indptr[v + 1] <= j:  # empty rows in between are passed over
                v += 1
            rows[j] = v


def expand_rows(indptr: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """The row of every stored entry of a CSR row pointer (the COO sources), in one
    linear pass over equal ranges of the entries on all threads: ``np.searchsorted``
    costs a binary search per entry, and ``np.repeat`` with an array of counts is no
    faster.

    Examples
    --------
    >>> expand_rows(np.array([0, 2, 2, 3]), np.dtype(np.int32)).tolist()
    [0, 0, 2]
    """
    rows = np.empty(int(indptr[-1]), dtype=dtype)
    if rows.shape[0]:
        _expand(indptr, rows, 8 * nb.get_num_threads())
    return rows


def coo_to_csr(
    row: np.ndarray,
    col: np.ndarray,
    data: np.ndarray | None,
    n: int,
    index_dtype: np.dtype | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None] | None:
    """The CSR that SciPy's ``coo_array((data, (row, col)), shape=(n, n)).tocsr()`` holds.

    Rows in order, each row's columns ascending, duplicate entries summed (integers
    wrapping in their type, booleans by logical or), explicit zeros kept: the same
    ``(indptr, indices, data)`` as SciPy, in time linear in the entries and ``n``.

    Parameters
    ----------
    row, col : ndarray of int
        The stored entries' coordinates, ``m`` each, in ``[0, n)``.
    data : ndarray or None
        The stored values (bool, integer or floating point), or None for the structure
        alone (then the data returned is None too).
    n : int
        Number of rows and of columns.
    index_dtype : dtype, optional
        Type of ``indptr`` and ``indices``. By default SciPy's choice for a
        ``coo_array``: int32 where ``max(m, n)`` fits and the coordinates are int32
        (or there are none), else int64 (:func:`concomp._sparse.tocsr` passes a
        ``coo_matrix``'s).

    Returns
    -------
    (indptr, indices, data) or None
        None where SciPy's result is not reproduced, so the caller converts with
        SciPy: floating-point values with duplicate entries (SciPy adds them in the
        order an unstable sort leaves them in, and floating-point sums depend on
        that order), values that are not bool, integer or floating point of a
        native byte order, ids outside ``[0, n)``, or ``n`` too large for a row and
        a column to share a 64-bit word.

    Examples
    --------
    >>> row, col = np.array([1, 0, 1, 0]), np.array([0, 2, 0, 1])
    >>> indptr, indices, data = coo_to_csr(row, col, np.array([5, 1, 2, 0]), 3)
    >>> indptr.tolist(), indices.tolist(), data.tolist()
    ([0, 2, 3, 3], [1, 2, 0], [0, 1, 7])
    >>> coo_to_csr(row, col, np.array([5.0, 1.0, 2.0, 0.0]), 3) is None
    True
    """
    if index_dtype is None:
        m = row.shape[0]
        narrow = m == 0 or (np.can_cast(row.dtype, np.int32) and np.can_cast(col.dtype, np.int32))
        index_dtype = index_dtype_for(n, m) if narrow else np.dtype(np.int64)
    bits = _as_bits(data)
    if data is not None and bits is None:
        return None
    from .coo_sort import merge_duplicates, sort_entries

    found = sort_entries(row, col, bits, n, index_dtype)
    if found is None:
        return None
    indptr, indices, values, dups = found
    out = None if data is None or values is None else values.view(data.dtype)
    if dups == 0:
        return indptr, indices, out
    if out is not None and out.dtype.kind == "f":
        return None
    return merge_duplicates(indptr, indices, out)


def _as_bits(data: np.ndarray | None) -> np.ndarray | None:
    """``data`` as unsigned integers of its width, which the sorts move as they are;
    None for values they do not take (see :func:`coo_to_csr`)."""
    if data is None:
        return None
    dt = data.dtype
    if dt.kind not in "biuf" or not dt.isnative or dt.itemsize not in (1, 2, 4, 8):
        return None
    return np.ascontiguousarray(data).view(f"u{dt.itemsize}")
