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

This module holds the Python drivers; the kernels live in :mod:`concomp.io._lex`
(tokens), :mod:`concomp.io._scan` (lines) and :mod:`concomp.io._emit` (writing).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing
from itertools import pairwise

import numpy as np

from ..errors import GraphFormatError
from ._blocks import line_blocks
from ._emit import format_adjacency, format_edges
from ._files import pyarrow_or_raise  # noqa: F401  (concomp.streaming imports it here)
from ._lex import (
    _NL,
    _SP,
    BAD_NUMBER,
    BIG,
    COLS,
    EXTRA,
    HIGH_ID,
    LOW_ID,
    OK,
    PREFIX,
    TOO_FEW,
    TOO_MANY,
    WIDE,
    _count_newlines,
    _gather_tokens,
    _skip_comments,
    _skip_line,
)
from ._scan import _scan_edges, _scan_metis

__all__ = [
    "finish_weights",
    "format_adjacency",
    "format_edges",
    "line_of",
    "raise_at",
    "scan_body",
    "scan_edges",
    "scan_metis",
    "Text",
    "BLOCK_BYTES",
    "HEAD_BYTES",
]


#: Decompressed bytes parsed per block: large enough that the per-block threads pay,
#: small next to the arrays of any file worth streaming.
BLOCK_BYTES = 1 << 24
#: Bytes read before parsing starts: headers, format sniffing, the first data lines.
HEAD_BYTES = 1 << 22


class Text:
    """An edge-list file being read: its first bytes (``head``, for the header) and the
    :class:`~concomp.io._files.Input` that delivers the rest."""

    __slots__ = ("head", "src")

    def __init__(self, head: bytes, src) -> None:
        self.head, self.src = head, src


def line_of(buf: np.ndarray, offset: int, line_base: int = 0) -> tuple[int, str]:
    """1-based line number and text (trimmed) of the line holding byte ``offset``;
    ``line_base`` counts the lines before ``buf`` (earlier blocks of the file)."""
    offset = min(int(offset), buf.shape[0])
    lineno = int(np.count_nonzero(buf[:offset] == _NL)) + 1 + line_base
    start = offset
    while start > 0 and buf[start - 1] != _NL:
        start -= 1
    end = offset
    while end < buf.shape[0] and buf[end] != _NL and end - start < 200:
        end += 1
    text = bytes(buf[start:end]).decode("utf-8", "replace").rstrip("\r")
    return lineno, text if len(text) <= 80 else text[:77] + "..."


def raise_at(
    name: str, buf: np.ndarray, offset: int, problem: str, fix: str, line_base: int = 0
) -> None:
    """Raise GraphFormatError for the line holding byte ``offset``."""
    lineno, text = line_of(buf, offset, line_base)
    raise GraphFormatError(f"{name}, line {lineno}: {problem}, got {text!r}. Fix: {fix}")


_MESSAGES = {
    BAD_NUMBER: (
        "expected {what}",
        ("make every data line hold non-negative integer ids (comment lines start with {comment})"),
    ),
    TOO_FEW: ("expected {what}", "give every edge line a source and a target"),
    TOO_MANY: ("expected {what} (too many columns)", "remove the extra columns"),
    COLS: (
        "expected {ncols} columns like the first data line",
        "use the same number of columns on every line",
    ),
    LOW_ID: ("vertex id below {min_id} in a {base} format", "{low_fix}"),
    HIGH_ID: ("vertex id above n={max_id} declared in the header", "fix the ids or the header"),
    BIG: ("a number with more than 18 digits", "relabel the vertices to small integers"),
    PREFIX: ("expected a line starting with {prefix!r}", "start every edge line with {prefix!r}"),
}


def scan_edges(
    buf: np.ndarray,
    start: int,
    name: str,
    *,
    comment: bytes,
    prefix: str = "",
    min_id: int = 0,
    max_id: int = 2**62,
    ncols: int = 0,
    max_cols: int = 3,
    delim: str | None = None,
    what: str = "2 or 3 numbers (u v [weight])",
    line_base: int = 0,
):
    """Parse edge lines from byte ``start``: ``(src, dst, weights or None, newlines)``, ids
    as read; ``newlines`` counts the newline bytes in all of ``buf`` (for the line numbers
    of later blocks).

    Large inputs are cut at line ends into one chunk per core; threads (the kernels
    release the GIL) count each chunk's lines, then scan it into its own slice of
    the output arrays, so that nothing is copied unless comment or blank lines
    inside the body leave gaps.
    """
    d = ord(delim) if delim else _SP
    cm = np.frombuffer(comment or b"\n", np.uint8)
    pre = ord(prefix) if prefix else 0
    n = buf.shape[0]
    skipped = _skip_comments(buf, start, cm)
    newlines = int(_count_newlines(buf, 0, skipped))
    start = skipped
    bounds = _chunk_bounds(buf, start)
    spans = list(pairwise(bounds))
    pool = ThreadPoolExecutor(len(spans)) if len(spans) > 1 else None
    run = pool.map if pool is not None else map
    counted = list(run(lambda s: _count_newlines(buf, *s), spans))
    newlines += sum(int(c) for c in counted)
    # a chunk holds one edge line per newline, plus a last line without one
    caps = [c + (hi == n and hi > lo and buf[-1] != _NL) for c, (lo, hi) in zip(counted, spans)]
    offs = np.concatenate([[0], np.cumsum(caps)]).astype(np.int64).tolist()
    total = offs[-1]
    src = dst = np.empty(0, np.int32)
    # w and isf are touched only when the file has weights: untouched pages cost nothing
    w, isf = np.empty(total, np.int64), np.zeros(total, np.uint8)

    def scan(i: int, nc: int):
        lo, hi = spans[i]
        part = slice(offs[i], offs[i + 1])
        return _scan_edges(
            buf,
            lo,
            hi,
            cm,
            pre,
            min_id,
            max_id,
            nc,
            max_cols,
            d,
            src[part],
            dst[part],
            w[part],
            isf[part],
        )

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
            ctx = {
                "what": what,
                "ncols": cols or got or "the same number of",
                "min_id": min_id,
                "base": "1-based" if min_id else "0-based",
                "max_id": max_id,
                "prefix": prefix,
                "comment": " or ".join(repr(chr(c)) for c in comment),
                "low_fix": "ids in this format start at 1; shift 0-based ids up by one"
                if min_id
                else "use ids >= 0",
            }
            raise_at(name, buf, off, problem.format(**ctx), fix.format(**ctx), line_base)
        if k:
            cols = cols or got
    counts = [r[0] for r in results]
    if counts != caps:  # comment or blank lines inside the body: close the gaps

        def close(a: np.ndarray) -> np.ndarray:
            return np.concatenate([a[o : o + k] for o, k in zip(offs, counts)])

        src, dst = close(src), close(dst)
        if cols == 3:
            w, isf = close(w), close(isf)
    weights = None
    if cols == 3:
        weights = finish_weights(buf, name, w, isf, sum(r[1] for r in results), d)
    return src, dst, weights, newlines


def scan_body(text: Text, start: int, name: str, *, ncols: int = 0, **kw):
    """:func:`scan_edges` over a whole file body from byte ``start`` of ``text.head``,
    one block of about :data:`BLOCK_BYTES` at a time.

    Blocks are cut after their last newline (the rest is carried over), so every
    block holds whole lines; the first block's column count binds the later ones,
    and errors name the line within the whole file. Each block's edges are appended
    to output arrays reserved up front (see :func:`_append`), so peak memory is the
    arrays produced plus a few blocks.
    """
    from .._checks import check_count

    line_base = text.head.count(b"\n", 0, start)
    out: list = []  # src, dst[, weights], grown in place
    total, last = 0, None
    # closing: an error while parsing waits for the read in flight before the file closes
    with closing(line_blocks(text.src, text.head[start:], BLOCK_BYTES)) as blocks:
        for block, done in blocks:
            buf = np.frombuffer(block, np.uint8)
            del block
            *parsed, newlines = scan_edges(buf, 0, name, ncols=ncols, line_base=line_base, **kw)
            last = tuple(parsed)
            k = last[0].shape[0]
            if k and done and not out:  # the whole body in one block: nothing to append to
                return last
            if k:
                ncols = ncols or (3 if last[2] is not None else 2)
                got = last[:2] if ncols == 2 else last
                # a decompression bomb of valid lines stops here, before memory runs out
                check_count(
                    total + k,
                    "",
                    what="edges",
                    per_item=16,
                    where=name,
                    cause="the file holds at least",
                    fix="split the file, or read it with concomp.stream_components",
                )
                out = _append(out, got, total)
                total += k
            line_base += newlines
    if not out:
        return last
    for a in out:
        a.resize((total,), refcheck=False)
    return out[0], out[1], (out[2] if ncols == 3 else None)


def _append(out: list, got, total: int) -> list:
    """Copy one block's arrays after the first ``total`` entries of ``out``.

    The output arrays are reserved large up front (:func:`_reserve`) and never
    written beyond what the file holds: pages never written are never resident, and
    the final ``resize`` only shrinks (``realloc`` remaps in place). Growing with
    ``resize`` instead would zero-fill, and growing by copying would hold two copies.
    """
    k = got[0].shape[0]
    if not out:
        try:
            out = [np.empty(max(_reserve(a.dtype), 2 * k), a.dtype) for a in got]
        except MemoryError:  # strict overcommit refuses even untouched reservations
            out = [np.empty(2 * k, a.dtype) for a in got]
    for i, a in enumerate(got):
        wider = np.promote_types(a.dtype, out[i].dtype)  # int32 ids meeting int64, ints floats
        if wider != out[i].dtype or total + k > out[i].shape[0]:
            grown = np.empty(max(2 * out[i].shape[0], total + k), wider)
            grown[:total] = out[i][:total]
            out[i] = grown
        out[i][total : total + k] = a
    return out


def _reserve(dtype: np.dtype) -> int:
    """Entries to reserve per output array: 1/32 of this machine's memory, reserved but
    not touched (so not resident; Linux commits pages when first written)."""
    from .._checks import host_memory

    return max(1 << 16, host_memory() // 32 // np.dtype(dtype).itemsize)


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


def scan_metis(
    text: Text,
    start: int,
    name: str,
    nv: int,
    m: int,
    *,
    lead: int,
    has_ew: bool,
    delim: str | None = None,
):
    """Parse a METIS body from byte ``start`` of ``text.head``, one block of about
    :data:`BLOCK_BYTES` at a time: ``(indptr, indices, weights or None)``, 0-based ids.

    The header declares the sizes, so the CSR arrays are allocated once, in the index
    type the graph keeps, and every block's lines are added to them; peak memory is
    those arrays plus a few blocks.
    Blocks are cut after their last newline; errors name the line within the whole
    file, and weights that need NumPy's float parser are parsed with their block.
    """
    d = ord(delim) if delim else _SP
    cap = 2 * m
    # the header gives the sizes: 32-bit arrays when they fit, so the Graph keeps these
    # very arrays instead of a narrowed copy
    itype = np.int32 if max(nv, cap) <= _INT32_MAX else np.int64
    indptr = np.zeros(nv + 1, itype)
    indices = np.empty(cap, itype)
    w = np.empty(cap if has_ew else 0, np.int64)
    isf = np.zeros(cap if has_ew else 0, np.uint8)
    state = np.zeros(3, np.int64)  # vertex lines, entries, non-integer weights so far
    line_base = text.head.count(b"\n", 0, start)
    with closing(line_blocks(text.src, text.head[start:], BLOCK_BYTES)) as blocks:
        for block, done in blocks:
            buf = np.frombuffer(block, np.uint8)
            del block
            k0 = int(state[1])
            err, off = _scan_metis(
                buf, 0, done, nv, lead, has_ew, d, indptr, indices, w, isf, state
            )
            if err != OK:
                _metis_error(name, buf, int(off), int(err), nv, m, has_ew, line_base)
            if has_ew:
                _parse_slow_weights(buf, name, w, isf, k0, int(state[1]), d, line_base)
            line_base += int(_count_newlines(buf, 0, buf.shape[0]))
    row, k, nfloat = (int(x) for x in state)
    if row < nv:
        raise GraphFormatError(
            f"{name}: the header declares n={nv} vertices but the file has "
            f"only {row} vertex lines. Fix: keep one line per vertex (blank "
            "lines are isolated vertices) or fix n in the header."
        )
    if k != 2 * m:
        raise GraphFormatError(
            f"{name}: the header declares m={m} undirected edges (so {2 * m} "
            f"neighbour entries), but the file lists {k}. Fix: set m={k // 2}"
            " in the header or list every edge in both vertices' lines."
        )
    empty = np.zeros(0, np.uint8)  # every token needing NumPy's parser is resolved
    weights = finish_weights(empty, name, w[:k], isf[:k], nfloat, d) if has_ew else None
    return indptr, indices[:k], weights


def _metis_error(
    name: str, buf: np.ndarray, off: int, err: int, nv: int, m: int, has_ew: bool, base: int
) -> None:
    if err == TOO_MANY:
        raise_at(
            name,
            buf,
            off,
            f"more than 2*m={2 * m} neighbour entries (the header declares "
            f"m={m} undirected edges, each listed twice)",
            "fix m in the header",
            base,
        )
    if err == EXTRA:
        raise_at(
            name,
            buf,
            off,
            f"a neighbour list after the n={nv} vertex lines the header declares",
            "fix n in the header or remove the extra lines",
            base,
        )
    ctx = {
        BAD_NUMBER: "expected integer neighbour ids",
        LOW_ID: "vertex id 0 in a 1-based format",
        HIGH_ID: f"a neighbour id above n={nv}",
        TOO_FEW: "a neighbour without its edge weight",
        BIG: "a number too large",
    }
    raise_at(
        name,
        buf,
        off,
        f"{ctx[err]} (line i lists the 1-based neighbours of vertex "
        "i" + (" as 'neighbour weight' pairs" if has_ew else "") + ")",
        "fix the line so that it matches the header's format code",
        base,
    )


def _parse_slow_weights(
    buf: np.ndarray,
    name: str,
    w: np.ndarray,
    isf: np.ndarray,
    lo: int,
    hi: int,
    delim: int,
    line_base: int,
) -> None:
    """Weights of entries ``lo .. hi`` that hold a byte offset into this block (``isf`` 2)
    become float64 bits (``isf`` 1) while the block is still at hand."""
    slow = np.flatnonzero(isf[lo:hi] == 2) + lo
    if slow.size == 0:
        return
    values = _parse_tokens(buf, name, w[slow], delim, line_base)
    w.view(np.float64)[slow] = values
    isf[slow] = 1


def finish_weights(
    buf: np.ndarray, name: str, w: np.ndarray, isf: np.ndarray, nfloat: int, delim: int
) -> np.ndarray:
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
    out[slow] = _parse_tokens(buf, name, w[slow], delim)
    return out


def _parse_tokens(
    buf: np.ndarray, name: str, starts: np.ndarray, delim: int, line_base: int = 0
) -> np.ndarray:
    """float64 values of the weight tokens at byte offsets ``starts`` of ``buf``, by
    NumPy's correctly rounded parser; a token that is no number raises naming its line."""
    tokens = _gather_tokens(buf, starts, delim)
    text = tokens.view(f"S{tokens.shape[1]}").ravel()
    try:
        return text.astype(np.float64)
    except ValueError:
        for off, tok in zip(starts.tolist(), text.tolist()):
            try:
                float(tok)
            except ValueError:
                raise_at(
                    name,
                    buf,
                    off,
                    f"weight {tok.decode('utf-8', 'replace')!r} is not a number",
                    "write weights as integers or decimals (1, -2.5, 3e4)",
                    line_base,
                )
        raise
