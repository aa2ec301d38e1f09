"""Token-level numba kernels shared by the scanners of :mod:`concomp.io._parse`.

Kernels never raise: they return one of the error codes below, which the scanners
pass up with the byte offset of the offending line. Weights are read by
:func:`_store_weight`: an integer as int64, a short decimal (at most 15 significant
digits, exponent within +-22) converted exactly, any other token left by its byte
offset for NumPy's correctly rounded string-to-float cast (see
:func:`concomp.io._parse.finish_weights`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

OK, BAD_NUMBER, TOO_FEW, TOO_MANY, COLS, LOW_ID, HIGH_ID, BIG, PREFIX, EXTRA, WIDE = range(11)
_NL, _SP, _TAB, _CR, _COMMA, _QUOTE = 10, 32, 9, 13, 44, 34
_MAX_DIGITS = 18  # 10**18 < 2**63: no overflow check needed inside the digit loop


@nb.njit(cache=True, nogil=True, inline="always")
def _is_sep(c, delim):
    return c == _SP or c == _TAB or c == _CR or c == _COMMA or c == _QUOTE or c == delim


_LOW7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_NL8 = np.uint64(0x0A0A0A0A0A0A0A0A)  # a newline in every byte
_BYTE_ONES = np.uint64(0x0101010101010101)


@nb.njit(cache=True, nogil=True)
def _count_newlines(buf, lo, hi):
    """Newline bytes in ``buf[lo:hi]``, eight at a time: the scanners' line counts.

    A byte of ``w ^ _NL8`` is zero exactly where ``w`` holds a newline;
    ``~(((x & 0x7F..) + 0x7F..) | x | 0x7F..)`` sets the top bit of exactly the zero
    bytes of ``x`` (no carry crosses a byte), and the multiply adds those bits up.
    A byte-at-a-time loop ran at a tenth of the speed.
    """
    k = 0
    i = lo
    while i < hi and i % 8:
        k += buf[i] == _NL
        i += 1
    words = max((hi - i) // 8, 0)
    packed = buf[i : i + 8 * words].view(np.uint64)
    acc = np.uint64(0)
    for j in range(words):
        x = packed[j] ^ _NL8
        top = ~(((x & _LOW7) + _LOW7) | x | _LOW7)
        acc += ((top >> np.uint64(7)) * _BYTE_ONES) >> np.uint64(56)
    k += np.int64(acc)
    for t in range(i + 8 * words, hi):
        k += buf[t] == _NL
    return k


@nb.njit(cache=True, nogil=True)
def _skip_comments(buf, pos, comment):
    """Start of the first line from ``pos`` that is neither blank nor a comment."""
    n = buf.shape[0]
    while pos < n:
        line = pos
        while pos < n and (buf[pos] == _SP or buf[pos] == _TAB or buf[pos] == _CR):
            pos += 1
        if pos < n and buf[pos] != _NL:
            hit = False
            for c in comment:
                hit = hit or buf[pos] == c
            if not hit:
                return line
        while pos < n and buf[pos] != _NL:
            pos += 1
        pos += 1
    return n


@nb.njit(cache=True, nogil=True)
def _skip_line(buf, pos):
    n = buf.shape[0]
    while pos < n and buf[pos] != _NL:
        pos += 1
    return pos


@nb.njit(cache=True, nogil=True)
def _parse_uint(buf, pos, delim):
    """(value, new_pos, error code) of an unsigned decimal ending at a separator or line end."""
    n = buf.shape[0]
    if pos < n and buf[pos] == 43:  # '+'
        pos += 1
    v = 0
    nd = 0
    while pos < n and 48 <= buf[pos] <= 57:
        v = v * 10 + (buf[pos] - 48)
        nd += 1
        pos += 1
    end_ok = pos >= n or buf[pos] == _NL or _is_sep(buf[pos], delim)
    if nd == 0 or not end_ok:
        return v, pos, BAD_NUMBER
    if nd > _MAX_DIGITS:
        return v, pos, BIG
    return v, pos, OK


_POW10 = np.array([10.0**i for i in range(23)])  # exactly representable powers of ten


@nb.njit(cache=True, nogil=True)
def _store_weight(buf, pos, delim, w, wf, isf, k):
    """Parse the weight token at ``pos`` into edge ``k``; return ``(new_pos, not an int)``.

    An integer goes to ``w`` (int64). A decimal with at most 15 significant digits
    and a decimal exponent within +-22 is converted exactly (Clinger's fast path: one
    correctly rounded multiply or divide of exact operands) into ``wf``, the float64
    view of ``w`` (``isf = 1``). Any other token keeps its byte offset (``isf = 2``)
    for NumPy's correctly rounded parser in :func:`finish_weights`.
    """
    n = buf.shape[0]
    start = pos
    neg = pos < n and buf[pos] == 45
    if pos < n and (buf[pos] == 45 or buf[pos] == 43):
        pos += 1
    mant = 0
    nd = 0
    sig = 0
    frac = 0
    while pos < n and 48 <= buf[pos] <= 57:
        d = buf[pos] - 48
        sig += sig > 0 or d > 0
        mant = mant * 10 + d
        nd += 1
        pos += 1
    if 0 < nd <= _MAX_DIGITS and (pos >= n or buf[pos] == _NL or _is_sep(buf[pos], delim)):
        w[k] = -mant if neg else mant
        return pos, False
    if pos < n and buf[pos] == 46:  # '.'
        pos += 1
        while pos < n and 48 <= buf[pos] <= 57:
            d = buf[pos] - 48
            sig += sig > 0 or d > 0
            mant = mant * 10 + d
            frac += 1
            nd += 1
            pos += 1
    ok = nd > 0
    e = 0
    if ok and pos < n and (buf[pos] == 101 or buf[pos] == 69):  # 'e' or 'E'
        pos += 1
        eneg = pos < n and buf[pos] == 45
        if pos < n and (buf[pos] == 45 or buf[pos] == 43):
            pos += 1
        ok = pos < n and 48 <= buf[pos] <= 57
        while pos < n and 48 <= buf[pos] <= 57:
            e = min(e * 10 + (buf[pos] - 48), 100000)
            pos += 1
        if eneg:
            e = -e
    e -= frac
    if (
        ok
        and sig <= 15
        and -22 <= e <= 22
        and (pos >= n or buf[pos] == _NL or _is_sep(buf[pos], delim))
    ):
        x = mant * _POW10[e] if e >= 0 else mant / _POW10[-e]
        wf[k] = -x if neg else x
        isf[k] = 1
        return pos, True
    while pos < n and buf[pos] != _NL and not _is_sep(buf[pos], delim):
        pos += 1
    w[k] = start
    isf[k] = 2
    return pos, True


@nb.njit(cache=True, nogil=True)
def _gather_tokens(buf, starts, delim):
    """Copy each token starting at ``starts[i]`` into row i of a zero-padded matrix."""
    n = buf.shape[0]
    width = 1
    for s in starts:
        e = s
        while e < n and buf[e] != _NL and not _is_sep(buf[e], delim):
            e += 1
        width = max(width, e - s)
    out = np.zeros((starts.shape[0], width), np.uint8)
    for i in range(starts.shape[0]):
        j = starts[i]
        t = 0
        while j < n and buf[j] != _NL and not _is_sep(buf[j], delim):
            out[i, t] = buf[j]
            t += 1
            j += 1
    return out
