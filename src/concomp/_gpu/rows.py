"""CSR row pointers from unsorted row keys on the device, without ``cupy.bincount``.

``cupy.bincount`` checks the keys' sign and finds their maximum on the host (two
synchronisations) and compiles a kernel of its own on first use; the engine's callers
(Prim's lists, the SCC transpose) already know the keys lie in ``[0, n)``, so one
launch of ``cuda/rows.cu`` and a prefix sum give the row pointer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._compat import cupy_or_raise
from ._compile import get_kernel
from .kernels import BLOCK, grid_for

__all__ = ["INSTANTIATIONS", "row_pointer"]

_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
#: Every kernel name expression of ``cuda/rows.cu`` (for the compile test).
INSTANTIATIONS = tuple(f"count_rows<{k}, {c}>" for k in _CTYPES.values() for c in _CTYPES.values())


def row_pointer(keys: Any, n: int, dtype: Any) -> Any:
    """``indptr`` (CuPy, ``dtype``: int32 or int64, length ``n + 1``) of a CSR whose
    entry ``i`` is in row ``keys[i]``; every key must lie in ``[0, n)``."""
    cp = cupy_or_raise()
    dt = np.dtype(dtype)
    indptr = cp.zeros(n + 1, dtype=dt)
    m = int(keys.shape[0])
    if m == 0 or n == 0:
        return indptr
    if keys.dtype not in _CTYPES:
        keys = keys.astype(np.int64)
    counts = cp.zeros(n, dtype=dt)
    kernel = get_kernel("rows.cu", f"count_rows<{_CTYPES[keys.dtype]}, {_CTYPES[dt]}>")
    kernel(grid_for(m), (BLOCK,), (keys, np.int64(m), counts))
    cp.cumsum(counts, out=indptr[1:])
    return indptr
