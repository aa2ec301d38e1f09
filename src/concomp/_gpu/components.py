"""GPU connected components driver: the engine contract's ``components`` module.

``component_roots(graph, variant, options)`` returns a CuPy array whose entry
``v`` is the smallest vertex id of ``v``'s component; :func:`run_variant` is the
driver behind it, which with ``record=True`` also returns, per vertex, the id of
the edge that made it a non-root (the spanning-forest version of every kernel).
Union-find variants run here (:class:`~concomp._gpu.unionfind.UnionFindRun`); the
min-based families and Stages in :mod:`concomp._gpu.families`.

A run is a few sub-millisecond kernels, so the host time of launching them from
Python is a large share of it: when a union-find variant runs on the same graph
object a second time, that run is captured as a CUDA graph and later runs replay
it (``Options.capture_graphs``). The first run launches directly: a capture costs
more than it saves on a graph that is run once, which is how most graphs are run.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from .._arrays import get_xp
from ..graph import Graph
from ..options import Options
from ..variants import Sampling, Variant
from . import probe
from ._compat import check_device_fits, cupy_or_raise, out_of_memory_guard
from ._limits import static_run_bytes
from .autoselect import choose
from .families import run_family
from .unionfind import UnionFindRun, index_dtype_of

__all__ = [
    "auto_roots",
    "auto_variant",
    "canonical_labels",
    "component_count",
    "component_labels",
    "component_roots",
    "count_roots",
    "run_variant",
    "sampling_coverage",
]

log = logging.getLogger("concomp.gpu")


class _Plan:
    """A captured CUDA graph of one run, replayed by later calls on the same graph.

    Launching ~8 kernels from Python costs tens of microseconds of host time,
    which is a large share of a sub-millisecond run; a replay costs one launch.
    """

    def __init__(self, run: UnionFindRun) -> None:
        cp = run.cp
        self.run = run
        stream = cp.cuda.Stream(non_blocking=True)  # capture needs a stream of its own
        with stream:
            stream.begin_capture()
            try:
                run.execute()
            finally:
                self.graph = stream.end_capture()

    def replay(self):
        run = self.run
        # on the caller's stream: ordered after its pending work without extra events
        # (each host call here is GPU idle time inside a short timed run)
        self.graph.launch()
        out = run.p[: run.n].copy()  # a fresh result array: the plan's own is reused
        hook = run.hook_edge.copy() if run.record else None
        return out, hook


def _plan_key(variant: Variant, record: bool, options: Options, dtype: np.dtype) -> tuple:
    """What a captured run depends on: the variant, the index type, recording, and
    every option that changes which kernels or arguments the capture holds."""
    return (
        variant,
        dtype.str,
        record,
        options.heavy_degree,
        options.kout_lower_scan,
        options.one_side_above_bytes,
        options.link_order,
    )


def run_variant(
    g: Graph, variant: Variant, options: Options, record: bool = False, profile: list | None = None
):
    """Run ``variant`` on a device graph; return ``(roots, hook_edge or None)``.

    ``options.index_dtype`` forces int64 kernels on a small graph (tests use it);
    by default the graph's own index type (int32 unless n or 2m needs int64).
    ``profile``, a list, receives ``(phase, cupy Event)`` pairs (benchmarks use it).
    With ``options.capture_graphs``, the second call with the same graph, variant
    and options captures a CUDA graph and later calls replay it
    (:meth:`concomp.Graph.clear_device_cache` releases it). The min-based families
    and Stages have their own driver (:func:`concomp._gpu.families.run_family`). A
    run whose arrays need more than the device's total memory raises
    :class:`~concomp.DeviceMemoryError` before anything is allocated.
    """
    least = static_run_bytes(g.num_nodes, variant, index_dtype_of(g, options), record)
    check_device_fits(lambda: f"connected components of {g!r} ({variant})", least)
    if variant.family != "unionfind" or variant.sampling == Sampling.STAGES:
        return run_family(g, variant, options, record=record)
    n = g.num_nodes
    need = (n * 40 + g.num_edges * 24) if n else 0
    key = _plan_key(variant, record, options, index_dtype_of(g, options))
    with out_of_memory_guard(f"connected components of {g!r}", need):
        plan = g._device_cache.get("cc_plan")
        if profile is None and options.capture_graphs and plan is not None and plan[0] == key:
            return plan[1].replay()
        mark = _marker(profile)
        mark("start")
        run = UnionFindRun(g, variant, record, options)
        if n == 0:
            return run.p[:0], (run.hook_edge[:0] if record else None)
        roots = run.execute(mark)
        # BFS sampling reads frontier sizes back to the host: it cannot be captured
        if variant.sampling != Sampling.BFS and profile is None and options.capture_graphs:
            if g._device_cache.get("cc_seen") == key:
                _capture(g, key, variant, record, options)
            else:
                g._device_cache["cc_seen"] = key  # capture if this run comes again
        return roots, (run.hook_edge if record else None)


def _capture(g: Graph, key: tuple, variant: Variant, record: bool, options: Options) -> None:
    """Capture a plan for later calls; the first run already compiled the kernels
    and built the graph's views, so nothing is allocated while capturing."""
    try:
        g._device_cache["cc_plan"] = (key, _Plan(UnionFindRun(g, variant, record, options)))
    except Exception as exc:  # capture unsupported here: later calls just launch again
        log.debug("CUDA graph capture failed: %s", exc)
        g._device_cache.pop("cc_plan", None)


def _marker(profile: list | None):
    if profile is None:
        return lambda name: None
    cp = cupy_or_raise()

    def mark(name: str) -> None:
        ev = cp.cuda.Event()
        ev.record()
        profile.append((name, ev))

    return mark


def component_count(graph: Graph, variant: Variant, options: Options) -> int | None:
    """None: on the GPU the count comes from the roots (its runs compress them anyway)."""
    return None


def component_labels(graph: Graph, variant: Variant, options: Options) -> None:
    """None: on the GPU the labels come from the roots (its runs compress them anyway)."""
    return None


def component_roots(graph: Graph, variant: Variant, options: Options) -> Any:
    """Entry ``v`` is the smallest vertex id of ``v``'s component (CuPy)."""
    return run_variant(graph, variant, options)[0]


def auto_roots(graph: Graph, options: Options) -> Any:
    """None: ``algorithm="auto"`` on the GPU always runs :func:`auto_variant`'s variant."""
    return None


def auto_variant(graph: Graph, options: Options, *, forest: bool = False) -> Variant:
    """The variant ``algorithm="auto"`` runs on ``graph`` (see :mod:`concomp._gpu.autoselect`);
    one choice serves components and spanning forests (``forest``) alike on the GPU."""
    return choose(graph, options)


def canonical_labels(roots: Any) -> tuple[int, Any]:
    """``(count, labels)`` numbered like SciPy (components by smallest vertex) from root
    labels, computed where ``roots`` lives (CuPy on the device; NumPy input stays NumPy).

    On the device: one pass flags the roots, a scan numbers them, one host read
    fetches the count, one pass gathers each vertex's number; in int32 while ``n``
    fits (half the bytes of every pass)."""
    xp = get_xp(roots)
    n = roots.shape[0]
    dt = np.int32 if n <= np.iinfo(np.int32).max else np.int64
    if xp is np:
        is_root = roots == np.arange(n, dtype=roots.dtype)
        comp_of_root = np.cumsum(is_root, dtype=dt)
        count = int(comp_of_root[-1]) if n else 0
        return count, (comp_of_root[roots] - 1).astype(dt, copy=False)
    if n == 0:
        return 0, xp.zeros(0, dt)
    return probe.canonical_numbers(roots, dt)


def count_roots(roots: Any) -> int:
    """Number of components in root labels (entries with ``roots[v] == v``)."""
    xp = get_xp(roots)
    if xp is np:
        return int(np.count_nonzero(roots == np.arange(roots.shape[0], dtype=roots.dtype)))
    return probe.count_roots(roots)


def sampling_coverage(graph: Graph, variant: Variant, options: Options) -> dict[str, float]:
    """Coverage of ``variant``'s sampler on a device graph (GConn's Table 3; see
    :func:`concomp._engine.sampling_coverage`): one run up to the end of sampling,
    read on the device, and one whole run's time split at the end of sampling
    (``sample_share``; the copy of the labels after sampling is inside the second part)."""
    if variant.family != "unionfind" or variant.sampling in (Sampling.NONE, Sampling.STAGES):
        raise ValueError(
            f"variant={str(variant)!r} has no union-find sampler to measure; pass a variant "
            "such as 'kout-rem_cas-splice-csr' (samplers kout, koutr, koutl, hb, bfs)"
        )
    if graph.num_nodes == 0:
        return {"coverage": 0.0, "inter_component": 0.0, "k0": 0, "sample_share": 0.0}
    cp = cupy_or_raise()
    run = UnionFindRun(graph, variant, False, options)
    marks = [cp.cuda.Event() for _ in range(3)]
    marks[0].record()
    run.init()
    k0 = run.sample()
    marks[1].record()
    n = graph.num_nodes
    p = run.p[:n].copy()
    lmax = run.lmax.copy()
    run.finish(k0, True)
    run.roots()
    marks[2].record()
    marks[2].synchronize()
    sample_ms = cp.cuda.get_elapsed_time(marks[0], marks[1])
    total_ms = cp.cuda.get_elapsed_time(marks[0], marks[2])
    indptr, indices, _ = run.csr()
    pos = cp.arange(indices.shape[0], dtype=indptr.dtype)
    rows = cp.searchsorted(indptr, pos, side="right") - 1
    keep = rows != indices
    split = p[rows[keep]] != p[indices[keep]]
    return {
        "coverage": float((p == lmax[0]).mean()),
        "inter_component": float(split.mean()) if split.size else 0.0,
        "k0": int(k0),
        "sample_share": sample_ms / total_ms if total_ms > 0 else 0.0,
    }
