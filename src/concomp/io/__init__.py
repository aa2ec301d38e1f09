"""Read and write graph files: SNAP, CSV, Matrix Market, DIMACS, PACE, METIS, npz, Parquet.

Edge-list text files (SNAP, CSV, Matrix Market, DIMACS, PACE) are decompressed
(``.gz``, ``.xz``, ``.bz2``, recognised by magic bytes) and parsed a block at a time
by one numba byte scanner (:mod:`concomp.io._parse`), tens of millions of edges per
second, so memory stays near the size of the arrays produced; METIS, npz and Parquet
files are read whole. A leading UTF-8 byte order mark is skipped. Edge ids are the
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

from .._validate import coerce_graph
from ..errors import InvalidGraphError
from ..graph import Graph
from ._files import (
    _EXTENSIONS,
    Input,
    _detect_format,
    _split_compression,
    _write_chunks,
    sniff_format,
)
from ._writers import WRITERS

__all__ = ["FORMATS", "read_graph", "sniff_format", "write_graph"]

FORMATS = ("snap", "csv", "mtx", "dimacs", "pace", "metis", "npz", "parquet")


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


def read_graph(
    path: str | bytes | os.PathLike,
    format: str = "auto",
    *,
    directed: bool | None = None,
    weighted: bool | None = None,
    num_nodes: int | None = None,
    one_based: bool | None = None,
    delimiter: str | None = None,
    comment: str | None = None,
    header: bool | None = None,
    progress: bool = False,
) -> Graph:
    """Read a graph file into a :class:`~concomp.Graph`.

    Parameters
    ----------
    path : str, bytes or path-like
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
    name = _path_name(path)
    if num_nodes is not None:
        from .._checks import _resolve_n

        num_nodes = _resolve_n(num_nodes)
    if format != "auto" and format not in FORMATS:
        raise InvalidGraphError(
            f"argument `format`: {format!r} is not a known graph format; "
            f"allowed: 'auto', {', '.join(map(repr, FORMATS))}. Fix: pass "
            "one of those."
        )
    if delimiter is not None and len(delimiter.encode()) != 1:
        raise InvalidGraphError(
            f"argument `delimiter`: {delimiter!r} must be one ASCII "
            "character. Fix: pass e.g. ';' or '|'."
        )
    opt = _Options(
        name,
        directed,
        weighted,
        num_nodes,
        one_based,
        delimiter,
        None if comment is None else comment.encode(),
        header,
    )
    from ._parse import HEAD_BYTES, Text
    from ._readers import READERS, TEXT_FORMATS

    with Input(name, progress) as src:
        head = src.read(HEAD_BYTES)
        fmt = format if format != "auto" else _detect_format(name, head)
        if fmt in TEXT_FORMATS:  # edge lines: parsed a block at a time as they decompress
            return READERS[fmt](Text(head, src), opt)
        if fmt == "parquet" and src.kind is None:  # Arrow maps the file itself: no bytes copy
            return READERS[fmt](None, opt)
        return READERS[fmt](head + src.read(), opt)


def _path_name(path: Any) -> str:
    """``path`` as a str naming an existing regular file (bytes paths are decoded)."""
    try:
        name = os.fsdecode(os.fspath(path))
    except TypeError as exc:
        raise InvalidGraphError(
            f"argument `path`: expected a str, bytes or os.PathLike file "
            f"path, got {type(path).__name__}. Fix: pass the file's path."
        ) from exc
    if os.path.isdir(name):
        raise InvalidGraphError(
            f"argument `path`: {name!r} is a directory, not a graph file. "
            "Fix: pass the path of a file inside it."
        )
    return name


def write_graph(
    graph: Any, path: str | os.PathLike, format: str = "auto", *, one_based: bool | None = None
) -> None:
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
    name = os.fspath(path)
    if isinstance(graph, (str, bytes, os.PathLike)):
        graph = read_graph(graph)
    g = coerce_graph(graph).to("cpu")
    base, comp = _split_compression(name)
    fmt = format
    if fmt == "auto":
        fmt = _EXTENSIONS.get(Path(base).suffix.lower(), "")
        fmt = "dimacs" if fmt == "gr" else fmt
        if fmt not in FORMATS:
            raise InvalidGraphError(
                f"argument `path`: cannot tell the format of {name!r} from "
                f"its extension; known: {sorted(_EXTENSIONS)}. Fix: pass "
                "format=... explicitly."
            )
    elif fmt not in FORMATS:
        raise InvalidGraphError(
            f"argument `format`: {fmt!r} is not a known graph format; "
            f"allowed: {', '.join(map(repr, FORMATS))}."
        )
    if comp and fmt in ("npz", "parquet"):
        raise InvalidGraphError(
            f"argument `path`: {fmt} files are compressed already; drop the "
            f"compression suffix from {name!r}."
        )
    _write_chunks(name, comp, WRITERS[fmt](g, bool(one_based)))
