"""Byte-level parsers and formatters behind :mod:`concomp.io` (numba).

Text graph files are parsed by one scanner over the whole decompressed file held
as a ``uint8`` array: a Python loop over lines runs at well under 1 M edges/s,
this scanner at tens of millions. The same scanner reads the bodies of SNAP, CSV,
DIMACS, PACE and Matrix Market files; METIS adjacency lists have their own
because a line is a vertex, not an edge. Kernels never raise: they return an
error code and the byte offset of the offending line, and :func:`raise_at` turns
that into a :class:`~concomp.errors.GraphFormatError` naming the line.

Weights are parsed as int64 when every token is an integer, else as float64. A
short decimal (at most 15 significant digits, exponent within +-22) is converted
exactly in the scanner; any other token (``0.30000000000000004``, ``1e300``,
``inf``) keeps its byte offset and is converted at the end by NumPy's correctly
rounded string-to-float cast. Either way the result equals Python's ``float()``.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from itertools import pairwise

import numba as nb
import numpy as np

from .errors import GraphFormatError

__all__ = ["finish_weights", "format_adjacency", "format_edges", "line_of", "raise_at",
           "scan_edges", "scan_metis"]

OK, BAD_NUMBER, TOO_FEW, TOO_MANY, COLS, LOW_ID, HIGH_ID, BIG, PREFIX, EXTRA, WIDE = range(11)
_NL, _SP, _TAB, _CR, _COMMA, _QUOTE = 10, 32, 9, 13, 44, 34
_MAX_DIGITS = 18  # 10**18 < 2**63: no overflow check needed inside the digit loop


@nb.njit(cache=True, nogil=True, inline="always")
def _is_sep(c, delim):
    return c == _SP or c == _TAB or c == _CR or c == _COMMA or c == _QUOTE or c == delim


@nb.njit(cache=True, nogil=True)
def _count_newlines(buf, lo, hi):
    k = 0
    for i in range(lo, hi):
        if buf[i] == _NL:
            k += 1
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
    if ok and sig <= 15 and -22 <= e <= 22 and (
            pos >= n or buf[pos] == _NL or _is_sep(buf[pos], delim)):
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
def _scan_edges(buf, pos, stop, comment, prefix, min_id, max_id, ncols, max_cols, delim,
                src, dst, w, isf):
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
        # ran 2x slower. Anything else, errors included, falls through to the general path.
        if ncols != 0 and (prefix == 0 or (buf[pos] == prefix and pos + 1 < n and
                                            buf[pos + 1] == _SP)):
            if prefix != 0:
                pos += 2
            t0 = pos
            c = buf[pos] if pos < n else _NL
            u = 0
            while 48 <= c <= 57:
                u = u * 10 + (c - 48)
                pos += 1
                c = buf[pos] if pos < n else _NL
            if t0 < pos <= t0 + _MAX_DIGITS and (c == _TAB or c == _SP or c == _COMMA or c == delim):
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


@nb.njit(cache=True, nogil=True)
def _scan_metis(buf, pos, nv, cap, lead, has_ew, delim):
    """CSR of a METIS body; ``lead`` integers open each line (vertex size/weights)."""
    n = buf.shape[0]
    indptr = np.zeros(nv + 1, np.int64)
    indices = np.empty(cap, np.int64)
    w = np.empty(cap if has_ew else 0, np.int64)
    isf = np.zeros(cap if has_ew else 0, np.uint8)
    wf = w.view(np.float64)
    row = 0
    k = 0
    nfloat = 0
    while pos <= n:
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
                return row, k, nfloat, EXTRA, line, indptr, indices, w, isf
            if ntok < lead:
                x, pos, err = _parse_uint(buf, pos, delim)
                if err != OK:
                    return row, k, nfloat, err, line, indptr, indices, w, isf
            elif not has_ew or (ntok - lead) % 2 == 0:
                x, pos, err = _parse_uint(buf, pos, delim)
                if err != OK:
                    return row, k, nfloat, err, line, indptr, indices, w, isf
                if x < 1:
                    return row, k, nfloat, LOW_ID, line, indptr, indices, w, isf
                if x > nv:
                    return row, k, nfloat, HIGH_ID, line, indptr, indices, w, isf
                if k >= cap:
                    return row, k, nfloat, TOO_MANY, line, indptr, indices, w, isf
                indices[k] = x - 1
                k += 1
            else:
                pos, f = _store_weight(buf, pos, delim, w, wf, isf, k - 1)
                nfloat += f
            ntok += 1
        if has_ew and (ntok - lead) % 2 == 1:
            return row, k, nfloat, TOO_FEW, line, indptr, indices, w, isf
        if row < nv:
            indptr[row + 1] = k
            row += 1
        pos += 1
    return row, k, nfloat, OK, n, indptr, indices, w, isf


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


# ----------------------------------------------------------------------------- Python side
def line_of(buf: np.ndarray, offset: int) -> tuple[int, str]:
    """1-based line number and text (trimmed) of the line holding byte ``offset``."""
    offset = min(int(offset), buf.shape[0])
    lineno = int(np.count_nonzero(buf[:offset] == _NL)) + 1
    start = offset
    while start > 0 and buf[start - 1] != _NL:
        start -= 1
    end = offset
    while end < buf.shape[0] and buf[end] != _NL and end - start < 200:
        end += 1
    text = bytes(buf[start:end]).decode("utf-8", "replace").rstrip("\r")
    return lineno, text if len(text) <= 80 else text[:77] + "..."


def raise_at(name: str, buf: np.ndarray, offset: int, problem: str, fix: str) -> None:
    """Raise GraphFormatError for the line holding byte ``offset``."""
    lineno, text = line_of(buf, offset)
    raise GraphFormatError(f"{name}, line {lineno}: {problem}, got {text!r}. Fix: {fix}")


_MESSAGES = {
    BAD_NUMBER: ("expected {what}", ("make every data line hold non-negative integer ids "
                                     "(comment lines start with {comment})")),
    TOO_FEW: ("expected {what}", "give every edge line a source and a target"),
    TOO_MANY: ("expected {what} (too many columns)", "remove the extra columns"),
    COLS: ("expected {ncols} columns like the first data line",
           "use the same number of columns on every line"),
    LOW_ID: ("vertex id below {min_id} in a {base} format", "{low_fix}"),
    HIGH_ID: ("vertex id above n={max_id} declared in the header", "fix the ids or the header"),
    BIG: ("a number with more than 18 digits", "relabel the vertices to small integers"),
    PREFIX: ("expected a line starting with {prefix!r}", "start every edge line with {prefix!r}"),
}


def scan_edges(buf: np.ndarray, start: int, name: str, *, comment: bytes, prefix: str = "",
               min_id: int = 0, max_id: int = 2**62, ncols: int = 0, max_cols: int = 3,
               delim: str | None = None, what: str = "2 or 3 numbers (u v [weight])"):
    """Parse edge lines from byte ``start``: ``(src, dst, weights or None)``, ids as read.

    Large inputs are cut at line ends into one chunk per core; threads (the kernels
    release the GIL) count each chunk's lines, then scan it into its own slice of
    the output arrays, so that nothing is copied unless comment or blank lines
    inside the body leave gaps.
    """
    d = ord(delim) if delim else _SP
    cm = np.frombuffer(comment or b"\n", np.uint8)
    pre = ord(prefix) if prefix else 0
    n = buf.shape[0]
    start = _skip_comments(buf, start, cm)
    bounds = _chunk_bounds(buf, start)
    spans = list(pairwise(bounds))
    pool = ThreadPoolExecutor(len(spans)) if len(spans) > 1 else None
    run = pool.map if pool is not None else map
    # a chunk holds one edge line per newline, plus a last line without one
    caps = [c + (hi == n and hi > lo and buf[-1] != _NL)
            for c, (lo, hi) in zip(run(lambda s: _count_newlines(buf, *s), spans), spans)]
    offs = np.concatenate([[0], np.cumsum(caps)]).astype(np.int64).tolist()
    total = offs[-1]
    src = dst = np.empty(0, np.int32)
    # w and isf are touched only when the file has weights: untouched pages cost nothing
    w, isf = np.empty(total, np.int64), np.zeros(total, np.uint8)

    def scan(i: int, nc: int):
        lo, hi = spans[i]
        part = slice(offs[i], offs[i + 1])
        return _scan_edges(buf, lo, hi, cm, pre, min_id, max_id, nc, max_cols, d, src[part],
                           dst[part], w[part], isf[part])

    for dtype in (np.int32, np.int64) if 2 * total <= _INT32_MAX else (np.int64,):
        src, dst = np.empty(total, dtype), np.empty(total, dtype)
        results = list(run(lambda i: scan(i, ncols), range(len(spans))))
        if all(r[2] != WIDE for r in results):
            break
    if pool is not None:
        pool.shutdown()
    cols = ncols
    for i, (k, _, err, off, got) in enumerate(results):
        if err == OK and k and cols and got != cols:  # rescan to find the first odd line
            err, off = scan(i, cols)[2:4]
        if err != OK:
            problem, fix = _MESSAGES[err]
            ctx = {"what": what, "ncols": cols or got or "the same number of",
                   "min_id": min_id, "base": "1-based" if min_id else "0-based",
                   "max_id": max_id, "prefix": prefix,
                   "comment": " or ".join(repr(chr(c)) for c in comment),
                   "low_fix": "ids in this format start at 1; shift 0-based ids up by one"
                   if min_id else "use ids >= 0"}
            raise_at(name, buf, off, problem.format(**ctx), fix.format(**ctx))
        if k:
            cols = cols or got
    counts = [r[0] for r in results]
    if counts != caps:  # comment or blank lines inside the body: close the gaps

        def close(a: np.ndarray) -> np.ndarray:
            return np.concatenate([a[o:o + k] for o, k in zip(offs, counts)])

        src, dst = close(src), close(dst)
        if cols == 3:
            w, isf = close(w), close(isf)
    weights = None
    if cols == 3:
        weights = finish_weights(buf, name, w, isf, sum(r[1] for r in results), d)
    return src, dst, weights


_INT32_MAX = int(np.iinfo(np.int32).max)
_CHUNK_BYTES = 1 << 23  # below ~8 MB per chunk a thread costs more than it saves


def _chunk_bounds(buf: np.ndarray, start: int) -> list[int]:
    n = buf.shape[0]
    parts = max(1, min(os.cpu_count() or 1, 16, (n - start) // _CHUNK_BYTES))
    bounds = [start]
    for i in range(1, parts):
        cut = start + (n - start) * i // parts
        bounds.append(max(bounds[-1], min(n, _skip_line(buf, cut) + 1)))
    bounds.append(n)
    return bounds


def scan_metis(buf: np.ndarray, start: int, name: str, nv: int, m: int, *, lead: int,
               has_ew: bool, delim: str | None = None):
    """Parse a METIS body: ``(indptr, indices, weights or None)`` with 0-based ids."""
    d = ord(delim) if delim else _SP
    row, k, nfloat, err, off, indptr, indices, w, isf = _scan_metis(buf, start, nv, 2 * m, lead,
                                                                  has_ew, d)
    if err == TOO_MANY:
        raise_at(name, buf, off, f"more than 2*m={2 * m} neighbour entries (the header declares "
                 f"m={m} undirected edges, each listed twice)", "fix m in the header")
    if err == EXTRA:
        raise_at(name, buf, off, f"a neighbour list after the n={nv} vertex lines the header "
                 "declares", "fix n in the header or remove the extra lines")
    if err != OK:
        ctx = {BAD_NUMBER: "expected integer neighbour ids", LOW_ID: "vertex id 0 in a "
               "1-based format", HIGH_ID: f"a neighbour id above n={nv}",
               TOO_FEW: "a neighbour without its edge weight", BIG: "a number too large"}
        raise_at(name, buf, off, f"{ctx[err]} (line i lists the 1-based neighbours of vertex "
                 "i" + (" as 'neighbour weight' pairs" if has_ew else "") + ")",
                 "fix the line so that it matches the header's format code")
    if row < nv:
        raise GraphFormatError(f"{name}: the header declares n={nv} vertices but the file has "
                               f"only {row} vertex lines. Fix: keep one line per vertex (blank "
                               "lines are isolated vertices) or fix n in the header.")
    if k != 2 * m:
        raise GraphFormatError(f"{name}: the header declares m={m} undirected edges (so {2 * m} "
                               f"neighbour entries), but the file lists {k}. Fix: set m={k // 2}"
                               " in the header or list every edge in both vertices' lines.")
    weights = finish_weights(buf, name, w[:k], isf[:k], nfloat, d) if has_ew else None
    return indptr, indices[:k], weights


def finish_weights(buf: np.ndarray, name: str, w: np.ndarray, isf: np.ndarray, nfloat: int,
                   delim: int) -> np.ndarray:
    """int64 weights, or float64 when any token was not an integer.

    ``isf`` says what ``w`` holds per edge: 0 an integer, 1 float64 bits, 2 the byte
    offset of a token left for NumPy's string-to-float cast.
    """
    if nfloat == 0:
        return w
    out = w.astype(np.float64)
    exact = isf == 1
    out[exact] = w.view(np.float64)[exact]
    slow = isf == 2
    if not slow.any():
        return out
    starts = w[slow]
    tokens = _gather_tokens(buf, starts, delim)
    text = tokens.view(f"S{tokens.shape[1]}").ravel()
    try:
        out[slow] = text.astype(np.float64)
    except ValueError:
        for off, tok in zip(starts.tolist(), text.tolist()):
            try:
                float(tok)
            except ValueError:
                raise_at(name, buf, off, f"weight {tok.decode('utf-8', 'replace')!r} is not a "
                         "number", "write weights as integers or decimals (1, -2.5, 3e4)")
        raise
    return out


# ----------------------------------------------------------------------------- writers
@nb.njit(cache=True, inline="always")
def _ndigits(x):
    d = 1 if x >= 0 else 2
    x = abs(x)
    while x >= 10:
        x //= 10
        d += 1
    return d


@nb.njit(cache=True)
def _put_int(out, pos, x):
    if x < 0:
        out[pos] = 45
        pos += 1
        x = -x
    end = pos + _ndigits(x)
    p = end - 1
    while True:
        out[p] = 48 + x % 10
        x //= 10
        p -= 1
        if x == 0:
            break
    return end


@nb.njit(cache=True)
def _put_weight(out, pos, i, wint, wtxt, wmode):
    if wmode == 1:
        return _put_int(out, pos, wint[i])
    for c in wtxt[i]:
        if c == 0:
            break
        out[pos] = c
        pos += 1
    return pos


@nb.njit(cache=True)
def _weight_len(i, wint, wtxt, wmode):
    if wmode == 1:
        return _ndigits(wint[i])
    t = 0
    for c in wtxt[i]:
        if c == 0:
            break
        t += 1
    return t


@nb.njit(cache=True)
def _format_edges(src, dst, wint, wtxt, wmode, base, sep, prefix):
    m = src.shape[0]
    size = 0
    for i in range(m):
        size += prefix.shape[0] + _ndigits(src[i] + base) + _ndigits(dst[i] + base) + 2
        if wmode:
            size += 1 + _weight_len(i, wint, wtxt, wmode)
    out = np.empty(size, np.uint8)
    pos = 0
    for i in range(m):
        for c in prefix:
            out[pos] = c
            pos += 1
        pos = _put_int(out, pos, src[i] + base)
        out[pos] = sep
        pos = _put_int(out, pos + 1, dst[i] + base)
        if wmode:
            out[pos] = sep
            pos = _put_weight(out, pos + 1, i, wint, wtxt, wmode)
        out[pos] = _NL
        pos += 1
    return out


@nb.njit(cache=True)
def _format_adjacency(indptr, indices, wint, wtxt, wmode):
    nv = indptr.shape[0] - 1
    size = nv
    for i in range(indices.shape[0]):
        size += _ndigits(indices[i] + 1) + 1
        if wmode:
            size += 1 + _weight_len(i, wint, wtxt, wmode)
    out = np.empty(size, np.uint8)
    pos = 0
    for r in range(nv):
        for i in range(indptr[r], indptr[r + 1]):
            if i > indptr[r]:
                out[pos] = _SP
                pos += 1
            pos = _put_int(out, pos, indices[i] + 1)
            if wmode:
                out[pos] = _SP
                pos = _put_weight(out, pos + 1, i, wint, wtxt, wmode)
        out[pos] = _NL
        pos += 1
    return out[:pos]


def _weight_args(weights):
    if weights is None:
        return np.zeros(0, np.int64), np.zeros((0, 1), np.uint8), 0
    if weights.dtype.kind in "iub":
        return weights.astype(np.int64, copy=False), np.zeros((0, 1), np.uint8), 1
    # NumPy's float -> bytes cast gives the shortest repr that round-trips exactly
    txt = np.asarray(weights, np.float64).astype("S32")
    return np.zeros(0, np.int64), txt.view(np.uint8).reshape(-1, 32), 2


def format_edges(src: np.ndarray, dst: np.ndarray, weights: np.ndarray | None, *, base: int = 0,
                 sep: str = "\t", prefix: str = "") -> np.ndarray:
    """Bytes (uint8 array) of ``[prefix]u<sep>v[<sep>w]`` lines; ids shifted by ``base``."""
    wint, wtxt, wmode = _weight_args(weights)
    return _format_edges(src, dst, wint, wtxt, wmode, base, ord(sep),
                         np.frombuffer(prefix.encode(), np.uint8))


def format_adjacency(indptr: np.ndarray, indices: np.ndarray,
                     weights: np.ndarray | None) -> np.ndarray:
    """Bytes of METIS neighbour lines (1-based), one line per vertex."""
    wint, wtxt, wmode = _weight_args(weights)
    return _format_adjacency(indptr, indices, wint, wtxt, wmode)


# ----------------------------------------------------------------------------- readers
def _data_line(data: bytes, pos: int, comment: bytes) -> tuple[int, int, bytes]:
    """(start, end, stripped text) of the first non-blank, non-comment line from ``pos``."""
    n = len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        end = n if end < 0 else end
        s = data[pos:end].strip()
        if s and s[:1] not in comment:
            return pos, end, s
        pos = end + 1
    return n, n, b""


def _tokens(line: bytes, delim: str | None = None) -> list[bytes]:
    for sep in b",\"" + (delim.encode() if delim else b""):
        line = line.replace(bytes([sep]), b" ")
    return line.split()


def _is_number(tok: bytes) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _ints(line: bytes, count: int, name: str, data: bytes, start: int, what: str,
          fix: str) -> list[int]:
    toks = line.split()
    if len(toks) < count or not all(t.isdigit() for t in toks[:count]):
        raise_at(name, np.frombuffer(data, np.uint8), start, f"expected {what}", fix)
    return [int(t) for t in toks[:count]]


def _select_weights(opt, w):
    if opt.weighted is False:
        return None
    if opt.weighted and w is None:
        raise GraphFormatError(f"{opt.name}: weighted=True but the file has no weight column. "
                               "Fix: add a third column or pass weighted=None.")
    return w


def _finish(opt, src, dst, w, n, directed: bool):
    from ._validate import edges_to_graph

    n = opt.num_nodes if opt.num_nodes is not None else n
    d = directed if opt.directed is None else opt.directed
    return edges_to_graph(src, dst, n, weights=_select_weights(opt, w), directed=d)


def _max_id(src, dst) -> int:
    return int(max(src.max(), dst.max())) if src.shape[0] else -1


def _read_edge_list(data: bytes, opt, csv: bool):
    buf = np.frombuffer(data, np.uint8)
    comment = b"#%" if opt.comment is None else opt.comment
    start, end, first = _data_line(data, 0, comment)
    header = opt.header
    if header is None and csv:
        header = bool(first) and not all(_is_number(t) for t in _tokens(first, opt.delimiter))
    if header:
        start = min(end + 1, len(data))
    base = 1 if opt.one_based else 0
    what = ("at least 2 numeric columns (u,v[,weight,...])" if csv
            else "2 or 3 numbers (u v [weight])")
    src, dst, w = scan_edges(buf, start, opt.name, comment=comment, min_id=base,
                             max_cols=1 << 30 if csv else 3, delim=opt.delimiter, what=what)
    if base:
        src -= 1
        dst -= 1
    n, directed = _max_id(src, dst) + 1, False
    if not csv:
        declared, directed = _snap_comments(data, comment)
        n = max(n, declared)
    return _finish(opt, src, dst, w, n, directed)


def _snap_comments(data: bytes, comment: bytes) -> tuple[int, bool]:
    """(``# Nodes: N`` count or 0, directedness named in the leading comment block)."""
    import re

    head = []
    pos = 0
    while pos < len(data) and len(head) < 1000:
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        s = data[pos:end].strip()
        if s and s[:1] not in comment:
            break
        head.append(s.lower())
        pos = end + 1
    text = b"\n".join(head)
    found = re.search(rb"nodes:\s*(\d+)", text)
    directed = b"directed" in text.replace(b"undirected", b"")
    return (int(found.group(1)) if found else 0), directed


def _read_snap(data: bytes, opt):
    return _read_edge_list(data, opt, csv=False)


def _read_csv(data: bytes, opt):
    return _read_edge_list(data, opt, csv=True)


def _read_mtx(data: bytes, opt):
    buf = np.frombuffer(data, np.uint8)
    name = opt.name
    fix = "use a 'coordinate' matrix with field pattern/real/integer"
    if not data[:4096].lstrip().startswith(b"%%MatrixMarket"):
        return _read_mtx_body(data, buf, opt)
    bstart = data.find(b"%%MatrixMarket")
    bend = data.find(b"\n", bstart)
    bend = len(data) if bend < 0 else bend
    banner = data[bstart:bend].lower().split()
    if len(banner) < 5 or banner[1] != b"matrix" or banner[2] != b"coordinate" or \
            banner[3] not in (b"pattern", b"real", b"integer", b"double") or \
            banner[4] not in (b"general", b"symmetric", b"skew-symmetric"):
        raise_at(name, buf, bstart, "a banner '%%MatrixMarket matrix coordinate "
                 "<pattern|real|integer> <general|symmetric>'", fix)
    field, symmetry = banner[3], banner[4]
    start, end, size = _data_line(data, bend + 1, b"%")
    rows, cols, nnz = _ints(size, 3, name, data, start, "a size line 'rows cols entries'",
                            "put the size line after the comments")
    if rows != cols:
        raise_at(name, buf, start, f"a square matrix (an adjacency matrix), not {rows} x {cols}",
                 "store the graph's n x n adjacency matrix")
    pattern = field == b"pattern"
    src, dst, w = scan_edges(buf, end + 1, name, comment=b"%", min_id=1, max_id=rows,
                             ncols=2 if pattern else 3, what="'i j'" if pattern else "'i j value'")
    if src.shape[0] != nnz:
        raise GraphFormatError(f"{name}: the size line declares {nnz} entries but the file "
                               f"lists {src.shape[0]}. Fix: set the entry count to "
                               f"{src.shape[0]} or restore the missing lines.")
    if w is not None and field != b"integer":
        w = w.astype(np.float64, copy=False)
    src -= 1
    dst -= 1
    return _finish(opt, src, dst, w, rows, symmetry == b"general")


def _read_mtx_body(data: bytes, buf: np.ndarray, opt):
    # banner-less body (the DIMACS10 copies in some repositories): a 3-number first line
    # followed by 2-number lines is the size line, otherwise every line is an entry
    start, end, first = _data_line(data, 0, b"%")
    _, _, second = _data_line(data, end + 1, b"%")
    declared = None
    if len(first.split()) == 3 and len(second.split()) == 2:
        declared = _ints(first, 3, opt.name, data, start, "a size line", "fix it")[0]
        start = end + 1
    src, dst, w = scan_edges(buf, start, opt.name, comment=b"%", min_id=1,
                             max_id=declared or 2**62, what="'i j [value]' (1-based)")
    src -= 1
    dst -= 1
    n = declared if declared is not None else _max_id(src, dst) + 1
    triangle = bool((src >= dst).all() or (src <= dst).all())
    return _finish(opt, src, dst, w, n, not triangle)


def _read_p_format(data: bytes, opt, pace: bool):
    buf = np.frombuffer(data, np.uint8)
    name = opt.name
    start, end, line = _data_line(data, 0, b"c")
    toks = line.split()
    kinds = (b"tw",) if pace else (b"sp", b"edge", b"col")
    want = "'p tw n m'" if pace else "'p sp n m' (or 'p edge n m')"
    if len(toks) < 4 or toks[0] != b"p" or toks[1] not in kinds:
        raise_at(name, buf, start, f"a problem line {want} before the edges",
                 f"add {want} after the 'c' comments")
    nv, m = _ints(b" ".join(toks[2:4]), 2, name, data, start, want, "write n and m as integers")
    prefix = "" if pace else ("a" if toks[1] == b"sp" else "e")
    what = "'u v' with 1-based ids" if pace else f"'{prefix} u v [w]' with 1-based ids"
    src, dst, w = scan_edges(buf, end + 1, name, comment=b"c", prefix=prefix, min_id=1,
                             max_id=nv, ncols=2 if pace else 0, what=what)
    if src.shape[0] != m:
        lineno, _ = line_of(buf, start)
        raise GraphFormatError(f"{name}, line {lineno}: the 'p' line declares m={m} edges but "
                               f"the file lists {src.shape[0]}. Fix: set m={src.shape[0]} or "
                               "restore the missing edge lines.")
    src -= 1
    dst -= 1
    return _finish(opt, src, dst, w, nv, not pace and prefix == "a")


def _read_dimacs(data: bytes, opt):
    return _read_p_format(data, opt, pace=False)


def _read_pace(data: bytes, opt):
    return _read_p_format(data, opt, pace=True)


def _read_metis(data: bytes, opt):
    from ._validate import csr_to_graph

    buf = np.frombuffer(data, np.uint8)
    start, end, line = _data_line(data, 0, b"%")
    toks = line.split()
    what = "a header 'n m [fmt [ncon]]'"
    nv, m = _ints(line, 2, opt.name, data, start, what, "start the file with 'n m'")
    code = toks[2].decode() if len(toks) > 2 else "0"
    if len(code) > 3 or set(code) - {"0", "1"}:
        raise_at(opt.name, buf, start, f"{what} with fmt made of 0/1 digits", "use fmt 0, 1, "
                 "10, 11, 100, ...")
    code = code.zfill(3)
    ncon = int(toks[3]) if len(toks) > 3 and toks[3].isdigit() else 1
    lead = (code[0] == "1") + (ncon if code[1] == "1" else 0)
    indptr, indices, w = scan_metis(buf, min(end + 1, len(data)), opt.name, nv, m, lead=lead,
                                    has_ew=code[2] == "1")
    n = nv
    if opt.num_nodes is not None and opt.num_nodes > nv:
        indptr = np.concatenate([indptr, np.full(opt.num_nodes - nv, indptr[-1])])
        n = opt.num_nodes
    elif opt.num_nodes is not None:
        n = opt.num_nodes
    return csr_to_graph(indptr, indices, n, weights=_select_weights(opt, w),
                        directed=bool(opt.directed), symmetric=_is_symmetric(indptr, indices))


def _is_symmetric(indptr: np.ndarray, indices: np.ndarray) -> bool:
    n = indptr.shape[0] - 1
    if n > 2**31:  # keys would overflow; METIS promises symmetry anyway
        return True
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    cols = indices.astype(np.int64, copy=False)
    return bool(np.array_equal(np.sort(rows * n + cols), np.sort(cols * n + rows)))


def _read_npz(data: bytes, opt):
    import io

    from ._validate import csr_to_graph

    try:
        z = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as exc:  # zipfile and numpy raise several unrelated types
        raise GraphFormatError(f"{opt.name}: not a readable .npz archive ({exc}). Fix: write it "
                               "with numpy.savez or scipy.sparse.save_npz.") from exc
    with z:
        keys = set(z.files)
        fmt = z["format"].item() if "format" in keys else "csr"
        fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
        if fmt != "csr":
            import scipy.sparse as sp

            A = sp.load_npz(io.BytesIO(data)).tocsr()
            indptr, indices, vals, shape = A.indptr, A.indices, A.data, A.shape
        elif not {"indptr", "indices"} <= keys:
            raise GraphFormatError(f"{opt.name}: the archive holds {sorted(keys)}, not the CSR "
                                   "arrays 'indptr' and 'indices'. Fix: save a CSR matrix.")
        else:
            indptr, indices = z["indptr"], z["indices"]
            vals = z["data"] if "data" in keys else None
            shape = tuple(z["shape"].tolist()) if "shape" in keys else None
        weighted = bool(z["weighted"]) if "weighted" in keys else vals is not None
        directed = bool(z["directed"]) if "directed" in keys else True
        eid = z["edge_ids"] if "edge_ids" in keys else None
    if shape is not None and shape[0] != shape[1]:
        raise GraphFormatError(f"{opt.name}: matrix shape {shape} is not square. Fix: store the "
                               "n x n adjacency matrix.")
    n = shape[0] if shape is not None else indptr.shape[0] - 1
    w = vals if weighted else None
    if eid is not None:  # written by concomp: restore the original edge order
        rows = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(indptr))
        src, dst = np.empty_like(rows), np.empty_like(indices)
        src[eid], dst[eid] = rows, indices
        if w is not None:
            w = w.copy()
            w[eid] = vals
        return _finish(opt, src, dst, w, n, directed)
    d = directed if opt.directed is None else opt.directed
    n = n if opt.num_nodes is None else opt.num_nodes
    return csr_to_graph(indptr, indices, n, weights=_select_weights(opt, w), directed=d)


def pyarrow_or_raise():
    """``(pyarrow, pyarrow.parquet)``, or ImportError naming the ``io`` extra."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as exc:
        raise ImportError("Parquet files need pyarrow, which is not installed. Fix: pip install "
                          "'concomp[io]' (or pip install pyarrow).") from exc
    return pa, pq


def _read_parquet(data: bytes, opt):
    from ._validate import _DST_NAMES, _SRC_NAMES, _W_NAMES, _pick

    pa, pq = pyarrow_or_raise()
    try:
        table = pq.read_table(pa.BufferReader(data))
    except pa.ArrowException as exc:
        raise GraphFormatError(f"{opt.name}: not a readable Parquet file ({exc}).") from exc
    cols = table.column_names
    if len(cols) < 2:
        raise GraphFormatError(f"{opt.name}: Parquet columns {cols}: need src and dst columns. "
                               "Fix: write columns src, dst[, weight].")
    s = _pick(cols, None, _SRC_NAMES, "source", 0)
    t = _pick(cols, None, _DST_NAMES, "target", 1)
    wc = _pick(cols, None, _W_NAMES, "weight", 2 if len(cols) == 3 else None)
    meta = table.schema.metadata or {}
    n = int(meta[b"concomp.num_nodes"]) if b"concomp.num_nodes" in meta else None
    directed = meta.get(b"concomp.directed") == b"1"
    src, dst = table.column(s).to_numpy(), table.column(t).to_numpy()
    w = table.column(wc).to_numpy() if wc is not None else None
    if n is None:
        n = None if src.size == 0 else int(max(src.max(), dst.max())) + 1
    return _finish(opt, src, dst, w, n, directed)


READERS = {"snap": _read_snap, "csv": _read_csv, "mtx": _read_mtx, "dimacs": _read_dimacs,
           "pace": _read_pace, "metis": _read_metis, "npz": _read_npz, "parquet": _read_parquet}
