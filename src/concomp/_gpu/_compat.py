"""The only module that imports CuPy."""

from __future__ import annotations

import functools
import logging
import os

from ..errors import DeviceMemoryError, DeviceUnavailableError

log = logging.getLogger("concomp.gpu")

__all__ = [
    "cupy_module",
    "cupy_or_raise",
    "cupyx_module",
    "device_info",
    "gpu_status",
    "out_of_memory_guard",
]


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

        if issubclass(exc_type, cupy.cuda.memory.OutOfMemoryError):
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
