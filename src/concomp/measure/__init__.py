"""Drop-in for ``skimage.measure.label``: scikit-image's signature, defaults and labels,
computed by concomp's labellers.

scikit-image labels regions of equal value (two neighbours join only where their
values are equal, :func:`concomp.label`'s ``multilabel=True``), takes full
connectivity (``input.ndim``) by default, and returns int64 labels numbered in raster
order of first appearance. CuPy input is accepted and labelled on the GPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidImageError
from ..image import label_array
from ..image._input import as_image, check_background, neighbour_offsets

__all__ = ["label"]


def label(
    label_image: Any,
    background: Any = None,
    return_num: bool = False,
    connectivity: int | None = None,
) -> Any:
    """Label connected regions of an integer (or boolean, or floating) array, as
    ``skimage.measure.label`` does.

    Parameters
    ----------
    label_image : array_like
        Image to label; neighbours join where their values are equal. Floating values
        are truncated to integers first, as scikit-image does.
    background : int, optional
        Pixels of this value are background, labelled 0 (default 0).
    return_num : bool
        Also return the number of labels.
    connectivity : int, optional
        Neighbours at most this many axes away join, 1 .. ``ndim`` (default ``ndim``).

    Returns
    -------
    labels : ndarray
        int64 (int32 for a boolean image, as scikit-image returns them).
    num : int
        Only with ``return_num=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.measure import label
    >>> label(np.array([[1, 0, 0], [0, 1, 2]]))
    array([[1, 0, 0],
           [0, 1, 2]])
    >>> label(np.array([[1, 0, 0], [0, 1, 2]]), connectivity=1, return_num=True)
    (array([[1, 0, 0],
           [0, 2, 3]]), 3)
    """
    img = as_image(label_image, allow_float=True, min_ndim=1)
    arr = img.array
    if arr.dtype.kind == "f":  # scikit-image reads the values as integers (truncated)
        arr = arr.astype(np.int64)
    ndim = arr.ndim
    if connectivity is not None and (
        isinstance(connectivity, bool)
        or not isinstance(connectivity, (int, np.integer))
        or not 1 <= connectivity <= ndim
    ):
        raise InvalidImageError(
            f"Connectivity for {ndim}D image should be in [1, ..., {ndim}]. Got "
            f"{connectivity!r}. Fix: pass connectivity=None (full) or an int in 1..{ndim}."
        )
    offsets = neighbour_offsets(connectivity, None, ndim, default=ndim)
    if arr.dtype == np.bool_:
        # scikit-image labels a boolean image through scipy.ndimage: int32 labels, and
        # background 1 means the False pixels are the regions
        bg = background == 1
        dtype = np.dtype(np.intp if arr.size >= 2**31 - 2 else np.int32)
    else:
        bg = check_background(0 if background is None else background, arr.dtype)
        dtype = np.dtype(np.int64)
    count, labels = label_array(arr, offsets, bg, True, dtype, "auto")
    labels = img.give_back(labels)
    return (labels, count) if return_num else labels
