"""Per-format graph writers behind :func:`concomp.io.write_graph`.

Each writer returns the file's bytes as a list of chunks; :data:`WRITERS` maps a
format name to its writer. Text bodies come from the numba formatters of
:mod:`concomp.io._emit`, imported on first use so that ``import concomp.io``
compiles nothing.
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ._files import pyarrow_or_raise


def _write_snap(g: Graph, one_based: bool) -> list:
    from ._emit import format_edges

    src, dst = g.coo()
    kind = "Directed" if g.directed else "Undirected"
    cols = "FromNodeId\tToNodeId" + ("\tWeight" if g.weights is not None else "")
    head = (
        f"# {kind} graph, written by concomp\n# Nodes: {g.num_nodes} Edges: {g.num_edges}\n"
        f"# {cols}\n"
    )
    return [head.encode(), format_edges(src, dst, g.weights, base=int(one_based), sep="\t")]


def _write_csv(g: Graph, one_based: bool) -> list:
    from ._emit import format_edges

    src, dst = g.coo()
    head = "src,dst" + (",weight" if g.weights is not None else "") + "\n"
    return [head.encode(), format_edges(src, dst, g.weights, base=int(one_based), sep=",")]


def _write_mtx(g: Graph, one_based: bool) -> list:
    from ._emit import format_edges

    src, dst = g.coo()
    w = g.weights
    undirected = not g.directed
    if undirected:
        if g.symmetric:  # both directions stored: keep one triangle, as the format wants
            keep = src >= dst
            src, dst, w = src[keep], dst[keep], None if w is None else w[keep]
        src, dst = np.maximum(src, dst), np.minimum(src, dst)
    field = "pattern" if w is None else ("integer" if w.dtype.kind in "iub" else "real")
    head = (
        f"%%MatrixMarket matrix coordinate {field} "
        f"{'symmetric' if undirected else 'general'}\n% written by concomp\n"
        f"{g.num_nodes} {g.num_nodes} {src.shape[0]}\n"
    )
    return [head.encode(), format_edges(src, dst, w, base=1, sep=" ")]


def _write_dimacs(g: Graph, one_based: bool) -> list:
    from ._emit import format_edges

    src, dst = g.coo()
    head = f"c written by concomp\np sp {g.num_nodes} {g.num_edges}\n"
    return [head.encode(), format_edges(src, dst, g.weights, base=1, sep=" ", prefix="a ")]


def _write_pace(g: Graph, one_based: bool) -> list:
    from ._emit import format_edges

    src, dst = g.coo()
    head = f"p tw {g.num_nodes} {g.num_edges}\n"
    return [head.encode(), format_edges(src, dst, None, base=1, sep=" ")]


def _write_metis(g: Graph, one_based: bool) -> list:
    from ._emit import format_adjacency

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
    data = np.ones(indices.shape[0], np.int8) if w is None else w if eid is None else w[eid]
    # scipy.sparse.load_npz reads format/shape/data/indices/indptr and ignores the rest
    arrays = {
        "indptr": indptr,
        "indices": indices,
        "data": data,
        "format": np.array(b"csr"),
        "shape": np.array([g.num_nodes, g.num_nodes]),
        "directed": np.array(g.directed),
        "weighted": np.array(w is not None),
    }
    if eid is not None:
        arrays["edge_ids"] = eid
    out = io.BytesIO()
    np.savez(out, **arrays)
    return [out.getbuffer()]


def _write_parquet(g: Graph, one_based: bool) -> list:

    pa, pq = pyarrow_or_raise()
    src, dst = g.coo()
    cols = {"src": src, "dst": dst}
    if g.weights is not None:
        cols["weight"] = g.weights
    meta = {
        b"concomp.num_nodes": str(g.num_nodes).encode(),
        b"concomp.directed": b"1" if g.directed else b"0",
    }
    table = pa.table(cols).replace_schema_metadata(meta)
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink)
    return [sink.getvalue()]


WRITERS = {
    "snap": _write_snap,
    "csv": _write_csv,
    "mtx": _write_mtx,
    "dimacs": _write_dimacs,
    "pace": _write_pace,
    "metis": _write_metis,
    "npz": _write_npz,
    "parquet": _write_parquet,
}
