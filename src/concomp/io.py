"""Read and write graph files: SNAP, CSV, Matrix Market, DIMACS, PACE, METIS, npz, Parquet.

Text files are read whole (``.gz``, ``.xz`` and ``.bz2`` decompressed on the fly,
recognised by extension and by magic bytes) and parsed by one numba byte scanner
(:mod:`concomp._io_parse`), tens of millions of edges per second. Edge ids are the
order of the edge lines in the file (for npz, the order of the stored entries, or
the ``edge_ids`` array that :func:`write_graph` stores beside them).

======== ============================== ======== ============================
format   extensions                      ids      default ``directed``
======== ============================== ======== ============================
snap     .txt .edges .edgelist .el .tsv  0-based  from a ``# Directed`` /
                                                  ``# Undirected`` comment, else
                                                  False
csv      .csv                            0-based  False
mtx      .mtx .mm                        1-based  True for ``general``, False for
                                                  ``symmetric`` (one triangle)
dimacs   .gr (``p sp``)                  1-based  True (arcs)
pace     .gr (``p tw``)                  1-based  False
metis    .graph .metis                   1-based  False (both directions kept)
npz      .npz                            0-based  stored flag, else True
parquet  .parquet .pq                    0-based  stored flag, else False
======== ============================== ======== ============================

Choices worth knowing:

* SNAP: ``n = max(max id + 1, N)`` where ``N`` comes from a leading
  ``# Nodes: N`` comment (so trailing isolated vertices survive a round trip).
  CSV: ``n = max id + 1``. ``num_nodes=`` overrides both.
* METIS lists each undirected edge in both endpoints' lines. Both entries are
  kept (``num_edges == 2 m``, in file order) and the graph is flagged
  ``symmetric`` after checking that it is, so no reverse edges are added later.
* Matrix Market ``symmetric`` files store one triangle: each stored entry is one
  undirected edge. A file without the ``%%MatrixMarket`` banner is read as a body
  of 1-based ``i j [w]`` lines with ``n = max id``; it is undirected when every
  entry lies in one triangle.
* DIMACS also reads ``p edge``/``p col`` files (``e u v`` lines, undirected), and
  ``a u v`` arcs without a weight, which is how unweighted graphs are written.
* Writing: a weighted graph written as PACE loses its weights (the format has
  none); METIS drops self loops (the format forbids them) and writes both
  directions; undirected graphs go to Matrix Market as the lower triangle (for a
  graph flagged ``symmetric``, the entries with ``u >= v``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from .errors import GraphFormatError, InvalidGraphError
from .graph import Graph

__all__ = ["FORMATS", "read_graph", "sniff_format", "write_graph"]

FORMATS = ("snap", "csv", "mtx", "dimacs", "pace", "metis", "npz", "parquet")
_EXTENSIONS = {".txt": "snap", ".edges": "snap", ".edgelist": "snap", ".el": "snap",
               ".tsv": "snap", ".csv": "csv", ".mtx": "mtx", ".mm": "mtx", ".gr": "gr",
               ".dimacs": "dimacs", ".graph": "metis", ".metis": "metis", ".npz": "npz",
               ".parquet": "parquet", ".pq": "parquet"}
_COMPRESSIONS = {".gz": "gzip", ".xz": "xz", ".bz2": "bz2"}
_MAGIC = ((b"\x1f\x8b", "gzip"), (b"\xfd7zXZ\x00", "xz"), *((b"BZh" + bytes([c]), "bz2")
                                                            for c in b"123456789"))


@dataclass(frozen=True)
class _Options:
    name: str
    directed: bool | None
    weighted: bool | None
    num_nodes: int | None
    one_based: bool | None
    delimiter: str | None
    comment: bytes | None
    header: bool | None


def read_graph(path: str | os.PathLike, format: str = "auto", *, directed: bool | None = None,
               weighted: bool | None = None, num_nodes: int | None = None,
               one_based: bool | None = None, delimiter: str | None = None,
               comment: str | None = None, header: bool | None = None,
               progress: bool = False) -> Graph:
    """Read a graph file into a :class:`~concomp.Graph`.

    Parameters
    ----------
    path : str or path-like
        The file; ``.gz``, ``.xz`` and ``.bz2`` are decompressed transparently.
    format : str
        One of ``FORMATS`` or ``"auto"`` (by extension, then by content).
    directed : bool, optional
        Override the format's default (see the module docstring).
    weighted : bool, optional
        ``None`` keeps a weight column if the file has one, ``False`` drops it,
        ``True`` requires it.
    num_nodes : int, optional
        Number of vertices, overriding the header or ``max id + 1``.
    one_based : bool, optional
        SNAP/CSV only: ids start at 1 and are shifted down by one.
    delimiter : str, optional
        One extra field separator character (space, tab and comma always are).
    comment : str, optional
        Characters that start a comment line (default ``"#%"`` for SNAP/CSV).
    header : bool, optional
        CSV/SNAP: whether the first data line is a header. ``None`` means CSV
        detects it (a non-numeric first line), SNAP assumes none.
    progress : bool
        Show a byte progress bar while reading when ``tqdm`` is installed.

    Returns
    -------
    Graph

    Raises
    ------
    GraphFormatError
        The file is malformed; the message names the file, line and fix.

    Examples
    --------
    >>> import os, tempfile
    >>> from concomp.io import read_graph
    >>> path = os.path.join(tempfile.mkdtemp(), "g.txt")
    >>> with open(path, "w") as f:
    ...     _ = f.write("# a path and an isolated vertex\\n0 1\\n1 2\\n4 4\\n")
    >>> g = read_graph(path)
    >>> g.num_nodes, g.num_edges
    (5, 3)
    >>> [a.tolist() for a in g.coo()]
    [[0, 1, 4], [1, 2, 4]]
    """
    name = os.fspath(path)
    if format != "auto" and format not in FORMATS:
        raise InvalidGraphError(f"argument `format`: {format!r} is not a known graph format; "
                                f"allowed: 'auto', {', '.join(map(repr, FORMATS))}. Fix: pass "
                                "one of those.")
    if delimiter is not None and len(delimiter.encode()) != 1:
        raise InvalidGraphError(f"argument `delimiter`: {delimiter!r} must be one ASCII "
                                "character. Fix: pass e.g. ';' or '|'.")
    data = _decompress(_read_bytes(name, progress), name)
    fmt = format if format != "auto" else _detect_format(name, data)
    opt = _Options(name, directed, weighted, num_nodes, one_based, delimiter,
                   None if comment is None else comment.encode(), header)
    from ._io_parse import READERS

    return READERS[fmt](data, opt)


def write_graph(graph: Any, path: str | os.PathLike, format: str = "auto", *,
                one_based: bool | None = None) -> None:
    """Write a graph in any format :func:`read_graph` reads.

    Parameters
    ----------
    graph : graph-like
        Anything :func:`concomp.as_graph` accepts.
    path : str or path-like
        Target file; a ``.gz``, ``.xz`` or ``.bz2`` suffix compresses text formats.
    format : str
        One of ``FORMATS`` or ``"auto"`` (from the extension).
    one_based : bool, optional
        SNAP/CSV only: write ids starting at 1.

    Examples
    --------
    >>> import os, tempfile, numpy as np
    >>> from concomp.io import read_graph, write_graph
    >>> path = os.path.join(tempfile.mkdtemp(), "g.mtx.gz")
    >>> write_graph((np.array([0, 1]), np.array([1, 2]), np.array([0.5, 2.0])), path)
    >>> g = read_graph(path)
    >>> g.num_edges, g.directed, g.weights.tolist()
    (2, False, [0.5, 2.0])
    """
    from ._validate import as_graph

    name = os.fspath(path)
    g = as_graph(graph).to("cpu")
    base, comp = _split_compression(name)
    fmt = format
    if fmt == "auto":
        fmt = _EXTENSIONS.get(Path(base).suffix.lower(), "")
        fmt = "dimacs" if fmt == "gr" else fmt
        if fmt not in FORMATS:
            raise InvalidGraphError(f"argument `path`: cannot tell the format of {name!r} from "
                                    f"its extension; known: {sorted(_EXTENSIONS)}. Fix: pass "
                                    "format=... explicitly.")
    elif fmt not in FORMATS:
        raise InvalidGraphError(f"argument `format`: {fmt!r} is not a known graph format; "
                                f"allowed: {', '.join(map(repr, FORMATS))}.")
    if comp and fmt in ("npz", "parquet"):
        raise InvalidGraphError(f"argument `path`: {fmt} files are compressed already; drop the "
                                f"compression suffix from {name!r}.")
    _write_chunks(name, comp, WRITERS[fmt](g, bool(one_based)))


# ----------------------------------------------------------------------------- bytes
def _read_bytes(name: str, progress: bool) -> bytes:
    bar = None
    if progress:
        try:
            from tqdm.auto import tqdm
        except ImportError:  # progress bars are a nicety, never a requirement
            tqdm = None
        if tqdm is not None:
            bar = tqdm(total=os.path.getsize(name), unit="B", unit_scale=True,
                       desc=os.path.basename(name))
    with open(name, "rb") as f:
        if bar is None:
            return f.read()
        parts = []
        while block := f.read(1 << 24):
            parts.append(block)
            bar.update(len(block))
        bar.close()
        return b"".join(parts)


def _decompress(raw: bytes, name: str) -> bytes:
    # magic bytes decide: an extension can lie (a .gz already inflated by a browser)
    kind = next((k for magic, k in _MAGIC if raw.startswith(magic)), None)
    try:
        if kind == "gzip":
            import gzip

            return gzip.decompress(raw)
        if kind == "xz":
            import lzma

            return lzma.decompress(raw)
        if kind == "bz2":
            import bz2

            return bz2.decompress(raw)
    except (OSError, EOFError, ValueError) as exc:
        raise GraphFormatError(f"{name}: corrupt or truncated {kind} stream ({exc}). Fix: "
                               "download the file again.") from exc
    return raw


def _split_compression(name: str) -> tuple[str, str | None]:
    suffix = Path(name).suffix.lower()
    if suffix in _COMPRESSIONS:
        return name[: -len(suffix)], _COMPRESSIONS[suffix]
    return name, None


def _open_for_writing(name: str, comp: str | None):
    if comp == "gzip":
        import gzip

        return gzip.open(name, "wb", compresslevel=6)  # level 9 is 3x slower for ~3% less
    if comp == "xz":
        import lzma

        return lzma.open(name, "wb")
    if comp == "bz2":
        import bz2

        return bz2.open(name, "wb")
    return open(name, "wb")


def _write_chunks(name: str, comp: str | None, chunks: list) -> None:
    with _open_for_writing(name, comp) as f:
        f.writelines(memoryview(chunk) for chunk in chunks)


# ----------------------------------------------------------------------------- detection
def _detect_format(name: str, data: bytes) -> str:
    base, _ = _split_compression(name)
    fmt = _EXTENSIONS.get(Path(base).suffix.lower())
    if fmt == "gr":
        sniffed = sniff_format(data)
        if sniffed not in ("dimacs", "pace"):
            raise GraphFormatError(f"{name}: a .gr file needs a 'p sp n m' (DIMACS) or "
                                   "'p tw n m' (PACE) line before the edges. Fix: add it, or "
                                   "pass format='snap' for a plain edge list.")
        return sniffed
    return fmt if fmt is not None else sniff_format(data)


def sniff_format(data: bytes) -> str:
    """Best guess of a file's format from its first bytes (``"snap"`` by default)."""
    if data.startswith(b"PK\x03\x04"):
        return "npz"
    if data.startswith(b"PAR1"):
        return "parquet"
    head = data[:1 << 16]
    if head.lstrip().startswith(b"%%MatrixMarket"):
        return "mtx"
    lines = head.splitlines()
    if len(data) > len(head) and len(lines) > 1:
        lines.pop()  # cut off mid-line
    for line in lines:
        s = line.strip()
        if not s or s[:1] in b"#%" or s == b"c" or s[:2] in (b"c ", b"c\t"):
            continue
        tokens = s.split()
        if tokens[0] == b"p" and len(tokens) >= 2:
            return "pace" if tokens[1] == b"tw" else "dimacs"
        return "csv" if b"," in s else "snap"
    return "snap"


# ----------------------------------------------------------------------------- writers
def _write_snap(g: Graph, one_based: bool) -> list:
    from ._io_parse import format_edges

    src, dst = g.coo()
    kind = "Directed" if g.directed else "Undirected"
    cols = "FromNodeId\tToNodeId" + ("\tWeight" if g.weights is not None else "")
    head = (f"# {kind} graph, written by concomp\n# Nodes: {g.num_nodes} Edges: {g.num_edges}\n"
            f"# {cols}\n")
    return [head.encode(), format_edges(src, dst, g.weights, base=int(one_based), sep="\t")]


def _write_csv(g: Graph, one_based: bool) -> list:
    from ._io_parse import format_edges

    src, dst = g.coo()
    head = "src,dst" + (",weight" if g.weights is not None else "") + "\n"
    return [head.encode(), format_edges(src, dst, g.weights, base=int(one_based), sep=",")]


def _write_mtx(g: Graph, one_based: bool) -> list:
    from ._io_parse import format_edges

    src, dst = g.coo()
    w = g.weights
    undirected = not g.directed
    if undirected:
        if g.symmetric:  # both directions stored: keep one triangle, as the format wants
            keep = src >= dst
            src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
        src, dst = np.maximum(src, dst), np.minimum(src, dst)
    field = "pattern" if w is None else ("integer" if w.dtype.kind in "iub" else "real")
    head = (f"%%MatrixMarket matrix coordinate {field} "
            f"{'symmetric' if undirected else 'general'}\n% written by concomp\n"
            f"{g.num_nodes} {g.num_nodes} {src.shape[0]}\n")
    return [head.encode(), format_edges(src, dst, w, base=1, sep=" ")]


def _write_dimacs(g: Graph, one_based: bool) -> list:
    from ._io_parse import format_edges

    src, dst = g.coo()
    head = f"c written by concomp\np sp {g.num_nodes} {g.num_edges}\n"
    return [head.encode(), format_edges(src, dst, g.weights, base=1, sep=" ", prefix="a ")]


def _write_pace(g: Graph, one_based: bool) -> list:
    from ._io_parse import format_edges

    src, dst = g.coo()
    head = f"p tw {g.num_nodes} {g.num_edges}\n"
    return [head.encode(), format_edges(src, dst, None, base=1, sep=" ")]


def _write_metis(g: Graph, one_based: bool) -> list:
    from ._io_parse import format_adjacency

    indptr, indices, eid = g.undirected_csr()
    n = g.num_nodes
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(indptr))
    keep = rows != indices  # METIS forbids self loops (a symmetric graph may still hold them)
    if not keep.all():
        indices, eid, rows = indices[keep], eid[keep], rows[keep]
        indptr = np.zeros(n + 1, np.int64)
        np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    w = None if g.weights is None else g.weights[eid]
    head = f"{n} {indices.shape[0] // 2}{' 001' if w is not None else ''}\n"
    return [head.encode(), format_adjacency(indptr, indices, w)]


def _write_npz(g: Graph, one_based: bool) -> list:
    import io

    indptr, indices, eid = g.csr()
    w = g.weights
    data = (np.ones(indices.shape[0], np.int8) if w is None else
            w if eid is None else w[eid])
    # scipy.sparse.load_npz reads format/shape/data/indices/indptr and ignores the rest
    arrays = {"indptr": indptr, "indices": indices, "data": data, "format": np.array(b"csr"),
              "shape": np.array([g.num_nodes, g.num_nodes]), "directed": np.array(g.directed),
              "weighted": np.array(w is not None)}
    if eid is not None:
        arrays["edge_ids"] = eid
    out = io.BytesIO()
    np.savez(out, **arrays)
    return [out.getbuffer()]


def _write_parquet(g: Graph, one_based: bool) -> list:
    from ._io_parse import pyarrow_or_raise

    pa, pq = pyarrow_or_raise()
    src, dst = g.coo()
    cols = {"src": src, "dst": dst}
    if g.weights is not None:
        cols["weight"] = g.weights
    meta = {b"concomp.num_nodes": str(g.num_nodes).encode(),
            b"concomp.directed": b"1" if g.directed else b"0"}
    table = pa.table(cols).replace_schema_metadata(meta)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return [sink.getvalue()]


WRITERS = {"snap": _write_snap, "csv": _write_csv, "mtx": _write_mtx, "dimacs": _write_dimacs,
           "pace": _write_pace, "metis": _write_metis, "npz": _write_npz,
           "parquet": _write_parquet}
