"""Per-format graph readers behind :func:`concomp.io.read_graph`.

Each reader takes the decompressed file bytes and the caller's options and
returns a :class:`~concomp.Graph`; :data:`READERS` maps a format name to its
reader. Text bodies go through the scanners of :mod:`concomp.io._parse`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import GraphFormatError
from ..graph import Graph
from ._files import pyarrow_or_raise
from ._parse import Text, line_of, raise_at, scan_body, scan_metis


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
    for sep in b',"' + (delim.encode() if delim else b""):
        line = line.replace(bytes([sep]), b" ")
    return line.split()


def _is_number(tok: bytes) -> bool:
    try:
        float(tok)
    except ValueError:
        return False
    return True


def _ints(
    line: bytes, count: int, name: str, data: bytes, start: int, what: str, fix: str
) -> list[int]:
    toks = line.split()
    if len(toks) < count or not all(t.isdigit() for t in toks[:count]):
        raise_at(name, np.frombuffer(data, np.uint8), start, f"expected {what}", fix)
    return [int(t) for t in toks[:count]]


def _declared(value: int, opt, data: bytes, start: int, what: str, per_item: int = 8) -> int:
    """``value`` from a file header, checked like any vertex or edge count before use."""
    from .._checks import check_count

    lineno, _ = line_of(np.frombuffer(data, np.uint8), start)
    return check_count(
        value,
        "",
        what=what,
        per_item=per_item,
        where=f"{opt.name}, line {lineno}",
        cause="the header declares",
        fix="correct the header (ids must be dense: relabel the vertices to 1 .. n or 0 .. n-1)",
        error=GraphFormatError,
    )


def _select_weights(opt, w):
    if opt.weighted is False:
        return None
    if opt.weighted and w is None:
        raise GraphFormatError(
            f"{opt.name}: weighted=True but the file has no weight column. "
            "Fix: add a third column or pass weighted=None."
        )
    return w


def _finish(opt, src, dst, w, n, directed: bool):
    n = opt.num_nodes if opt.num_nodes is not None else n
    d = directed if opt.directed is None else opt.directed
    return Graph.from_edges(src, dst, n, weights=_select_weights(opt, w), directed=d)


def _max_id(src, dst) -> int:
    return int(max(src.max(), dst.max())) if src.shape[0] else -1


def _read_edge_list(text, opt, csv: bool):
    data = text.head
    comment = b"#%" if opt.comment is None else opt.comment
    start, end, first = _data_line(data, 0, comment)
    header = opt.header
    if header is None and csv:
        header = bool(first) and not all(_is_number(t) for t in _tokens(first, opt.delimiter))
    if header:
        start = min(end + 1, len(data))
    base = 1 if opt.one_based else 0
    what = (
        "at least 2 numeric columns (u,v[,weight,...])" if csv else "2 or 3 numbers (u v [weight])"
    )
    src, dst, w = scan_body(
        text,
        start,
        opt.name,
        comment=comment,
        min_id=base,
        max_cols=1 << 30 if csv else 3,
        delim=opt.delimiter,
        what=what,
    )
    if base:
        src -= 1
        dst -= 1
    n, directed = _max_id(src, dst) + 1, False
    if not csv:
        declared, directed, at = _snap_comments(data, comment)
        n = max(n, _declared(declared, opt, data, at, "vertices"))
    return _finish(opt, src, dst, w, n, directed)


def _snap_comments(data: bytes, comment: bytes) -> tuple[int, bool, int]:
    """(``# Nodes: N`` count or 0, directedness named in the leading comment block,
    byte offset of the line declaring N)."""
    import re

    head = []
    starts = []
    pos = 0
    while pos < len(data) and len(head) < 1000:
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        s = data[pos:end].strip()
        if s and s[:1] not in comment:
            break
        head.append(s.lower())
        starts.append(pos)
        pos = end + 1
    text = b"\n".join(head)
    found = re.search(rb"nodes:\s*(\d+)", text)
    directed = b"directed" in text.replace(b"undirected", b"")
    if not found:
        return 0, directed, 0
    line = text.count(b"\n", 0, found.start())
    return int(found.group(1)), directed, starts[line]


def _read_snap(text, opt):
    return _read_edge_list(text, opt, csv=False)


def _read_csv(text, opt):
    return _read_edge_list(text, opt, csv=True)


def _read_mtx(text, opt):
    data = text.head
    buf = np.frombuffer(data, np.uint8)
    name = opt.name
    fix = "use a 'coordinate' matrix with field pattern/real/integer"
    if not data[:4096].lstrip().startswith(b"%%MatrixMarket"):
        return _read_mtx_body(text, opt)
    bstart = data.find(b"%%MatrixMarket")
    bend = data.find(b"\n", bstart)
    bend = len(data) if bend < 0 else bend
    banner = data[bstart:bend].lower().split()
    if (
        len(banner) < 5
        or banner[1] != b"matrix"
        or banner[2] != b"coordinate"
        or banner[3] not in (b"pattern", b"real", b"integer", b"double")
        or banner[4] not in (b"general", b"symmetric", b"skew-symmetric")
    ):
        raise_at(
            name,
            buf,
            bstart,
            "a banner '%%MatrixMarket matrix coordinate "
            "<pattern|real|integer> <general|symmetric>'",
            fix,
        )
    field, symmetry = banner[3], banner[4]
    start, end, size = _data_line(data, bend + 1, b"%")
    rows, cols, nnz = _ints(
        size,
        3,
        name,
        data,
        start,
        "a size line 'rows cols entries'",
        "put the size line after the comments",
    )
    _declared(max(rows, cols), opt, data, start, "vertices")
    _declared(nnz, opt, data, start, "entries", per_item=16)
    if rows != cols:
        raise_at(
            name,
            buf,
            start,
            f"a square matrix (an adjacency matrix), not {rows} x {cols}",
            "store the graph's n x n adjacency matrix",
        )
    pattern = field == b"pattern"
    src, dst, w = scan_body(
        text,
        end + 1,
        name,
        comment=b"%",
        min_id=1,
        max_id=rows,
        ncols=2 if pattern else 3,
        what="'i j'" if pattern else "'i j value'",
    )
    if src.shape[0] != nnz:
        raise GraphFormatError(
            f"{name}: the size line declares {nnz} entries but the file "
            f"lists {src.shape[0]}. Fix: set the entry count to "
            f"{src.shape[0]} or restore the missing lines."
        )
    if w is not None and field != b"integer":
        w = w.astype(np.float64, copy=False)
    src -= 1
    dst -= 1
    return _finish(opt, src, dst, w, rows, symmetry == b"general")


def _read_mtx_body(text, opt):
    # banner-less body (the DIMACS10 copies in some repositories): a 3-number first line
    # followed by 2-number lines is the size line, otherwise every line is an entry
    data = text.head
    start, end, first = _data_line(data, 0, b"%")
    _, _, second = _data_line(data, end + 1, b"%")
    declared = None
    if len(first.split()) == 3 and len(second.split()) == 2:
        declared = _ints(first, 3, opt.name, data, start, "a size line", "fix it")[0]
        _declared(declared, opt, data, start, "vertices")
        start = end + 1
    src, dst, w = scan_body(
        text,
        start,
        opt.name,
        comment=b"%",
        min_id=1,
        max_id=declared or 2**62,
        what="'i j [value]' (1-based)",
    )
    src -= 1
    dst -= 1
    n = declared if declared is not None else _max_id(src, dst) + 1
    triangle = bool((src >= dst).all() or (src <= dst).all())
    return _finish(opt, src, dst, w, n, not triangle)


def _read_p_format(text, opt, pace: bool):
    data = text.head
    buf = np.frombuffer(data, np.uint8)
    name = opt.name
    start, end, line = _data_line(data, 0, b"c")
    toks = line.split()
    kinds = (b"tw",) if pace else (b"sp", b"edge", b"col")
    want = "'p tw n m'" if pace else "'p sp n m' (or 'p edge n m')"
    if len(toks) < 4 or toks[0] != b"p" or toks[1] not in kinds:
        raise_at(
            name,
            buf,
            start,
            f"a problem line {want} before the edges",
            f"add {want} after the 'c' comments",
        )
    nv, m = _ints(b" ".join(toks[2:4]), 2, name, data, start, want, "write n and m as integers")
    _declared(nv, opt, data, start, "vertices")
    _declared(m, opt, data, start, "edges", per_item=16)
    prefix = "" if pace else ("a" if toks[1] == b"sp" else "e")
    what = "'u v' with 1-based ids" if pace else f"'{prefix} u v [w]' with 1-based ids"
    src, dst, w = scan_body(
        text,
        end + 1,
        name,
        comment=b"c",
        prefix=prefix,
        min_id=1,
        max_id=nv,
        ncols=2 if pace else 0,
        what=what,
    )
    if src.shape[0] != m:
        lineno, _ = line_of(buf, start)
        raise GraphFormatError(
            f"{name}, line {lineno}: the 'p' line declares m={m} edges but "
            f"the file lists {src.shape[0]}. Fix: set m={src.shape[0]} or "
            "restore the missing edge lines."
        )
    src -= 1
    dst -= 1
    return _finish(opt, src, dst, w, nv, not pace and prefix == "a")


def _read_dimacs(text, opt):
    return _read_p_format(text, opt, pace=False)


def _read_pace(text, opt):
    return _read_p_format(text, opt, pace=True)


def _read_metis(text: Text, opt):
    data = text.head  # the header is among the first bytes; the body streams in blocks
    buf = np.frombuffer(data, np.uint8)
    start, end, line = _data_line(data, 0, b"%")
    toks = line.split()
    what = "a header 'n m [fmt [ncon]]'"
    nv, m = _ints(line, 2, opt.name, data, start, what, "start the file with 'n m'")
    _declared(nv, opt, data, start, "vertices")
    _declared(2 * m, opt, data, start, "neighbour entries (2 m)", per_item=16)
    code = toks[2].decode() if len(toks) > 2 else "0"
    if len(code) > 3 or set(code) - {"0", "1"}:
        raise_at(
            opt.name,
            buf,
            start,
            f"{what} with fmt made of 0/1 digits",
            "use fmt 0, 1, 10, 11, 100, ...",
        )
    code = code.zfill(3)
    ncon = int(toks[3]) if len(toks) > 3 and toks[3].isdigit() else 1
    lead = (code[0] == "1") + (ncon if code[1] == "1" else 0)
    indptr, indices, w = scan_metis(
        text, min(end + 1, len(data)), opt.name, nv, m, lead=lead, has_ew=code[2] == "1"
    )
    n = nv
    if opt.num_nodes is not None and opt.num_nodes > nv:
        indptr = np.concatenate([indptr, np.full(opt.num_nodes - nv, indptr[-1])])
        n = opt.num_nodes
    elif opt.num_nodes is not None:
        n = opt.num_nodes
    return Graph.from_csr(
        indptr,
        indices,
        n,
        weights=_select_weights(opt, w),
        directed=bool(opt.directed),
        symmetric=_is_symmetric(indptr, indices),
    )


def _is_symmetric(indptr: np.ndarray, indices: np.ndarray) -> bool:
    from ._scan import is_symmetric_csr

    return bool(is_symmetric_csr(indptr, indices))


def _read_npz(data: bytes, opt):
    from ..errors import InvalidGraphError

    try:
        return _read_npz_checked(data, opt)
    except GraphFormatError:
        raise
    except InvalidGraphError as exc:  # the stored arrays fail the graph checks
        raise GraphFormatError(
            f"{opt.name}: the stored arrays are not a valid graph: {exc}"
        ) from exc
    except (ValueError, TypeError, IndexError, OverflowError) as exc:  # odd shapes or dtypes
        raise GraphFormatError(
            f"{opt.name}: the stored arrays do not form a graph "
            f"({type(exc).__name__}: {exc}). Fix: write the file with "
            "concomp.write_graph or scipy.sparse.save_npz."
        ) from exc


def _read_npz_checked(data: bytes, opt):
    import io

    try:
        z = np.load(io.BytesIO(data), allow_pickle=False)
    except Exception as exc:  # zipfile and numpy raise several unrelated types
        raise GraphFormatError(
            f"{opt.name}: not a readable .npz archive ({exc}). Fix: write it "
            "with numpy.savez or scipy.sparse.save_npz."
        ) from exc
    try:
        with z:
            fields = {k: z[k] for k in z.files}
    except Exception as exc:  # a damaged member shows only when it is read
        raise GraphFormatError(
            f"{opt.name}: a damaged .npz archive ({type(exc).__name__}: "
            f"{exc}). Fix: write the file again."
        ) from exc
    for key, arr in fields.items():
        if arr.dtype.kind not in "iufbUS":
            raise GraphFormatError(
                f"{opt.name}: array {key!r} has dtype {arr.dtype}. Fix: store "
                "numeric arrays (numpy.savez or scipy.sparse.save_npz)."
            )
    z = fields
    keys = set(z)
    fmt = z["format"].item() if "format" in keys else "csr"
    fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
    if fmt != "csr":
        import scipy.sparse as sp

        try:
            A = sp.load_npz(io.BytesIO(data)).tocsr()
        except Exception as exc:  # SciPy raises several unrelated types
            raise GraphFormatError(
                f"{opt.name}: not a readable sparse matrix archive "
                f"({type(exc).__name__}: {exc}). Fix: write it with "
                "scipy.sparse.save_npz."
            ) from exc
        indptr, indices, vals, shape = A.indptr, A.indices, A.data, A.shape
    elif not {"indptr", "indices"} <= keys:
        raise GraphFormatError(
            f"{opt.name}: the archive holds {sorted(keys)}, not the CSR "
            "arrays 'indptr' and 'indices'. Fix: save a CSR matrix."
        )
    else:
        indptr, indices = z["indptr"], z["indices"]
        vals = z["data"] if "data" in keys else None
        shape = tuple(z["shape"].tolist()) if "shape" in keys else None
        if shape is not None and (
            len(shape) != 2 or not all(isinstance(x, int) and x >= 0 for x in shape)
        ):
            raise GraphFormatError(
                f"{opt.name}: 'shape' is {shape}, not two counts. Fix: "
                "store the matrix shape (n, n)."
            )
    weighted = bool(z["weighted"]) if "weighted" in keys else vals is not None
    directed = bool(z["directed"]) if "directed" in keys else True
    eid = z["edge_ids"] if "edge_ids" in keys else None
    if shape is not None and shape[0] != shape[1]:
        raise GraphFormatError(
            f"{opt.name}: matrix shape {shape} is not square. Fix: store the "
            "n x n adjacency matrix."
        )
    n = shape[0] if shape is not None else indptr.shape[0] - 1
    w = vals if weighted else None
    if eid is not None:  # written by concomp: restore the original edge order
        Graph.from_csr(indptr, indices, n)  # the CSR itself must hold before it is indexed
        m = indices.shape[0]
        if (
            eid.ndim != 1
            or eid.shape[0] != m
            or eid.dtype.kind not in "iu"
            or (
                m
                and (
                    int(eid.min()) < 0
                    or int(eid.max()) >= m
                    or np.bincount(eid, minlength=m).max() != 1
                )
            )
        ):
            raise GraphFormatError(
                f"{opt.name}: 'edge_ids' is not a permutation of 0 .. {m - 1}"
                " (one id per stored entry). Fix: write the file again with "
                "concomp.write_graph, or drop 'edge_ids'."
            )
        if vals is not None and vals.shape != indices.shape:
            raise GraphFormatError(
                f"{opt.name}: 'data' has shape {vals.shape}, 'indices' "
                f"{indices.shape}. Fix: store one value per entry."
            )
        rows = np.repeat(np.arange(n, dtype=indices.dtype), np.diff(indptr))
        src, dst = np.empty_like(rows), np.empty_like(indices)
        src[eid], dst[eid] = rows, indices
        if w is not None:
            w = w.copy()
            w[eid] = vals
        return _finish(opt, src, dst, w, n, directed)
    d = directed if opt.directed is None else opt.directed
    n = n if opt.num_nodes is None else opt.num_nodes
    return Graph.from_csr(indptr, indices, n, weights=_select_weights(opt, w), directed=d)


def _read_parquet(data: bytes | None, opt):
    """Parquet from ``data``, or (``data`` None) straight from the file ``opt.name``."""
    from .._checks import _DST_NAMES, _SRC_NAMES, _W_NAMES, _pick

    pa, pq = pyarrow_or_raise()
    try:
        if data is None:
            table = pq.read_table(opt.name, memory_map=True)
        else:
            table = pq.read_table(pa.BufferReader(data))
    except (pa.ArrowException, OSError, ValueError) as exc:  # Arrow reports damage as OSError
        raise GraphFormatError(
            f"{opt.name}: not a readable Parquet file ({type(exc).__name__}: "
            f"{exc}). Fix: write it again (pyarrow.parquet.write_table or "
            "concomp.write_graph)."
        ) from exc
    cols = table.column_names
    if len(cols) < 2:
        raise GraphFormatError(
            f"{opt.name}: Parquet columns {cols}: need src and dst columns. "
            "Fix: write columns src, dst[, weight]."
        )
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


#: Formats whose readers take a :class:`~concomp.io._parse.Text` (parsed in blocks);
#: the others take the whole decompressed file as bytes.
TEXT_FORMATS = ("snap", "csv", "mtx", "dimacs", "pace", "metis")
READERS: dict[str, Callable[[Any, Any], Graph]] = {
    "snap": _read_snap,
    "csv": _read_csv,
    "mtx": _read_mtx,
    "dimacs": _read_dimacs,
    "pace": _read_pace,
    "metis": _read_metis,
    "npz": _read_npz,
    "parquet": _read_parquet,
}
