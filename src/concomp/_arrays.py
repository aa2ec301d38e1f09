"""Array-namespace helpers that never import CuPy unless the caller gave CuPy data
(and then only through :mod:`concomp._gpu._compat`)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

__all__ = [
    "astype",
    "get_xp",
    "index_dtype_for",
    "is_cupy_array",
    "is_torch_tensor",
    "sparse_module",
    "take",
    "to_device",
    "to_numpy",
]

INT32_MAX = np.iinfo(np.int32).max


def is_cupy_array(obj: Any) -> bool:
    """True for a CuPy ndarray; checked by module name so CuPy is never imported."""
    return type(obj).__module__.split(".")[0] == "cupy" and hasattr(obj, "__cuda_array_interface__")


def is_cupy_sparse(obj: Any) -> bool:
    mod = type(obj).__module__
    return mod.startswith("cupyx.scipy.sparse")


def is_torch_tensor(obj: Any) -> bool:
    return "torch" in sys.modules and type(obj).__module__.split(".")[0] == "torch"


def get_xp(*arrays: Any):
    """Return ``cupy`` if any array is a CuPy array, else ``numpy``."""
    for a in arrays:
        if a is not None and is_cupy_array(a):
            from ._gpu._compat import cupy_module  # the caller already holds CuPy data

            return cupy_module()
    return np


def sparse_module(*arrays: Any):
    """``cupyx.scipy.sparse`` if any array is a CuPy array, else ``scipy.sparse``."""
    if get_xp(*arrays) is np:
        import scipy.sparse

        return scipy.sparse
    from ._gpu._compat import cupyx_module  # the caller already holds CuPy data

    return cupyx_module("scipy.sparse")


def to_numpy(a: Any) -> np.ndarray:
    """Copy a device array to the host (no-op for NumPy)."""
    if is_cupy_array(a):
        return a.get()
    return np.asarray(a)


def to_device(a: Any) -> Any:
    """Copy a host array to the GPU (no-op for CuPy); raises where no GPU is usable."""
    if is_cupy_array(a):
        return a
    from ._gpu._compat import cupy_or_raise

    return cupy_or_raise().asarray(a)


def index_dtype_for(n: int, nnz: int = 0) -> np.dtype:
    """int32 when every vertex id and every CSR offset fits, else int64."""
    return np.dtype(np.int32) if max(n, nnz) <= INT32_MAX else np.dtype(np.int64)


def take(values: Any, idx: Any) -> Any:
    """``values[idx]`` where ``values`` lives; on the device by the engine's own gather
    (:func:`concomp._gpu.ops.take`: CuPy's fancy indexing compiles a kernel of its own
    on a new machine)."""
    if is_cupy_array(values):
        from ._gpu._compat import device_take

        return device_take(values, idx)
    return values[idx]


def astype(a: Any, dtype: Any) -> Any:
    """``a.astype(dtype, copy=False)`` where ``a`` lives; on the device by the engine's
    own cast (:func:`concomp._gpu.ops.astype`)."""
    if is_cupy_array(a):
        from ._gpu._compat import device_astype

        return device_astype(a, dtype)
    return a.astype(dtype, copy=False)
