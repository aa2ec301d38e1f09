"""The run scans of the CPU labeller: one row of an image cut into runs.

A *run* is a maximal stretch of foreground pixels joined along the row (of one
value, with ``multilabel``). A scan appends the row's runs (start, end) to the run
arrays and records how many of the row's runs start at or before each pixel: the
labeller reads the runs that a run touches in an earlier row off those counts.
:func:`find_runs` (any image) writes the count per pixel, without jumps on the
pixel values, which matters most on noisy masks, where a jump per pixel would
mispredict about half the time. :func:`find_bit_runs` (a 0/1 mask) turns 64 pixels
into one word of bits and visits only where runs start and end; the counts are
read off the words (:func:`runs_upto`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .bits import popcount64, trailing_zeros64

__all__ = ["find_bit_runs", "find_runs", "runs_upto"]


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


#: Multiplying eight 0/1 bytes (byte ``j`` holding pixel ``j``) by this puts pixel ``j``
#: in bit ``56 + j`` of the product: the eight pixels as one byte, in order.
_GATHER = np.uint64(0x0102040810204080)


@nb.njit(cache=True, inline="always")
def _pixel_bits(row, x0, count):
    """Pixels ``x0 .. x0 + count`` (``count <= 64``) of a 0/1 byte row as the bits of a
    word, pixel ``x0 + j`` in bit ``j``."""
    b = np.uint64(0)
    if count == 64:
        for q in range(8):
            w = np.uint64(0)
            for j in range(8):  # LLVM combines the byte loads into one
                w |= np.uint64(row[x0 + 8 * q + j]) << np.uint64(8 * j)
            b |= ((w * _GATHER) >> np.uint64(56)) << np.uint64(8 * q)
    else:
        for j in range(count):
            b |= np.uint64(row[x0 + j]) << np.uint64(j)
    return b


@nb.njit(cache=True)
def find_bit_runs(img, ib, width, rs, re, at, sw, sb, wb):
    """:func:`find_runs` for a 0/1 image (a bool mask seen as bytes, background 0,
    pixels joined along the row), 64 pixels at a time: the row becomes words of bits,
    a run starts where a bit is set and the one before it is not, and only the starts
    and ends are visited (cost per run, not per pixel).

    Instead of per-pixel run counts, word ``k`` of the row keeps the bits where runs
    start (``sw[wb + k]``) and how many start in the words before it
    (``sb[wb + k]``): :func:`runs_upto` reads the count at any pixel off them.
    """
    row = img[ib : ib + width]
    starts = rs[at:]
    ends = re[at:]
    ns = 0
    ne = 0
    carry = np.uint64(0)
    one = np.uint64(1)
    for k in range((width + 63) // 64):
        x0 = 64 * k
        b = _pixel_bits(row, x0, min(64, width - x0))
        before = (b << one) | carry
        st = b & ~before
        en = ~b & before  # pixel x is background, x - 1 is not: a run ends at x
        carry = b >> np.uint64(63)
        sw[wb + k] = st
        sb[wb + k] = ns
        while st:
            starts[ns] = x0 + trailing_zeros64(st)
            ns += 1
            st &= st - one
        while en:
            ends[ne] = x0 + trailing_zeros64(en)
            ne += 1
            en &= en - one
    # a run still open at the row's end (only where width is a multiple of 64; else its
    # end was found at bit width - x0 of the last word); a spare slot otherwise
    ends[ne] = width
    return at + ns


@nb.njit(cache=True, inline="always")
def runs_upto(sw, sb, wb, x):
    """How many runs of the row whose words start at ``wb`` start at or before pixel
    ``x`` (:func:`find_bit_runs`)."""
    k = x >> 6
    upto = np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(63 - (x & 63))
    return sb[wb + k] + popcount64(sw[wb + k] & upto)
