"""Atomic compare-and-swap and load on NumPy integer arrays, for numba ``prange`` code.

numba exposes no CPU atomics, so these are ``@intrinsic`` functions that emit
LLVM's ``cmpxchg`` and ``load atomic`` on the address of one array element.
They take 1-d int32 or int64 arrays; other arguments are cast to the array's
element type. :func:`atomic_min` and :func:`atomic_add` are LLVM's ``atomicrmw``
(the GPU kernels' ``atomicMin`` / ``atomicAdd``).

Examples
--------
>>> import numba, numpy as np
>>> from concomp._cpu.atomics import cas
>>> @numba.njit
... def swap_if(a, i, old, new):
...     return cas(a, i, old, new)
>>> a = np.array([3, 5], dtype=np.int32)
>>> int(swap_if(a, 1, 5, 7)), a.tolist()
(5, [3, 7])
>>> int(swap_if(a, 1, 5, 9)), a.tolist()
(7, [3, 7])
"""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ["atomic_add", "atomic_load", "atomic_min", "cas"]

_INT_TYPES = (types.int32, types.int64)


def _element_pointer(context, builder, arr_ty, arr_val, idx_val):
    ary = context.make_array(arr_ty)(context, builder, arr_val)
    return cgutils.get_item_pointer(context, builder, arr_ty, ary, [idx_val], wraparound=False)


def _is_int_vector(arr) -> bool:
    return isinstance(arr, types.Array) and arr.ndim == 1 and arr.dtype in _INT_TYPES


@intrinsic
def cas(typingctx, arr, idx, expected, desired):
    """``cas(arr, i, expected, desired)``: atomically, if ``arr[i] == expected`` store
    ``desired``; return the value ``arr[i]`` held before (sequentially consistent)."""
    if not (_is_int_vector(arr) and isinstance(idx, types.Integer)):
        return None
    sig = arr.dtype(arr, types.intp, arr.dtype, arr.dtype)

    def codegen(context, builder, signature, args):
        ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1])
        pair = builder.cmpxchg(ptr, args[2], args[3], "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return sig, codegen


@intrinsic
def atomic_load(typingctx, arr, idx):
    """``atomic_load(arr, i)``: ``arr[i]`` read as a relaxed (monotonic) atomic load,
    so the compiler re-reads memory that other threads write."""
    if not (_is_int_vector(arr) and isinstance(idx, types.Integer)):
        return None
    sig = arr.dtype(arr, types.intp)

    def codegen(context, builder, signature, args):
        arr_ty = signature.args[0]
        ptr = _element_pointer(context, builder, arr_ty, args[0], args[1])
        align = context.get_abi_sizeof(context.get_data_type(arr_ty.dtype))
        return builder.load_atomic(ptr, "monotonic", align)

    return sig, codegen


def _rmw(op: str, doc: str):
    """An intrinsic ``f(arr, i, value)`` applying ``atomicrmw op`` to ``arr[i]``; returns the
    value ``arr[i]`` held before (sequentially consistent)."""

    def typer(typingctx, arr, idx, value):
        if not (_is_int_vector(arr) and isinstance(idx, types.Integer)):
            return None
        if not isinstance(value, types.Integer):
            return None
        sig = arr.dtype(arr, types.intp, arr.dtype)

        def codegen(context, builder, signature, args):
            ptr = _element_pointer(context, builder, signature.args[0], args[0], args[1])
            return builder.atomic_rmw(op, ptr, args[2], "seq_cst")

        return sig, codegen

    typer.__doc__ = doc
    typer.__name__ = f"atomic_{op}"
    return intrinsic(typer)


atomic_min = _rmw(
    "min",
    "``atomic_min(arr, i, v)``: atomically ``arr[i] = min(arr[i], v)`` (signed); returns the "
    "old value.",
)
atomic_add = _rmw(
    "add", "``atomic_add(arr, i, v)``: atomically ``arr[i] += v``; returns the old value."
)
