"""Line scanners (numba) over a whole text graph file held as a ``uint8`` array.

:func:`_scan_edges` reads the bodies of SNAP, CSV, DIMACS, PACE and Matrix Market
files; :func:`_scan_metis` reads METIS adjacency lists, where a line is a vertex,
not an edge. Both return an error code and the byte offset of the offending line
instead of raising; :mod:`concomp.io._parse` turns that into a message.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._shared.threads import serialized
from ._lex import (
    _COMMA,
    _CR,
    _MAX_DIGITS,
    _NL,
    _POW10,
    _SP,
    _TAB,
    COLS,
    EXTRA,
    HIGH_ID,
    LOW_ID,
    OK,
    PREFIX,
    TOO_FEW,
    TOO_MANY,
    WIDE,
    _is_sep,
    _parse_uint,
    _skip_line,
    _store_weight,
)


@nb.njit(cache=True, nogil=True)
def _scan_edges(
    buf, pos, stop, comment, prefix, min_id, max_id, ncols, max_cols, delim, src, dst, w, isf
):
    """Fill ``src, dst, w, isf`` from the lines in ``buf[pos:stop]``.

    Returns ``(edges, float weights, error code, offset, columns)``; the offset is
    the start of the bad line on error.
    """
    n = stop
    # ids are stored in the output's dtype (int32 when it can hold them, sparing the
    # copy to int32 later); an id that does not fit asks the caller for int64 arrays
    limit = np.iinfo(src.dtype).max
    hi = min(max_id, limit)
    wf = w.view(np.float64)
    k = 0
    nfloat = 0
    while pos < n:
        line = pos
        # Fast path for the common line "[p ]u<sep>v[<sep>w][\\r]\\n" (one separator byte,
        # unsigned ids, integer weight), written inline: as a helper returning a tuple it
        # ran slower. Anything else, errors included, falls through to the general path.
        if ncols != 0 and (
            prefix == 0 or (buf[pos] == prefix and pos + 1 < n and buf[pos + 1] == _SP)
        ):
            if prefix != 0:
                pos += 2
            t0 = pos
            c = buf[pos] if pos < n else _NL
            u = 0
            while 48 <= c <= 57:
                u = u * 10 + (c - 48)
                pos += 1
                c = buf[pos] if pos < n else _NL
            if t0 < pos <= t0 + _MAX_DIGITS and (
                c == _TAB or c == _SP or c == _COMMA or c == delim
            ):
                pos += 1
                t0 = pos
                c = buf[pos] if pos < n else _NL
                v = 0
                while 48 <= c <= 57:
                    v = v * 10 + (c - 48)
                    pos += 1
                    c = buf[pos] if pos < n else _NL
                good = t0 < pos <= t0 + _MAX_DIGITS
                x = 0
                wstart = pos
                frac = -1  # digits after the point; -1: an integer weight
                if good and ncols == 3:
                    good = c == _TAB or c == _SP or c == _COMMA or c == delim
                    pos += 1
                    wstart = pos
                    c = buf[pos] if pos < n else _NL
                    neg = c == 45
                    if neg:
                        pos += 1
                        c = buf[pos] if pos < n else _NL
                    t0 = pos
                    while 48 <= c <= 57:
                        x = x * 10 + (c - 48)
                        pos += 1
                        c = buf[pos] if pos < n else _NL
                    nd = pos - t0
                    if c == 46:  # a short decimal is exact: <= 15 digits / 10**frac
                        pos += 1
                        t0 = pos
                        c = buf[pos] if pos < n else _NL
                        while 48 <= c <= 57:
                            x = x * 10 + (c - 48)
                            pos += 1
                            c = buf[pos] if pos < n else _NL
                        frac = pos - t0
                        nd += frac
                        good = good and nd > 0
                        if nd > 15 or (neg and x == 0):  # inexact (or -0.0): NumPy converts
                            frac = -2
                    else:
                        good = good and 0 < nd <= _MAX_DIGITS
                    if neg:
                        x = -x
                if c == _CR:
                    pos += 1
                    c = buf[pos] if pos < n else _NL
                if good and c == _NL and min_id <= u <= hi and min_id <= v <= hi:
                    src[k] = u
                    dst[k] = v
                    if frac >= 0:
                        wf[k] = x / _POW10[frac]
                        isf[k] = 1
                        nfloat += 1
                    elif frac == -2:
                        w[k] = wstart
                        isf[k] = 2
                        nfloat += 1
                    elif ncols == 3:
                        w[k] = x
                    k += 1
                    pos += 1
                    continue
            pos = line
        while pos < n and (buf[pos] == _SP or buf[pos] == _TAB or buf[pos] == _CR):
            pos += 1
        if pos >= n:
            break
        c = buf[pos]
        if c == _NL:
            pos += 1
            continue
        is_comment = False
        for cc in comment:
            if c == cc:
                is_comment = True
        if is_comment:
            pos = _skip_line(buf, pos) + 1
            continue
        if prefix != 0:
            if c != prefix or not (pos + 1 < n and _is_sep(buf[pos + 1], delim)):
                return k, nfloat, PREFIX, line, ncols
            pos += 1
        ntok = 0
        u = v = 0
        while True:
            while pos < n and _is_sep(buf[pos], delim):
                pos += 1
            if pos >= n or buf[pos] == _NL:
                break
            c = buf[pos]
            trailing_comment = False
            for cc in comment:
                if c == cc:
                    trailing_comment = True
            if trailing_comment:
                pos = _skip_line(buf, pos)
                break
            if ntok < 2:
                x, pos, err = _parse_uint(buf, pos, delim)
                if err != OK:
                    return k, nfloat, err, line, ncols
                if x < min_id:
                    return k, nfloat, LOW_ID, line, ncols
                if x > max_id:
                    return k, nfloat, HIGH_ID, line, ncols
                if x > limit:
                    return k, nfloat, WIDE, line, ncols
                if ntok == 0:
                    u = x
                else:
                    v = x
            elif ntok == 2:
                pos, f = _store_weight(buf, pos, delim, w, wf, isf, k)
                nfloat += f
            else:
                if ntok >= max_cols:
                    return k, nfloat, TOO_MANY, line, ncols
                while pos < n and buf[pos] != _NL and not _is_sep(buf[pos], delim):
                    pos += 1
            ntok += 1
        if ntok < 2:
            return k, nfloat, TOO_FEW, line, ncols
        got = 3 if ntok >= 3 else 2
        if ncols == 0:
            ncols = got
        elif got != ncols:
            return k, nfloat, COLS, line, ncols
        src[k] = u
        dst[k] = v
        k += 1
        pos += 1
    return k, nfloat, OK, pos, ncols


@nb.njit(cache=True)
def _scan_metis(buf, pos, final, nv, lead, has_ew, delim, indptr, indices, w, isf, state):
    """Add one block of METIS lines to a CSR being built; ``lead`` integers open each
    line (vertex size/weights). ``state`` holds (vertex lines so far, entries so far,
    weights that are not integers) and carries over to the next block; the block ends
    after a newline, and only the ``final`` one counts the empty line at the end of the
    file as a vertex line. Returns ``(error code, byte offset of its line)``."""
    n = buf.shape[0]
    cap = indices.shape[0]
    wf = w.view(np.float64)
    row = state[0]
    k = state[1]
    nfloat = state[2]
    err = OK
    line = n
    while pos < n or (final and pos == n):
        line = pos
        if pos < n and buf[pos] == 37:  # '%' comment lines are not vertices
            pos = _skip_line(buf, pos) + 1
            continue
        ntok = 0
        while True:
            while pos < n and _is_sep(buf[pos], delim):
                pos += 1
            if pos >= n or buf[pos] == _NL:
                break
            if row >= nv:
                err = EXTRA
                break
            if ntok < lead:
                x, pos, err = _parse_uint(buf, pos, delim)
                if err != OK:
                    break
            elif not has_ew or (ntok - lead) % 2 == 0:
                x, pos, err = _parse_uint(buf, pos, delim)
                if err != OK:
                    break
                if x < 1:
                    err = LOW_ID
                    break
                if x > nv:
                    err = HIGH_ID
                    break
                if k >= cap:
                    err = TOO_MANY
                    break
                indices[k] = x - 1
                k += 1
            else:
                pos, f = _store_weight(buf, pos, delim, w, wf, isf, k - 1)
                nfloat += f
            ntok += 1
        if err == OK and has_ew and (ntok - lead) % 2 == 1:
            err = TOO_FEW
        if err != OK:
            break
        if row < nv:
            indptr[row + 1] = k
            row += 1
        pos += 1
    state[0] = row
    state[1] = k
    state[2] = nfloat
    return err, line


@nb.njit(cache=True, inline="always")
def _mix(x):
    """splitmix64's finaliser: a bijection of uint64 with full avalanche."""
    x ^= x >> np.uint64(30)
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    return x ^ (x >> np.uint64(31))


@nb.njit(cache=True, inline="always")
def _pair_hash(a, b, seed):
    return _mix(_mix(np.uint64(a) ^ seed) ^ np.uint64(b))


@nb.njit(cache=True, parallel=True)
def _pair_sums(indptr, indices):
    n = indptr.shape[0] - 1
    s1 = t1 = s2 = t2 = np.uint64(0)
    k1, k2 = np.uint64(0x9E3779B97F4A7C15), np.uint64(0xD1B54A32D192ED03)
    for r in nb.prange(n):
        for i in range(indptr[r], indptr[r + 1]):
            c = indices[i]
            s1 += _pair_hash(r, c, k1)
            t1 += _pair_hash(c, r, k1)
            s2 += _pair_hash(r, c, k2)
            t2 += _pair_hash(c, r, k2)
    return s1 == t1 and s2 == t2


is_symmetric_csr = serialized(_pair_sums)
is_symmetric_csr.__doc__ = """Whether a CSR equals its transpose (duplicate entries counted).

The multiset of entries ``(r, c)`` and that of ``(c, r)`` are compared through sums of
two independent 64-bit hashes of the pairs: unequal sums prove asymmetry; equal sums
of an asymmetric matrix would need a collision of both (about 2**-128 for data not
built to collide). One parallel pass, no sort and no scattered writes.
"""
