"""Facts about labelling a grid that both engines share: neighbour offsets and label dtypes.

A neighbourhood is given to the engines as its *earlier* offsets: the
neighbours of a pixel that come before it in raster (C) order, one row
``(d0, d1, ..., d_{ndim-1})`` each, every entry in ``{-1, 0, 1}``. The full
neighbourhood is these offsets and their negatives, so a scan that unites each
pixel with its earlier neighbours finds every connection once.
"""

from __future__ import annotations

import numpy as np

__all__ = ["LABEL_DTYPES", "earlier_offsets", "label_dtype", "output_dtype_fits"]

#: The dtypes ``concomp.label`` picks from, smallest first, when no output is named.
LABEL_DTYPES = (np.dtype(np.uint8), np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64))


def earlier_offsets(structure: np.ndarray) -> np.ndarray:
    """``(k, ndim)`` int64 offsets of the true entries of a ``3 x ... x 3`` boolean
    ``structure`` that precede its centre in raster order (the centre itself excluded).

    Examples
    --------
    >>> import numpy as np
    >>> earlier_offsets(np.array([[0, 1, 0], [1, 1, 1], [0, 1, 0]], bool)).tolist()
    [[-1, 0], [0, -1]]
    """
    ndim = structure.ndim
    centre = (structure.size - 1) // 2
    flat = np.flatnonzero(structure.ravel()[:centre])
    coords = np.array(np.unravel_index(flat, structure.shape), dtype=np.int64).T - 1
    return coords.reshape(-1, ndim)


def label_dtype(count: int) -> np.dtype:
    """The smallest unsigned dtype that holds labels ``0 .. count``.

    Examples
    --------
    >>> label_dtype(255), label_dtype(256), label_dtype(70_000)
    (dtype('uint8'), dtype('uint16'), dtype('uint32'))
    """
    for dt in LABEL_DTYPES:
        if count <= np.iinfo(dt).max:
            return dt
    raise OverflowError(f"{count} labels do not fit in uint64")


def output_dtype_fits(count: int, dtype: np.dtype) -> bool:
    """Whether labels ``0 .. count`` fit in ``dtype`` (an integer, float or bool dtype)."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        return count <= np.iinfo(dtype).max
    if dtype.kind == "f":
        return count <= 2 ** (np.finfo(dtype).nmant + 1)
    if dtype.kind == "b":
        return count <= 1
    return False
