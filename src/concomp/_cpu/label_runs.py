"""The run scans of the CPU labeller: one row of an image cut into runs.

A *run* is a maximal stretch of foreground pixels joined along the row (of one
value, with ``multilabel``). A scan appends the row's runs (start, end) to the run
arrays and records, per pixel, how many of the row's runs start at or before it:
the labeller reads the runs that a run touches in an earlier row off those counts.
Both scans are written without jumps on the pixel values, which matters most on
noisy masks, where a jump per pixel would mispredict about half the time.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["find_binary_runs", "find_runs"]


@nb.njit(cache=True)
def find_runs(img, ib, width, bg, multilabel, along, rs, re, at, cnt, cb):
    """Append the runs of the row starting at ``img[ib]`` to ``rs``/``re`` (start, end)
    from ``at``; return the new end. ``along``: pixels join their left neighbour.
    ``cnt[cb + x]`` becomes the number of the row's runs that start at or before ``x``.

    Without branches on the pixels: each pixel's start and end are stored
    unconditionally and the write positions advance by 0 or 1, which is several times
    faster than jumping on noisy masks, where a jump per pixel mispredicts half the time.
    """
    ns = at
    ne = at
    prev_fg = False
    prev = img[ib]
    for x in range(width):
        v = img[ib + x]
        fg = v != bg
        # & rather than `and`: numba turns `and` into jumps, the very thing avoided here
        joined = along & fg & prev_fg & ((v == prev) | (not multilabel))
        rs[ns] = x
        ns += fg & (not joined)
        cnt[cb + x] = ns - at
        re[ne] = x
        ne += prev_fg & (not joined)
        prev_fg = fg
        prev = v
    re[ne] = width
    return ns


@nb.njit(cache=True, inline="always")
def _binary_pixels(row, x, stop, prev, starts, ends, counts, ns, ne):
    """Pixels ``x .. stop`` of :func:`_find_binary_runs`: ``(ns, ne, prev)`` after them."""
    one = np.uint8(1)  # uint8 throughout: wider types cost a good part more here
    for j in range(x, stop):
        v = row[j]
        starts[ns] = j
        ends[ne] = j
        ns += v & (prev ^ one)
        ne += prev & (v ^ one)
        counts[j] = ns
        prev = v
    return ns, ne, prev


@nb.njit(cache=True)
def find_binary_runs(img, ib, width, words, rs, re, at, cnt, cb):
    """:func:`find_runs` for a 0/1 image (a bool mask seen as bytes, background 0,
    pixels joined along the row), in 0/1 arithmetic. With ``words``, eight pixels
    that all equal the one before them (no run starts or ends there) are passed
    with one test; worth it on rows of few runs, where most such tests succeed,
    and a loss on noisy rows, where most fail."""
    # views that start at the row's first entry: no offsets to add per pixel
    row = img[ib : ib + width]
    starts = rs[at:]
    ends = re[at:]
    counts = cnt[cb : cb + width]
    ns = 0
    ne = 0
    prev = np.uint8(0)
    x = 0
    if words:
        while x + 8 <= width:
            w = np.uint64(0)
            for j in range(8):  # LLVM combines the byte loads into one
                w |= np.uint64(row[x + j]) << np.uint64(8 * j)
            if w == np.uint64(prev) * np.uint64(0x0101010101010101):
                for j in range(8):
                    counts[x + j] = ns
            else:
                ns, ne, prev = _binary_pixels(row, x, x + 8, prev, starts, ends, counts, ns, ne)
            x += 8
    ns, ne, prev = _binary_pixels(row, x, width, prev, starts, ends, counts, ns, ne)
    ends[ne] = width
    return at + ns
