"""Connected-component labelling of images and volumes on the GPU (kernels: ``cuda/label.cu``).

An implicit-grid labeller: no edge list. Four launches and one scan: ``label_init``
(parent = own index on the foreground), ``label_union`` (each foreground pixel unites
with its earlier foreground neighbours by atomicMin union-find), ``label_compress``
(parents to roots, root flags), an inclusive scan of the flags (each root's label), and
``label_write`` (labels in the output dtype). Roots are the smallest index of their
component, so the labels follow raster order of first appearance, as on the CPU.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._shared.grid import label_dtype, output_dtype_fits
from ..errors import EngineCapabilityError
from ..options import Options
from ._compat import check_device_fits, cupy_module, out_of_memory_guard
from ._compile import get_kernel
from .kernels import BLOCK, grid_for

__all__ = ["INSTANTIATIONS", "label_image", "region_stats"]

#: NumPy dtype name -> the C++ type the kernels read or write it as (bool is read as bytes).
CTYPES = {
    "bool": "unsigned char",
    "int8": "signed char",
    "uint8": "unsigned char",
    "int16": "short",
    "uint16": "unsigned short",
    "int32": "int",
    "uint32": "unsigned int",
    "int64": "long long",
    "uint64": "unsigned long long",
    "float32": "float",
    "float64": "double",
}
_INTEGERS = sorted({CTYPES[k] for k in CTYPES if k[0] in "iu"})
_VALUES = sorted(set(CTYPES.values()))
_INDEX = ("int", "long long")


def _names() -> list[str]:
    names = [f"label_compress<{i}>" for i in _INDEX]
    names += [f"label_stats<{t}>" for t in _INTEGERS]
    for i in _INDEX:
        for t in _VALUES:
            names.append(f"label_init<{t}, {i}>")
            names += [f"label_union<{t}, {i}, {m}>" for m in ("false", "true")]
            names.append(f"label_write<{i}, {t}>")
    return sorted(names)


#: Every name expression of ``cuda/label.cu`` (the CPU-side compile test builds them all).
INSTANTIATIONS = _names()


def _launch(name: str, work: int, args: tuple) -> None:
    get_kernel("label.cu", name)(grid_for(work), (BLOCK,), args)


def _as_volume(image: Any, offsets: np.ndarray) -> tuple[Any, np.ndarray]:
    """``image`` as ``D x H x W`` and ``offsets`` as ``(dz, dy, dx)`` rows."""
    if image.ndim > 3:
        raise EngineCapabilityError(
            f"the gpu engine labels images of 1 to 3 dimensions, not {image.ndim}. "
            "Fix: use device='cpu'."
        )
    lead = 3 - image.ndim
    vol = image.reshape((1,) * lead + image.shape)
    offs = np.zeros((offsets.shape[0], 3), dtype=np.int32)
    offs[:, lead:] = offsets
    return vol, offs


def label_image(
    image: Any,
    offsets: np.ndarray,
    background: Any,
    multilabel: bool,
    out: Any,
    options: Options,
) -> tuple[int, Any]:
    """``(count, labels)`` of a C-contiguous CuPy image (see
    :func:`concomp._engine.label_image`)."""
    cp = cupy_module()
    vol, offs = _as_volume(image, offsets)
    if vol.dtype == np.bool_:
        vol = vol.view(np.uint8)
    t = CTYPES[vol.dtype.name]
    n = int(vol.size)
    itype = np.dtype(np.int32) if n < 2**31 - 1 else np.dtype(np.int64)
    i = "int" if itype == np.int32 else "long long"
    need = 3 * n * itype.itemsize  # parent, flags, ranks
    check_device_fits(lambda: f"labels of a {image.shape} image", need)
    bg = vol.dtype.type(background)
    d, h, w = (itype.type(s) for s in vol.shape)
    with out_of_memory_guard(f"labels of a {image.shape} image", need):
        parent = cp.empty(n, dtype=itype)
        flags = cp.empty(n, dtype=itype)
        offsets_dev = cp.asarray(offs.reshape(-1))
        ml = "true" if multilabel else "false"
        _launch(f"label_init<{t}, {i}>", n, (vol, parent, itype.type(n), bg))
        _launch(
            f"label_union<{t}, {i}, {ml}>",
            n,
            (vol, parent, d, h, w, offsets_dev, np.int32(offs.shape[0]), bg),
        )
        _launch(f"label_compress<{i}>", n, (parent, flags, itype.type(n)))
        ranks = cp.cumsum(flags, dtype=itype)  # dtype named: a cumsum of int32 is int64
        del flags
        count = int(ranks[-1])
        result = _output(cp, image.shape, count, out)
        target = result if result.dtype.name in CTYPES and result.dtype != np.bool_ else None
        if target is None:
            target = cp.empty(image.shape, dtype=np.int64)
        _launch(
            f"label_write<{i}, {CTYPES[target.dtype.name]}>",
            n,
            (parent, ranks, target, itype.type(n)),
        )
        if target is not result:
            result[...] = target
    return count, result


def _output(cp: Any, shape: tuple[int, ...], count: int, out: Any) -> Any:
    if out is not None and not isinstance(out, np.dtype):
        if not output_dtype_fits(count, out.dtype):
            raise OverflowError(f"{count} labels do not fit in the output's dtype {out.dtype}")
        return out
    dtype = label_dtype(count) if out is None else np.dtype(out)
    if not output_dtype_fits(count, dtype):
        raise OverflowError(f"{count} labels do not fit in the dtype {dtype}")
    return cp.empty(shape, dtype=dtype)


def region_stats(labels: Any, count: int) -> tuple[Any, Any, Any, Any]:
    """``(sizes, starts, stops, coordinate sums)`` of labels ``1 .. count`` of a CuPy array
    of 1 to 3 dimensions, in one pass (see :func:`concomp._engine.region_stats`)."""
    cp = cupy_module()
    vol, _ = _as_volume(labels, np.zeros((0, labels.ndim), dtype=np.int64))
    sizes = cp.zeros(count, dtype=np.uint64)
    starts = cp.full((count, 3), np.iinfo(np.int64).max, dtype=np.int64)
    stops = cp.zeros((count, 3), dtype=np.int64)
    sums = cp.zeros((count, 3), dtype=np.uint64)
    n = int(vol.size)
    if n and count:
        _launch(
            f"label_stats<{CTYPES[vol.dtype.name]}>",
            n,
            (
                vol,
                np.int64(n),
                np.int64(vol.shape[1]),
                np.int64(vol.shape[2]),
                np.int64(count),
                sizes,
                starts,
                stops,
                sums,
            ),
        )
    keep = slice(3 - labels.ndim, 3)
    return (
        sizes.astype(np.int64),
        starts[:, keep].copy(),
        stops[:, keep].copy(),
        sums[:, keep].astype(np.int64),
    )
