"""The public functions of :mod:`concomp.dask`: components, spanning forests, minimum
spanning forests of edge collections too large for one machine."""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from .._arrays import to_device
from .._checks import MAX_NODES
from .._dispatch import requested_device
from ..errors import InvalidGraphError
from ..forest import SpanningForest
from ..msf import MinimumSpanningForest, exact_int_sum
from . import _pieces
from ._inputs import partitions
from ._tree import build, rounds, run

__all__ = ["connected_components", "spanning_forest", "minimum_spanning_forest"]

#: Vertices labelled per block when labels are returned as a Dask array.
LABEL_BLOCK = 1 << 24
_INT32_MAX = 2**31 - 1
_OUTPUTS = ("numpy", "cupy", "dask")


def _forests(
    edges: Any,
    weights: Any,
    *,
    kind: str,
    num_nodes: Any,
    split_every: int,
    device: Any,
    maximum: bool,
    labels: bool,
    client: Any,
    retries: int,
    columns: tuple[Any, Any, Any],
    stats: dict | None,
) -> tuple[Any, int, Any]:
    """Run the tree; return its root (Piece or Labeling), the vertex count and the client."""
    n_given = _vertex_count(num_nodes)
    dev = requested_device(device)
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 0:
        raise InvalidGraphError(f"argument `retries`: {retries!r} is not an int >= 0.")
    source, target, weight = columns
    parts, declared = partitions(
        edges, weights, source=source, target=target, weight=weight, need_weights=kind == "msf"
    )
    root, token = build(
        parts,
        kind=kind,
        num_nodes=n_given,
        split_every=split_every,
        device=dev,
        maximum=maximum,
        labels=labels,
    )
    out, rs, used = run(root, token, client=client, retries=retries)
    n = n_given if n_given is not None else max(out.max_id + 1, declared or 0)
    if stats is not None:
        rs.partitions, rs.split_every = len(parts), split_every
        rs.rounds = rounds(len(parts), split_every)
        stats.update(rs.as_dict())
        stats["num_nodes"] = n
        stats["edge_bound"] = max(len(parts) - 1, 0) * max(n - 1, 0)
        stats["edge_bytes"] = _pieces.edge_bytes(kind == "msf")
    return out, n, used


def _vertex_count(num_nodes: Any) -> int | None:
    """``num_nodes`` checked; unlike on one machine, no memory bound (ids may be sparse)."""
    if num_nodes is None:
        return None
    if (
        isinstance(num_nodes, (bool, np.bool_))
        or not isinstance(num_nodes, (int, np.integer))
        or not 0 <= num_nodes <= MAX_NODES
    ):
        raise InvalidGraphError(
            f"argument `num_nodes`: {num_nodes!r} is not an int in [0, 2**62]. Fix: pass the "
            "number of vertices (or None for the largest id + 1)."
        )
    return int(num_nodes)


def _global_ids(keys: np.ndarray, sizes: dict[int, int]) -> np.ndarray:
    """Packed (partition, position) keys -> edge ids of the whole collection."""
    count = max(sizes, default=-1) + 1
    per = np.zeros(count, np.int64)
    for part, m in sizes.items():
        per[part] = m
    offsets = np.concatenate([[0], np.cumsum(per)[:-1]]).astype(np.int64)
    part = keys >> np.int64(_pieces.KEY_BITS)
    return offsets[part] + (keys & np.int64((1 << _pieces.KEY_BITS) - 1))


def connected_components(
    edges: Any,
    num_nodes: int | None = None,
    *,
    split_every: int = 8,
    device: str = "auto",
    return_labels: bool = True,
    output: str = "numpy",
    client: Any = None,
    retries: int = 2,
    source: str | None = None,
    target: str | None = None,
    stats: dict | None = None,
) -> tuple[int, Any] | int:
    """Connected components of an edge collection partitioned over a Dask cluster.

    Each partition's spanning forest is computed where the partition is (at most
    ``n - 1`` edges leave the worker), the forests are merged ``split_every`` at a time
    up a tree, and one components run on the top round's forests gives the labels.
    Equal, label for label, to :func:`concomp.connected_components` on all the edges.

    Parameters
    ----------
    edges : edge collection
        A ``(src, dst)`` pair of 1-D Dask arrays (blocks are partitions), an ``(m, 2)``
        or ``(2, m)`` Dask array, a Dask data frame with source and target columns
        (partitions are partitions), :func:`read_parquet_edges` (one partition per row
        group), or a list of file paths (Parquet files by row group; other graph files
        one partition each).
    num_nodes : int, optional
        Number of vertices. Default: the largest id + 1 (or the vertex count Parquet
        files declare, if larger), found in the same pass. Ids may exceed 2**31.
    split_every : int
        Forests one merge takes (>= 2): ``1 + ceil(log_k W)`` rounds for ``W`` partitions.
    device : {"auto", "cpu", "gpu"}
        The engine each worker runs; ``"auto"`` uses the worker's GPU when it has one
        (see "GPU workers" in the module docstring of :mod:`concomp.dask`).
    return_labels : bool
        False returns the number of components only.
    output : {"numpy", "cupy", "dask"}
        Where the labels come back: a NumPy or CuPy array, or a lazy Dask array of
        blocks of 2**24 vertices (for vertex counts that do not fit on the client).
    client : distributed.Client, optional
        Default: the current client, or Dask's local scheduler when there is none.
    retries : int
        Times a failed task is retried on a distributed cluster (tasks lost with a
        worker are recomputed in any case). Bad input is reported, not retried.
    source, target : str, optional
        Column names for data frames and Parquet files (default: found by name).
    stats : dict, optional
        Filled with what the run did: partitions, rounds, per-round ``phases`` (wall
        and task seconds, edges in and out), ``shipped`` (forest pieces, edges and
        bytes moved between workers, from their transfer logs), ``edge_bound``,
        ``(W - 1)(n - 1)``, and ``overhead``: seconds outside the tasks (before the
        first, between rounds, after the last until the result reached the client;
        wall clocks, so meaningful where workers share the client's clock) and
        ``labels_s``, the labels' assembly on the client.

    Returns
    -------
    n_components : int
    labels : array
        SciPy's numbering (components ordered by their smallest vertex); int32 unless
        ``num_nodes`` needs int64.

    Raises
    ------
    InvalidGraphError
        A partition has ids that are negative, NaN, fractional or ``>= num_nodes``;
        the message names the partition and the position in it.

    Examples
    --------
    >>> import dask, dask.array as da, numpy as np
    >>> from concomp.dask import connected_components
    >>> src = da.from_array(np.array([0, 1, 3, 5, 6]), chunks=2)
    >>> dst = da.from_array(np.array([1, 2, 4, 6, 7]), chunks=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     connected_components((src, dst), num_nodes=9, device="cpu")
    (4, array([0, 0, 0, 1, 1, 2, 2, 2, 3], dtype=int32))
    """
    if output not in _OUTPUTS:
        raise InvalidGraphError(
            f"argument `output`: {output!r} is not valid; use one of {_OUTPUTS}."
        )
    lab, n, used = _forests(
        edges,
        None,
        kind="forest",
        num_nodes=num_nodes,
        split_every=split_every,
        device=device,
        maximum=False,
        labels=True,
        client=client,
        retries=retries,
        columns=(source, target, None),
        stats=stats,
    )
    count = lab.num_components(n)
    if not return_labels:
        return count
    dtype = np.int32 if n <= _INT32_MAX else np.int64
    if output == "dask":
        return count, _dask_labels(lab, n, dtype, used)
    since = time.perf_counter()
    labels = _host_labels(lab, n, dtype)
    if stats is not None:
        stats["overhead"]["labels_s"] = time.perf_counter() - since
    return count, (to_device(labels) if output == "cupy" else labels)


def _host_labels(lab: Any, n: int, dtype: Any) -> np.ndarray:
    """Every vertex's label on the client; the engine's own array when it already
    covers every vertex in the right dtype and is writable (no copy)."""
    dense = lab.dense
    if (
        dense is not None
        and dense.shape[0] == n
        and dense.dtype == dtype
        and dense.flags.writeable
        and dense.flags.c_contiguous
    ):
        return dense
    labels = np.empty(n, dtype)
    for a in range(0, n, LABEL_BLOCK):
        b = min(a + LABEL_BLOCK, n)
        labels[a:b] = _pieces.label_block(lab, a, b, dtype)
    return labels


def _dask_labels(lab: Any, n: int, dtype: Any, client: Any) -> Any:
    import dask
    import dask.array as da

    ref = client.scatter(lab, broadcast=False) if client is not None else dask.delayed(lab)
    block = dask.delayed(_pieces.label_block, pure=True)
    blocks = [
        da.from_delayed(
            block(ref, a, min(a + LABEL_BLOCK, n), dtype), (min(LABEL_BLOCK, n - a),), dtype
        )
        for a in range(0, n, LABEL_BLOCK)
    ]
    return da.concatenate(blocks) if blocks else da.zeros(0, dtype=dtype)


def spanning_forest(
    edges: Any,
    num_nodes: int | None = None,
    *,
    split_every: int = 8,
    device: str = "auto",
    client: Any = None,
    retries: int = 2,
    source: str | None = None,
    target: str | None = None,
    stats: dict | None = None,
) -> SpanningForest:
    """A spanning forest of an edge collection partitioned over a Dask cluster.

    Parameters are those of :func:`connected_components`.

    Returns
    -------
    concomp.SpanningForest
        NumPy arrays; ``edge_ids`` index the whole collection (partition offset plus
        position in the partition), ascending.

    Examples
    --------
    >>> import dask, dask.array as da, numpy as np
    >>> from concomp.dask import spanning_forest
    >>> src = da.from_array(np.array([0, 1, 2, 3]), chunks=2)
    >>> dst = da.from_array(np.array([1, 2, 0, 4]), chunks=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     f = spanning_forest((src, dst), device="cpu")
    >>> f.edge_ids.tolist(), f.num_components
    ([0, 1, 3], 2)
    """
    piece, n, _ = _forests(
        edges,
        None,
        kind="forest",
        num_nodes=num_nodes,
        split_every=split_every,
        device=device,
        maximum=False,
        labels=False,
        client=client,
        retries=retries,
        columns=(source, target, None),
        stats=stats,
    )
    return SpanningForest(
        src=piece.src,
        dst=piece.dst,
        edge_ids=_global_ids(piece.keys, piece.sizes),
        num_nodes=n,
        num_components=n - piece.num_edges,
    )


def minimum_spanning_forest(
    edges: Any,
    weights: Any = None,
    *,
    num_nodes: int | None = None,
    maximum: bool = False,
    split_every: int = 8,
    device: str = "auto",
    client: Any = None,
    retries: int = 2,
    source: str | None = None,
    target: str | None = None,
    weight: str | None = None,
    stats: dict | None = None,
) -> MinimumSpanningForest:
    """The minimum (or maximum) spanning forest of a partitioned, weighted edge collection.

    Each partition's minimum spanning forest is computed locally and the forests are
    merged up a tree. Ties break by (weight, min(u, v), max(u, v), edge id) with the
    edge ids of the whole collection, so the result is the one
    :func:`concomp.minimum_spanning_forest` returns, edge for edge.

    Parameters
    ----------
    edges : edge collection
        As for :func:`connected_components`.
    weights : Dask array, optional
        One weight per edge, for array input (rechunked like the edges). Data frames
        and Parquet files carry a weight column instead (``weight=`` names it).
    maximum : bool
        The maximum spanning forest instead.
    num_nodes, split_every, device, client, retries, source, target, stats
        As for :func:`connected_components`.

    Returns
    -------
    concomp.MinimumSpanningForest
        NumPy arrays; ``edge_ids`` index the whole collection.

    Examples
    --------
    >>> import dask, dask.array as da, numpy as np
    >>> from concomp.dask import minimum_spanning_forest
    >>> src = da.from_array(np.array([0, 1, 0, 3]), chunks=2)
    >>> dst = da.from_array(np.array([1, 2, 2, 4]), chunks=2)
    >>> w = da.from_array(np.array([2.0, 1.0, 3.0, 0.0]), chunks=2)
    >>> with dask.config.set(scheduler="synchronous"):
    ...     f = minimum_spanning_forest((src, dst), w, device="cpu")
    >>> f.edge_ids.tolist(), f.total_weight
    ([0, 1, 3], 3.0)
    """
    piece, n, _ = _forests(
        edges,
        weights,
        kind="msf",
        num_nodes=num_nodes,
        split_every=split_every,
        device=device,
        maximum=maximum,
        labels=False,
        client=client,
        retries=retries,
        columns=(source, target, weight),
        stats=stats,
    )
    w = piece.weights
    if w.dtype.kind == "f":
        total: int | float = float(w.sum(dtype=np.float64)) if w.shape[0] else 0.0
    else:
        total = exact_int_sum(w)
    return MinimumSpanningForest(
        src=piece.src,
        dst=piece.dst,
        edge_ids=_global_ids(piece.keys, piece.sizes),
        weights=w,
        total_weight=total,
        num_nodes=n,
    )
