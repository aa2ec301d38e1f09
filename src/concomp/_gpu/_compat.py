"""The only module that imports CuPy."""

from __future__ import annotations

import functools
import logging
import os
from collections.abc import Callable
from typing import Any

from ..errors import DeviceMemoryError, DeviceUnavailableError

log = logging.getLogger("concomp.gpu")

__all__ = [
    "check_device_fits",
    "cupy_module",
    "cupy_or_raise",
    "cupyx_module",
    "device_info",
    "device_total_bytes",
    "free_device_bytes",
    "gpu_status",
    "out_of_memory_guard",
]

#: The remedy a refused size proposes unless the caller names a better one.
DEVICE_FIT_FIX = (
    "make the vertex ids dense (relabel them to 0 .. n-1, or pass renumber=True) so that "
    "num_nodes is the number of vertices the graph has, or use device='cpu'"
)


@functools.lru_cache(maxsize=1)
def gpu_status() -> tuple[bool, str]:
    """``(usable, reason)``: whether CuPy imports and sees a CUDA device."""
    if os.environ.get("CONCOMP_DISABLE_GPU"):
        return False, "CONCOMP_DISABLE_GPU is set"
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising on import
        return False, (
            f"CuPy is not importable ({type(exc).__name__}: {exc}); install "
            "concomp[gpu] (CUDA 12/13 driver) or concomp[gpu-cuda13]"
        )
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"CuPy imported but no CUDA device is usable ({exc})"
    if count < 1:
        return False, "CuPy imported but the CUDA runtime reports 0 devices"
    return True, f"{count} CUDA device(s), CuPy {cupy.__version__}"


def cupy_or_raise():
    """Return the ``cupy`` module, or raise :class:`DeviceUnavailableError` with the reason."""
    ok, reason = gpu_status()
    if not ok:
        raise DeviceUnavailableError(
            f"device='gpu' cannot run here: {reason}. Fix: use "
            "device='cpu' or 'auto', or install a CUDA GPU stack."
        )
    import cupy

    return cupy


@functools.cache
def device_info(device_id: int = 0) -> dict:
    """SM count, L2 size and limits read off the device (cached per device)."""
    import cupy

    attrs = cupy.cuda.runtime.getDeviceProperties(device_id)
    return {
        "name": attrs["name"].decode() if isinstance(attrs["name"], bytes) else attrs["name"],
        "sm_count": attrs["multiProcessorCount"],
        "l2_bytes": attrs["l2CacheSize"],
        "max_threads_per_sm": attrs["maxThreadsPerMultiProcessor"],
        "cc": (attrs["major"], attrs["minor"]),
        "total_mem": attrs["totalGlobalMem"],
    }


def device_total_bytes() -> int:
    """Total memory of the current device in bytes (read once per device)."""
    import cupy

    return int(device_info(cupy.cuda.runtime.getDevice())["total_mem"])


def _free_bytes() -> int | None:
    """Free device memory, counting what CuPy's pool holds unused (None if unreadable)."""
    import cupy

    try:
        free, _ = cupy.cuda.runtime.memGetInfo()
        return int(free) + int(cupy.get_default_memory_pool().free_bytes())
    except cupy.cuda.runtime.CUDARuntimeError:
        return None


def free_device_bytes() -> int | None:
    """Free memory of the current device in bytes, counting what CuPy's pool holds
    unused (None if the driver cannot say)."""
    return _free_bytes()


def check_device_fits(
    what: str | Callable[[], str],
    nbytes: int,
    *,
    total: int | None = None,
    fix: str = DEVICE_FIT_FIX,
) -> int:
    """Return ``nbytes``, or raise :class:`DeviceMemoryError` if the device can never hold it.

    The one up-front size check of the GPU drivers: each calls it with the least
    bytes its own arrays take, before it allocates or launches anything. Sizes are
    Python integers, so a vertex count near 2**62 cannot wrap into a small
    allocation that the kernels would then overrun. The limit is the device's
    *total* memory: a request above it can never fit, while one above the memory
    free right now may fit later and is left to :class:`out_of_memory_guard`.

    Parameters
    ----------
    what : str or callable
        What needs the memory ("connected components of Graph(...)"); a callable is
        called only to build the message (keeping a ``repr`` off the hot path).
    nbytes : int
        Least device bytes the request allocates.
    total : int, optional
        Device memory to compare with (default: the current device's total); tests
        pass one to check the rule without a GPU.
    fix : str
        The remedy the message proposes.

    Examples
    --------
    >>> check_device_fits("labels of 10 vertices", 80, total=1 << 30)
    80
    >>> check_device_fits("labels of 2**40 vertices", 2**43, total=80 * 2**30)
    ... # doctest: +NORMALIZE_WHITESPACE +ELLIPSIS
    Traceback (most recent call last):
    ...
    concomp.errors.DeviceMemoryError: labels of 2**40 vertices needs at least 8796093022208
    bytes (8192 GiB) on the GPU, more than the device's total memory of 85899345920 bytes
    (80 GiB). Fix: make the vertex ids dense ... or use device='cpu'.
    """
    need = int(nbytes)
    limit = device_total_bytes() if total is None else int(total)
    if need <= limit:
        return need
    free = _free_bytes() if total is None else None
    now = f"; {free / 2**30:.4g} GiB of it free now" if free is not None else ""
    raise DeviceMemoryError(
        f"{what() if callable(what) else what} needs at least {need} bytes "
        f"({need / 2**30:.4g} GiB) on the GPU, more than the device's total memory of "
        f"{limit} bytes ({limit / 2**30:.4g} GiB{now}). Fix: {fix}."
    )


class out_of_memory_guard:
    """Context manager turning CuPy's OOM into :class:`DeviceMemoryError` with sizes and advice."""

    def __init__(self, what: str, needed_bytes: int | None = None) -> None:
        self.what, self.needed = what, needed_bytes

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            return False
        import cupy

        # CuPy's allocator raises OutOfMemoryError; Thrust's sorts (argsort, unique)
        # raise a MemoryError naming std::bad_alloc when their buffers do not fit
        thrust = issubclass(exc_type, MemoryError) and "bad_alloc" in str(exc)
        if issubclass(exc_type, cupy.cuda.memory.OutOfMemoryError) or thrust:
            cupy.get_default_memory_pool().free_all_blocks()
            free, total = cupy.cuda.runtime.memGetInfo()
            need = f"about {self.needed / 2**30:.2f} GiB" if self.needed else "more memory"
            raise DeviceMemoryError(
                f"{self.what} needs {need} on the GPU but only {free / 2**30:.2f} GiB of "
                f"{total / 2**30:.2f} GiB is free ({exc}). Fix: free GPU memory, use "
                "device='cpu', or pass max_device_bytes= to stream the edges in chunks."
            ) from exc
        return False


def cupy_module():
    """The ``cupy`` module, for callers that already hold CuPy data (no device check)."""
    import cupy

    return cupy


def cupyx_module(name: str):
    """The ``cupyx`` submodule ``name`` (``"scipy.sparse"``, ``"scipy.spatial"``)."""
    import importlib

    return importlib.import_module(f"cupyx.{name}")


# The fused input checks of device arrays (:mod:`concomp._gpu.checks`), reached from
# the engine-neutral checks (``concomp._checks``) through this module, the one GPU
# module they may import.
def fused_check_dtype(a: Any) -> bool:
    """Whether the fused device checks read ``a`` (:func:`concomp._gpu.checks.fast_dtype`)."""
    from .checks import fast_dtype

    return fast_dtype(a)


def fused_id_range(src: Any, dst: Any, n: int | None = None) -> tuple[int, int, Any]:
    """:func:`concomp._gpu.checks.id_range` of an edge list, and, where ``n`` is known,
    the GPU probe's answers for it (:class:`concomp._gpu.probe_launch.CheckProbe`) read in the
    same download (else None)."""
    from .checks import id_range

    extra = None
    if n is not None:
        from .probe_launch import CheckProbe

        extra = CheckProbe(cupy_module(), n, coo=(src, dst))
    lo, hi = id_range(cupy_module(), src, dst, extra=extra)
    return lo, hi, extra.facts if extra is not None else None


def fused_csr_facts(
    indptr: Any, indices: Any, n: int | None = None, degrees: bool = False
) -> dict[str, Any]:
    """:func:`concomp._gpu.checks.csr_facts`, and, given ``n``, the GPU probe's answers
    for the CSR under ``"probe"`` (None for types the probe does not read), read in the
    same download; ``degrees``: the rows are the undirected degrees (a symmetric CSR)."""
    from .checks import csr_facts

    extra = None
    if n is not None:
        from .probe_launch import CheckProbe

        extra = CheckProbe(cupy_module(), n, csr=(indptr, indices), degrees=degrees)
    facts: dict[str, Any] = dict(csr_facts(cupy_module(), indptr, indices, extra))
    facts["probe"] = extra.facts if extra is not None else None
    return facts


def fused_nan_count(w: Any) -> int | None:
    """:func:`concomp._gpu.checks.nan_count`."""
    from .checks import nan_count

    return nan_count(cupy_module(), w)


def wait_for_compiles() -> None:
    """Wait for the kernels that calls started compiling on worker threads
    (:func:`concomp._gpu._build.wait`)."""
    from ._build import wait

    wait()


def device_take(values: Any, idx: Any) -> Any:
    """``values[idx]`` by :func:`concomp._gpu.ops.take` (no CuPy kernel to compile)."""
    from .ops import take

    return take(cupy_module(), values, idx)


def device_astype(a: Any, dtype: Any) -> Any:
    """``a.astype(dtype, copy=False)`` by :func:`concomp._gpu.ops.astype`."""
    from .ops import astype

    return astype(cupy_module(), a, dtype)


def device_counting_sort(keys: Any, n: int, ptr_dtype: Any) -> tuple[Any, Any]:
    """:func:`concomp._gpu.rows.counting_sort` (for :meth:`concomp.Graph.csr`)."""
    from .rows import counting_sort

    return counting_sort(cupy_module(), keys, n, ptr_dtype)


def device_symmetric_csr(
    src: Any, dst: Any, n: int, dtype: Any, ptr_dtype: Any
) -> tuple[Any, Any, Any]:
    """:func:`concomp._gpu.rows.symmetric_csr` (for :meth:`concomp.Graph.undirected_csr`)."""
    from .rows import symmetric_csr

    return symmetric_csr(cupy_module(), src, dst, n, dtype, ptr_dtype)


def staged_edges_to_device(pieces: Any, num_edges: int | None = None) -> tuple[Any, Any, int, int]:
    """:func:`concomp._gpu.upload.edges_to_device`."""
    from .upload import edges_to_device

    return edges_to_device(cupy_module(), pieces, num_edges)


def staged_ids_to_device(ids: Any) -> tuple[Any, int, int]:
    """:func:`concomp._gpu.upload.ids_to_device`."""
    from .upload import ids_to_device

    return ids_to_device(cupy_module(), ids)
