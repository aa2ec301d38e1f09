"""Oracles for connected components, independent of the engines they check.

SciPy is the oracle for weak components; strong components also have a plain
Python Tarjan search (:func:`reference_strong_components`) for inputs that
SciPy's own search cannot finish. Labels are compared after canonical
relabelling, so any numbering of the right partition passes
:func:`assert_same_partition`.

Examples
--------
>>> import numpy as np
>>> from concomp.testing import canonical, reference_components
>>> reference_components(np.array([0, 3]), np.array([1, 4]), 6)
(4, array([0, 0, 1, 2, 2, 3], dtype=int32))
>>> canonical(np.array([7, 7, 2, 9, 2])).tolist()
[0, 0, 1, 2, 1]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import to_numpy

__all__ = [
    "reference_components",
    "reference_strong_components",
    "scipy_strong_roots",
    "canonical",
    "assert_same_partition",
    "assert_components_equal",
]


def reference_components(src: Any, dst: Any, n: int) -> tuple[int, np.ndarray]:
    """Weak components of the edge list by SciPy: ``(count, int32 labels)``, SciPy's numbering."""
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    src = to_numpy(src).astype(np.int64, copy=False)
    dst = to_numpy(dst).astype(np.int64, copy=False)
    A = sp.coo_array((np.ones(src.shape[0], dtype=np.int8), (src, dst)), shape=(n, n)).tocsr()
    count, labels = connected_components(A, directed=True, connection="weak")
    return int(count), labels


def reference_strong_components(indptr: Any, indices: Any) -> tuple[int, np.ndarray]:
    """Strong components of a CSR graph in SciPy's numbering, in plain Python.

    The numbering of a recursive depth-first search from ``0 .. n-1`` that
    scans each vertex's stored successors last to first, components numbered
    as the search completes them. Slow: for small test graphs only.
    """
    indptr = [int(x) for x in to_numpy(indptr)]
    indices = [int(x) for x in to_numpy(indices)]
    n = len(indptr) - 1
    order = [-1] * n
    low = [0] * n
    labels = [-1] * n
    open_members: list[int] = []
    clock = count = 0
    for start in range(n):
        if order[start] >= 0:
            continue
        order[start] = low[start] = clock
        clock += 1
        open_members.append(start)
        frames = [(start, iter(reversed(indices[indptr[start] : indptr[start + 1]])))]
        while frames:
            v, successors = frames[-1]
            w = next(successors, None)
            if w is not None:
                if order[w] < 0:
                    order[w] = low[w] = clock
                    clock += 1
                    open_members.append(w)
                    frames.append((w, iter(reversed(indices[indptr[w] : indptr[w + 1]]))))
                elif labels[w] < 0:
                    low[v] = min(low[v], order[w])
                continue
            frames.pop()
            if low[v] == order[v]:
                while True:
                    u = open_members.pop()
                    labels[u] = count
                    if u == v:
                        break
                count += 1
            if frames:
                parent = frames[-1][0]
                low[parent] = min(low[parent], low[v])
    return count, np.asarray(labels, dtype=np.int32)


def scipy_strong_roots(src: Any, dst: Any, n: int) -> np.ndarray:
    """Each vertex's smallest strongly connected vertex, by SciPy, for the arcs
    ``src[i] -> dst[i]`` (duplicates and self loops allowed).

    Examples
    --------
    >>> import numpy as np
    >>> scipy_strong_roots(np.array([0, 1, 2]), np.array([1, 2, 1]), 4).tolist()
    [0, 1, 1, 3]
    """
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    src = to_numpy(src).astype(np.int64, copy=False)
    dst = to_numpy(dst).astype(np.int64, copy=False)
    A = sp.csr_array((np.ones(src.shape[0], dtype=np.int8), (src, dst)), shape=(n, n))
    count, labels = connected_components(A, directed=True, connection="strong")
    smallest = np.full(count, n, dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(n, dtype=np.int64))
    return smallest[labels]


def canonical(labels: Any) -> np.ndarray:
    """Renumber labels ``0, 1, ...`` by first appearance (NumPy or CuPy input, NumPy out).

    Two label arrays describe the same partition exactly when their canonical
    forms are equal. SciPy's weak-component labels are already canonical.
    """
    labels = np.asarray(to_numpy(labels)).ravel()
    if labels.size == 0:
        return np.zeros(0, dtype=np.int64)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(first.shape[0], dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(first.shape[0])
    return rank[inverse.ravel()]


def assert_same_partition(labels_a: Any, labels_b: Any) -> None:
    """Raise ``AssertionError`` naming the first vertex where the partitions differ."""
    a, b = canonical(labels_a), canonical(labels_b)
    if a.shape != b.shape:
        raise AssertionError(f"label arrays differ in length: {a.shape[0]} vs {b.shape[0]}")
    diff = np.flatnonzero(a != b)
    if diff.size:
        v = int(diff[0])
        raise AssertionError(
            f"partitions differ at vertex {v} ({diff.size} vertices in all): canonical label "
            f"{int(a[v])} vs {int(b[v])}; raw labels {to_numpy(labels_a)[v]!r} vs "
            f"{to_numpy(labels_b)[v]!r}"
        )


def assert_components_equal(result: Any, src: Any, dst: Any, n: int, *, exact: bool = True) -> None:
    """Check a ``(count, labels)`` result (or bare labels) against :func:`reference_components`.

    ``exact`` also requires SciPy's numbering (what concomp returns by default);
    otherwise only the partition must match. The count must be a Python int.
    """
    count, labels = result if isinstance(result, tuple) else (None, result)
    ref_count, ref_labels = reference_components(src, dst, n)
    if count is not None:
        assert type(count) is int, f"count has type {type(count).__name__}, expected int"
        assert count == ref_count, f"count {count} != reference {ref_count}"
    host = np.asarray(to_numpy(labels))
    assert host.shape == (n,), f"labels have shape {host.shape}, expected ({n},)"
    assert host.dtype.kind == "i", f"labels have dtype {host.dtype}, expected a signed int"
    if exact:
        diff = np.flatnonzero(host != ref_labels)
        if diff.size:
            v = int(diff[0])
            raise AssertionError(
                f"labels differ from SciPy's at vertex {v} ({diff.size} in all):"
                f" {int(host[v])} vs {int(ref_labels[v])}"
            )
    else:
        assert_same_partition(host, ref_labels)
