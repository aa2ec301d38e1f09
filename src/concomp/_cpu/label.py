"""Connected-component labelling of images and volumes on the CPU: a two-pass numba labeller.

No edge list is built. The image is cut into slabs along axis 0, one per task of
a ``prange`` loop. Each slab is scanned in raster order; a foreground pixel
takes the provisional label of an earlier neighbour of its slab (uniting the
labels when several differ) or a new one. Labels of slab ``s`` count up from
``1 + (linear index of the slab's first pixel)``, so every slab owns its own
range of the equivalence array ``parent`` and the scans never touch each
other's state. A short sequential step then unites the labels across each slab
boundary, and one sequential pass over the used label ranges turns the union-find
forest into final numbers; a parallel pass writes them.

The root of a set is always its smallest label (unions link the larger root under
the smaller), and labels grow in raster order, so the root is the label of the
component's first pixel in raster order: numbering the roots in increasing order
numbers the components in order of first appearance, as ``scipy.ndimage.label``
does.

Provisional labels live in a buffer padded by one background pixel on both sides
of every axis but the first: an earlier neighbour of any pixel then lies inside
the buffer, and the scan needs no bounds checks. Axis 0 needs no padding because
a slab's first slice looks only at offsets within its own slice.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.grid import label_dtype, output_dtype_fits
from .._shared.threads import serialized
from ..options import Options

__all__ = ["label_image", "region_stats"]


@nb.njit(cache=True, inline="always")
def _find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving: later finds walk half as far
        x = parent[x]
    return x


@nb.njit(cache=True, inline="always")
def _unite(parent, a, b):
    """Link the larger root under the smaller; return the surviving root."""
    a = _find(parent, a)
    b = _find(parent, b)
    if a < b:
        parent[b] = a
        return a
    if b < a:
        parent[a] = b
    return b


@nb.njit(cache=True, inline="always")
def _row_base(r, shape, pstrides):
    """Padded index of pixel 0 of row ``r`` (rows: every index over axes 0 .. ndim-2)."""
    base = 0
    for a in range(shape.shape[0] - 2, 0, -1):
        base += (r % shape[a] + 1) * pstrides[a]
        r //= shape[a]
    return base + r * pstrides[0] + 1


@nb.njit(cache=True, inline="always")
def _scan_row(img, lab, parent, ib, pb, width, poff, ioff, bg, multilabel, nxt):
    k = poff.shape[0]
    for x in range(width):
        v = img[ib + x]
        if v == bg:
            continue
        cur = 0
        for t in range(k):
            other = lab[pb + x + poff[t]]
            if other == 0 or other == cur:
                continue
            if multilabel and img[ib + x + ioff[t]] != v:
                continue
            cur = other if cur == 0 else _unite(parent, cur, other)
        if cur == 0:
            parent[nxt] = nxt
            cur = nxt
            nxt += 1
        lab[pb + x] = cur
    return nxt


@nb.njit(cache=True)
def _scan_slab(img, lab, parent, shape, pstrides, rows, s, poff, ioff, pin, iin, bg, ml, first):
    """Label slab ``s`` (slices ``rows[s] .. rows[s+1]`` of axis 0, as row numbers)."""
    width = shape[shape.shape[0] - 1]
    per_slice = rows[-1] // shape[0]
    nxt = first
    for r in range(rows[s], rows[s + 1]):
        at_edge = r - rows[s] < per_slice  # the slab's first slice: no earlier slice
        nxt = _scan_row(
            img,
            lab,
            parent,
            r * width,
            _row_base(r, shape, pstrides),
            width,
            pin if at_edge else poff,
            iin if at_edge else ioff,
            bg,
            ml,
            nxt,
        )
    return nxt


@serialized
@nb.njit(cache=True, parallel=True)
def _scan_slabs(img, lab, parent, shape, pstrides, rows, poff, ioff, pin, iin, bg, ml, used):
    width = shape[shape.shape[0] - 1]
    for i in nb.prange(rows.shape[0] - 1):
        s = np.int64(i)
        first = rows[s] * width + 1
        last = _scan_slab(
            img, lab, parent, shape, pstrides, rows, s, poff, ioff, pin, iin, bg, ml, first
        )
        used[s] = last - first


@nb.njit(cache=True)
def _merge_and_number(img, lab, parent, shape, pstrides, rows, xoff, ixoff, ml, used):
    """Unite labels across slab boundaries, then number the roots in increasing order;
    ``parent[l]`` becomes label ``l``'s final number. Returns the count."""
    width = shape[shape.shape[0] - 1]
    for s in range(1, rows.shape[0] - 1):
        for r in range(rows[s], rows[s] + rows[-1] // shape[0]):
            pb = _row_base(r, shape, pstrides)
            ib = r * width
            for x in range(width):
                here = lab[pb + x]
                if here == 0:
                    continue
                for t in range(xoff.shape[0]):
                    other = lab[pb + x + xoff[t]]
                    if other != 0 and (not ml or img[ib + x + ixoff[t]] == img[ib + x]):
                        _unite(parent, here, other)
    count = 0
    for s in range(rows.shape[0] - 1):
        first = rows[s] * width + 1
        for lbl in range(first, first + used[s]):
            # parent[lbl] <= lbl; a smaller label already holds its final number
            if parent[lbl] == lbl:
                count += 1
                parent[lbl] = count
            else:
                parent[lbl] = parent[parent[lbl]]
    parent[0] = 0
    return count


@serialized
@nb.njit(cache=True, parallel=True)
def _write_labels(lab, parent, out, shape, pstrides):
    width = shape[shape.shape[0] - 1]
    nrows = out.size // width if width else 0
    for i in nb.prange(nrows):
        r = np.int64(i)
        pb = _row_base(r, shape, pstrides)
        ib = r * width
        for x in range(width):
            out[ib + x] = parent[lab[pb + x]]


def _slabs(shape: tuple[int, ...], threads: int) -> np.ndarray:
    """Row numbers where the slabs start (and the end): whole slices of axis 0, a few
    slabs per thread so that an uneven slab does not hold the others up."""
    per_slice = int(np.prod(shape[1:-1], dtype=np.int64))
    pieces = max(1, min(shape[0], 4 * threads if threads > 1 else 1))
    cuts = np.linspace(0, shape[0], pieces + 1).astype(np.int64)
    return np.unique(cuts) * per_slice


def _padded_strides(shape: tuple[int, ...]) -> np.ndarray:
    padded = (shape[0],) + tuple(s + 2 for s in shape[1:])
    strides = np.ones(len(shape), dtype=np.int64)
    for a in range(len(shape) - 2, -1, -1):
        strides[a] = strides[a + 1] * padded[a + 1]
    return strides


def label_image(
    image: np.ndarray,
    offsets: np.ndarray,
    background: object,
    multilabel: bool,
    out: object,
    options: Options,
) -> tuple[int, np.ndarray]:
    """``(count, labels)`` of the connected components of ``image`` (C-contiguous, 2 or
    more dimensions) under the earlier-neighbour ``offsets`` (``(k, ndim)``).

    Pixels equal to ``background`` are 0; the others are numbered ``1 .. count`` in
    raster order of first appearance. With ``multilabel``, neighbours join only where
    their values are equal. ``out``: None (the smallest unsigned dtype that holds the
    count), a dtype, or a C-contiguous array of ``image``'s shape to write into.
    Raises :class:`OverflowError` where the count does not fit the dtype asked for.
    """
    shape = np.array(image.shape, dtype=np.int64)
    pstrides = _padded_strides(image.shape)
    padded_size = int(shape[0] * pstrides[0])
    ltype = np.int32 if image.size + 1 < 2**31 else np.int64
    lab = np.zeros(padded_size, dtype=ltype)
    parent = np.empty(image.size + 1, dtype=ltype)
    istrides = np.array(image.strides, dtype=np.int64) // image.itemsize
    poff = (offsets @ pstrides).astype(np.int64)
    ioff = (offsets @ istrides).astype(np.int64)
    inside = offsets[:, 0] == 0
    rows = _slabs(image.shape, nb.get_num_threads())
    used = np.zeros(rows.shape[0] - 1, dtype=np.int64)
    flat = image.reshape(-1)
    bg = flat.dtype.type(background)
    _scan_slabs(
        flat, lab, parent, shape, pstrides, rows, poff, ioff, poff[inside], ioff[inside], bg,
        bool(multilabel), used,
    )  # fmt: skip
    cross = ~inside
    count = int(
        _merge_and_number(
            flat, lab, parent, shape, pstrides, rows, poff[cross], ioff[cross], bool(multilabel),
            used,
        )  # fmt: skip
    )
    if isinstance(out, np.ndarray):
        if not output_dtype_fits(count, out.dtype):
            raise OverflowError(f"{count} labels do not fit in the output's dtype {out.dtype}")
        result = out
    else:
        dtype = label_dtype(count) if out is None else np.dtype(out)  # type: ignore[call-overload]
        if not output_dtype_fits(count, dtype):
            raise OverflowError(f"{count} labels do not fit in the dtype {dtype}")
        result = np.empty(image.shape, dtype=dtype)
    _write_labels(lab, parent, result.reshape(-1), shape, pstrides)
    return count, result


@nb.njit(cache=True)
def _stats(labels, shape, count, sizes, starts, stops, sums):
    ndim = shape.shape[0]
    coord = np.zeros(ndim, dtype=np.int64)
    for i in range(labels.shape[0]):
        lbl = np.int64(labels[i])
        if lbl != 0:
            k = lbl - 1
            sizes[k] += 1
            for a in range(ndim):
                c = coord[a]
                if c < starts[k, a]:
                    starts[k, a] = c
                if c >= stops[k, a]:
                    stops[k, a] = c + 1
                sums[k, a] += c
        a = ndim - 1
        coord[a] += 1
        while a > 0 and coord[a] == shape[a]:
            coord[a] = 0
            a -= 1
            coord[a] += 1


def region_stats(labels: np.ndarray, count: int) -> tuple[np.ndarray, ...]:
    """``(sizes, starts, stops, coordinate sums)`` of labels ``1 .. count`` of a labelled
    C-contiguous array, in one pass: sizes ``(count,)``, the others ``(count, ndim)``;
    a label that never occurs has size 0 and an empty box (start > stop)."""
    ndim = labels.ndim
    sizes = np.zeros(count, dtype=np.int64)
    starts = np.full((count, ndim), np.iinfo(np.int64).max, dtype=np.int64)
    stops = np.zeros((count, ndim), dtype=np.int64)
    sums = np.zeros((count, ndim), dtype=np.int64)
    shape = np.array(labels.shape, dtype=np.int64)
    _stats(labels.reshape(-1), shape, count, sizes, starts, stops, sums)
    return sizes, starts, stops, sums
