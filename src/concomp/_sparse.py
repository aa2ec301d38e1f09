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

__all__ = ["csr_structure", "tocsr"]

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
