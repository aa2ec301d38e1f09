"""The statistics GPU ``auto`` decides from, gathered on the device with one host read.

``auto`` asks a graph two questions: how skewed its degrees are
(:func:`concomp._gpu.autoselect.degree_cv`, over evenly spaced vertices) and how many
of its edges join nearby ids (:func:`concomp._gpu.link_order.local_share`, over evenly
spaced edges). Asked with CuPy array expressions, each costs several launches and a
host synchronisation, a visible share of a call on a graph that is run once. Here
``cuda/probe.cu`` answers both, one launch each, into one small array read once; the
answers are cached on the graph (``Graph._device_cache["probe"]``). Degrees are read
only when asked (they need the symmetric rows, which a COO graph builds first).

A graph built from device arrays has the answers already: the fused input checks
launch the same kernels beside their own and read both in one download
(:class:`concomp._gpu.probe_launch.CheckProbe`; the degrees of a symmetric CSR as
large as ``auto`` asks about), so its first run reads nothing back for them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import Graph
from . import ops
from ._compat import cupy_or_raise, out_of_memory_guard
from ._compile import get_kernel, prefetch
from .kernels import BLOCK, grid_for
from .probe_launch import _CTYPES, WORDS, launch

__all__ = [
    "INSTANTIATIONS",
    "canonical_numbers",
    "count_roots",
    "forest_edge_ids",
    "prefetch_canonical",
    "prefetch_forest",
    "probe",
]

INSTANTIATIONS = (
    [f"probe_degrees<{p}>" for p in _CTYPES.values()]
    + [f"probe_local_coo<{t}>" for t in _CTYPES.values()]
    + [f"probe_local_csr<{p}, {t}>" for p in _CTYPES.values() for t in _CTYPES.values()]
    + [f"count_roots<{t}>" for t in _CTYPES.values()]
    + [f"hook_ids<{t}>" for t in _CTYPES.values()]
    + [f"root_numbers<{t}, {o}>" for t in _CTYPES.values() for o in _CTYPES.values()]
)


def count_roots(roots: Any) -> int:
    """Number of entries with ``roots[v] == v`` of a CuPy array (one launch, one read)."""
    cp = cupy_or_raise()
    n = roots.shape[0]
    if n == 0:
        return 0
    roots = _wide(roots)
    out = cp.zeros(1, dtype=np.uint64)
    kernel = get_kernel("probe.cu", f"count_roots<{_CTYPES[roots.dtype]}>")
    kernel(grid_for(n), (BLOCK,), (roots, np.int64(n), out))
    return int(out.get()[0])


def _numbers_name(roots_dtype: Any, dtype: Any) -> str:
    return f"root_numbers<{_CTYPES[np.dtype(roots_dtype)]}, {_CTYPES[np.dtype(dtype)]}>"


_started: set = set()


def prefetch_canonical(roots_dtype: Any, dtype: Any) -> None:
    """Start compiling what :func:`canonical_numbers` launches for roots and labels of
    ``dtype`` (:mod:`concomp._gpu._build`); once per process and pair of types."""
    key = (np.dtype(roots_dtype), np.dtype(dtype))
    if key in _started:
        return
    _started.add(key)
    rt = key[0] if key[0] in _CTYPES else np.dtype(np.int64)
    prefetch("probe.cu", (_numbers_name(rt, dtype),))
    ops.prefetch(cupy_or_raise(), ops.names("root_numbers", rt, dtype))


def prefetch_forest(dtype: Any) -> None:
    """Start compiling what a forest run's count and :func:`forest_edge_ids` launch."""
    t = _CTYPES[np.dtype(dtype) if np.dtype(dtype) in _CTYPES else np.dtype(np.int64)]
    prefetch("probe.cu", (f"count_roots<{t}>", f"hook_ids<{t}>"))


def canonical_numbers(roots: Any, dtype: Any) -> tuple[int, Any]:
    """``(count, labels)`` numbered like SciPy (by smallest vertex) from the root labels
    ``roots`` (a CuPy array, n >= 1): a scan counts the roots up to each vertex
    (:func:`concomp._gpu.ops.root_numbers`), one read fetches the count, and one pass
    gives each vertex its root's number, where CuPy's comparison, cast, prefix sum and
    gather each compile on a new machine. ``labels`` has ``dtype``; ``n * itemsize * 2``
    bytes at the peak."""
    cp = cupy_or_raise()
    roots = _wide(roots)
    dt = np.dtype(dtype)
    n = int(roots.shape[0])
    numbers = ops.root_numbers(cp, roots, dt)  # inclusive: a root's number + 1
    count = int(numbers[-1])
    labels = cp.empty(n, dtype=dt)
    numbers_kernel = get_kernel("probe.cu", _numbers_name(roots.dtype, dt))
    numbers_kernel(grid_for(n), (BLOCK,), (roots, numbers, np.int64(n), labels))
    return count, labels


def forest_edge_ids(hook: Any) -> Any:
    """Ascending int64 ids of the set slots (entries >= 0) of a forest run's ``hook``
    array (CuPy): one launch, CuPy's sort (compiled ahead of time) and one read, where
    a mask, a cast and a compaction each compile on a new machine."""
    cp = cupy_or_raise()
    n = int(hook.shape[0])
    hook = _wide(hook)
    ids = cp.empty(n, dtype=np.int64)
    count = cp.zeros(1, dtype=np.uint64)
    if n:
        kernel = get_kernel("probe.cu", f"hook_ids<{_CTYPES[hook.dtype]}>")
        kernel(grid_for(n), (BLOCK,), (hook, np.int64(n), ids, count))
    ids.sort()
    return ids[: int(count.get()[0])]


def _wide(a: Any) -> Any:
    """``a`` as int32 or int64 (other integer types are widened; a copy only then)."""
    return a if a.dtype in _CTYPES else a.astype(np.int64)


def probe(graph: Graph, *, degrees: bool) -> dict[str, float]:
    """``{"local_share": ..., "degree_cv": ...}`` of a device graph (``degree_cv`` only
    with ``degrees``), as :mod:`concomp._gpu.autoselect` and
    :mod:`concomp._gpu.link_order` define them; cached on ``graph`` (the fused input
    checks of a graph built from device arrays fill the cache in their own download,
    :func:`concomp.Graph.from_csr`)."""
    cached = graph._device_cache.get("probe")
    if cached is not None and (not degrees or "degree_cv" in cached):
        return cached
    cp = cupy_or_raise()
    out = cp.zeros(WORDS, dtype=np.float64)
    n, m = graph.num_nodes, graph.num_edges
    rows = None
    if degrees and n:
        with out_of_memory_guard(f"the symmetric CSR of {graph!r}"):
            rows = _wide(graph.undirected_rows()[0])
    if graph.has_coo:
        src, dst = graph.coo()
        edges: dict[str, Any] = {"coo": (_wide(src), _wide(dst))}
    else:
        indptr, indices, _ = graph.csr()
        edges = {"csr": (_wide(indptr), _wide(indices))}
    launched = launch(cp, out, n, m, **edges, degree_indptr=rows)
    assert launched is not None  # _wide gave every array a type the kernels read
    facts = launched.facts(out.get())
    if degrees:
        facts.setdefault("degree_cv", 0.0)  # no vertices
    graph._device_cache["probe"] = facts
    return facts
