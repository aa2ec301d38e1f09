"""SciPy's ``tocsr()`` of a sparse matrix, with COO input converted by concomp.

concomp numbers a matrix's edges by their position in its CSR (edge ids of
forests), so that CSR must be exactly SciPy's. For COO input, SciPy sorts the
columns of every row with a comparison sort; :func:`tocsr` builds the same CSR in
linear time with :func:`concomp._shared.csr.coo_to_csr`, and hands every other
format, and every COO that function declines, to SciPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arrays import INT32_MAX

__all__ = ["csr_structure", "merge_coo", "tocsr"]

#: COO matrices with fewer stored entries go to SciPy: its conversion is as fast on
#: them, and a process's first call of concomp's kernels loads them from numba's cache.
MIN_ENTRIES = 1 << 18


def tocsr(A: Any, copy: bool = False) -> Any:
    """``A.tocsr(copy=copy)``: the same class, arrays, values and dtypes.

    A square SciPy COO matrix or array of :data:`MIN_ENTRIES` entries or more is
    converted by :func:`concomp._shared.csr.coo_to_csr` into new arrays (so ``copy``
    holds); anything else (other formats, CuPy matrices, smaller COO), a COO that
    declares itself canonical, and a COO that function declines (floating-point
    values with duplicate entries, among others) goes through ``A.tocsr``.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> A = sp.coo_array(([3, 1, 2], ([1, 0, 1], [0, 2, 0])), shape=(3, 3))
    >>> B = tocsr(A)
    >>> type(B).__name__, B.indptr.tolist(), B.indices.tolist(), B.data.tolist()
    ('csr_array', [0, 1, 2, 2], [2, 0], [1, 5])
    """
    if not _coo_to_convert(A):
        return A.tocsr(copy=copy)
    from ._shared.csr import coo_to_csr

    n = int(A.shape[0])
    csr = coo_to_csr(A.row, A.col, A.data, n, _scipy_index_dtype(A))
    if csr is None:
        return A.tocsr(copy=copy)
    import scipy.sparse as sp

    indptr, indices, data = csr
    cls = sp.csr_array if isinstance(A, sp.sparray) else sp.csr_matrix
    B = cls((data, indices, indptr), shape=A.shape, copy=False)
    B.has_canonical_format = True  # sorted and summed, as after SciPy's sum_duplicates
    return B


def csr_structure(A: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(indptr, indices)`` of :func:`tocsr`, without the values where ``A`` is a COO
    that :func:`concomp._shared.csr.coo_to_csr` converts (so a floating-point COO
    with duplicate entries needs no fallback to SciPy: only the sums would differ).

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> A = sp.coo_array(([0.1, 0.2, 0.3], ([1, 0, 1], [0, 2, 0])), shape=(3, 3))
    >>> [a.tolist() for a in csr_structure(A)]
    [[0, 1, 2, 2], [2, 0]]
    """
    if _coo_to_convert(A):
        from ._shared.csr import coo_to_csr

        csr = coo_to_csr(A.row, A.col, None, int(A.shape[0]), _scipy_index_dtype(A))
        if csr is not None:
            return csr[0], csr[1]
    B = tocsr(A)
    return B.indptr, B.indices


def merge_coo(
    xp: Any, row: Any, col: Any, data: Any, n: int, index_dtype: Any
) -> tuple[Any, Any, Any] | None:
    """SciPy's ``tocsr()`` of a COO matrix, from its coordinates on the array module ``xp``.

    The CSR of :func:`concomp._shared.csr.coo_to_csr` (rows in order, each row's
    columns ascending, duplicates summed with integers wrapping in their type and
    booleans by logical or, explicit zeros kept), built with ``xp``'s sort: the GPU
    route of the calls that number edges by that CSR merges a COO on the device, so
    no CSR is built on the host. Returns ``(indptr, indices, data)`` (``data`` None
    where ``data`` is), or None where the sums would differ from SciPy's: floating-point
    values with duplicate entries (SciPy adds them in an order its unstable sort
    leaves). Ids must be in ``[0, n)``, ``n < 2**31``.

    Examples
    --------
    >>> row, col = np.array([1, 0, 1, 0]), np.array([0, 2, 0, 1])
    >>> indptr, indices, data = merge_coo(np, row, col, np.array([5, 1, 2, 0]), 3, np.int32)
    >>> indptr.tolist(), indices.tolist(), data.tolist()
    ([0, 2, 3, 3], [1, 2, 0], [0, 1, 7])
    >>> merge_coo(np, row, col, np.array([5.0, 1.0, 2.0, 0.0]), 3, np.int32) is None
    True
    """
    m = int(row.shape[0])
    keys = row.astype(np.int64) * n + col.astype(np.int64)  # n < 2**31: no overflow
    order = xp.argsort(keys)
    keys = keys[order]
    first = xp.ones(m, dtype=bool)  # the first entry of each run of equal coordinates
    if m > 1:
        xp.not_equal(keys[1:], keys[:-1], out=first[1:])
    unique = keys[first] if m else keys
    u = int(unique.shape[0])
    indices = (unique % n).astype(index_dtype)
    indptr = xp.searchsorted(unique // n, xp.arange(n + 1), side="left").astype(index_dtype)
    if data is None:
        return indptr, indices, None
    values = data[order]
    if u == m:
        return indptr, indices, values
    if values.dtype.kind == "f":
        return None
    run = xp.cumsum(first) - 1  # each sorted entry's merged entry
    if values.dtype.kind == "b":
        merged = xp.zeros(u, dtype=bool)
        merged[run[values]] = True
        return indptr, indices, merged
    # integer sums wrap in the values' type: a 64-bit running sum, differenced at the
    # runs' ends, keeps the low bits exactly, which the cast back to the type keeps
    wide = values.view(np.int64) if values.dtype == np.uint64 else values.astype(np.int64)
    total = xp.cumsum(wide)
    ends = total[xp.flatnonzero(xp.concatenate((first[1:], xp.ones(1, dtype=bool))))]
    sums = ends.copy()
    sums[1:] -= ends[:-1]
    return indptr, indices, sums.astype(values.dtype)


def _coo_to_convert(A: Any) -> bool:
    """Whether ``A`` is a SciPy COO that :func:`tocsr` converts itself: square, two
    dimensional, of at least :data:`MIN_ENTRIES` entries, and not declared canonical.
    SciPy trusts that flag (its conversion is then a single counting pass, without
    sorting or summing), so it converts such a matrix too: concomp's sort would
    differ where the flag is wrong."""
    if not type(A).__module__.startswith("scipy.sparse") or getattr(A, "format", None) != "coo":
        return False
    shape = A.shape
    square = len(shape) == 2 and shape[0] == shape[1]
    return square and A.nnz >= max(MIN_ENTRIES, 1) and not A.has_canonical_format


def _scipy_index_dtype(A: Any) -> np.dtype:
    """The index type of SciPy's ``A.tocsr()`` for a non-empty COO ``A``: int64 where
    ``max(nnz, n)`` overflows int32; otherwise int32, except that a ``coo_array``
    keeps int64 coordinates at int64 (SciPy narrows indices only for matrices)."""
    if max(A.nnz, A.shape[1]) > INT32_MAX:
        return np.dtype(np.int64)
    import scipy.sparse as sp

    wide = not (np.can_cast(A.row.dtype, np.int32) and np.can_cast(A.col.dtype, np.int32))
    if wide and isinstance(A, sp.sparray):
        return np.dtype(np.int64)
    return np.dtype(np.int32)
