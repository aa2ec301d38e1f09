"""Drop-in ``scipy.sparse.csgraph.minimum_spanning_tree`` on the concomp CPU engine.

The output is SciPy's, entry for entry: the same forest, the same entries kept
(each where the input stored it: upper or lower triangle, row order, unsorted
indices and all), ``float64`` data, and the same class (``csr_matrix`` for
``spmatrix`` and ``np.matrix`` input, ``csr_array`` otherwise). Input goes
through SciPy's own conversions, so "what is an edge" is SciPy's definition:

- sparse input: every stored entry is an edge, explicit zeros, ``inf`` and
  ``NaN`` included (COO duplicates are summed by ``tocsr``), except that SciPy
  1.18 drops the stored zeros of BSR input (its block padding): concomp asks
  the installed SciPy which rule it follows;
- dense input: zeros (and entries within 1e-8 of zero), ``inf`` and ``NaN`` mean
  "no edge";
- masked input: every unmasked entry is an edge, zeros included.

Ties break by weight, then by position among the stored entries (SciPy's
stable sort); NaN sorts last.

Known SciPy bug, replicated on purpose
---------------------------------------
A stored zero takes part in the forest but is then dropped from the output,
because a zero entry in a sparse matrix reads as "no edge" to csgraph. The
result is then not a spanning forest: for edges ``0-1`` (weight 0), ``1-2``
(1) and ``0-2`` (2) SciPy returns only ``1-2``. Use
:func:`concomp.minimum_spanning_forest`, which keeps zero-weight edges.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import csgraph_from_dense, csgraph_from_masked

from .._dispatch import driver
from .._sparse import tocsr

__all__ = ["minimum_spanning_tree"]


def minimum_spanning_tree(csgraph: Any, overwrite: bool = False):
    """Minimum spanning tree (forest) of an undirected graph, exactly as SciPy computes it.

    Parameters
    ----------
    csgraph : array_like or sparse array or matrix, 2 dimensions
        The ``N x N`` matrix of an undirected graph; ``graph[i, j]`` and
        ``graph[j, i]`` are two candidate edges between ``i`` and ``j``.
    overwrite : bool
        Accepted for compatibility. concomp never modifies the input (SciPy may
        overwrite a CSR float64 input's data).

    Returns
    -------
    scipy.sparse.csr_array or scipy.sparse.csr_matrix
        ``N x N``: the kept entries with their weights (stored zero weights are
        dropped, as in SciPy; see the module notes).

    Raises
    ------
    ValueError
        For a matrix that is not square or not two-dimensional (SciPy's messages).

    Examples
    --------
    >>> from scipy.sparse import csr_array
    >>> from concomp.csgraph._mst import minimum_spanning_tree
    >>> X = csr_array([[0, 8, 0, 3],
    ...                [0, 0, 2, 5],
    ...                [0, 0, 0, 6],
    ...                [0, 0, 0, 0]])
    >>> minimum_spanning_tree(X).toarray().astype(int)
    array([[0, 0, 0, 3],
           [0, 0, 2, 5],
           [0, 0, 0, 0],
           [0, 0, 0, 0]])
    """
    as_matrix = isinstance(csgraph, np.matrix) or sp.isspmatrix(csgraph)
    A = _to_csr(csgraph)
    n = A.shape[0]
    rows = np.repeat(np.arange(n, dtype=A.indices.dtype), np.diff(A.indptr))
    # NaN sorts last in SciPy's argsort whatever its sign bit; make every NaN positive
    data = np.where(np.isnan(A.data), np.nan, A.data)
    kept = driver("cpu", "msf", "msf_ids_by_position")(rows, A.indices, data, n)
    out = np.zeros_like(A.data)
    out[kept] = A.data[kept]
    cls = sp.csr_matrix if as_matrix else sp.csr_array
    # SciPy's kernel works on int32 indices (its ITYPE) and returns them
    itype = np.int32 if max(n, A.nnz) < 2**31 else A.indices.dtype
    tree = cls((out, A.indices.astype(itype), A.indptr.astype(itype)), shape=(n, n))
    tree.eliminate_zeros()
    return tree


@functools.cache
def _scipy_drops_bsr_zeros() -> bool:
    """Whether this SciPy drops stored zeros of BSR input (block padding); 1.18 does.

    Asked of SciPy itself on a 3-vertex graph, so the answer follows the installed
    version: a kept zero edge hides the 0-2 edge from the output.
    """
    from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst

    A = sp.csr_array(
        (np.array([0.0, 1.0, 2.0]), (np.array([0, 1, 0]), np.array([1, 2, 2]))), shape=(3, 3)
    )
    return scipy_mst(sp.bsr_array(A)).nnz == 2


def _to_csr(csgraph: Any):
    """SciPy's ``validate_graph(csgraph, directed=True, dense_output=False)`` conversion."""
    if type(csgraph).__module__.split(".")[0] == "sparse":
        raise TypeError(
            "argument `csgraph`: PyData sparse arrays are not supported. Fix: pass "
            "csgraph.to_scipy_sparse()."
        )
    if sp.issparse(csgraph):
        A = tocsr(csgraph, copy=True)
        if csgraph.format == "bsr" and _scipy_drops_bsr_zeros():
            A.eliminate_zeros()
        A = A.astype(np.float64, copy=False)
    elif np.ma.isMaskedArray(csgraph):
        A = csgraph_from_masked(csgraph)
    else:
        A = csgraph_from_dense(csgraph, null_value=0, infinity_null=True, nan_null=True)
    if A.ndim != 2:
        raise ValueError("compressed-sparse graph must be 2-D")
    if A.shape[0] != A.shape[1]:
        raise ValueError("compressed-sparse graph must be shape (N, N)")
    return A
