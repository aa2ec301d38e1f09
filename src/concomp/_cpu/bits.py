"""Bit counting on 64-bit words for numba code: LLVM's ``ctpop`` and ``cttz``.

numba has no population count or trailing-zero count; these ``@intrinsic`` functions
emit the LLVM intrinsics, which become single instructions (``popcnt``, ``tzcnt``)
on CPUs that have them.

Examples
--------
>>> import numba, numpy as np
>>> from concomp._cpu.bits import popcount64, trailing_zeros64
>>> @numba.njit
... def both(x):
...     return popcount64(x), trailing_zeros64(x)
>>> both(np.uint64(0b101000))
(2, 3)
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["popcount64", "trailing_zeros64"]


@intrinsic
def popcount64(typingctx, x):
    """``popcount64(x)``: the number of set bits of the 64-bit word ``x`` (int64)."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return sig, codegen


@intrinsic
def trailing_zeros64(typingctx, x):
    """``trailing_zeros64(x)``: the index of the lowest set bit of the 64-bit word ``x``
    (int64); undefined for 0, so callers test the word first."""
    if not isinstance(x, types.Integer):
        return None
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen
