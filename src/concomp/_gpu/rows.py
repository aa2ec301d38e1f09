"""CSR rows on the device, by ``cuda/rows.cu``: row pointers, stable counting sorts and
the symmetric CSR of an edge list.

Nothing here calls a CuPy reduction or an element-wise CuPy operation. Each of those
is an NVRTC compile of its own in a new process with an empty kernel cache, and
``cupy.bincount`` and ``ndarray.all`` compile CUB reductions (seconds each), then import
``cupyx`` and SciPy in every new process; ``bincount`` also reads the keys' sign and
maximum back to the host. The callers know the keys lie in ``[0, n)``. The sorts are
CuPy's stable ``argsort``, compiled ahead of time but for the copy of its input
(:func:`concomp._gpu.ops.prefetch_argsort` starts that compile early); prefix sums,
casts and copies are those of :mod:`concomp._gpu.ops`.

:class:`concomp.Graph` builds its device CSR here, through :mod:`concomp._gpu._compat`
(the one GPU module the engine-neutral layer may import), so this module sits below
the kernel getter, as :mod:`concomp._gpu.checks` does: it compiles its kernels
itself and takes the CuPy module from its caller.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import _build, ops

__all__ = ["INSTANTIATIONS", "counting_sort", "row_pointer", "symmetric_csr"]

_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
#: Every kernel name expression of ``cuda/rows.cu`` (for the compile test).
INSTANTIATIONS = (
    tuple(f"count_rows<{k}, {c}>" for k in _CTYPES.values() for c in _CTYPES.values())
    + tuple(f"sym_keys<{i}, {c}>" for i in _CTYPES.values() for c in _CTYPES.values())
    + tuple(f"sym_gather<{i}>" for i in _CTYPES.values())
)


def _kernels(cp: Any, *names: str) -> tuple[Any, ...]:
    """The kernels ``names``, compiled together (one NVRTC parse of the source)."""
    mod = _build.module(cp, "rows.cu", names)
    return tuple(mod.get_function(name) for name in names)


def row_pointer(cp: Any, keys: Any, n: int, dtype: Any) -> Any:
    """``indptr`` (``dtype``: int32 or int64, length ``n + 1``) of a CSR whose entry
    ``i`` is in row ``keys[i]``; every key must lie in ``[0, n)``. ``cp``: CuPy."""
    dt = np.dtype(dtype)
    indptr = cp.zeros(n + 1, dtype=dt)
    m = int(keys.shape[0])
    if m == 0 or n == 0:
        return indptr
    if keys.dtype not in _CTYPES:
        keys = keys.astype(np.int64)
    counts = cp.zeros(n, dtype=dt)
    (kernel,) = _kernels(cp, f"count_rows<{_CTYPES[keys.dtype]}, {_CTYPES[dt]}>")
    kernel(_build.grid(m), (_build.BLOCK,), (keys, np.int64(m), counts))
    ops.cumsum(cp, counts, out=indptr[1:])
    return indptr


def counting_sort(
    cp: Any, keys: Any, n: int, ptr_dtype: Any, order_dtype: Any = None
) -> tuple[Any, Any]:
    """``(indptr, order)``: the row pointer (``ptr_dtype``) of ``keys`` (values in
    ``[0, n)``) and a stable order of their positions, row by row, in ``order_dtype``
    (default: the keys' dtype; int64 is the sort's own, with no copy)."""
    m = int(keys.shape[0])
    dt = np.dtype(keys.dtype if order_dtype is None else order_dtype)
    if m:  # a new machine compiles these beside the count kernel
        ops.prefetch_argsort(cp, keys.dtype)
        ops.prefetch(cp, ops.names("cumsum", ptr_dtype))
    order = cp.argsort(keys, kind="stable") if m else cp.zeros(0, dt)
    return row_pointer(cp, keys, n, ptr_dtype), ops.astype(cp, order, dt)


def symmetric_csr(
    cp: Any, src: Any, dst: Any, n: int, dtype: Any, ptr_dtype: Any
) -> tuple[Any, Any, Any]:
    """``(indptr, indices, edge_ids)`` of the undirected graph of the edges ``(src, dst)``.

    Every edge ``(u, v)`` with ``u != v`` appears as ``u -> v`` and ``v -> u``; self
    loops are dropped. Within a row, entries keep the order of the list of every edge
    followed by every reversed edge (one stable sort of row keys, self loops keyed
    ``n``), as the CPU's counting sort leaves them. ``indices`` and ``edge_ids`` have
    ``dtype`` (which holds ``n``), ``indptr`` has ``ptr_dtype`` (which holds twice the
    edge count).
    """
    dt, pt = np.dtype(dtype), np.dtype(ptr_dtype)
    m = int(src.shape[0])
    indptr = cp.zeros(n + 1, dtype=pt)
    if m == 0 or n == 0:
        return indptr, cp.zeros(0, dt), cp.zeros(0, dt)
    src, dst = ops.astype(cp, src, dt), ops.astype(cp, dst, dt)
    # a new machine compiles these beside the two kernels below
    ops.prefetch_argsort(cp, dt)
    ops.prefetch(cp, ops.names("cumsum", pt))
    t, c = _CTYPES[dt], _CTYPES[pt]
    keys_kernel, gather = _kernels(cp, f"sym_keys<{t}, {c}>", f"sym_gather<{t}>")
    keys = cp.empty(2 * m, dtype=dt)
    counts = cp.zeros(n + 1, dtype=pt)  # the last row counts nothing: self loops
    keys_kernel(_build.grid(m), (_build.BLOCK,), (src, dst, np.int64(m), dt.type(n), keys, counts))
    order = cp.argsort(keys, kind="stable")
    del keys
    ops.cumsum(cp, counts[:n], out=indptr[1:])
    total = int(indptr[-1])
    indices, eid = cp.empty(total, dtype=dt), cp.empty(total, dtype=dt)
    if total:
        args = (src, dst, order, np.int64(m), np.int64(total), indices, eid)
        gather(_build.grid(total), (_build.BLOCK,), args)
    return indptr, indices, eid
