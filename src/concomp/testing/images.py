"""Masks and volumes to label, and the labelling oracle (``scipy.ndimage.label``).

The corpus of :func:`concomp.label`'s tests and benchmark: random masks at a
foreground probability ``p``, a one-pixel-wide spiral and a perfect maze (one
component snaking through the whole image, the labellers' worst case for
propagation), and a reference labelling that numbers regions as SciPy does.
"""

from __future__ import annotations

import numpy as np

__all__ = ["label_reference", "maze", "random_mask", "spiral"]


def random_mask(shape: tuple[int, ...], p: float, seed: int = 0) -> np.ndarray:
    """Boolean array whose pixels are foreground with probability ``p``, independently.

    Examples
    --------
    >>> random_mask((2, 3), 1.0).all()
    np.True_
    """
    return np.random.default_rng(seed).random(shape, dtype=np.float32) < p


def spiral(n: int) -> np.ndarray:
    """An ``n x n`` mask holding one path, one pixel wide, that spirals inwards from the
    top-left corner with one background pixel between its turns.

    Examples
    --------
    >>> spiral(7).astype(int)
    array([[1, 1, 1, 1, 1, 1, 1],
           [0, 0, 0, 0, 0, 0, 1],
           [1, 1, 1, 1, 1, 0, 1],
           [1, 0, 0, 0, 1, 0, 1],
           [1, 0, 1, 1, 1, 0, 1],
           [1, 0, 0, 0, 0, 0, 1],
           [1, 1, 1, 1, 1, 1, 1]])
    """
    a = np.zeros((n, n), dtype=bool)
    k = 0
    while 2 * k <= n - 1 - 2 * k:
        r0, c0, r1, c1 = 2 * k, 2 * k, n - 1 - 2 * k, n - 1 - 2 * k
        a[r0, max(c0 - 2, 0) : c1 + 1] = True  # joins the previous ring's left side
        a[r0 : r1 + 1, c1] = True
        if r1 > r0:
            a[r1, c0 : c1 + 1] = True
        if r1 >= r0 + 2:
            a[r0 + 2 : r1 + 1, c0] = True
        k += 1
    return a


def maze(shape: tuple[int, int], seed: int = 0) -> np.ndarray:
    """A perfect maze (binary-tree algorithm): cells at odd coordinates, each opened to
    its north or west neighbour at random, so the passages form a single tree.

    Examples
    --------
    >>> m = maze((9, 9))
    >>> m.shape, bool(m[1, 1]), bool(m[0].any())
    ((9, 9), True, False)
    """
    h, w = shape
    a = np.zeros((h, w), dtype=bool)
    a[1:h:2, 1:w:2] = True
    cells = a[1:h:2, 1:w:2].shape
    rng = np.random.default_rng(seed)
    north = rng.random(cells) < 0.5
    north[0, :] = False  # the top row can only open west
    north[:, 0] = True  # the left column can only open north
    rows, cols = np.nonzero(np.ones(cells, dtype=bool))
    rows, cols = 2 * rows + 1, 2 * cols + 1
    go_north = north.ravel()
    keep = ~((rows == 1) & (cols == 1))  # the root cell opens nowhere
    a[(rows - 1)[go_north & keep], cols[go_north & keep]] = True
    a[rows[~go_north & keep], (cols - 1)[~go_north & keep]] = True
    return a


def label_reference(
    image: np.ndarray, connectivity: int = 1, background: int = 0, multilabel: bool = False
) -> tuple[np.ndarray, int]:
    """``(labels, count)`` as :func:`concomp.label` promises them, built from
    ``scipy.ndimage.label`` (per distinct value with ``multilabel``, then numbered in
    raster order of first appearance).

    Examples
    --------
    >>> labels, n = label_reference(np.array([[1, 1, 2, 0, 2]]), multilabel=True)
    >>> labels.tolist(), n
    ([[1, 1, 2, 0, 3]], 3)
    """
    from scipy import ndimage

    image = np.asarray(image)
    structure = ndimage.generate_binary_structure(image.ndim, connectivity)
    if not multilabel:
        labels, count = ndimage.label(image != background, structure)
        return labels.astype(np.int64), int(count)
    raw = np.zeros(image.shape, dtype=np.int64)
    offset = 0
    for value in np.unique(image):
        if value == background:
            continue
        part, count = ndimage.label(image == value, structure)
        raw[part > 0] = part[part > 0] + offset
        offset += count
    flat = raw.ravel()
    seen = flat[flat > 0]
    _, first = np.unique(seen, return_index=True)
    order = np.zeros(offset + 1, dtype=np.int64)
    order[seen[np.sort(first)]] = np.arange(1, len(first) + 1)
    return order[raw], len(first)
