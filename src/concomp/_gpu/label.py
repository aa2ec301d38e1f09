"""Connected-component labelling of images and volumes on the GPU (kernels: ``cuda/label.cu``).

An implicit-grid labeller: no edge list. Block-based union-find in four launches and
one small scan: ``label_local`` (each thread block unites the pixels of one tile of the
volume in shared memory; in an image a warp is a row of the tile, and a row's runs come
from one ballot), ``label_border_global`` or ``label_border_staged`` (neighbours in
other tiles unite through global memory), ``label_flatten`` (parents to roots; one bit
per pixel marks the roots, with a count per 32 pixels), an inclusive scan of the counts,
and ``label_number`` (each root's label is the number of roots before it, read off the
scan and its bit word).
Roots are the smallest index of their component, so the labels follow raster order of
first appearance, as on the CPU.
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


#: Threads per block; a block labels a tile of :func:`tile_rows` pixels per thread.
MAX_TILE = 256
#: Pixels per thread of an image's tile (rows of it, along y); a volume's tiles take one.
ROWS_2D = 2
#: Threads per block of the border pass (one per pixel of a row).
BORDER_BLOCK = 256
#: Most earlier offsets a neighbourhood has on the GPU (a ``3 x 3 x 3`` structure: 13).
MAX_OFFSETS = 13


def _names() -> list[str]:
    names = [f"label_flatten<{i}>" for i in _INDEX]
    names += [f"label_stats<{t}>" for t in _INTEGERS]
    for i in _INDEX:
        for t in _VALUES:
            for kernel in ("label_local", "label_border_global", "label_border_staged"):
                names += [f"{kernel}<{t}, {i}, {m}>" for m in ("false", "true")]
            names.append(f"label_number<{i}, {t}>")
    return sorted(names)


#: Every name expression of ``cuda/label.cu`` (the CPU-side compile test builds them all).
INSTANTIATIONS = _names()


def _launch(name: str, work: int, args: tuple) -> None:
    get_kernel("label.cu", name)(grid_for(work), (BLOCK,), args)


def _pow2_at_least(x: int) -> int:
    return 1 << max(0, int(x) - 1).bit_length()


def tile_shape(d: int, h: int, w: int) -> tuple[int, int, int]:
    """The ``(tz, ty, tx)`` tile one thread block labels in shared memory.

    Rows of 32 pixels (coalesced reads and writes) and 8 of them in an image; 8 x 8 x 4
    in a volume (fewer pixels on a tile's faces, which the border pass merges); a line
    takes whole blocks of it. A dimension shorter than its tile side shrinks the side to
    the next power of two, and the others grow into the freed threads.
    """
    budget = MAX_TILE
    tx = min(_pow2_at_least(w), budget if d == h == 1 else 32 if d == 1 else 8, budget)
    budget //= tx
    ty = min(_pow2_at_least(h), budget if d == 1 else min(8, budget))
    budget //= ty
    tz = min(_pow2_at_least(d), budget, 64)  # a block's z side is at most 64 threads
    return tz, ty, tx


def tile_rows(d: int, h: int, ty: int) -> int:
    """Pixels per thread of a tile: in an image, rows ``ty`` apart, as many as its
    height fills up to :data:`ROWS_2D` (a block's fixed costs, the staging's latency
    and the barriers, are shared by more pixels, and the tiles' faces, which the border
    pass reads, are a smaller share of them; taller tiles made the unions inside a tile
    of dense masks the slower); one in a volume, whose border pass stages the tile."""
    return max(1, min(ROWS_2D, -(-h // ty))) if d == 1 else 1


def neighbourhood(offsets: np.ndarray) -> np.ndarray:
    """The int32 array the kernels read the neighbourhood from (layout in ``cuda/label.cu``).

    ``offsets`` are ``(dz, dy, dx)`` rows of earlier neighbours. They are reordered with
    ``(0, 0, -1)`` first and ``(0, -1, 0)`` next, which the kernels' rules for leaving
    out unions need; the others follow in their given order.
    """
    rows = [tuple(int(v) for v in r) for r in offsets]
    first = [r for r in ((0, 0, -1), (0, -1, 0)) if r in rows]
    rows = first + [r for r in rows if r not in first]
    k = len(rows)
    ql = rows.index((0, 0, -1)) if (0, 0, -1) in rows else -1
    qu = rows.index((0, -1, 0)) if (0, -1, 0) in rows else -1
    arr = np.array(rows, dtype=np.int64).reshape(k, 3)
    # the pixel itself is in the box, whatever side its neighbours lie on
    lo = np.minimum(arr.min(axis=0), 0) if k else np.zeros(3, np.int64)
    hi = np.maximum(arr.max(axis=0), 0) if k else np.zeros(3, np.int64)
    steps = {r for r in rows} | {tuple(-v for v in r) for r in rows}
    adj = [
        sum(1 << b for b in range(k) if tuple(np.subtract(rows[a], rows[b])) in steps)
        for a in range(k)
    ]
    head = [k, ql, qu, *lo.tolist(), *hi.tolist()]
    return np.array(head + arr.ravel().tolist() + adj, dtype=np.int32)


def staged_bytes(nbhd: np.ndarray, tile: tuple[int, int, int], itemsize: int) -> int:
    """Shared memory a block stages its tile and halo in (``LabelHalo`` in ``cuda/label.cu``),
    rounded up to 16 bytes, for the :func:`neighbourhood` array ``nbhd``: the box of its
    offsets, one more cell before it along x and y where the x and y steps read there."""
    ql, qu = int(nbhd[1]), int(nbhd[2])
    low = -np.asarray(nbhd[3:6], dtype=np.int64) + np.array([0, qu >= 0, ql >= 0])
    cells = int(np.prod(np.asarray(tile) + low + np.asarray(nbhd[6:9], dtype=np.int64)))
    return -(-cells * itemsize // 16) * 16


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
    if offs.shape[0] > MAX_OFFSETS:  # a 3 x 3 x 3 structure has at most 13
        raise EngineCapabilityError(
            f"the gpu engine labels neighbourhoods of at most {MAX_OFFSETS} earlier "
            f"neighbours, not {offs.shape[0]}. Fix: use device='cpu'."
        )
    if vol.dtype == np.bool_:
        vol = vol.view(np.uint8)
    t = CTYPES[vol.dtype.name]
    n = int(vol.size)
    itype = np.dtype(np.int32) if n < 2**31 - 1 else np.dtype(np.int64)
    i = "int" if itype == np.int32 else "long long"
    words = (n + 31) // 32
    need = n * itype.itemsize + words * (4 + 2 * itype.itemsize)  # parent, bits, counts, scan
    check_device_fits(lambda: f"labels of a {image.shape} image", need)
    bg = vol.dtype.type(background)
    d, h, w = (int(s) for s in vol.shape)
    tz, ty, tx = tile_shape(d, h, w)
    rows = tile_rows(d, h, ty)
    grid = (-(-w // tx), min(-(-h // (ty * rows)), 65535), min(-(-d // tz), 65535))
    with out_of_memory_guard(f"labels of a {image.shape} image", need):
        parent = cp.empty(n, dtype=itype)
        nb = neighbourhood(offs)
        ml = "true" if multilabel else "false"
        args = (vol, parent, np.int64(d), np.int64(h), np.int64(w), cp.asarray(nb), bg)
        tile = (tz, ty * rows, tx)
        staged = staged_bytes(nb, tile, vol.dtype.itemsize)
        get_kernel("label.cu", f"label_local<{t}, {i}, {ml}>")(
            grid, (tx, ty, tz), (*args, np.int32(rows)), shared_mem=staged + 4 * int(np.prod(tile))
        )
        if d == 1:  # an image: face pixels read their few neighbours from global memory
            across = -(-w // BORDER_BLOCK)
            get_kernel("label.cu", f"label_border_global<{t}, {i}, {ml}>")(
                (across, min(h, 65535)),
                (BORDER_BLOCK,),
                (*args, np.int32(tx), np.int32(ty * rows), np.int32(tz)),
            )
        else:  # a volume: up to 13 neighbours each, read from the staged tile
            get_kernel("label.cu", f"label_border_staged<{t}, {i}, {ml}>")(
                grid, (tx, ty, tz), args, shared_mem=staged
            )
        bits = cp.empty(words, dtype=np.uint32)
        counts = cp.empty(words, dtype=itype)
        _launch(f"label_flatten<{i}>", n, (parent, bits, counts, itype.type(n)))
        scan = cp.cumsum(counts, dtype=itype)  # dtype named: a cumsum of int32 is int64
        del counts
        count = int(scan[-1]) if words else 0
        result = _output(cp, image.shape, count, out)
        target = result if result.dtype.name in CTYPES and result.dtype != np.bool_ else None
        if target is None:
            target = cp.empty(image.shape, dtype=np.int64)
        if n:
            _launch(
                f"label_number<{i}, {CTYPES[target.dtype.name]}>",
                n,
                (parent, bits, scan, target, itype.type(n)),
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
