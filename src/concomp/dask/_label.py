"""Labelling of chunked images and volumes: :func:`label` for Dask arrays.

Three steps, as with the edge collections: each chunk is labelled on the worker that
holds it (:func:`concomp.label`, the worker's engine); the labels of neighbouring
pixels on either side of every chunk boundary are read as pairs of provisional labels
(one slab of pixels each side, the whole extent of the other axes, so corners between
chunks are covered); a union-find over those pairs on the client
(:func:`concomp.connected_components`) joins the provisional labels. Each component is
then numbered by its first pixel in raster order, so the labels equal
``scipy.ndimage.label``'s on the whole array; the relabelling is one lazy pass over the
chunks.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .._shared.grid import label_dtype
from ..errors import InvalidImageError
from ..image._input import check_background, neighbour_offsets

__all__ = ["label"]


def label(
    image: Any,
    connectivity: int | None = None,
    *,
    structure: Any = None,
    background: Any = 0,
    multilabel: bool = False,
    return_num: bool = False,
    device: Any = "auto",
) -> Any:
    """Label the connected regions of a chunked image or volume.

    Parameters
    ----------
    image : dask.array.Array or array_like
        Bool or integer array of 1 or more dimensions, in any chunking (a NumPy array is
        taken as one chunk).
    connectivity, structure, background, multilabel
        As for :func:`concomp.label`.
    return_num : bool
        Also return the number of regions.
    device : {"auto", "cpu", "gpu"}
        The engine each worker labels its chunks with (see :func:`concomp.label`).

    Returns
    -------
    labels : dask.array.Array
        Labels ``1 .. N`` numbered in raster order of each region's first pixel, 0 for
        the background: equal to ``scipy.ndimage.label`` on the whole array. The chunks'
        own labelling has been computed (and is held by the cluster); the final
        relabelling stays lazy, one task per chunk.
    num : int
        With ``return_num=True``.

    Examples
    --------
    >>> import numpy as np, dask.array as da
    >>> from concomp.dask import label
    >>> mask = np.array([[1, 1, 0, 1], [0, 1, 0, 1], [1, 0, 0, 1]], bool)
    >>> labels, n = label(da.from_array(mask, chunks=2), return_num=True)
    >>> n, labels.compute().tolist()
    (3, [[1, 1, 0, 2], [0, 1, 0, 2], [3, 0, 0, 2]])
    """
    import dask
    import dask.array as da

    arr: Any = image if isinstance(image, da.Array) else da.from_array(np.asarray(image))
    if arr.ndim == 0 or arr.dtype.kind not in "biu":
        raise InvalidImageError(
            f"argument `image`: a Dask array of {arr.ndim} dimensions and dtype {arr.dtype} "
            "cannot be labelled; pass a bool or integer array of 1 or more dimensions."
        )
    if not arr.dtype.isnative:  # big-endian data: the same values in the machine's order
        arr = arr.astype(arr.dtype.newbyteorder("="))
    offsets = neighbour_offsets(connectivity, structure, arr.ndim, 1)
    bg = check_background(background, arr.dtype)
    # the chunks' own labels, held by the cluster: int32 unless a chunk has 2**31 pixels
    biggest = max((int(np.prod(c)) for c in itertools.product(*arr.chunks)), default=0)
    local_dtype = np.dtype(np.int32 if biggest < 2**31 - 1 else np.int64)
    local = arr.map_blocks(
        _label_chunk,
        dtype=local_dtype,
        offsets=offsets,
        background=bg,
        multilabel=multilabel,
        device=device,
        dtype_out=local_dtype,
    ).persist()
    starts = [np.concatenate([[0], np.cumsum(c)[:-1]]) for c in arr.chunks]
    grid = [len(c) for c in arr.chunks]
    blocks = list(np.ndindex(*grid))
    firsts = dask.compute(
        *[
            dask.delayed(_first_pixels)(
                local.blocks[b], tuple(int(starts[a][i]) for a, i in enumerate(b)), arr.shape
            )
            for b in blocks
        ]
    )
    counts = np.array([f.shape[0] for f in firsts], dtype=np.int64)
    base = np.zeros(len(blocks), dtype=np.int64)
    base[1:] = np.cumsum(counts)[:-1]
    total = int(counts.sum())
    first = np.concatenate([np.zeros(1, np.int64), *firsts]) if total else np.zeros(1, np.int64)
    bases = np.zeros(grid, dtype=np.int64)
    for k, b in enumerate(blocks):
        bases[b] = base[k]
    provisional = local.map_blocks(_add_base, bases=bases, dtype=np.int64)
    pairs = _boundary_pairs(arr, provisional, offsets, bg, multilabel)
    lut = _numbering(pairs, first, total)
    num = int(lut.max())
    lut = lut.astype(label_dtype(num))
    labels = provisional.map_blocks(_look_up, lut=lut, dtype=lut.dtype)
    return (labels, num) if return_num else labels


def _label_chunk(
    chunk: np.ndarray,
    offsets: np.ndarray,
    background: Any,
    multilabel: bool,
    device: Any,
    dtype_out: np.dtype,
) -> np.ndarray:
    """A chunk's own labels (0 for the background) in ``dtype_out``, on the host."""
    from ..image import label_array

    if chunk.size == 0:
        return np.zeros(chunk.shape, dtype=dtype_out)
    _, labels = label_array(
        np.ascontiguousarray(chunk), offsets, background, multilabel, dtype_out, device
    )
    return np.asarray(labels.get() if hasattr(labels, "get") else labels, dtype=dtype_out)


def _first_pixels(chunk: np.ndarray, start: tuple[int, ...], shape: tuple[int, ...]) -> np.ndarray:
    """Global raster index of the first pixel of each of a chunk's labels ``1 .. count``
    (a chunk is a box, so its own raster order agrees with the array's)."""
    flat = chunk.ravel()
    values, index = np.unique(flat, return_index=True)
    keep = values > 0
    coords = np.unravel_index(index[keep], chunk.shape)
    glob = tuple(c + s for c, s in zip(coords, start))
    return np.ravel_multi_index(glob, shape).astype(np.int64)


def _add_base(chunk: np.ndarray, bases: np.ndarray, block_info: Any = None) -> np.ndarray:
    base = bases[tuple(block_info[0]["chunk-location"])]
    return np.where(chunk > 0, chunk.astype(np.int64) + base, 0)


def _look_up(chunk: np.ndarray, lut: np.ndarray) -> np.ndarray:
    return lut[chunk]


def _boundary_pairs(
    arr: Any, provisional: Any, offsets: np.ndarray, bg: Any, multilabel: bool
) -> np.ndarray:
    """``(2, k)`` provisional labels of neighbouring foreground pixels on either side of
    every chunk boundary (for every offset that crosses it)."""
    import dask

    tasks = []
    for axis, sizes in enumerate(arr.chunks):
        crossing = offsets[offsets[:, axis] != 0]
        if crossing.shape[0] == 0:
            continue
        for p in np.cumsum(sizes)[:-1]:
            lo = (slice(None),) * axis + (slice(int(p) - 1, int(p) + 1),)
            tasks.append(
                dask.delayed(_slab_pairs)(arr[lo], provisional[lo], crossing, axis, bg, multilabel)
            )
    found = dask.compute(*tasks)
    return np.concatenate(found, axis=1) if found else np.zeros((2, 0), dtype=np.int64)


def _slab_pairs(
    values: np.ndarray,
    labels: np.ndarray,
    crossing: np.ndarray,
    axis: int,
    bg: Any,
    multilabel: bool,
) -> np.ndarray:
    """Pairs across a two-pixel slab along ``axis`` (index 0 before the boundary, 1 after)
    for the offsets of the neighbourhood that cross it, in both signs."""
    out = []
    for off in crossing:
        step = off if off[axis] > 0 else -off  # from the earlier side to the later one
        a_sl, b_sl = [], []
        for d, s in enumerate(step):
            n = values.shape[d]
            if d == axis:
                a_sl.append(slice(0, 1))
                b_sl.append(slice(1, 2))
            elif s >= 0:
                a_sl.append(slice(0, n - s))
                b_sl.append(slice(s, n))
            else:
                a_sl.append(slice(-s, n))
                b_sl.append(slice(0, n + s))
        va, vb = values[tuple(a_sl)].ravel(), values[tuple(b_sl)].ravel()
        la, lb = labels[tuple(a_sl)].ravel(), labels[tuple(b_sl)].ravel()
        join = (va != bg) & (vb != bg)
        if multilabel:
            join &= va == vb
        out.append(np.stack([la[join], lb[join]]))
    return np.concatenate(out, axis=1) if out else np.zeros((2, 0), dtype=np.int64)


def _numbering(pairs: np.ndarray, first: np.ndarray, total: int) -> np.ndarray:
    """Final label of each provisional label ``0 .. total``: provisional labels joined by
    ``pairs`` share a region, and regions are numbered by their first pixel (``first``:
    each provisional label's first pixel; entry 0, the background, is unused)."""
    from ..components import connected_components

    if total == 0:
        return np.zeros(1, dtype=np.int64)
    if pairs.shape[1]:
        _, comp = connected_components((pairs[0], pairs[1]), num_nodes=total + 1, device="cpu")
        comp = np.asarray(comp, dtype=np.int64)
    else:
        comp = np.arange(total + 1, dtype=np.int64)
    none = np.iinfo(np.int64).max
    region_first = np.full(int(comp.max()) + 1, none, dtype=np.int64)
    np.minimum.at(region_first, comp[1:], first[1:])  # label 0 is in no pair: alone
    regions = np.flatnonzero(region_first != none)
    rank = np.zeros(region_first.shape[0], dtype=np.int64)
    rank[regions[np.argsort(region_first[regions], kind="stable")]] = np.arange(
        1, regions.shape[0] + 1
    )
    lut = rank[comp]
    lut[0] = 0
    return lut
