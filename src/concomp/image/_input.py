"""Checks and normalisation of what ``concomp.label`` receives: the array, its neighbourhood,
the background and the output. Every refusal names the argument, the value and the fix."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .._arrays import is_cupy_array, is_torch_tensor
from .._shared.grid import earlier_offsets
from ..errors import InvalidImageError

__all__ = ["ImageInput", "as_image", "neighbour_offsets", "check_background", "check_out"]


class ImageInput:
    """The caller's array as an engine array, with where it lives and how to hand results back.

    Attributes
    ----------
    array : numpy.ndarray or cupy.ndarray
        C-contiguous, the caller's dtype and shape.
    device : {"cpu", "gpu"}
        Where the data lives.
    torch : bool
        The caller passed a torch tensor: results go back as torch tensors.
    """

    __slots__ = ("array", "device", "torch")

    def __init__(self, array: Any, device: str, torch: bool) -> None:
        self.array, self.device, self.torch = array, device, torch

    def give_back(self, labels: Any) -> Any:
        """``labels`` in the caller's array type (torch in, torch out; else as computed)."""
        if not self.torch:
            return labels
        import torch

        if self.device == "gpu":
            return torch.from_dlpack(labels)
        return torch.from_numpy(labels)


def as_image(image: Any, *, allow_float: bool = False, min_ndim: int = 1) -> ImageInput:
    """Check ``image`` and return it as a C-contiguous NumPy or CuPy array.

    Bool and integer dtypes are accepted (``allow_float`` adds floating dtypes,
    as ``scipy.ndimage.label`` takes them).
    """
    torch = is_torch_tensor(image)
    if torch:
        if image.is_cuda:
            from .._gpu._compat import cupy_or_raise

            arr: Any = cupy_or_raise().from_dlpack(image.detach())
            device = "gpu"
        else:
            arr, device = image.detach().numpy(), "cpu"
    elif is_cupy_array(image):
        arr, device = image, "gpu"
    else:
        try:
            arr = np.asarray(image)
        except (TypeError, ValueError) as exc:
            raise InvalidImageError(
                f"argument `image`: {type(image).__name__} is not array-like ({exc}). "
                "Fix: pass a NumPy, CuPy or torch array."
            ) from exc
        device = "cpu"
    kinds = "biuf" if allow_float else "biu"
    if arr.dtype.kind not in kinds:
        allowed = "bool, integer or floating" if allow_float else "bool or integer"
        raise InvalidImageError(
            f"argument `image`: dtype {arr.dtype} is not supported; the image must be "
            f"{allowed}. Fix: pass a mask (image > threshold) or cast the values to an "
            "integer dtype."
        )
    if arr.ndim < min_ndim:
        raise InvalidImageError(
            f"argument `image`: a {arr.ndim}-d array is not an image; at least {min_ndim} "
            "dimension(s) are needed. Fix: pass a 1-d, 2-d or 3-d array."
        )
    if not arr.dtype.isnative:
        # big-endian data (as some file formats store it): the same values in the machine's
        # byte order, which the kernels read
        arr = arr.astype(arr.dtype.newbyteorder("="), order="C")
    if not arr.flags.c_contiguous:
        arr = arr.copy(order="C") if device == "gpu" else np.ascontiguousarray(arr)
    return ImageInput(arr, device, torch)


def _structure_array(structure: Any, ndim: int) -> np.ndarray:
    if is_cupy_array(structure):
        structure = structure.get()
    elif is_torch_tensor(structure):
        structure = structure.detach().cpu().numpy()
    try:
        s = np.asarray(structure)
    except (TypeError, ValueError) as exc:
        raise InvalidImageError(
            f"argument `structure`: {structure!r} is not array-like ({exc}). Fix: pass a "
            f"{'x'.join(['3'] * ndim)} array of 0/1."
        ) from exc
    if s.dtype.kind not in "biuf":
        raise InvalidImageError(
            f"argument `structure`: dtype {s.dtype} is not boolean or numeric. Fix: pass "
            "an array of 0/1 or True/False."
        )
    if s.shape != (3,) * ndim:
        raise InvalidImageError(
            f"argument `structure`: shape {s.shape} does not fit a {ndim}-d image; it must "
            f"be {(3,) * ndim}. Fix: build it with scipy.ndimage.generate_binary_structure"
            f"({ndim}, connectivity)."
        )
    s = s.astype(bool)
    if not np.array_equal(s, s[(slice(None, None, -1),) * ndim]):
        raise InvalidImageError(
            f"argument `structure`: {s.astype(int).tolist()} is not symmetric about its "
            "centre; connectivity runs both ways. Fix: pass structure | structure[::-1, ...] "
            "(every axis reversed)."
        )
    return s


def full_structure(connectivity: int, ndim: int) -> np.ndarray:
    """The ``3 x ... x 3`` structure of neighbours at most ``connectivity`` axes away
    (``scipy.ndimage.generate_binary_structure(ndim, connectivity)``)."""
    steps = np.array(list(itertools.product((-1, 0, 1), repeat=ndim)), dtype=np.int64)
    return (np.abs(steps).sum(axis=1) <= connectivity).reshape((3,) * ndim)


def neighbour_offsets(connectivity: Any, structure: Any, ndim: int, default: int) -> np.ndarray:
    """The earlier-neighbour offsets ``(k, ndim)`` of the connectivity or structure asked for
    (``connectivity`` None and ``structure`` None: ``default``)."""
    if structure is not None:
        if connectivity is not None:
            raise InvalidImageError(
                f"arguments `connectivity` ({connectivity!r}) and `structure` are both given; "
                "they say the same thing. Fix: pass one of them."
            )
        return earlier_offsets(_structure_array(structure, ndim))
    if connectivity is None:
        connectivity = default
    if (
        isinstance(connectivity, bool)
        or not isinstance(connectivity, (int, np.integer))
        or not 1 <= connectivity <= ndim
    ):
        raise InvalidImageError(
            f"argument `connectivity`: {connectivity!r} is not valid for a {ndim}-d image; "
            f"use an integer in 1..{ndim} (1: neighbours across faces, {ndim}: every "
            "neighbour touching a corner). Fix: pass e.g. connectivity=1."
        )
    return earlier_offsets(full_structure(int(connectivity), ndim))


def check_background(background: Any, dtype: np.dtype) -> Any:
    """``background`` as a value of ``dtype``, or a clear error when it has none."""
    if isinstance(background, (bool, np.bool_)) or isinstance(background, (int, np.integer)):
        value = int(background)
        if dtype.kind == "b":
            if value not in (0, 1):
                raise InvalidImageError(
                    f"argument `background`: {background!r} is not a value of a boolean "
                    "image. Fix: pass 0 (False) or 1 (True)."
                )
            return bool(value)
        if dtype.kind in "iu":
            info = np.iinfo(dtype)
            if not info.min <= value <= info.max:
                raise InvalidImageError(
                    f"argument `background`: {background!r} is outside the range "
                    f"{info.min}..{info.max} of the image's dtype {dtype}; no pixel can equal "
                    "it. Fix: pass a value of the image's dtype (usually 0)."
                )
        return dtype.type(value)
    if dtype.kind == "f" and isinstance(background, (float, np.floating)):
        return dtype.type(background)
    raise InvalidImageError(
        f"argument `background`: {background!r} ({type(background).__name__}) is not an "
        f"integer value for an image of dtype {dtype}. Fix: pass an int, usually 0."
    )


def check_out(out: Any, image: ImageInput) -> Any:
    """``out`` as the engines take it: None, an integer dtype, or a C-contiguous array of
    the image's shape on the image's device (integer dtype)."""
    if out is None:
        return None
    if isinstance(out, np.ndarray) or is_cupy_array(out) or is_torch_tensor(out):
        on_gpu = is_cupy_array(out)
        if on_gpu != (image.device == "gpu") or is_torch_tensor(out):
            raise InvalidImageError(
                f"argument `out`: a {type(out).__module__}.{type(out).__name__} cannot take "
                f"the labels of an image on the {image.device}. Fix: pass an array on the "
                "same device as the image (NumPy for host images, CuPy for device images)."
            )
        if tuple(out.shape) != tuple(image.array.shape):
            raise InvalidImageError(
                f"argument `out`: shape {tuple(out.shape)} differs from the image's shape "
                f"{tuple(image.array.shape)}. Fix: allocate out with the image's shape."
            )
        if np.dtype(out.dtype).kind not in "iu" or not out.flags.c_contiguous:
            raise InvalidImageError(
                f"argument `out`: dtype {out.dtype}, C-contiguous={out.flags.c_contiguous}; "
                "an integer C-contiguous array is needed. Fix: allocate it with "
                "np.empty(image.shape, np.int32) (or cupy.empty)."
            )
        if not np.dtype(out.dtype).isnative:
            raise InvalidImageError(
                f"argument `out`: dtype {out.dtype.str} is not in the machine's byte order; "
                "the labels are written in it. Fix: pass an array of a native dtype "
                "(np.empty(image.shape, np.int32)) and convert it afterwards if needed."
            )
        if not out.flags.writeable:
            raise InvalidImageError(
                "argument `out`: the array is read-only. Fix: pass a writeable array, or "
                "out=None for a new one."
            )
        return out
    try:
        dtype = np.dtype(out)
    except TypeError as exc:
        raise InvalidImageError(
            f"argument `out`: {out!r} is neither an array nor a dtype. Fix: pass e.g. "
            "out=np.int32 or an array of the image's shape."
        ) from exc
    if dtype.kind not in "iu":
        raise InvalidImageError(
            f"argument `out`: dtype {dtype} cannot hold labels. Fix: pass an integer dtype "
            "such as np.int32."
        )
    return dtype.newbyteorder("=")  # a byte order asked for: the labels come in the native one
