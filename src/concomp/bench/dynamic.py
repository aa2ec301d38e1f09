"""The dynamic problems: incremental connectivity and streamed components.

Incremental: every stored edge of the symmetric CSR (both directions, in CSR order, as
GConn feeds its incremental code) inserted into a fresh structure, made untimed before
each run: as one batch (``prebuilt``, the public :meth:`IncrementalConnectivity.insert`),
as batches of :data:`INCREMENTAL_BATCH` edges in one
:meth:`~concomp.IncrementalConnectivity.insert_batches` call (``batches``), and as one
batch given to the engine directly (``internal``). GPU peer: GConn's incremental code.

Streaming: each undirected edge once (``u < v``), held in host memory, through
:func:`concomp.stream_components` (``host``, timed on the host), from device memory on the GPU
(``device``), and through the engine's streamer directly (``internal``). Peer: SciPy's
components of the same edge list (building its sparse matrix included, as a stream
must).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import to_numpy
from .._dispatch import driver
from ..options import DEFAULTS
from ._case import Case, Rows, Settings, count_roots, gpu_peer_rows, row, timed
from .timing import measure

__all__ = ["INCREMENTAL_BATCH", "run_incremental", "run_streaming"]

#: Edges per batch of the incremental ``batches`` mode.
INCREMENTAL_BATCH = 1 << 16


def run_incremental(case: Case, s: Settings) -> Rows:
    """Incremental connectivity: all edges inserted into a fresh structure."""
    from ..incremental import DEFAULT_ALGORITHM, IncrementalConnectivity, plan_capacity
    from ..variants import Variant

    g, dev, n = case.graph, s.device, case.graph.num_nodes
    src, dst = g.coo()

    def fresh() -> IncrementalConnectivity:
        return IncrementalConnectivity(n, device=dev)

    def count(ic: IncrementalConnectivity) -> dict:
        return {"components": int(ic.num_components)}

    one = fresh()
    one.insert(src, dst)
    many = fresh()
    many.insert_batches(src, dst, INCREMENTAL_BATCH)
    variant = Variant.parse(DEFAULT_ALGORITHM)
    capacity, dtype = plan_capacity(0, np.int32, n, DEFAULTS.int32_capacity)
    engine_cls = driver(dev, "incremental", "IncrementalEngine")
    u, v = src.astype(dtype, copy=False), dst.astype(dtype, copy=False)

    def engine() -> Any:
        return engine_cls(variant, capacity, dtype, DEFAULTS)

    eng = engine()
    eng.run("insert", None, u, v, 0)
    rows = [
        row("concomp", "prebuilt", timed(lambda ic: ic.insert(src, dst), s, fresh), count(one)),
        row(
            "concomp", "batches",
            timed(lambda ic: ic.insert_batches(src, dst, INCREMENTAL_BATCH), s, fresh),
            count(many),
        ),
        row(
            "concomp", "internal", timed(lambda e: e.run("insert", None, u, v, 0), s, engine),
            {"components": count_roots(eng.roots(n))}, str(variant),
        ),
    ]  # fmt: skip
    return rows + gpu_peer_rows("incremental", case, s)


def _upper_edges(case: Case) -> tuple[np.ndarray, np.ndarray]:
    src, dst = (to_numpy(a) for a in case.graph.coo())
    keep = src < dst
    return np.ascontiguousarray(src[keep]), np.ascontiguousarray(dst[keep])


def run_streaming(case: Case, s: Settings) -> Rows:
    """Streamed components of the host edge list (each undirected edge once)."""
    from ..streaming import stream_components

    dev, n = s.device, case.graph.num_nodes
    src, dst = _upper_edges(case)

    def count(c: Any) -> dict:
        return {"components": int(c)}

    call = lambda: stream_components((src, dst), n, device=dev, return_labels=False)  # noqa: E731
    # host input: the time is the host's, from the call to the count in hand
    host_time = measure(call, device=dev, reps=s.reps, wall=True)
    rows = [row("concomp", "host", host_time, count(call()))]
    if dev == "gpu":
        from .._arrays import to_device

        ds, dd = to_device(src), to_device(dst)
        on_dev = lambda: stream_components((ds, dd), n, device=dev, return_labels=False)  # noqa: E731
        rows.append(row("concomp", "device", timed(on_dev, s), count(on_dev())))
    variant = driver(dev, "streaming", "default_variant")()
    streamer = driver(dev, "streaming", "Streamer")

    def internal() -> Any:
        eng = streamer(n, variant, DEFAULTS)
        eng.add(src, dst, lambda lo, hi: None)  # ids are valid: the corpus built them
        return eng.roots()

    rows.append(
        row("concomp", "internal", timed(internal, s), count(count_roots(internal())), str(variant))
    )
    if s.cpu_peers:
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components

        ones = np.ones(src.shape[0], np.int8)

        def scipy_cc() -> int:
            a = sp.coo_array((ones, (src, dst)), shape=(n, n))
            return int(connected_components(a, directed=True, connection="weak")[0])

        rows.append(row("scipy", "peer", measure(scipy_cc, reps=s.reps), count(scipy_cc())))
    return rows
