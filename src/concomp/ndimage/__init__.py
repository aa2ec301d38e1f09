"""Drop-in for ``scipy.ndimage.label``: the same signature, defaults, output conventions and
labels, computed by concomp's labellers.

``from concomp.ndimage import label`` in place of ``from scipy.ndimage import label``
gives the same arrays and counts (SciPy's own ``label`` tests run against it in
concomp's test suite). Differences: CuPy input is accepted and labelled on the GPU
(the labels stay there); a structuring element that is not symmetric raises
:class:`~concomp.errors.InvalidImageError` (a ``ValueError``) where SciPy fails an
assertion.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import get_xp, is_cupy_array
from .._shared.grid import output_dtype_fits
from ..errors import InvalidImageError
from ..image import label_array
from ..image._input import as_image, neighbour_offsets

__all__ = ["label"]

_BIT_DEPTH = "insufficient bit-depth in requested output type"


def _structure(structure: Any, ndim: int) -> Any:
    if structure is None:
        return None
    s = np.asarray(structure.get() if is_cupy_array(structure) else structure, dtype=bool)
    if s.ndim != ndim:
        raise RuntimeError(
            f"structure and input must have equal rank: the structure has {s.ndim} "
            f"dimension(s), the input {ndim}. Fix: pass a {ndim}-d structure."
        )
    if any(n != 3 for n in s.shape):
        raise ValueError(
            f"structure dimensions must be equal to 3, not {s.shape}. Fix: build it with "
            "scipy.ndimage.generate_binary_structure."
        )
    return s


def label(input: Any, structure: Any = None, output: Any = None) -> Any:
    """Label features in an array, as ``scipy.ndimage.label`` does.

    Parameters
    ----------
    input : array_like
        Non-zero entries are features (any real dtype; any number of dimensions).
    structure : array_like, optional
        A symmetric ``3 x ... x 3`` structuring element (default: the cross,
        ``generate_binary_structure(input.ndim, 1)``).
    output : ndarray or dtype, optional
        An array of the input's shape to write the labels into, or their dtype
        (default int32, or intp for 2**31 - 2 or more elements).

    Returns
    -------
    label : ndarray or int
        The labels (0 background, 1 .. N in raster order of first appearance); the
        count alone when ``output`` is an array.
    num_features : int
        The number of features (only when ``output`` is not an array).

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.ndimage import label
    >>> a = np.array([[0, 0, 1, 1, 0, 0],
    ...               [0, 0, 0, 1, 0, 0],
    ...               [1, 1, 0, 0, 1, 0],
    ...               [0, 0, 0, 1, 0, 0]])
    >>> labeled, n = label(a)
    >>> n
    4
    >>> labeled
    array([[0, 0, 1, 1, 0, 0],
           [0, 0, 0, 1, 0, 0],
           [2, 2, 0, 0, 3, 0],
           [0, 0, 0, 4, 0, 0]], dtype=int32)
    """
    if np.iscomplexobj(input):
        raise TypeError("Complex type not supported")
    img = as_image(input, allow_float=True, min_ndim=0)
    arr = img.array
    if arr.dtype == np.float16:  # no float16 kernels; every float16 value is a float32
        arr = arr.astype(np.float32)
    s = _structure(structure, arr.ndim)
    given = isinstance(output, np.ndarray) or is_cupy_array(output)
    if given:
        if tuple(output.shape) != tuple(arr.shape):
            raise ValueError(
                f"output shape not correct: {tuple(output.shape)} for an input of shape "
                f"{tuple(arr.shape)}. Fix: allocate output with the input's shape."
            )
        if not output.flags.writeable:
            raise ValueError(
                "argument `output`: the array is read-only. Fix: pass a writeable array, or "
                "a dtype for a new one."
            )
        dtype = np.dtype(output.dtype)
    elif output is None:
        dtype = np.dtype(np.intp if arr.size >= 2**31 - 2 else np.int32)
    else:
        dtype = np.dtype(output)
    # labels are computed in the machine's byte order; a big-endian output array receives
    # them by NumPy's assignment, which swaps the bytes
    dtype = dtype.newbyteorder("=")
    if arr.ndim == 0:
        count = int(bool(arr != 0))
        labels = get_xp(arr).full((), count, dtype=dtype)
    else:
        offsets = neighbour_offsets(None if s is not None else 1, s, arr.ndim, default=1)
        direct = (
            given and output.flags.c_contiguous and dtype.kind in "iu" and output.dtype.isnative
        )
        try:
            count, labels = label_array(
                arr, offsets, arr.dtype.type(0), False, output if direct else dtype, "auto"
            )
        except InvalidImageError as exc:
            raise RuntimeError(_BIT_DEPTH) from exc
    if not output_dtype_fits(count, dtype):
        raise RuntimeError(_BIT_DEPTH)
    if given:
        if labels is not output:
            output[...] = labels
        return count
    return labels, count
