"""Connected-component labelling of images and volumes on the CPU: a run-based two-pass
numba labeller.

No edge list is built. A *row* is a line of pixels along the last axis; each row
is cut into *runs*, maximal stretches of foreground pixels joined along the row
(of one value, with ``multilabel``). Runs, not pixels, carry the provisional
labels: a run unites with the runs it touches in the earlier rows of its
neighbourhood, a contiguous range of each such row's runs read off that row's
per-pixel run counts. The scan of a row is written without jumps on the pixel
values, which matters most on noisy masks, where a jump per pixel would
mispredict about half the time (the scans are in :mod:`.label_runs`). Bool masks
(background False) are scanned 64 pixels at a time as words of bits, at a cost per
run rather than per pixel. Each row's runs are linked and labelled in one pass: a
run takes the first label it touches (or a new one) and unites the others through a
root it keeps; a 2-D mask, whose only earlier row is the one above, takes a form of
that pass with no loop over earlier rows (:func:`_scan_plane_slab`).

The image is cut into slabs of whole slices of axis 0, scanned in parallel
(``prange``); slab ``s`` numbers its labels from its own base, so the slabs
never touch each other's union-find state. A short sequential step unites the
runs across each slab boundary, one sequential pass over the used labels turns
the union-find forest into final numbers, and a parallel pass writes them (the mask
itself where there is at most one region).

The root of a set is always its smallest label (unions link the larger root
under the smaller) and labels are handed out in raster order, so a component's
root is the label of its first pixel in raster order: numbering the roots in
increasing order numbers the components in order of first appearance, as
``scipy.ndimage.label`` does.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.grid import label_dtype, output_dtype_fits
from .._shared.threads import serialized
from ..options import Options
from . import workspace
from .label_runs import find_bit_runs, find_runs, runs_upto

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
def _row_coord(r, shape, coord):
    """Fill ``coord`` with row ``r``'s coordinates along axes 0 .. ndim-2."""
    for a in range(shape.shape[0] - 2, -1, -1):
        coord[a] = r % shape[a]
        r //= shape[a]


@nb.njit(cache=True, inline="always")
def _shifted_row(r, coord, shape, delta):
    """Row number of row ``r`` (coordinates ``coord``, axes 0 .. ndim-2) moved by
    ``delta``, or -1 outside; no division, which a 3-D volume's short rows would pay
    per row and per earlier row of the neighbourhood (the scan keeps ``coord`` with
    :func:`_next_coord`)."""
    out = r
    scale = 1
    for a in range(shape.shape[0] - 2, -1, -1):
        c = coord[a] + delta[a]
        if c < 0 or c >= shape[a]:
            return -1
        out += delta[a] * scale
        scale *= shape[a]
    return out


@nb.njit(cache=True, inline="always")
def _next_coord(coord, shape):
    """Advance ``coord`` (axes 0 .. ndim-2 of a row) to the next row's."""
    a = shape.shape[0] - 2
    coord[a] += 1
    while a > 0 and coord[a] == shape[a]:
        coord[a] = 0
        a -= 1
        coord[a] += 1


@nb.njit(cache=True, inline="always")
def _adopt(parent, rl, i, t):
    """Run ``i`` joins run ``t``'s set (adopting its label while it has none)."""
    mine = rl[i]
    other = rl[t]
    if (mine == 0) | (mine == other):  # one jump, not two
        rl[i] = other
    else:
        rl[i] = _unite(parent, mine, other)


@nb.njit(cache=True)
def _link_row(img, ib, jb, lo, hi, dlo, dhi, rs, re, rl, ks, ke, parent, multilabel):
    """Unite the runs ``lo .. hi`` of the row at ``img[ib]`` with the runs ``ks .. ke`` of
    an earlier row at ``img[jb]`` that they touch (pixel ``x`` touches ``x + d`` for ``d``
    in ``[dlo, dhi]``; both lists sorted). A run without a label yet (``rl == 0``) adopts
    the first label it touches."""
    k = ks
    for i in range(lo, hi):
        s = rs[i] + dlo
        e = re[i] - 1 + dhi
        while k < ke and re[k] - 1 < s:
            k += 1
        t = k
        while t < ke and rs[t] <= e:
            if not multilabel or img[jb + rs[t]] == img[ib + rs[i]]:
                _adopt(parent, rl, i, t)
            t += 1


@nb.njit(cache=True, inline="always")
def _runs_upto(cnt, qc, sw, sb, qw, x):
    """How many runs of an earlier row start at or before pixel ``x``: off its bit words
    where the row was scanned 64 pixels at a time (``sw`` not empty), else off its
    per-pixel counts."""
    if sw.shape[0]:
        return runs_upto(sw, sb, qw, x)
    return np.int64(cnt[qc + x])


@nb.njit(cache=True)
def _scan_slab(
    img, shape, rows, s, groups, bg, ml, along, bits, rs, re, rl, first, last, parent, base
):
    """Runs and provisional labels of slab ``s`` (rows ``rows[s] .. rows[s+1]``); returns
    how many labels it used from ``base``. ``bits``: empty, or ``img`` as 0/1 bytes where
    it is a mask with background 0 and ``along`` is set (:func:`.find_bit_runs`
    applies; a separate argument, so that images of other dtypes still compile)."""
    width = shape[shape.shape[0] - 1]
    per_slice = rows[-1] // shape[0]
    # run counts of the last `ring` rows: every earlier row of the neighbourhood is
    # fewer than per_slice * ndim rows back; per pixel, or per 64-pixel word of bits
    ring = per_slice * shape.shape[0] + 1
    words = (width + 63) // 64
    bitwise = bits.shape[0] > 0
    cnt = np.empty(0 if bitwise else ring * width, dtype=rs.dtype)
    sw = np.empty(ring * words if bitwise else 0, dtype=np.uint64)
    sb = np.empty(ring * words if bitwise else 0, dtype=np.int64)
    # the earlier rows a row links with: row, first run, place in the ring, reach
    near = np.empty((groups.shape[0], 5), dtype=np.int64)
    nxt = base
    hi = rows[s] * width  # the slab's runs are stored one after another from here
    # the row's coordinates (axes 0 .. ndim-2) and place in the ring, kept as the rows
    # go: divisions per row and per earlier row were a share of a volume's short rows
    coord = np.zeros(shape.shape[0] - 1, dtype=np.int64)
    _row_coord(rows[s], shape, coord)
    at = rows[s] % ring
    for r in range(rows[s], rows[s + 1]):
        cb = at * width
        lo = hi
        if bitwise:
            hi = find_bit_runs(bits, r * width, width, rs, re, lo, sw, sb, at * words)
        else:
            hi = find_runs(img, r * width, width, bg, ml, along, rs, re, lo, cnt, cb)
        first[r] = lo
        last[r] = hi
        count = 0
        for g in range(groups.shape[0]):
            if groups[g, 0] == -1 and r - rows[s] < per_slice:
                continue  # the slab's first slice: the earlier slice is another slab's
            q = _shifted_row(r, coord, shape, groups[g, : shape.shape[0] - 1])
            if q < 0:
                continue
            qa = at - (r - q)  # q's place in the ring (q is fewer than `ring` rows back)
            qa += ring * (qa < 0)
            near[count, 0] = q
            near[count, 1] = first[q]
            near[count, 2] = qa
            near[count, 3] = groups[g, -2]
            near[count, 4] = groups[g, -1]
            count += 1
        if ml:
            nxt = _link_values(img, r * width, lo, hi, near, count, rs, re, rl, cnt, sw, sb,
                               width, words, parent, nxt)  # fmt: skip
        else:
            nxt = _link_runs(lo, hi, near, count, rs, re, rl, cnt, sw, sb, width, words, parent,
                             nxt)  # fmt: skip
        _next_coord(coord, shape)
        at += 1
        at -= ring * (at == ring)
    return nxt - base


@nb.njit(cache=True, inline="always")
def _touched(near, k, i, rs, re, cnt, sw, sb, width, words):
    """The runs ``t0 .. t1`` of earlier row ``near[k]`` that run ``i`` touches (``t1 <=
    t0``: none), read off that row's run counts (:func:`_runs_upto`) with no search."""
    a = np.int64(rs[i]) + near[k, 3]
    b = np.int64(re[i]) - 1 + near[k, 4]
    if a >= width or b < 0:  # a one-sided neighbourhood reaching past the row
        return 0, 0
    a = max(a, 0)
    b = min(b, width - 1)
    ks, qa = near[k, 1], near[k, 2]
    upto_a = _runs_upto(cnt, qa * width, sw, sb, qa * words, a)
    # the last run starting at or before a touches the reach if it ends after a
    t0 = ks + upto_a - ((upto_a > 0) & (re[max(ks + upto_a - 1, ks)] > a))
    return t0, ks + _runs_upto(cnt, qa * width, sw, sb, qa * words, b)


@nb.njit(cache=True)
def _unite_runs(parent, label, rl, t0, t1):
    """Unite ``label`` with the labels of runs ``t0 .. t1``; returns the set's root. The
    root kept stays a root throughout (nothing else links meanwhile): one find per run,
    and a link without jumps."""
    mine = _find(parent, label)
    for t in range(t0, t1):
        root = _find(parent, rl[t])
        low = min(mine, root)
        parent[max(mine, root)] = low  # a no-op where both are one root
        mine = low
    return mine


@nb.njit(cache=True, inline="always")
def _new_label(parent, rl, i, label, nxt):
    """Run ``i`` keeps ``label``, or takes ``nxt`` where it touched nothing (``label`` 0),
    without a jump: ``parent[nxt]`` is written either way, and is free until ``nxt`` is
    handed out. Returns the next free label."""
    parent[nxt] = nxt
    new = label == 0
    rl[i] = nxt if new else label
    return nxt + new


@nb.njit(cache=True)
def _link_runs(lo, hi, near, count, rs, re, rl, cnt, sw, sb, width, words, parent, nxt):
    """Label the runs ``lo .. hi`` of a row from the runs they touch in its ``count``
    earlier rows (``near``), from ``nxt`` on where they touch none; returns the next free
    label. Each run, its rows in turn, takes the first label it touches and unites the
    others with one root that stays a root throughout. One pass over the runs: a pass per
    earlier row read and wrote every run's label again."""
    for i in range(lo, hi):
        label = 0
        for k in range(count):
            t0, t1 = _touched(near, k, i, rs, re, cnt, sw, sb, width, words)
            if t0 >= t1:
                continue
            start = t0
            if label == 0:
                label = rl[t0]
                start = t0 + 1
            if start < t1:
                label = _unite_runs(parent, label, rl, start, t1)
        nxt = _new_label(parent, rl, i, label, nxt)
    return nxt


@nb.njit(cache=True)
def _link_values(img, ib, lo, hi, near, count, rs, re, rl, cnt, sw, sb, width, words, parent, nxt):
    """:func:`_link_runs` with ``multilabel``: a run joins only the touched runs of its
    own value."""
    for i in range(lo, hi):
        rl[i] = 0
        for k in range(count):
            t0, t1 = _touched(near, k, i, rs, re, cnt, sw, sb, width, words)
            jb = near[k, 0] * width
            for t in range(t0, t1):
                if img[jb + rs[t]] == img[ib + rs[i]]:
                    _adopt(parent, rl, i, t)
        nxt = _new_label(parent, rl, i, rl[i], nxt)
    return nxt


@nb.njit(cache=True)
def _scan_plane_slab(bits, width, r0, r1, linked, dlo, dhi, rs, re, rl, first, last, parent, base):
    """:func:`_scan_slab` for a 2-D 0/1 mask whose earlier neighbours lie in the row above
    (``linked``: pixel ``x`` touches ``x + d`` of that row for ``d`` in ``[dlo, dhi]``) or
    nowhere, rows ``r0 .. r1``: one pass over each row's runs links and labels them.

    A run reads the range of runs it touches above off that row's bit words, takes the
    first one's label (or the next new one) without a jump, and unites the others; the
    general scan's separate passes (clearing the labels, one link pass per earlier row,
    handing out new labels) each read and wrote every run again.
    """
    words = (width + 63) // 64
    sw = np.empty(2 * words, dtype=np.uint64)  # the bit words of this row and the one above
    sb = np.empty(2 * words, dtype=np.int64)
    nxt = base
    hi = r0 * width  # the slab's runs are stored one after another from here
    above = hi
    for r in range(r0, r1):
        lo = hi
        at = (r & 1) * words
        hi = find_bit_runs(bits, r * width, width, rs, re, lo, sw, sb, at)
        first[r] = lo
        last[r] = hi
        if r == r0 or not linked:  # the row above is another slab's (or no neighbour)
            for i in range(lo, hi):
                nxt = _new_label(parent, rl, i, 0, nxt)
            above = lo
            continue
        qw = words - at
        for i in range(lo, hi):
            a = np.int64(rs[i]) + dlo
            b = np.int64(re[i]) - 1 + dhi
            if a >= width or b < 0:  # a one-sided neighbourhood reaching past the row
                nxt = _new_label(parent, rl, i, 0, nxt)
                continue
            a = max(a, 0)
            b = min(b, width - 1)
            upto_a = runs_upto(sw, sb, qw, a)
            # the last run starting at or before a touches the reach if it ends after a
            t0 = above + upto_a - ((upto_a > 0) & (re[max(above + upto_a - 1, above)] > a))
            t1 = above + runs_upto(sw, sb, qw, b)
            # the first run touched, read either way (0: none)
            label = rl[max(min(t0, t1 - 1), above)] if t0 < t1 else 0
            if t0 + 1 < t1:  # more runs above
                label = _unite_runs(parent, label, rl, t0 + 1, t1)
            nxt = _new_label(parent, rl, i, label, nxt)
        above = lo
    return nxt - base


@serialized
@nb.njit(cache=True, parallel=True)
def _scan_slabs(
    img, shape, rows, groups, bg, ml, along, bits, rs, re, rl, first, last, parent, used
):
    width = shape[shape.shape[0] - 1]
    # a 2-D mask scanned as bits with at most the row above as earlier neighbours: the
    # one-pass form (every 2-D connectivity; structures reaching only along the row too)
    plane = bits.shape[0] > 0 and shape.shape[0] == 2 and groups.shape[0] <= 1
    linked = groups.shape[0] == 1
    dlo = groups[0, -2] if linked else 0
    dhi = groups[0, -1] if linked else 0
    for i in nb.prange(rows.shape[0] - 1):
        s = np.int64(i)
        base = rows[s] * width + 1
        if plane:
            used[s] = _scan_plane_slab(
                bits, width, rows[s], rows[s + 1], linked, dlo, dhi, rs, re, rl, first, last,
                parent, base,
            )  # fmt: skip
        else:
            used[s] = _scan_slab(
                img, shape, rows, s, groups, bg, ml, along, bits, rs, re, rl, first, last,
                parent, base,
            )  # fmt: skip


@nb.njit(cache=True)
def _merge_and_number(img, shape, rows, groups, ml, rs, re, rl, first, last, parent, used):
    """Unite runs across slab boundaries, then number the roots in increasing order:
    ``parent[l]`` becomes label ``l``'s final number. Returns the count."""
    width = shape[shape.shape[0] - 1]
    per_slice = rows[-1] // shape[0]
    coord = np.zeros(shape.shape[0] - 1, dtype=np.int64)
    for s in range(1, rows.shape[0] - 1):
        for r in range(rows[s], rows[s] + per_slice):
            _row_coord(r, shape, coord)
            for g in range(groups.shape[0]):
                if groups[g, 0] != -1:
                    continue
                q = _shifted_row(r, coord, shape, groups[g, : shape.shape[0] - 1])
                if q >= 0:
                    _link_row(
                        img, r * width, q * width, first[r], last[r], groups[g, -2],
                        groups[g, -1], rs, re, rl, first[q], last[q], parent, ml,
                    )  # fmt: skip
    count = 0
    for s in range(rows.shape[0] - 1):
        base = rows[s] * width + 1
        for lbl in range(base, base + used[s]):
            # parent[lbl] <= lbl, and a smaller label already holds its final number
            if parent[lbl] == lbl:
                count += 1
                parent[lbl] = count
            else:
                parent[lbl] = parent[parent[lbl]]
    return count


@serialized
@nb.njit(cache=True, parallel=True)
def _write_labels(out, width, rows, rs, re, rl, first, last, parent):
    for i in nb.prange(rows.shape[0] - 1):
        for r in range(rows[i], rows[i + 1]):
            ob = r * width
            if 16 * (last[r] - first[r]) <= width:
                # few long runs: fill each (the fills are long enough to vectorise)
                x = 0
                for k in range(first[r], last[r]):
                    number = parent[rl[k]]
                    out[ob + x : ob + rs[k]] = 0
                    out[ob + rs[k] : ob + re[k]] = number
                    x = re[k]
                out[ob + x : ob + width] = 0
                continue
            # Many short runs: the row cleared, then each run written in whole blocks of 8
            # pixels (one vector store each; most runs need one) and the 8 pixels after it
            # cleared again (a later run rewrites what they cover): no loop per pixel of a
            # run, whose exit would mispredict on short runs.
            o = out[ob : ob + width]
            for x in range(width):
                o[x] = 0
            for k in range(first[r], last[r]):
                number = parent[rl[k]]
                s = np.int64(rs[k])
                e = np.int64(re[k])
                if e + 8 <= width:
                    x = s
                    while True:
                        for j in range(8):
                            o[x + j] = number
                        x += 8
                        if x >= e:
                            break
                    for j in range(8):
                        o[e + j] = 0
                else:  # near the row's end: pixel by pixel, inside the row
                    for x in range(s, e):
                        o[x] = number


@serialized
@nb.njit(cache=True, parallel=True)
def _write_mask(out, flat, bg, width, rows):
    """Label 1 on every foreground pixel, 0 elsewhere: the labels of an image with at most
    one region, without reading the runs (slab by slab, as the slabs are handed out)."""
    for i in nb.prange(rows.shape[0] - 1):
        o = out[rows[i] * width : rows[i + 1] * width]
        f = flat[rows[i] * width : rows[i + 1] * width]
        for p in range(o.shape[0]):
            o[p] = 1 if f[p] != bg else 0  # a select on slices: LLVM vectorises it


#: Slabs per thread: more than one, so that a slab held up (an uneven slab, a thread the
#: OS holds back) leaves the rest to the others; few, because each slab's runs and labels
#: start on pages of their own in every scratch array, which the OS zeroes whole where the
#: scratch is new (a first call, or a set past ``workspace.KEEP_BYTES``), and each slab
#: boundary is merged in a sequential step.
SLABS_PER_THREAD = 2


def _slabs(shape: tuple[int, ...], threads: int) -> np.ndarray:
    """Row numbers where the slabs start (and the end): whole slices of axis 0,
    :data:`SLABS_PER_THREAD` per thread."""
    per_slice = int(np.prod(shape[1:-1], dtype=np.int64))
    pieces = max(1, min(shape[0], SLABS_PER_THREAD * threads if threads > 1 else 1))
    cuts = np.linspace(0, shape[0], pieces + 1).astype(np.int64)
    return np.unique(cuts) * per_slice


def _row_groups(offsets: np.ndarray) -> tuple[np.ndarray, bool]:
    """Earlier offsets grouped by row: ``(g, ndim + 1)`` rows ``(row offset per axis
    0 .. ndim-2, dlo, dhi)``, one per contiguous stretch of ``dx``; and whether a pixel
    joins its left neighbour (the offset ``(0, ..., 0, -1)``)."""
    ndim = offsets.shape[1]
    along = bool(np.any(np.all(offsets[:, :-1] == 0, axis=1)))
    out = []
    for row in sorted({tuple(o[:-1]) for o in offsets.tolist()} - {(0,) * (ndim - 1)}):
        dx = sorted(o[-1] for o in offsets.tolist() if tuple(o[:-1]) == row)
        start = dx[0]
        for a, b in zip(dx, dx[1:] + [None]):
            if b is None or b != a + 1:
                out.append((*row, start, a))
                start = b
    return np.array(out, dtype=np.int64).reshape(-1, ndim + 1), along


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
    width = int(shape[-1])
    nrows = image.size // width
    ltype = np.int32 if image.size + 1 < 2**31 else np.int64
    groups, along = _row_groups(offsets)
    # a slab holds at most as many runs as pixels; the run arrays are reserved at that
    # size, each slab's part filled from its start, so only pages holding runs are touched
    # positions within a row: 16 bits where the rows allow (fewer pages to touch)
    ptype = np.uint16 if width < np.iinfo(np.uint16).max else ltype
    first = np.empty(nrows, dtype=np.int64)
    last = np.empty(nrows, dtype=np.int64)
    rows = _slabs(image.shape, nb.get_num_threads())
    used = np.zeros(rows.shape[0] - 1, dtype=np.int64)
    flat = image.reshape(-1)
    bg = flat.dtype.type(background)
    ml = bool(multilabel)
    # a mask with background False is a 0/1 byte image: the run scan has a faster form
    binary = flat.dtype == np.bool_ and not bg and not ml and along
    bits = flat.view(np.uint8) if binary else np.empty(0, dtype=np.uint8)
    # the run arrays: the last call's where they fit (their pages are already the
    # process's; fresh ones cost a fault and a zeroing each on first touch)
    scratch = workspace.arrays(
        "label",
        rs=(image.size, ptype),
        re=(image.size, ptype),
        rl=(image.size, ltype),
        parent=(image.size + 1, ltype),
    )
    # slabs handed out one at a time: a thread that the OS holds back on a busy machine
    # leaves its slabs to the others instead of holding up the whole pass
    chunk = nb.set_parallel_chunksize(1)
    try:
        with scratch as a:
            rs, re, rl, parent = a["rs"], a["re"], a["rl"], a["parent"]
            _scan_slabs(
                flat, shape, rows, groups, bg, ml, along, bits, rs, re, rl, first, last,
                parent, used,
            )  # fmt: skip
            count, result = _numbered(
                flat, shape, rows, groups, ml, rs, re, rl, first, last, parent, used, out,
                image.shape,
            )  # fmt: skip
            if count <= 1:  # one region (a maze, a spiral) or none: the labels are the mask
                _write_mask(result.reshape(-1), flat, bg, width, rows)
            else:
                _write_labels(result.reshape(-1), width, rows, rs, re, rl, first, last, parent)
    finally:
        nb.set_parallel_chunksize(chunk)
    return count, result


def _numbered(flat, shape, rows, groups, ml, rs, re, rl, first, last, parent, used, out, dims):
    """Merge the slabs and number the labels; ``(count, the array to write them into)``."""
    count = int(
        _merge_and_number(flat, shape, rows, groups, ml, rs, re, rl, first, last, parent, used)
    )
    if isinstance(out, np.ndarray):
        if not output_dtype_fits(count, out.dtype):
            raise OverflowError(f"{count} labels do not fit in the output's dtype {out.dtype}")
        return count, out
    dtype = label_dtype(count) if out is None else np.dtype(out)
    if not output_dtype_fits(count, dtype):
        raise OverflowError(f"{count} labels do not fit in the dtype {dtype}")
    return count, np.empty(dims, dtype=dtype)


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
