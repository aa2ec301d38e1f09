"""Connected-component labelling of images and volumes: :func:`label` and :func:`label_stats`.

The labellers work on the pixel grid itself (no edge list): a two-pass numba
labeller on the CPU, a block-based union-find over the implicit grid on the GPU. Both
number the components ``1 .. N`` in raster (C) order of their first pixel, as
``scipy.ndimage.label`` does, with 0 for the background; the drop-ins
:mod:`concomp.ndimage` and :mod:`concomp.measure` follow SciPy's and
scikit-image's conventions exactly.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _dispatch
from .._arrays import get_xp
from ..errors import InvalidImageError
from ..options import Options, resolve_options
from ._input import as_image, check_background, check_out, neighbour_offsets
from ._stats import LabelStats

__all__ = ["GPU_MIN_PIXELS", "LabelStats", "label", "label_stats"]

# the class's public home: documentation pages (and pickles) name it concomp.image.LabelStats
LabelStats.__module__ = __name__

#: Below this many pixels a host image stays on the CPU under ``device="auto"``: copying it
#: to the GPU and the labels back, plus a handful of launches, would cost about what the CPU
#: labeller needs. A first estimate from those costs, not yet a measured crossover.
GPU_MIN_PIXELS = 1 << 20


def label_array(
    image: Any,
    offsets: np.ndarray,
    background: Any,
    multilabel: bool,
    out: Any,
    device: Any,
    options: Options | None = None,
) -> tuple[int, Any]:
    """``(count, labels)`` of a checked C-contiguous engine array (the layer the public
    labellers share): picks the device and the engine, and shapes 0-d and 1-d arrays as
    one row, which is how the engines see them."""
    opts = resolve_options(options)
    data_device = "gpu" if get_xp(image) is not np else "cpu"
    dev = _dispatch.resolve_device(
        device,
        data_device=data_device,
        num_edges=int(image.size),
        min_edges=GPU_MIN_PIXELS,
        what="label",
    )
    shape = image.shape
    is_array = out is not None and not isinstance(out, np.dtype)
    caller_out = out if is_array else None
    if image.size == 0:
        if is_array:
            return 0, out
        return 0, get_xp(image).zeros(shape, dtype=np.dtype(np.uint8) if out is None else out)
    host_out = None
    if dev == "gpu" and data_device == "cpu":
        from .._arrays import to_device

        image = to_device(image)
        if is_array:  # the labels come back into the caller's host array
            host_out, out = out, out.dtype
            is_array = False
    if image.ndim < 2:
        image = image.reshape((1, image.size))
        lead = np.zeros((offsets.shape[0], 2 - offsets.shape[1]), dtype=np.int64)
        offsets = np.concatenate([lead, offsets], axis=1)
        if is_array:
            out = out.reshape(image.shape)
    run = _dispatch.driver(dev, "label", "label_image")
    try:
        count, labels = run(image, offsets, background, bool(multilabel), out, opts)
    except OverflowError as exc:
        raise InvalidImageError(
            f"argument `out`: {exc}. Fix: pass a wider integer dtype (np.int32 or np.int64), "
            "or out=None for the smallest dtype that holds every label."
        ) from exc
    if dev == "gpu" and data_device == "cpu":
        if host_out is not None:
            labels.reshape(shape).get(out=host_out)
            return count, host_out
        labels = labels.get()
    return count, caller_out if caller_out is not None else labels.reshape(shape)


def label(
    image: Any,
    connectivity: int | None = None,
    *,
    structure: Any = None,
    background: Any = 0,
    multilabel: bool = False,
    return_num: bool = False,
    device: Any = "auto",
    out: Any = None,
    options: Options | None = None,
) -> Any:
    """Label the connected regions of an image or volume.

    Parameters
    ----------
    image : array_like, CuPy array or torch tensor
        Bool or integer array of 1 or more dimensions (the GPU takes up to 3). Pixels
        equal to ``background`` are background; every other pixel is foreground.
    connectivity : int, optional
        Neighbours are pixels at most ``connectivity`` axes away, as in SciPy and
        scikit-image: 1 (default) joins across faces only (4 neighbours in 2-D, 6 in
        3-D); ``image.ndim`` joins every touching pixel (8 in 2-D, 26 in 3-D); 2 in 3-D
        is 18-connectivity. The default is SciPy's; scikit-image's is ``image.ndim``
        (its drop-in :func:`concomp.measure.label` keeps that).
    structure : array_like, optional
        A ``3 x ... x 3`` structuring element as ``scipy.ndimage.label`` takes it,
        symmetric about its centre (the centre's value is ignored). Instead of
        ``connectivity``.
    background : int
        The background value (default 0).
    multilabel : bool
        Label each distinct foreground value's regions separately: neighbours join only
        where their values are equal (connected-components-3d's semantics). With
        ``False`` every foreground pixel is alike.
    return_num : bool
        Also return the number of regions.
    device : {"auto", "cpu", "gpu"}
        Where to run. ``"auto"`` keeps device data on the GPU and takes host images of
        at least :data:`GPU_MIN_PIXELS` pixels there when a GPU is usable.
    out : dtype or array, optional
        The labels' integer dtype, or an array of the image's shape (C-contiguous, on the
        image's device) to write them into. Default: the smallest unsigned dtype that
        holds every label (``uint8``, ``uint16``, ``uint32`` or ``uint64``).
    options : Options, optional
        Engine settings.

    Returns
    -------
    labels : array
        ``0`` on the background, ``1 .. N`` on the regions, numbered in raster (C) order of
        each region's first pixel (``scipy.ndimage.label``'s numbering). NumPy for host
        input, CuPy for CuPy input, torch for torch input (on its device).
    num : int
        The number of regions (only with ``return_num=True``).

    Raises
    ------
    InvalidImageError
        An unsupported dtype or shape, a connectivity outside ``1..ndim``, a structuring
        element of the wrong shape or not symmetric, both ``connectivity`` and
        ``structure``, a background outside the image's dtype, an ``out`` that cannot hold
        the labels.

    Notes
    -----
    The CPU engine keeps its run arrays (about 12 bytes per pixel) for the next call
    when they total at most 256 MiB: labelling many images of one size then touches no
    fresh memory. Larger sets are freed after the call.

    Examples
    --------
    >>> import numpy as np
    >>> import concomp
    >>> mask = np.array([[1, 1, 0, 0],
    ...                  [0, 0, 0, 1],
    ...                  [1, 0, 1, 1]], dtype=bool)
    >>> concomp.label(mask, device="cpu")
    array([[1, 1, 0, 0],
           [0, 0, 0, 2],
           [3, 0, 2, 2]], dtype=uint8)
    >>> labels, n = concomp.label(mask, connectivity=2, return_num=True, device="cpu")
    >>> n
    3
    >>> concomp.label(np.array([[1, 1, 2, 2, 0, 2]]), multilabel=True, device="cpu")
    array([[1, 1, 2, 2, 0, 3]], dtype=uint8)
    """
    img = as_image(image)
    offsets = neighbour_offsets(connectivity, structure, img.array.ndim, default=1)
    bg = check_background(background, img.array.dtype)
    if not isinstance(multilabel, (bool, np.bool_)):
        raise InvalidImageError(
            f"argument `multilabel`: {multilabel!r} is not a bool. Fix: pass True or False."
        )
    count, labels = label_array(
        img.array, offsets, bg, bool(multilabel), check_out(out, img), device, options
    )
    labels = img.give_back(labels)
    return (labels, count) if return_num else labels


def label_stats(labels: Any, num: int | None = None, *, device: Any = "auto") -> LabelStats:
    """Sizes, bounding boxes and centroids of labelled regions, in one pass over the labels.

    Parameters
    ----------
    labels : array
        Non-negative integer labels (0 = background), as :func:`label` returns them; NumPy
        or CuPy (torch tensors are read through DLPack).
    num : int, optional
        The number of labels ``N`` (default: the largest label). Statistics cover labels
        ``1 .. N``; a label absent from the array has size 0.
    device : {"auto", "cpu", "gpu"}
        Where to run; device data stays on the GPU.

    Returns
    -------
    LabelStats
        Arrays on the labels' device.

    Examples
    --------
    >>> import numpy as np
    >>> import concomp
    >>> labels = concomp.label(np.array([[1, 1, 0], [0, 0, 1]]), device="cpu")
    >>> stats = concomp.label_stats(labels, device="cpu")
    >>> stats.sizes.tolist(), stats.slices()
    ([2, 1], [(slice(0, 1, None), slice(0, 2, None)), (slice(1, 2, None), slice(2, 3, None))])
    >>> stats.centroids.tolist()
    [[0.0, 0.5], [1.0, 2.0]]
    """
    img = as_image(labels)
    arr = img.array
    if arr.dtype.kind not in "iu":
        raise InvalidImageError(
            f"argument `labels`: dtype {arr.dtype} is not an integer dtype. Fix: pass the "
            "labels concomp.label returned."
        )
    low = int(arr.min()) if arr.size else 0
    high = int(arr.max()) if arr.size else 0
    if low < 0:
        raise InvalidImageError(
            f"argument `labels`: holds the negative label {low}; labels are 0 (background) "
            "and 1..N. Fix: pass the labels concomp.label returned."
        )
    if num is None:
        num = high
    if isinstance(num, bool) or not isinstance(num, (int, np.integer)) or num < high:
        raise InvalidImageError(
            f"argument `num`: {num!r} is below the largest label {high} (or not an integer). "
            "Fix: pass num=None to use the largest label."
        )
    data_device = img.device
    dev = _dispatch.resolve_device(
        device, data_device=data_device, num_edges=int(arr.size), min_edges=GPU_MIN_PIXELS,
        what="label_stats",
    )  # fmt: skip
    if dev == "gpu" and data_device == "cpu":
        from .._arrays import to_device

        arr = to_device(arr)
    stats = _dispatch.driver(dev, "label", "region_stats")(arr, int(num))
    if dev == "gpu" and data_device == "cpu":
        stats = tuple(a.get() for a in stats)
    return LabelStats.from_sums(*stats)
