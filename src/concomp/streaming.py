"""Connected components of an edge stream: graphs whose edges need not fit in (GPU) memory.

:func:`stream_components` unites edge chunks into one union-find as they arrive.
Only the vertex labels are kept; each chunk is dropped once united, so the edges
can come from host memory larger than the GPU's, from a sequence of files, or
from a Parquet file read one row group at a time.

On the GPU the chunks pass through a two-slot pipeline (pinned host buffers,
a copy stream and a compute stream), so that transfers overlap the union kernel
(see :mod:`concomp._gpu.streaming`). On the CPU each chunk goes through the
sequential union-find of the CPU engine.

References
----------
Hong, Dhulipala, Shun: GConn (PACT 2020); Dhulipala, Hong, Shun: ConnectIt
(VLDB 2021): Union-Async, Rem-CAS. Both in ``../shared/papers/``.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._arrays import is_cupy_array, is_torch_tensor, to_numpy
from ._checks import (
    _DST_NAMES,
    _SRC_NAMES,
    _W_NAMES,
    _pick,
    _resolve_n,
    _torch_to_array,
    check_ids,
    check_indptr,
    check_num_nodes,
)
from ._dispatch import choose_device, driver, resolve_device
from ._renumber import check_renumber, might_renumber
from ._rules import UNION_RULES, union_rules_for
from ._validate import (
    HostEdges,
    _column_names,
    _is_arrow_table,
    _is_dataframe,
    _is_scipy_sparse,
    is_pair_list,
)
from .errors import GraphFormatError, InvalidGraphError, InvalidVariantError
from .graph import Graph
from .io import read_graph
from .options import Options, resolve_options
from .variants import Layout, Sampling, Variant, resolve_variant

log = logging.getLogger("concomp.streaming")

__all__ = ["stream_components", "EdgeChunk", "iter_edge_chunks"]

#: A Graph given whole is cut into pieces of this many edges (the GPU engine
#: re-cuts them to its slot size anyway).
GRAPH_PIECE_EDGES = 1 << 24
_PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclass(frozen=True)
class EdgeChunk:
    """One chunk of an edge stream: ids (not yet validated) and where they came from."""

    label: str  #: "chunk 3", "chunk 0 ('g.parquet', row group 2)": named in error messages
    src: Any
    dst: Any
    num_nodes: int | None = None  #: vertex count its source declares (file header, Graph)
    #: ids the library itself decoded onto the GPU from host data (a Parquet file): the
    #: caller's input was on the host, so results go back there
    decoded: bool = False


def stream_components(
    chunks: Any,
    num_nodes: int | None = None,
    *,
    device: str = "auto",
    algorithm: str | Variant = "auto",
    max_device_bytes: int | None = None,
    chunk_edges: int | None = None,
    return_labels: bool = True,
    options: Options | None = None,
) -> tuple[int, Any] | int:
    """Weakly connected components of a graph given as a stream of edge chunks.

    Parameters
    ----------
    chunks : iterable or graph source
        One of: an iterable (list, generator, ...) of chunks, each a
        ``(src, dst)`` pair, an ``(m, 2)`` or ``(2, m)`` array (a ``(2, 2)``
        array reads as ``(2, m)``), a data frame or pyarrow table with source and
        target columns, a SciPy sparse adjacency matrix (its stored entries),
        a :class:`~concomp.Graph`, or a file path; a single such
        chunk; a path to a Parquet file (read one row group at a time, needs
        ``pyarrow``: ``pip install 'concomp[io]'``); a list of file paths (each
        read with :func:`concomp.io.read_graph`, Parquet files by row group);
        or a :class:`~concomp.Graph` (cut into chunks).
    num_nodes : int, optional
        Number of vertices. Default: grow as ids arrive, to the largest id + 1
        (or the vertex count a file header or Graph declares, if larger).
    device : {"auto", "cpu", "gpu"}
        Engine. ``"auto"`` uses the GPU when one is usable, unless the input is
        in memory and small (see :mod:`concomp._dispatch`).
    algorithm : str or Variant
        ``"auto"`` or a union-find variant without sampling, in COO layout, such
        as ``"none-async-halve-coo"`` or the presets ``"rem"`` and ``"union-find"``.
    max_device_bytes : int, optional
        GPU only: the device memory the labels and the two edge slots may take.
        The slots are sized to fit; :class:`~concomp.DeviceMemoryError` names the
        bytes needed when even the labels do not fit.
    chunk_edges : int, optional
        GPU only: edges per device slot (default 2**22, shrunk to fit
        ``max_device_bytes``). Input chunks of any size are packed or cut to it.
    return_labels : bool
        As in SciPy: when False only the count is returned.
    options : concomp.options.Options, optional
        Engine settings (default: the measured defaults); ``chunk_edges``
        overrides its ``chunk_edges``.

    Returns
    -------
    n_components : int
    labels : ndarray
        Canonical labels (SciPy's numbering), int32 unless ``n`` needs int64;
        NumPy unless every chunk was a CuPy array.

    Raises
    ------
    InvalidGraphError
        A chunk is malformed or has an id that is negative, not an integer, or
        ``>= num_nodes``; the message names the chunk and the position.
    DeviceMemoryError
        On the GPU, before anything is allocated for it: the labels for
        ``num_nodes``, or for a chunk's largest id, need more than the budget or
        the device's total memory.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.streaming import stream_components
    >>> chunks = [(np.array([0, 1]), np.array([1, 2])), np.array([[4, 5]]), np.array([[6], [5]])]
    >>> stream_components(chunks, device="cpu")
    (3, array([0, 0, 0, 1, 2, 2, 2], dtype=int32))
    >>> chunks = iter([np.array([[0, 9]])])
    >>> stream_components(chunks, num_nodes=4, device="cpu")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    concomp.errors.InvalidGraphError: chunk 0: argument `dst`: vertex id 9 at position 0 is >=
    num_nodes=4; ids must lie in [0, 4). Fix: pass num_nodes > 9 or remove the edge.
    >>> stream_components([], num_nodes=2, device="cpu", return_labels=False)
    2
    """
    n = _resolve_n(num_nodes)
    budget = _positive("max_device_bytes", max_device_bytes)
    slot = _positive("chunk_edges", chunk_edges)
    opts = resolve_options(options)
    if slot is not None:
        opts = opts.with_(chunk_edges=max(slot, 256))
    dev = _choose_device(chunks, device)
    variant = streaming_variant(algorithm, dev)
    if resolve_variant(algorithm) is not None:  # a named variant runs its compiled kernels
        opts = opts.with_(numpy_start=False)
    log.debug("stream_components: %s on %s", variant, dev)
    engine = driver(dev, "streaming", "Streamer")(n, variant, opts, max_device_bytes=budget)
    all_on_device = None
    for chunk in iter_edge_chunks(chunks, split=slot or GRAPH_PIECE_EDGES, device=dev):
        src, dst = chunk_ids(chunk)
        on_device = is_cupy_array(src) and not chunk.decoded
        all_on_device = on_device if all_on_device is None else (all_on_device and on_device)
        if dev == "cpu" and on_device:
            src, dst = to_numpy(src), to_numpy(dst)
        if n is None and chunk.num_nodes:
            engine.ensure_nodes(int(chunk.num_nodes))
        engine.add(src, dst, range_check(chunk, src, dst, n))
    roots = engine.roots()
    if not return_labels:
        return driver(dev, "components", "count_roots")(roots)
    return driver(dev, "streaming", "stream_labels")(roots, budget, not all_on_device)


def host_roots(
    edges: HostEdges, variant: Variant | None, max_device_bytes: int | None, options: Options
) -> Any:
    """GPU root labels of host edges sent through the streaming pipeline.

    The path of ``connected_components`` for host data on the GPU: the ids cross
    the bus once, in pinned chunks that overlap the union-find kernels, and are
    checked in the same parallel pass that stages them (a CSR's rows are expanded
    there too), so no host graph, CSR or validation pass is built on the way.
    ``variant`` is a union-find variant that streams (None: the default one).
    """
    n = edges.num_nodes
    v = variant if variant is not None else driver("gpu", "streaming", "default_variant")()
    engine = driver("gpu", "streaming", "Streamer")(
        n, v, options, max_device_bytes=max_device_bytes
    )
    if edges.indptr is not None and edges.indices is not None:
        check_indptr(edges.indptr, edges.num_edges)
        engine.add_csr(edges.indptr, edges.indices, _ids_in_range([(edges.indices, "indices")], n))
    elif edges.src is not None and edges.dst is not None:
        engine.add(edges.src, edges.dst, _ids_in_range([(edges.src, "src"), (edges.dst, "dst")], n))
    elif edges.chunks is not None:
        pieces = edges.device_chunks() if edges.device_chunks is not None else None
        for chunk in pieces if pieces is not None else edges.chunks():
            src, dst = chunk_ids(chunk)
            if n is None and chunk.num_nodes:
                engine.ensure_nodes(int(chunk.num_nodes))
            engine.add(src, dst, range_check(chunk, src, dst, n))
    return engine.roots()


def host_chunks(graph: Any, num_nodes: int | None, renumber: str | bool) -> HostEdges | None:
    """Host edges that arrive in pieces, as the GPU feed takes them: a pyarrow table
    (its record batches, read without a copy) or a Parquet file's path (its row groups,
    read as the feed goes, two columns each).

    None for anything else, and wherever the general path has to look first: id
    columns that are not integers or hold nulls, ``renumber=True``, or ids that
    ``renumber="auto"`` may renumber (no ``num_nodes``, and a range that says so: one
    pass over a table; a file's row-group statistics, and a file without them takes
    the general path). A path that is missing or not Parquet gives None too: the
    general path reads it or names what is wrong.
    """
    if check_renumber(renumber) is True:
        return None
    n = None if num_nodes is None else _resolve_n(num_nodes)
    if _is_arrow_table(graph):
        return _table_edges(graph, n, renumber)
    if _is_path(graph):
        return _parquet_edges(os.fspath(graph), n, renumber)
    return None


def _id_columns(pa: Any, names: list[str], type_of: Callable[[str], Any]) -> tuple[str, str] | None:
    """The source and target columns (picked as frames' are) when both hold integer ids
    the staging pass reads as they are (uint64, floats and strings take the general path)."""
    if len(names) < 2:
        return None
    s = _pick(names, None, _SRC_NAMES, "source", 0)
    t = _pick(names, None, _DST_NAMES, "target", 1)
    if s is None or t is None:
        return None
    for name in (s, t):
        type_ = type_of(name)
        if not pa.types.is_integer(type_) or pa.types.is_uint64(type_):
            return None
    return s, t


def _table_edges(table: Any, n: int | None, renumber: str | bool) -> HostEdges | None:
    import pyarrow as pa  # the table's own library: already loaded

    picked = _id_columns(pa, list(table.column_names), lambda c: table.column(c).type)
    if picked is None:
        return None
    s, t = picked
    if table.column(s).null_count or table.column(t).null_count:
        return None
    pieces = []
    ids = table.select([s, t])
    batches = ids.to_batches() if hasattr(ids, "to_batches") else [ids]  # a RecordBatch is one
    for i, batch in enumerate(batches):
        if batch.num_rows:  # zero-copy views of the batch's buffers
            src = batch.column(0).to_numpy(zero_copy_only=True)
            dst = batch.column(1).to_numpy(zero_copy_only=True)
            pieces.append(EdgeChunk(f"table (record batch {i})", src, dst))
    if n is None and renumber == "auto" and pieces:
        lo = min(min(int(p.src.min()), int(p.dst.min())) for p in pieces)
        hi = max(max(int(p.src.max()), int(p.dst.max())) for p in pieces)
        if might_renumber(lo, hi):
            return None
    return HostEdges(
        None,
        None,
        None,
        None,
        n,
        chunks=lambda: pieces,
        chunk_edges=table.num_rows,
        weight_column=_weight_column(list(table.column_names)),
    )


def _parquet_edges(name: str, n: int | None, renumber: str | bool) -> HostEdges | None:
    try:
        if not os.path.isfile(name) or not _is_parquet(name):
            return None
        import pyarrow as pa
        import pyarrow.parquet as pq

        pf = pq.ParquetFile(name)
    except (OSError, ImportError, ValueError):
        return None
    except Exception as exc:  # pyarrow's own errors: the general path names them
        if type(exc).__module__.split(".")[0] == "pyarrow":
            return None
        raise
    schema = pf.schema_arrow
    cols = list(schema.names)
    picked = _id_columns(pa, cols, lambda c: schema.field(c).type)
    if picked is None:
        return None
    s, t = picked
    meta = schema.metadata or {}
    if n is None and b"concomp.num_nodes" in meta:
        n = int(meta[b"concomp.num_nodes"])
    if n is None and renumber == "auto":
        span = _parquet_range(pf, [cols.index(s), cols.index(t)])
        if span is None or might_renumber(*span):
            return None
    m = int(pf.metadata.num_rows)
    return HostEdges(
        None,
        None,
        None,
        None,
        n,
        chunks=lambda: _parquet_chunks(name, "graph", opened=pf),
        chunk_edges=m,
        device_chunks=lambda: _parquet_device_chunks(name, "graph", opened=pf),
        weight_column=_weight_column(cols),
    )


def _weight_column(names: list[str]) -> str | None:
    """The weight column as :func:`concomp.read_graph` picks a Parquet file's."""
    return _pick(names, None, _W_NAMES, "weight", 2 if len(names) == 3 else None)


def _parquet_range(pf: Any, columns: list[int]) -> tuple[int, int] | None:
    """The ids' range from the row groups' statistics (None where one lacks them)."""
    lo, hi = 0, -1
    for g in range(pf.metadata.num_row_groups):
        group = pf.metadata.row_group(g)
        if group.num_rows == 0:
            continue
        for c in columns:
            stats = group.column(c).statistics
            if stats is None or not stats.has_min_max:
                return None
            a, b = int(stats.min), int(stats.max)
            lo, hi = (a, b) if hi < lo else (min(lo, a), max(hi, b))
    return lo, hi


def _ids_in_range(
    arrays: list[tuple[Any, str]], num_nodes: int | None, label: str | None = None
) -> Callable[[int, int], None]:
    """``check(lo, hi)`` for the engines: a bad range raises the message the general
    input path gives (:func:`concomp._checks.check_ids`, with the position), prefixed
    with ``label`` (a chunk's name) where given.

    The engines find each piece's id range in the pass that stages it; only a bad
    range pays for the second scan that locates the offending id.
    """
    prefix = f"{label}: " if label else ""

    def check(lo: int, hi: int) -> None:
        if lo >= 0 and (hi < num_nodes if num_nodes is not None else _countable(hi + 1)):
            return
        for a, name in arrays:
            try:
                check_ids(a, name, num_nodes)
            except InvalidGraphError as exc:
                raise InvalidGraphError(f"{prefix}{exc}") from None
        raise InvalidGraphError(
            f"{prefix}vertex ids span [{lo}, {hi}], outside [0, {num_nodes}). Fix: pass a "
            "larger num_nodes or drop those edges."
        )

    return check


def streams(variant: Variant | None, device: str) -> bool:
    """Whether ``variant`` (None: ``"auto"``) can run as a stream on ``device``'s engine."""
    if variant is None:
        return True
    rules = {row.name for row in union_rules_for(device, "streaming")}
    return (
        variant.family == "unionfind"
        and variant.sampling == Sampling.NONE
        and variant.layout == Layout.COO
        and variant.finish.value in rules
    )


def streaming_variant(algorithm: Any, device: str) -> Variant:
    """The union-find variant a stream runs with; raises for variants that cannot stream."""
    v = resolve_variant(algorithm)
    if v is None:
        return driver(device, "streaming", "default_variant")()
    rules = [row.name for row in union_rules_for(device, "streaming")]
    if v.family != "unionfind" or v.sampling != Sampling.NONE or v.layout != Layout.COO:
        raise InvalidVariantError(
            f"algorithm={str(v)!r} cannot stream: a stream unites each chunk's edges as they "
            "arrive, so it needs a union-find finish "
            f"({', '.join(row.name for row in UNION_RULES.values())}) with sampling 'none' and "
            "layout 'coo'. Fix: pass e.g. 'none-async-halve-coo', 'rem' or 'auto'."
        )
    if v.finish.value not in rules:
        raise InvalidVariantError(
            f"algorithm={str(v)!r} is not implemented by the {device} engine; the {device} "
            f"engine streams with the finishes {', '.join(map(repr, rules))}. Fix: choose one of "
            "those" + (", or device='gpu'." if device == "cpu" else ".")
        )
    return v


def _choose_device(chunks: Any, device: str) -> str:
    if isinstance(chunks, Graph):
        return choose_device(chunks, device, what="stream_components")
    where, edges = _size_hint(chunks)
    # a stream of unknown length counts as large: streaming exists for graphs too big
    # to hold at once
    return resolve_device(device, data_device=where, num_edges=edges, what="stream_components")


def _size_hint(chunks: Any) -> tuple[str, int | None]:
    """``(where, edges)`` of in-memory input; ``edges=None`` when unknown (iterators, files)."""
    if _is_path(chunks):
        return "cpu", None
    items = [chunks] if _is_single_chunk(chunks) else chunks
    if not isinstance(items, (list, tuple)):
        return "cpu", None  # never consume the caller's iterator to peek at it
    total, where = 0, ("gpu" if items else "cpu")
    for item in items:
        if _is_path(item):
            return "cpu", None
        try:
            chunk = _as_chunk(item, "chunk")
            total += len(chunk.src)
        except (InvalidGraphError, TypeError):  # reported later by the reader, with the index
            return "cpu", None
        if not is_cupy_array(chunk.src):
            where = "cpu"
    return where, total


def _positive(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidGraphError(
            f"argument `{name}`: expected a positive int, got {value!r}. "
            "Fix: pass a count >= 1 (or None for the default)."
        )
    return int(value)


# ----------------------------------------------------------------------------- chunk sources
def iter_edge_chunks(
    chunks: Any, split: int = GRAPH_PIECE_EDGES, device: str = "cpu"
) -> Iterator[EdgeChunk]:
    """The :class:`EdgeChunk` s of any input :func:`stream_components` accepts (lazily).

    With ``device="gpu"``, a Parquet file's id columns are decoded on the GPU where its
    decoder reads them (their chunks then hold CuPy arrays); elsewhere, and for every
    other input, the chunks hold the ids as the input gives them.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.streaming import iter_edge_chunks
    >>> edges = np.array([[0, 1], [2, 3], [4, 5]])
    >>> [(c.label, c.src.tolist()) for c in iter_edge_chunks([edges, (edges[:1, 0], [7])])]
    [('chunk 0', [0, 2, 4]), ('chunk 1', [0])]
    """
    if isinstance(chunks, Graph):
        yield from _graph_chunks(chunks, split)
        return
    if _is_path(chunks):
        yield from _file_chunks(chunks, "chunk 0", device)
        return
    if _is_single_chunk(chunks):
        yield _as_chunk(chunks, "chunk 0")
        return
    try:
        items = iter(chunks)
    except TypeError:
        raise InvalidGraphError(
            f"argument `chunks`: {type(chunks).__name__} is neither a chunk nor an iterable of "
            "chunks. Fix: pass e.g. a list of (src, dst) pairs, a Parquet path, a list of file "
            "paths or a Graph."
        ) from None
    for i, item in enumerate(items):
        label = f"chunk {i}"
        if _is_path(item):
            yield from _file_chunks(item, label, device)
        elif isinstance(item, Graph):
            yield EdgeChunk(label, *item.coo(), item.num_nodes)
        else:
            yield _as_chunk(item, label)


def _graph_chunks(g: Graph, split: int) -> Iterator[EdgeChunk]:
    src, dst = g.coo()
    m = g.num_edges
    if m == 0:
        yield EdgeChunk("graph", src, dst, g.num_nodes)
    for i, a in enumerate(range(0, m, split)):
        b = min(a + split, m)
        yield EdgeChunk(f"chunk {i} (graph edges {a}..{b - 1})", src[a:b], dst[a:b], g.num_nodes)


def _is_path(obj: Any) -> bool:
    return isinstance(obj, (str, os.PathLike))


def _ndim(x: Any) -> int:
    nd = getattr(x, "ndim", None)
    if isinstance(nd, int):  # an array of any library (CuPy refuses np.ndim's conversion)
        return nd
    try:
        return int(np.ndim(x))
    except (ValueError, TypeError):  # ragged lists, or a sequence of device arrays
        return -1


def _is_single_chunk(obj: Any) -> bool:
    """True for one chunk given bare: ``(src, dst)``, an ``(m, 2)`` array, a frame or table."""
    if isinstance(obj, np.ndarray) or is_cupy_array(obj) or is_torch_tensor(obj):
        return obj.ndim == 2
    if _is_dataframe(obj) or _is_arrow_table(obj) or _is_scipy_sparse(obj):
        return True
    if isinstance(obj, (tuple, list)) and len(obj) in (2, 3):
        return _ndim(obj[0]) == 1 and _ndim(obj[1]) == 1
    return False


def _as_chunk(item: Any, label: str) -> EdgeChunk:
    """Split one chunk into ``(src, dst)``; shapes and dtypes are checked by :func:`chunk_ids`."""
    if isinstance(item, Graph):
        return EdgeChunk(label, *item.coo(), item.num_nodes)
    if _is_dataframe(item) or _is_arrow_table(item):
        return EdgeChunk(label, *_columns(item, label))
    if _is_scipy_sparse(item):  # its stored entries are the edges, as in as_graph
        if len(item.shape) != 2 or item.shape[0] != item.shape[1]:
            raise InvalidGraphError(
                f"{label}: a sparse matrix chunk must be square (an adjacency matrix), not of "
                f"shape {item.shape}. Fix: pass the n x n adjacency matrix."
            )
        coo = item.tocoo()
        return EdgeChunk(label, coo.row, coo.col, int(item.shape[0]))
    if is_torch_tensor(item):
        item = _torch_to_array(item)
    pairs = is_pair_list(item)  # edges, as as_graph reads a list of pairs
    if (
        not pairs
        and isinstance(item, (tuple, list))
        and len(item) in (2, 3)
        and _ndim(item[0]) == 1
    ):
        return EdgeChunk(label, item[0], item[1])
    arr = item if is_cupy_array(item) else _array(item, label, "chunk")
    if arr.ndim == 2 and arr.shape[0] == 2 and not pairs:
        return EdgeChunk(label, arr[0], arr[1])
    if arr.ndim == 2 and arr.shape[1] == 2:
        return EdgeChunk(label, arr[:, 0], arr[:, 1])
    raise InvalidGraphError(
        f"{label}: cannot read edges from {type(item).__name__} of shape {tuple(arr.shape)}; a "
        "chunk is a (src, dst) pair, an (m, 2) or (2, m) array, a data frame or pyarrow table, "
        "a SciPy sparse adjacency matrix, a Graph or a file path. Fix: pass one of those."
    )


def _columns(table: Any, label: str) -> tuple[Any, Any]:
    cols = _column_names(table)
    if len(cols) < 2:
        raise InvalidGraphError(
            f"{label}: a table needs source and target columns, got {cols}. "
            "Fix: name them src and dst."
        )
    s = _pick(cols, None, _SRC_NAMES, "source", 0)
    t = _pick(cols, None, _DST_NAMES, "target", 1)
    get = table.column if _is_arrow_table(table) else table.__getitem__
    return _column_values(get(s)), _column_values(get(t))


def _column_values(col: Any) -> np.ndarray:
    if hasattr(col, "to_numpy"):
        try:  # pyarrow: nulls become NaN, which the id check then names
            return col.to_numpy(zero_copy_only=False)
        except TypeError:
            return col.to_numpy()
    return np.asarray(col)


def _file_chunks(path: Any, label: str, device: str = "cpu") -> Iterator[EdgeChunk]:
    name = os.fspath(path)
    if _is_parquet(name):
        yield from _parquet_chunks(name, label, device)
        return
    g = read_graph(name)
    yield EdgeChunk(f"{label} ({name!r})", *g.coo(), g.num_nodes)


def _is_parquet(name: str) -> bool:
    if name.lower().endswith(_PARQUET_SUFFIXES):
        return True
    with open(name, "rb") as f:
        return f.read(4) == b"PAR1"


def _parquet_ids(
    name: str, opened: Any = None
) -> tuple[Any, Any, str | None, str | None, int | None]:
    """pyarrow.parquet, the open file, its source and target columns, and the vertex
    count its metadata declares (or None); a file that is not Parquet, or has fewer than
    two columns, raises :class:`~concomp.errors.GraphFormatError`. ``opened``: the file
    as a ``pyarrow.parquet.ParquetFile`` already, whose footer is then not read again."""
    from .io._parse import pyarrow_or_raise  # loads the parser's numba kernels: on use

    pa, pq = pyarrow_or_raise()
    try:
        pf = pq.ParquetFile(name) if opened is None else opened
    except pa.ArrowException as exc:
        raise GraphFormatError(f"{name}: not a readable Parquet file ({exc}).") from exc
    cols = pf.schema_arrow.names
    if len(cols) < 2:
        raise GraphFormatError(
            f"{name}: Parquet columns {cols}: need src and dst columns. Fix: "
            "write columns src, dst[, weight]."
        )
    s = _pick(cols, None, _SRC_NAMES, "source", 0)
    t = _pick(cols, None, _DST_NAMES, "target", 1)
    meta = pf.schema_arrow.metadata or {}
    n = int(meta[b"concomp.num_nodes"]) if b"concomp.num_nodes" in meta else None
    return pq, pf, s, t, n


def _parquet_device_chunks(name: str, label: str, opened: Any = None) -> Iterator[EdgeChunk] | None:
    """The file's id columns decoded on the GPU, as chunks of device ids
    (:func:`concomp._gpu.parquet.parquet_chunks`: in rounds of row groups, marked
    ``decoded``), or None where its decoder does not read the file (the host path
    reads it). ``opened`` as in :func:`_parquet_ids`."""
    _, pf, s, t, n = _parquet_ids(name, opened)
    if s is None or t is None:
        return None
    rounds = driver("gpu", "streaming", "parquet_chunks")(name, (s, t), pf)
    if rounds is None:
        return None
    return (
        EdgeChunk(f"{label} ({name!r}, {where})", src, dst, n, decoded=True)
        for where, src, dst in rounds
    )


#: Rows of a Parquet file read ahead of the consumer (about 0.5 GB of int64 id pairs),
#: or one row group where a group is larger.
PARQUET_READ_AHEAD_ROWS = 1 << 25
#: Threads that decode row groups at once; a group of more rows than this many
#: decodes its two columns on pyarrow's own threads instead.
_PARQUET_THREADS, _LARGE_GROUP_ROWS = 8, 1 << 22


def _parquet_chunks(
    name: str, label: str, device: str = "cpu", opened: Any = None
) -> Iterator[EdgeChunk]:
    """One chunk per row group, reading only the two id columns.

    With ``device="gpu"``: the GPU engine's decoder reads the file where it can
    (:func:`_parquet_device_chunks`); the rest of this docstring describes the host
    path every other file takes.

    Row groups are decoded on a few threads ahead of the consumer (each thread with
    its own reader; at most :data:`PARQUET_READ_AHEAD_ROWS` rows in flight), so a file
    of many small groups reads at the speed of its cores and the reading overlaps
    the consumer's work on the groups before; they come out in file order.
    """
    if device == "gpu":
        decoded = _parquet_device_chunks(name, label, opened)
        if decoded is not None:
            yield from decoded
            return
    pq, pf, s, t, n = _parquet_ids(name, opened)
    groups = pf.num_row_groups
    if groups == 0:
        yield EdgeChunk(f"{label} ({name!r})", np.zeros(0, np.int64), np.zeros(0, np.int64), n)
        return
    rows = [pf.metadata.row_group(g).num_rows for g in range(groups)]
    readers = threading.local()

    def read(g: int) -> tuple[np.ndarray, np.ndarray]:
        f = getattr(readers, "file", None)
        if f is None:  # one reader per thread: a ParquetFile is not shared between threads
            f = readers.file = pq.ParquetFile(name)
        table = f.read_row_group(g, columns=[s, t], use_threads=rows[g] > _LARGE_GROUP_ROWS)
        return _column_values(table.column(s)), _column_values(table.column(t))

    pool = ThreadPoolExecutor(min(_PARQUET_THREADS, groups), thread_name_prefix="concomp-parquet")
    pending: deque[tuple[int, Future]] = deque()
    ahead, nxt = 0, 0
    try:
        for g in range(groups):
            while nxt < groups and (not pending or ahead + rows[nxt] <= PARQUET_READ_AHEAD_ROWS):
                pending.append((nxt, pool.submit(read, nxt)))
                ahead += rows[nxt]
                nxt += 1
            _, future = pending.popleft()
            ahead -= rows[g]
            src, dst = future.result()
            yield EdgeChunk(f"{label} ({name!r}, row group {g})", src, dst, n)
    finally:  # a consumer that stops early (a bad id) leaves no read running
        pool.shutdown(wait=True, cancel_futures=True)


# ----------------------------------------------------------------------------- validation
def _array(a: Any, label: str, name: str) -> np.ndarray:
    try:
        return np.asarray(a)
    except Exception as exc:  # ragged lists and other odd objects
        raise InvalidGraphError(
            f"{label}: argument `{name}`: cannot convert {type(a).__name__} "
            f"to an array ({exc}). Fix: pass 1-D integer arrays."
        ) from exc


def _ids(a: Any, name: str, label: str) -> Any:
    """``a`` as a 1-D integer id array; integer arrays pass as they are (ranges come later)."""
    if is_torch_tensor(a):
        a = _torch_to_array(a)
    if not is_cupy_array(a):
        a = _array(a, label, name)
    kind, size = a.dtype.kind, a.dtype.itemsize
    if a.ndim == 1 and (kind == "i" or (kind == "u" and size < 8)):
        return a
    try:  # the slow path names what is wrong: shape, dtype, NaN, fractions, > int64
        a = check_ids(a, name, None)
    except InvalidGraphError as exc:
        raise InvalidGraphError(f"{label}: {exc}") from None
    return a.astype(np.int64) if a.dtype.kind == "u" else a


def chunk_ids(chunk: EdgeChunk) -> tuple[Any, Any]:
    """Validated ``(src, dst)`` of a chunk: 1-D integer arrays of one length, one device."""
    src, dst = _ids(chunk.src, "src", chunk.label), _ids(chunk.dst, "dst", chunk.label)
    if src.shape[0] != dst.shape[0]:
        raise InvalidGraphError(
            f"{chunk.label}: `src` and `dst` differ in length "
            f"({src.shape[0]} vs {dst.shape[0]}). Fix: pass one source and "
            "one target per edge."
        )
    if is_cupy_array(src) != is_cupy_array(dst):
        raise InvalidGraphError(
            f"{chunk.label}: `src` and `dst` live on different devices (one "
            "NumPy, one CuPy). Fix: move both to the same device."
        )
    return src, dst


def range_check(
    chunk: EdgeChunk, src: Any, dst: Any, num_nodes: int | None
) -> Callable[[int, int], None]:
    """``check(lo, hi)`` for the engines: raise, naming chunk and position, for bad ids."""
    return _ids_in_range([(src, "src"), (dst, "dst")], num_nodes, chunk.label)


def _countable(n: int) -> bool:
    try:
        check_num_nodes(n)
    except InvalidGraphError:
        return False
    return True
