"""The page layout of a Parquet file's integer columns, read from its bytes (numba).

pyarrow reads a file's footer (row groups, column chunks, their byte ranges, codecs
and statistics) but keeps the pages inside a column chunk to itself. A decoder that
runs elsewhere (the GPU one, :mod:`concomp._gpu.parquet`) needs them: each page
starts with a header in Thrift's compact protocol, and :func:`page_table` walks
those headers in the bytes of whole column chunks, one chunk after another, to a
table with one row per page.

:func:`column_plan` says from the footer alone whether two columns are within what
such a decoder handles: flat INT32 / INT64 columns without nulls, uncompressed or
Snappy, each page PLAIN or dictionary-encoded. Anything else gets a reason, and the
caller reads the file with pyarrow.

The kernels never raise: they return an error code and the chunk it was found in,
and :func:`check_table` turns that into a :class:`~concomp.errors.GraphFormatError`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np

from ..errors import GraphFormatError

__all__ = [
    "CODECS",
    "COLUMNS",
    "FORMAT_FIX",
    "ChunkRef",
    "ColumnPlan",
    "check_table",
    "column_plan",
    "page_table",
]

# Parquet's enums (parquet.thrift)
DATA_PAGE, DICTIONARY_PAGE, DATA_PAGE_V2 = 0, 2, 3
PLAIN, PLAIN_DICTIONARY, RLE, RLE_DICTIONARY = 0, 2, 3, 8
#: Codecs a decoder of :func:`column_plan`'s plans handles, by pyarrow's name.
CODECS = {"UNCOMPRESSED": 0, "SNAPPY": 1}
_ENCODINGS = {"PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY", "RLE"}

#: Columns of :func:`page_table`'s table, one row per page.
COLUMNS = (
    "chunk",  # the column chunk (its index in the caller's list)
    "kind",  # DATA_PAGE, DICTIONARY_PAGE or DATA_PAGE_V2
    "body",  # position of the page's body (after its header) in the buffer
    "size",  # compressed_page_size: bytes of the body as stored
    "usize",  # uncompressed_page_size
    "values",  # num_values (levels included: equal to the rows where nothing is null)
    "encoding",  # of the values
    "levels",  # a V2 page's repetition and definition level bytes, stored uncompressed
    "compressed",  # 1 where the body (after a V2 page's levels) is compressed
    "nulls",  # a V2 page's num_nulls; -1 for other pages
    "level_encoding",  # a V1 data page's definition_level_encoding; -1 for other pages
)
K = len(COLUMNS)

# error codes of the kernels
OK, BAD_HEADER, OVERRUN, BAD_PAGE = 0, 1, 2, 3
_MESSAGES = {
    BAD_HEADER: "a page header is not valid Thrift",
    OVERRUN: "a page runs past the end of its column chunk",
    BAD_PAGE: "a page has a negative size or count",
}


@dataclass(frozen=True)
class ChunkRef:
    """One column chunk: where its bytes lie in the file, and what they hold."""

    group: int  #: row group
    column: int  #: 0 for the source ids, 1 for the targets
    offset: int  #: first byte in the file (the dictionary page, else the first data page)
    size: int  #: bytes, page headers included
    rows: int  #: values (= rows: the plan admits no nulls)
    codec: int  #: a value of :data:`CODECS`


@dataclass(frozen=True)
class ColumnPlan:
    """What :func:`column_plan` found: the chunks of the two id columns in file order
    of row groups, each column's physical width, and their levels."""

    chunks: tuple[ChunkRef, ...]
    widths: tuple[int, int]  #: bytes per value: 4 (INT32) or 8 (INT64)
    max_def: tuple[int, int]  #: 0 for a required column, 1 for an optional one
    rows: int

    @property
    def nbytes(self) -> int:
        return sum(c.size for c in self.chunks)


_PHYSICAL = {"INT32": 4, "INT64": 8}


def column_plan(pf: Any, columns: tuple[int, int]) -> ColumnPlan | str:
    """The chunks of ``columns`` of the ``pyarrow.parquet.ParquetFile`` ``pf``, or the
    reason they are beyond the page decoder (the caller then reads them with pyarrow).

    Admitted: flat (top-level, not repeated) INT32 or INT64 columns whose logical type
    is a signed integer or none, or an unsigned one of at most 16 bits; no nulls, as
    every chunk's statistics say (a chunk without a null count is refused); codec
    UNCOMPRESSED or SNAPPY; encodings PLAIN and dictionary (levels RLE).
    """
    meta = pf.metadata
    schema = pf.schema
    widths, max_def = [], []
    for c in columns:
        col = schema.column(c)
        if col.max_repetition_level != 0 or col.max_definition_level > 1:
            return f"column {col.path!r} is nested or repeated"
        if col.physical_type not in _PHYSICAL:
            return f"column {col.path!r} is {col.physical_type}, not INT32 or INT64"
        logical = str(col.logical_type)
        small = logical.startswith(("Int(bitWidth=8,", "Int(bitWidth=16,"))
        if (
            logical not in ("None", "Int(bitWidth=32, isSigned=true)")
            and not small
            and (logical != "Int(bitWidth=64, isSigned=true)")
        ):
            return f"column {col.path!r} has logical type {logical}"
        widths.append(_PHYSICAL[col.physical_type])
        max_def.append(int(col.max_definition_level))
    chunks = []
    for g in range(meta.num_row_groups):
        group = meta.row_group(g)
        for k, c in enumerate(columns):
            cc = group.column(c)
            if cc.compression not in CODECS:
                return f"row group {g} is compressed with {cc.compression}"
            if not set(cc.encodings) <= _ENCODINGS:
                return f"row group {g} uses encodings {sorted(cc.encodings)}"
            if max_def[k]:
                stats = cc.statistics
                if stats is None or not stats.has_null_count:
                    return f"row group {g} does not record its null count"
                if stats.null_count:
                    return f"row group {g} holds null ids"
            if cc.num_values != group.num_rows:  # flat, no nulls: one value a row
                return f"row group {g} holds {cc.num_values} values in {group.num_rows} rows"
            start = cc.dictionary_page_offset if cc.has_dictionary_page else cc.data_page_offset
            if start is None or start < 4 or cc.total_compressed_size <= 0:
                return f"row group {g} gives no byte range for its column chunk"
            chunks.append(
                ChunkRef(
                    g,
                    k,
                    int(start),
                    int(cc.total_compressed_size),
                    int(cc.num_values),
                    CODECS[cc.compression],
                )
            )
    return ColumnPlan(
        tuple(chunks), (widths[0], widths[1]), (max_def[0], max_def[1]), meta.num_rows
    )


# ----------------------------------------------------------------------------- Thrift
@nb.njit(cache=True, inline="always")
def _varint(buf: np.ndarray, pos: int, end: int) -> tuple[int, int]:
    """An unsigned varint at ``pos``: (value, position after it); position -1 if bad."""
    value, shift = 0, 0
    while pos < end:
        b = np.int64(buf[pos])
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7
        if shift > 63:
            return 0, -1
    return 0, -1


@nb.njit(cache=True, inline="always")
def _zigzag(v: int) -> int:
    return (v >> 1) ^ -(v & 1)


#: What :func:`_field` gives as the type of a struct's end (the stop byte).
_STOP = -1


@nb.njit(cache=True, inline="always")
def _field(buf: np.ndarray, pos: int, end: int, last: int) -> tuple[int, int, int]:
    """The field header at ``pos`` of a struct whose previous field was ``last``:
    ``(field id, compact type, position after it)``; the type is :data:`_STOP` at the
    struct's end, the position -1 where the bytes are not valid."""
    if pos >= end:
        return 0, 0, -1
    h = np.int64(buf[pos])
    pos += 1
    if h == 0:
        return 0, _STOP, pos
    t = h & 0x0F
    if (h >> 4) != 0:  # a delta from the previous field's id
        return last + (h >> 4), t, pos
    fid, pos = _varint(buf, pos, end)
    return _zigzag(fid), t, pos


@nb.njit(cache=True, inline="always")
def _past_scalar(buf: np.ndarray, pos: int, end: int, t: int) -> int:
    """The position after the value at ``pos`` of compact type ``t`` (3 to 8: a byte,
    a varint, a double or a string); -1 where its varint is not valid."""
    if t == 3:
        return pos + 1
    if t == 7:
        return pos + 8
    n, pos = _varint(buf, pos, end)
    if t == 8 and pos >= 0:
        return pos + n  # a string: its length, then its bytes
    return pos


#: What :func:`_skip_flat_struct` gives for a struct with a container inside.
_NESTED = -2


@nb.njit(cache=True)
def _skip_flat_struct(buf: np.ndarray, pos: int, end: int) -> int:
    """The position after a struct whose fields are all scalars or strings (-1 where
    the bytes are not valid, :data:`_NESTED` where a field is a container): the fast
    path of :func:`_skip` for the statistics every data page header carries."""
    while True:
        _, t, pos = _field(buf, pos, end, 0)
        if pos < 0:
            return -1
        if t == _STOP:
            return pos
        if 3 <= t <= 8:
            pos = _past_scalar(buf, pos, end, t)
        elif t != 1 and t != 2:  # a bool field carries its value in its type
            return _NESTED
        if pos < 0 or pos > end:
            return -1


@nb.njit(cache=True)
def _skip(buf: np.ndarray, pos: int, end: int, vtype: int, stack: np.ndarray) -> int:
    """The position after one value of compact type ``vtype`` that is a struct field
    (iterative: containers nest on ``stack``, a caller's (4, 32) scratch array); -1
    where the bytes are not valid."""
    if vtype == 1 or vtype == 2:  # a bool field carries its value in its type
        return pos
    if vtype == 12:  # a struct of scalars and strings (page statistics) needs no stack
        flat = _skip_flat_struct(buf, pos, end)
        if flat != _NESTED:
            return flat
    kind, etype, vtype2, left = stack[0], stack[1], stack[2], stack[3]  # kind 0: struct,
    # 1: list, 2: map
    kind[0], etype[0], left[0] = 1, vtype, 1  # a list of the one value
    depth = 1
    while depth > 0:
        d = depth - 1
        element = True
        if kind[d] == 0:
            _, t, pos = _field(buf, pos, end, 0)  # the ids of skipped fields do not matter
            if pos < 0:
                return -1
            if t == _STOP:
                depth -= 1
                continue
            element = False
        elif left[d] == 0:
            depth -= 1
            continue
        else:
            left[d] -= 1
            t = etype[d] if kind[d] == 1 or left[d] % 2 == 1 else vtype2[d]
        if t == 1 or t == 2:
            if element:  # a bool inside a list or map takes one byte
                pos += 1
        elif 3 <= t <= 8:
            pos = _past_scalar(buf, pos, end, t)
        elif t == 9 or t == 10 or t == 11 or t == 12:
            if depth == 32:
                return -1
            if t == 12:
                kind[depth], left[depth] = 0, 0
            elif t == 11:
                n, pos = _varint(buf, pos, end)
                if pos < 0:
                    return -1
                kt = 0
                if n > 0:
                    if pos >= end:
                        return -1
                    kt = np.int64(buf[pos])
                    pos += 1
                kind[depth], etype[depth], vtype2[depth], left[depth] = 2, kt >> 4, kt & 15, 2 * n
            else:
                if pos >= end:
                    return -1
                h = np.int64(buf[pos])
                pos += 1
                n = h >> 4
                if n == 15:
                    n, pos = _varint(buf, pos, end)
                    if pos < 0:
                        return -1
                kind[depth], etype[depth], left[depth] = 1, h & 15, n
            depth += 1
        else:
            return -1
        if pos < 0 or pos > end:
            return -1
    return pos


@nb.njit(cache=True)
def _struct_ints(buf: np.ndarray, pos: int, end: int, out: np.ndarray, stack: np.ndarray) -> int:
    """Read a struct whose fields 1..len(out)-1 of interest are i32 or bool: their values
    into ``out[id]`` (bools as 1/0; fields absent keep what ``out`` held), the rest skipped.
    Returns the position after the struct, or -1."""
    last = 0
    while True:
        fid, t, pos = _field(buf, pos, end, last)
        if pos < 0:
            return -1
        if t == _STOP:
            return pos
        last = fid
        if 0 < fid < out.shape[0] and (t == 5 or t == 4 or t == 6):
            v, pos = _varint(buf, pos, end)
            if pos < 0:
                return -1
            out[fid] = _zigzag(v)
        elif 0 < fid < out.shape[0] and (t == 1 or t == 2):
            out[fid] = 1 if t == 1 else 0
        else:
            pos = _skip(buf, pos, end, t, stack)
            if pos < 0:
                return -1


@nb.njit(cache=True)
def _page_header(
    buf: np.ndarray,
    pos: int,
    end: int,
    row: np.ndarray,
    top: np.ndarray,
    sub: np.ndarray,
    stack: np.ndarray,
) -> int:
    """Parse the PageHeader at ``pos`` into ``row`` (laid out as :data:`COLUMNS`; ``top``,
    ``sub`` and ``stack`` are scratch); the position of the page's body, or -1 where
    the header is not valid."""
    top[:] = -1  # type, uncompressed_page_size, compressed_page_size
    sub[:] = -1
    sub[7] = 1  # DataPageHeaderV2.is_compressed defaults to true
    last = 0
    while True:
        fid, t, pos = _field(buf, pos, end, last)
        if pos < 0:
            return -1
        if t == _STOP:
            break
        last = fid
        if 1 <= fid <= 3 and t == 5:
            v, pos = _varint(buf, pos, end)
            if pos < 0:
                return -1
            top[fid] = _zigzag(v)
        elif (fid == 5 or fid == 7 or fid == 8) and t == 12:
            top[fid] = 1
            pos = _struct_ints(buf, pos, end, sub, stack)
            if pos < 0:
                return -1
        else:
            pos = _skip(buf, pos, end, t, stack)
            if pos < 0:
                return -1
    kind = top[1]
    row[1] = kind
    row[3], row[4] = top[3], top[2]
    row[7], row[8], row[9], row[10] = 0, 1, -1, -1
    if kind == DATA_PAGE and top[5] == 1:
        # DataPageHeader: 1 num_values, 2 encoding, 3 definition_level_encoding
        row[5], row[6], row[10] = sub[1], sub[2], sub[3]
    elif kind == DICTIONARY_PAGE and top[7] == 1:
        row[5], row[6] = sub[1], sub[2]  # DictionaryPageHeader: 1 num_values, 2 encoding
    elif kind == DATA_PAGE_V2 and top[8] == 1:
        # DataPageHeaderV2: 1 num_values, 2 num_nulls, 4 encoding, 5 / 6 level bytes,
        # 7 is_compressed
        row[5], row[9], row[6] = sub[1], sub[2], sub[4]
        row[7] = sub[5] + sub[6]
        row[8] = sub[7]
    else:
        row[5], row[6] = -1, -1  # a page the decoder has no use for (an index page)
    if top[2] < 0 or top[3] < 0:
        return -1
    return pos


@nb.njit(cache=True, nogil=True)  # the GPU decoder parses while its threads read
def _walk(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray, table: np.ndarray) -> tuple:
    """Walk the pages of every chunk ``buf[starts[c]:ends[c]]``, filling the rows of
    ``table`` it has room for. Returns (pages, error code, chunk of the error)."""
    row = np.zeros(K, np.int64)
    top, sub = np.empty(9, np.int64), np.empty(9, np.int64)
    stack = np.zeros((4, 32), np.int64)
    count = 0
    for c in range(starts.shape[0]):
        pos, end = starts[c], ends[c]
        while pos < end:
            body = _page_header(buf, pos, end, row, top, sub, stack)
            if body < 0:
                return count, BAD_HEADER, c
            if row[3] < 0 or row[4] < 0 or (row[1] != 1 and row[5] < 0) or row[7] < 0:
                return count, BAD_PAGE, c
            pos = body + row[3]
            if pos > end or row[7] > row[3]:
                return count, OVERRUN, c
            if count < table.shape[0]:
                row[0], row[2] = c, body
                table[count, :] = row
            count += 1
    return count, OK, -1


#: Bytes per page :func:`page_table` sizes its table for before it walks (writers' pages
#: hold 8 KiB to 1 MiB; smaller ones cost a second walk).
_GUESS_PAGE_BYTES = 2048


def page_table(
    buf: np.ndarray, starts: np.ndarray, ends: np.ndarray
) -> tuple[np.ndarray, int, int]:
    """The pages of the column chunks ``buf[starts[c]:ends[c]]``, one row per page
    (:data:`COLUMNS`), and the error code and chunk where a header was bad
    (``OK, -1`` when none was; the table then holds the pages before it)."""
    starts = np.ascontiguousarray(starts, np.int64)
    ends = np.ascontiguousarray(ends, np.int64)
    # One walk where the guess holds: the walk is most of the host's share of the GPU
    # decoder, and counting first doubled it. Pages smaller than the guess assumes walk
    # again into a table of the exact size.
    table = np.empty((max(64, int((ends - starts).sum()) // _GUESS_PAGE_BYTES), K), np.int64)
    count, err, where = _walk(buf, starts, ends, table)
    if count > table.shape[0]:
        table = np.empty((count, K), np.int64)
        _walk(buf, starts, ends, table)
    return table[:count], int(err), int(where)


def check_table(
    table: np.ndarray, err: int, where: int, max_def: np.ndarray, what: Callable[[int], str]
) -> None:
    """Raise :class:`~concomp.errors.GraphFormatError` for a corrupt chunk, null ids, or
    pages that contradict the footer :func:`column_plan` admitted (an encoding it does
    not list); ``what(chunk)`` names a chunk, ``max_def`` holds each chunk's maximum
    definition level."""
    if err != OK:
        raise GraphFormatError(f"{what(where)}: {_MESSAGES[err]}. {FORMAT_FIX}")
    kind = table[:, 1]
    data = (kind == DATA_PAGE) | (kind == DATA_PAGE_V2)
    enc = table[:, 6]
    plain = (enc == PLAIN) | (enc == PLAIN_DICTIONARY)  # comparisons: isin sorts
    odd = data & ~(plain | (enc == RLE_DICTIONARY))
    odd |= (kind == DICTIONARY_PAGE) & ~plain
    odd |= (kind == DATA_PAGE) & (max_def[table[:, 0]] > 0) & (table[:, 10] != RLE)
    if odd.any():
        p = int(np.flatnonzero(odd)[0])
        raise GraphFormatError(
            f"{what(int(table[p, 0]))}: a page's encoding ({int(table[p, 6])}, levels "
            f"{int(table[p, 10])}) is not among those the footer lists. {FORMAT_FIX}"
        )
    nulls = (kind == DATA_PAGE_V2) & (table[:, 9] > 0)
    if nulls.any():
        raise GraphFormatError(
            f"{what(int(table[nulls][0, 0]))}: null ids. Fix: drop the edges with a "
            "missing endpoint."
        )


FORMAT_FIX = "Fix: write the file again (pyarrow.parquet.write_table or concomp.write_graph)."
