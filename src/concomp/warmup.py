"""Compile the engines' kernels ahead of time: :func:`warmup`.

A new process pays for compilation on its first call: numba compiles the CPU kernels
and NVRTC the CUDA kernels. Both keep what they compile on disk (numba's cache beside
the package or in ``NUMBA_CACHE_DIR``; CuPy's in ``CUPY_CACHE_DIR``, default
``~/.cupy/kernel_cache``), so running :func:`warmup` once per machine (in a container
image build, or on each node of a cluster) makes every later process start warm.

It runs the public entry points on small generated graphs shaped to take every
branch of ``algorithm="auto"`` (sparse, mesh-like, skewed and denser graphs; int32 and
int64 ids; integer and float weights), so what it compiles is exactly what later calls
load, CuPy's own element-wise kernels included.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from ._dispatch import resolve_device
from .errors import InvalidOptionsError

__all__ = ["WARMUP_TARGETS", "warmup"]

#: What :func:`warmup` can compile, in the order it does.
WARMUP_TARGETS = ("components", "forest", "msf", "incremental", "streaming")


def warmup(device: str = "auto", what: Iterable[str] = WARMUP_TARGETS) -> dict[str, float]:
    """Compile the default kernels of the entry points in ``what`` ahead of time.

    Parameters
    ----------
    device : {"auto", "cpu", "gpu"}
        The CPU kernels are always compiled; the GPU's too where a GPU is usable
        (``"auto"``) or, with ``"gpu"``, required (otherwise
        :class:`~concomp.DeviceUnavailableError`).
    what : iterable of str
        Any of ``"components"`` (also what :func:`concomp.csgraph.connected_components`
        runs), ``"forest"``, ``"msf"``, ``"incremental"``, ``"streaming"``.

    Returns
    -------
    dict
        Seconds spent per ``"<device>:<target>"``.

    Examples
    --------
    >>> import concomp
    >>> took = concomp.warmup(device="cpu", what=("components",))
    >>> sorted(took)
    ['cpu:components']
    """
    targets = tuple(what)
    unknown = sorted(set(targets) - set(WARMUP_TARGETS))
    if unknown:
        raise InvalidOptionsError(
            f"argument `what`: unknown target(s) {unknown}; choose from {list(WARMUP_TARGETS)}."
        )
    devices = ["cpu"]
    if resolve_device(device, num_edges=None, what="warmup") == "gpu":
        devices.append("gpu")
    graphs = _graphs()
    took: dict[str, float] = {}
    from ._shared.staging import kernels_only

    # the small graphs here would be staged by NumPy; compile the kernels large inputs use
    with kernels_only():
        for dev in devices:
            for target in targets:
                start = time.perf_counter()
                _RUNS[target](dev, graphs)
                if dev == "gpu":  # kernels the calls started compiling on worker threads
                    from ._gpu._compat import wait_for_compiles

                    wait_for_compiles()
                took[f"{dev}:{target}"] = time.perf_counter() - start
    return took


def _graphs() -> list[tuple[Any, Any, int]]:
    """``(src, dst, n)`` edge lists, one per branch of the engines' automatic choice."""
    from . import generators

    shapes = [
        generators.gnm(3000, 4000, clean=False, seed=1),  # sparse: no sampling
        generators.grid(50, 50),  # mesh: k-out over lower neighbours
        generators.rmat(12, 8, seed=1),  # skewed: hook-based sampling
        generators.gnm(2000, 16000, seed=1),  # denser uniform
    ]
    out = []
    for g in shapes:
        src, dst = g.coo()
        for dtype in (np.int32, np.int64):
            out.append((src.astype(dtype), dst.astype(dtype), g.num_nodes))
    return out


def _option_sets(dev: str, dtype: np.dtype) -> list[Any]:
    """Default options, and on the GPU the settings that large graphs reach by size."""
    from .options import Options

    index = "int64" if dtype == np.int64 else None
    if dev == "cpu":  # the compiled kernels, not the NumPy start of small graphs
        return [Options(index_dtype=index, numpy_start=False)]
    return [
        Options(index_dtype=index),
        Options(index_dtype=index, auto_small_entries=0),
        Options(index_dtype=index, auto_small_entries=0, one_side_above_bytes=0),
    ]


def _components(dev: str, graphs: list) -> None:
    from .components import connected_components

    for src, dst, n in graphs:
        for opts in _option_sets(dev, src.dtype):
            connected_components((src, dst), num_nodes=n, device=dev, options=opts)


def _forest(dev: str, graphs: list) -> None:
    from .forest import spanning_forest

    for src, dst, n in graphs:
        for opts in _option_sets(dev, src.dtype):
            spanning_forest((src, dst), num_nodes=n, device=dev, options=opts)


def _msf(dev: str, graphs: list) -> None:
    from ._input import as_graph
    from .msf import minimum_spanning_forest
    from .options import Options

    rng = np.random.default_rng(1)
    for src, dst, n in graphs:
        m = src.shape[0]
        # narrow integer keys (packed Boruvka) and float64 (ranked edges); each weight
        # type has its own key kernel on the GPU
        weights = (
            rng.integers(0, 1000, m, dtype=np.int64),
            rng.integers(0, 1000, m, dtype=np.int32),
            rng.random(m),
            rng.random(m, dtype=np.float32),
        )
        for w in weights:
            g = as_graph((src, dst), n, weights=w)
            minimum_spanning_forest(g, device=dev, options=Options(numpy_start=False))


def _incremental(dev: str, graphs: list) -> None:
    from .incremental import IncrementalConnectivity
    from .options import Options

    opts = Options(numpy_start=False)  # the compiled kernels, not the NumPy start
    for src, dst, n in graphs:
        ic = IncrementalConnectivity(n, device=dev, options=opts)
        half = src.shape[0] // 2
        ic.insert(src[:half], dst[:half])
        ic.insert_batches(src[half:], dst[half:], max(1, half // 8))
        ic.connected(src[:8], dst[:8])
        ic.labels()


def _streaming(dev: str, graphs: list) -> None:
    from .options import Options
    from .streaming import stream_components

    opts = Options(numpy_start=False)  # the compiled kernels, not the NumPy start
    for src, dst, n in graphs:
        half = src.shape[0] // 2
        pieces = [(src[:half], dst[:half]), (src[half:], dst[half:])]
        stream_components(pieces, n, device=dev, options=opts)


_RUNS: dict[str, Callable[[str, list], None]] = {
    "components": _components,
    "forest": _forest,
    "msf": _msf,
    "incremental": _incremental,
    "streaming": _streaming,
}
