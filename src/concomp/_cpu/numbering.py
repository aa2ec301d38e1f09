"""Component numbers from root labels, in parallel (SciPy's numbering)."""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized

__all__ = ["count_components", "number_components"]

#: Vertices per block of the count and numbering passes.
_LABEL_BLOCK = 1 << 16


@nb.njit(cache=True, inline="always")
def _roots_in_block(roots, b):
    """How many vertices of block ``b`` are roots (``roots[v] == v``)."""
    c = 0
    for v in range(b * _LABEL_BLOCK, min(roots.shape[0], (b + 1) * _LABEL_BLOCK)):
        c += roots[v] == v
    return c


@serialized
@nb.njit(cache=True, parallel=True)
def number_components(parents, labels):
    """Write each vertex's component number into ``labels`` (roots numbered in
    increasing order); return the number of components.

    ``parents`` is a forest (``parents[r] == r`` for a root ``r``) whose every root is
    the smallest vertex of its tree: root labels, or a union-find forest as its unions
    left it. Each vertex walks to its root in the pass that copies the root's number
    and is pointed at it on the way, so an unflattened forest needs no flattening
    pass of its own (root labels are read, never written). With one component every
    label is 0, written without reading the forest (which then stays as it was).
    """
    n = parents.shape[0]
    blocks = (n + _LABEL_BLOCK - 1) // _LABEL_BLOCK
    first = np.zeros(blocks + 1, np.int64)
    for b in nb.prange(blocks):
        first[b + 1] = _roots_in_block(parents, b)
    for b in range(blocks):
        first[b + 1] += first[b]
    if first[blocks] == 1:  # a connected graph: no walks, no reads of the forest
        for v in nb.prange(n):
            labels[v] = 0
        return first[blocks]
    for b in nb.prange(blocks):
        c = first[b]
        if first[b + 1] == c:  # no root here (most blocks when components are few)
            continue
        for v in range(b * _LABEL_BLOCK, min(n, (b + 1) * _LABEL_BLOCK)):
            if parents[v] == v:
                labels[v] = c
                c += 1
    # roots' numbers are final now. Writes to parents only move a pointer to an
    # ancestor, so walks that meet them stay correct
    for v in nb.prange(n):
        r = parents[v]
        up = parents[r]
        if up != r:
            while up != r:
                r = up
                up = parents[r]
            parents[v] = r
        labels[v] = labels[r]  # a root copies its own number
    return first[blocks]


@serialized
@nb.njit(cache=True, parallel=True)
def count_components(roots):
    """The number of roots (``roots[v] == v``) in root labels, counted by blocks on all
    threads (NumPy's ``roots == arange(n)`` builds two arrays of ``n`` on one thread)."""
    n = roots.shape[0]
    blocks = (n + _LABEL_BLOCK - 1) // _LABEL_BLOCK
    counts = np.zeros(blocks, np.int64)
    for b in nb.prange(blocks):
        counts[b] = _roots_in_block(roots, b)
    return counts.sum()
