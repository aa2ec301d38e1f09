"""Edge collections cut into partitions: Dask arrays, Dask data frames, files, Parquet.

:func:`partitions` turns any accepted input into a list of :class:`Partition`: a label
for error messages and the data of one task (Dask blocks as ``Delayed`` objects, or a
small loader that reads a file or a Parquet row group inside the task, so that edges
are read where they are processed and never pass through the client).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._checks import _DST_NAMES, _SRC_NAMES, _pick
from ..errors import GraphFormatError, InvalidGraphError
from ..io import read_graph

__all__ = ["ParquetEdges", "Partition", "partitions", "read_parquet_edges"]

_WEIGHT_NAMES = ("weight", "weights", "w", "value", "data")


@dataclass(frozen=True)
class Partition:
    """One task's edges: ``data`` is a (src, dst, weights) triple of ``Delayed`` blocks
    (weights None), a ``Delayed`` data frame with ``columns`` (source, target, weight or
    None), or a loader with ``load()``."""

    label: str
    data: Any
    columns: tuple[str, str, str | None] | None = None


@dataclass(frozen=True)
class RowGroup:
    """Loader of one Parquet row group (or of a whole file when ``group`` is None)."""

    path: str
    group: int | None
    columns: tuple[str, str, str | None]

    def load(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        import pyarrow.parquet as pq

        s, t, w = self.columns
        names = [s, t] + ([w] if w else [])
        pf = pq.ParquetFile(self.path)
        table = (
            pf.read(columns=names) if self.group is None else pf.read_row_group(self.group, names)
        )
        cols = [table.column(c).to_numpy() for c in names]
        return cols[0], cols[1], cols[2] if w else None


@dataclass(frozen=True)
class GraphFile:
    """Loader of a whole graph file in any format :func:`concomp.read_graph` reads."""

    path: str
    weighted: bool

    def load(self) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        g = read_graph(self.path, weighted=None if self.weighted else False)
        src, dst = g.coo()
        w = g.weights if self.weighted else None
        if self.weighted and w is None:
            raise InvalidGraphError(
                f"{self.path!r} has no weights. Fix: pass a weighted file or use spanning_forest."
            )
        return src, dst, w


@dataclass(frozen=True)
class ParquetEdges:
    """Edges in Parquet files, one partition per row group (or per file).

    Built by :func:`read_parquet_edges`; every function of :mod:`concomp.dask` takes it.
    """

    row_groups: tuple[RowGroup, ...]
    num_rows: tuple[int, ...]
    num_nodes: int | None
    has_weights: bool

    @property
    def num_edges(self) -> int:
        """Edges in all the files (from the Parquet footers)."""
        return int(sum(self.num_rows))

    @property
    def num_partitions(self) -> int:
        return len(self.row_groups)


def _expand(paths: Any) -> list[str]:
    if isinstance(paths, (str, os.PathLike)):
        name = os.fspath(paths)
        if os.path.isdir(name):
            found = sorted(
                os.path.join(name, f)
                for f in os.listdir(name)
                if f.lower().endswith((".parquet", ".pq"))
            )
        elif any(ch in name for ch in "*?["):
            found = sorted(glob.glob(name))
        else:
            found = [name]
        if not found:
            raise InvalidGraphError(
                f"argument `paths`: {name!r} names no Parquet file. Fix: pass a file, a "
                "folder of .parquet files or a glob pattern."
            )
        return found
    return [q for p in paths for q in _expand(p)]


def read_parquet_edges(
    paths: Any,
    *,
    source: str | None = None,
    target: str | None = None,
    weight: str | None = None,
    by: str = "row_group",
) -> ParquetEdges:
    """Edges stored in Parquet, as partitions for :mod:`concomp.dask`.

    Only the files' footers are read here; each task reads its own row group.

    Parameters
    ----------
    paths : str, path, or list of them
        Files, folders (their ``*.parquet`` files, sorted by name) or glob patterns.
        Edges are numbered in file order, then row order.
    source, target, weight : str, optional
        Column names; by default found among common names (``src``/``dst``/``weight``,
        ``source``/``target``, ...), else the first two columns.
    by : {"row_group", "file"}
        The unit of one partition.

    Returns
    -------
    ParquetEdges
        ``num_nodes`` is the largest ``concomp.num_nodes`` the files declare
        (:func:`concomp.write_graph` writes it), or None.

    Examples
    --------
    >>> import os, tempfile, numpy as np, concomp
    >>> from concomp.dask import read_parquet_edges
    >>> folder = tempfile.mkdtemp()
    >>> g = concomp.as_graph((np.array([0, 2]), np.array([1, 3])), num_nodes=5)
    >>> concomp.write_graph(g, os.path.join(folder, "part-0.parquet"))
    >>> edges = read_parquet_edges(folder)
    >>> edges.num_partitions, edges.num_edges, edges.num_nodes
    (1, 2, 5)
    """
    if by not in ("row_group", "file"):
        raise InvalidGraphError(f"argument `by`: {by!r} is not valid; use 'row_group' or 'file'.")
    import pyarrow as pa
    import pyarrow.parquet as pq

    groups: list[RowGroup] = []
    rows: list[int] = []
    declared: list[int] = []
    weighted: list[bool] = []
    for path in _expand(paths):
        try:
            pf = pq.ParquetFile(path)
        except (OSError, pa.ArrowException) as exc:
            raise GraphFormatError(f"{path}: not a readable Parquet file ({exc}).") from exc
        names = pf.schema_arrow.names
        if len(names) < 2:
            raise GraphFormatError(
                f"{path}: Parquet columns {names}: need source and target columns. Fix: write "
                "columns src, dst[, weight]."
            )
        s = str(_pick(names, source, _SRC_NAMES, "source", 0))
        t = str(_pick(names, target, _DST_NAMES, "target", 1))
        w = weight if weight is not None else next((c for c in names if c in _WEIGHT_NAMES), None)
        if w is not None and w not in names:
            raise GraphFormatError(f"{path}: no column {w!r} (columns: {names}).")
        weighted.append(w is not None)
        meta = pf.schema_arrow.metadata or {}
        if b"concomp.num_nodes" in meta:
            declared.append(int(meta[b"concomp.num_nodes"]))
        count = pf.metadata.num_row_groups
        if by == "file" or count == 0:
            groups.append(RowGroup(path, None, (s, t, w)))
            rows.append(pf.metadata.num_rows)
        else:
            for g in range(count):
                groups.append(RowGroup(path, g, (s, t, w)))
                rows.append(pf.metadata.row_group(g).num_rows)
    return ParquetEdges(
        tuple(groups), tuple(rows), max(declared) if declared else None, all(weighted)
    )


# ----------------------------------------------------------------------------- dispatch on input
def _is_dask_array(x: Any) -> bool:
    return type(x).__module__.startswith("dask.array") and hasattr(x, "chunks")


def _is_dask_frame(x: Any) -> bool:
    return type(x).__module__.startswith("dask.dataframe") and hasattr(x, "npartitions")


def partitions(
    edges: Any,
    weights: Any = None,
    *,
    source: str | None = None,
    target: str | None = None,
    weight: str | None = None,
    need_weights: bool = False,
) -> tuple[list[Partition], int | None]:
    """The partitions of ``edges`` and the vertex count the input declares (or None)."""
    if _is_dask_frame(edges):
        return _frame_partitions(edges, weights, source, target, weight, need_weights), None
    if isinstance(edges, ParquetEdges):
        return _parquet_partitions(edges, weights, need_weights), edges.num_nodes
    if isinstance(edges, (str, os.PathLike)) or (
        isinstance(edges, Sequence)
        and edges
        and all(isinstance(p, (str, os.PathLike)) for p in edges)
    ):
        return _path_partitions(edges, weights, source, target, weight, need_weights)
    return _array_partitions(edges, weights, need_weights), None


def _no_separate_weights(weights: Any, what: str) -> None:
    if weights is not None:
        raise InvalidGraphError(
            f"argument `weights`: {what} carry their weights in a column; separate weights "
            "are only for Dask arrays. Fix: pass weight='<column>' instead."
        )


def _missing_weights(what: str) -> InvalidGraphError:
    return InvalidGraphError(
        f"minimum_spanning_forest needs weights: {what} has none. Fix: pass `weights` (a Dask "
        "array chunked like the edges) or name the weight column with weight=..."
    )


def _parquet_partitions(edges: ParquetEdges, weights: Any, need: bool) -> list[Partition]:
    _no_separate_weights(weights, "Parquet files")
    if need and not edges.has_weights:
        raise _missing_weights("the Parquet input")
    out = []
    for i, rg in enumerate(edges.row_groups):
        if not need:
            rg = RowGroup(rg.path, rg.group, (*rg.columns[:2], None))
        where = f"{rg.path!r}" + ("" if rg.group is None else f", row group {rg.group}")
        out.append(Partition(f"partition {i} ({where})", rg))
    return out


def _path_partitions(
    edges: Any, weights: Any, source: Any, target: Any, weight: Any, need: bool
) -> tuple[list[Partition], int | None]:
    paths = [os.fspath(edges)] if isinstance(edges, (str, os.PathLike)) else list(edges)
    if all(p.lower().endswith((".parquet", ".pq")) or os.path.isdir(p) for p in map(str, paths)):
        pe = read_parquet_edges(paths, source=source, target=target, weight=weight)
        return _parquet_partitions(pe, weights, need), pe.num_nodes
    _no_separate_weights(weights, "graph files")
    parts = [
        Partition(f"partition {i} ({os.fspath(p)!r})", GraphFile(os.fspath(p), need))
        for i, p in enumerate(paths)
    ]
    return parts, None


def _frame_partitions(
    frame: Any, weights: Any, source: Any, target: Any, weight: Any, need: bool
) -> list[Partition]:
    _no_separate_weights(weights, "data frames")
    names = [str(c) for c in frame.columns]
    if len(names) < 2:
        raise InvalidGraphError(
            f"argument `edges`: a data frame needs source and target columns, got {names}. "
            "Fix: name them src and dst."
        )
    s = str(_pick(names, source, _SRC_NAMES, "source", 0))
    t = str(_pick(names, target, _DST_NAMES, "target", 1))
    w = weight if weight is not None else next((c for c in names if c in _WEIGHT_NAMES), None)
    if need and w is None:
        raise _missing_weights("the data frame")
    cols = [s, t] + ([w] if need else [])
    blocks = frame[cols].to_delayed()
    return [
        Partition(f"partition {i} (data frame partition {i})", b, (s, t, w if need else None))
        for i, b in enumerate(blocks)
    ]


def _array_partitions(edges: Any, weights: Any, need: bool) -> list[Partition]:
    import dask.array as da

    if isinstance(edges, (tuple, list)) and len(edges) in (2, 3):
        src, dst = edges[0], edges[1]
        if len(edges) == 3 and weights is None:
            weights = edges[2]
    elif _is_dask_array(edges) and edges.ndim == 2 and 2 in edges.shape:
        if edges.shape[1] == 2:
            edges = edges.rechunk({1: 2})
            src, dst = edges[:, 0], edges[:, 1]
        else:
            edges = edges.rechunk({0: 2})
            src, dst = edges[0], edges[1]
    else:
        raise InvalidGraphError(
            f"argument `edges`: {type(edges).__name__} is not an edge collection. Fix: pass a "
            "(src, dst) pair of Dask arrays, an (m, 2) or (2, m) Dask array, a Dask data frame, "
            "a list of file paths or read_parquet_edges(...)."
        )
    if not (_is_dask_array(src) and _is_dask_array(dst)):
        src, dst = da.asarray(src), da.asarray(dst)
    if src.ndim != 1 or dst.ndim != 1 or src.shape[0] != dst.shape[0]:
        raise InvalidGraphError(
            f"argument `edges`: src and dst must be 1-D and of one length, got shapes "
            f"{src.shape} and {dst.shape}. Fix: pass one source and one target per edge."
        )
    dst = dst.rechunk(src.chunks)
    if need and weights is None:
        raise _missing_weights("the edge arrays")
    w = None
    if weights is not None and need:
        w = da.asarray(weights)
        if w.shape != src.shape:
            raise InvalidGraphError(
                f"argument `weights`: shape {w.shape}, but there are {src.shape[0]} edges. "
                "Fix: pass one weight per edge."
            )
        w = w.rechunk(src.chunks)
    sb, db = src.to_delayed().ravel(), dst.to_delayed().ravel()
    wb = w.to_delayed().ravel() if w is not None else [None] * len(sb)
    return [
        Partition(f"partition {i} (array block {i})", (s, d, x))
        for i, (s, d, x) in enumerate(zip(sb, db, wb))
    ]
