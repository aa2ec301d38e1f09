"""Array steps of the GPU drivers by ``cuda/ops.cu``: ranges, fills, casts, gathers,
copies, prefix sums and the positions of set flags.

Each CuPy element-wise operation (``arange``, ``full``, ``astype``, fancy indexing,
the input copy of ``cumsum``) builds an NVRTC program of its own in a new process
whose kernel cache is empty, about a tenth of a second apiece, one after another.
The default paths of the public calls use these kernels instead, which compile with
the rest of a call's kernels (:func:`prefetch`). Copies are ``cudaMemcpy``, which
compiles nothing. Dtypes outside the kernels' (a gather of 16-byte values, a
non-contiguous array) fall back to CuPy.

Like :mod:`concomp._gpu.rows`, this module sits below the kernel getter (the
engine-neutral layer reaches it through :mod:`concomp._gpu._compat`): it takes the
CuPy module from its caller and builds its kernels through :mod:`concomp._gpu._build`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable
from typing import Any

import numpy as np

from . import _build

__all__ = [
    "INSTANTIATIONS",
    "arange",
    "astype",
    "copy",
    "cumsum",
    "fill",
    "flatnonzero",
    "full",
    "names",
    "prefetch",
    "prefetch_argsort",
    "root_numbers",
    "take",
]

_CTYPES = {
    np.dtype(np.int32): "int",
    np.dtype(np.int64): "long long",
    np.dtype(np.uint64): "unsigned long long",
}
_IDS = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
#: Gathers move words of the element's size, whatever the dtype.
_WORDS = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "unsigned long long"}
_WORD_DTYPES = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
#: Flag arrays :func:`flatnonzero` reads (bool is read as its bytes).
_FLAGS = {np.dtype(np.uint8): "unsigned char", **_IDS}
#: Entries per block of the scans (``SCAN_TILE`` in ``cuda/ops.cu``).
SCAN_TILE = 256 * 8


@functools.cache  # called on every launch: the strings are made once
def names(step: str, dtype: Any = np.int64, other: Any = np.int64) -> tuple[str, ...]:
    """The name expressions :func:`prefetch` takes for ``step`` ("arange", "full",
    "astype", "take", "cumsum", "root_numbers", "flatnonzero") on ``dtype`` (for
    "astype" from ``dtype`` to ``other``; for "take" values of ``dtype`` by indices of
    ``other``; for "root_numbers" roots of ``dtype`` numbered in ``other``)."""
    d = np.dtype(dtype)
    if step in ("arange", "full"):
        return (f"{'iota' if step == 'arange' else 'fill'}<{_CTYPES[d]}>",)
    if step == "astype":
        return (f"cast<{_IDS[d]}, {_IDS[np.dtype(other)]}>",)
    if step == "take":
        return (f"gather<{_WORDS[d.itemsize]}, {_IDS[np.dtype(other)]}>",)
    if step == "cumsum":
        t = _CTYPES[d]
        return (f"scan_tiles<{t}, {t}, 0>", f"scan_carry<{t}>", f"scan_apply<{t}, {t}, 0>")
    if step == "root_numbers":
        s, t = _IDS[d], _IDS[np.dtype(other)]
        return (f"scan_tiles<{s}, {t}, 2>", f"scan_carry<{t}>", f"scan_apply<{s}, {t}, 2>")
    if step == "flatnonzero":
        s = _FLAGS[np.dtype(np.uint8) if d == np.bool_ else d]
        return (f"scan_tiles<{s}, long long, 1>", "scan_carry<long long>", f"flag_positions<{s}>")
    raise ValueError(f"unknown step {step!r}")


#: Every kernel name expression of ``cuda/ops.cu`` (for the compile test).
INSTANTIATIONS = tuple(
    dict.fromkeys(
        [f"{k}<{t}>" for k in ("iota", "fill") for t in _CTYPES.values()]
        + [f"cast<{s}, {t}>" for s, t in itertools.product(_IDS.values(), repeat=2)]
        + [f"gather<{w}, {i}>" for w in _WORDS.values() for i in _IDS.values()]
        + [n for d in _CTYPES for n in names("cumsum", d)]
        + [n for s, t in itertools.product(_IDS, repeat=2) for n in names("root_numbers", s, t)]
        + [n for d in _FLAGS for n in names("flatnonzero", d)]
    )
)


def prefetch(cp: Any, kernel_names: Iterable[str]) -> None:
    """Start compiling the kernels ``kernel_names`` (from :func:`names`) on worker threads."""
    _build.prefetch(cp, "ops.cu", [(name,) for name in kernel_names])


def prefetch_argsort(cp: Any, dtype: Any) -> None:
    """``cupy.argsort`` copies its input with an element-wise kernel that CuPy compiles
    on first use for each dtype (its sort itself is compiled ahead of time): start that
    compile on a worker thread."""
    d = np.dtype(dtype)
    _build.prefetch_cupy(cp, f"cupy copy {d.str}", lambda: cp.empty(1, dtype=d).copy())


def _fn(cp: Any, name: str) -> Any:
    return _build.function(cp, "ops.cu", name)


def _launch(cp: Any, name: str, work: int, args: tuple) -> None:
    """A grid-stride kernel of ``ops.cu`` over ``work`` items."""
    _fn(cp, name)(_build.grid(work), (_build.BLOCK,), args)


def arange(cp: Any, n: int, dtype: Any) -> Any:
    """``cupy.arange(n, dtype=dtype)`` (int32, int64 or uint64)."""
    out = cp.empty(n, dtype=dtype)
    if n:
        (name,) = names("arange", dtype)
        _launch(cp, name, n, (out, np.int64(n)))
    return out


def full(cp: Any, n: int, value: int, dtype: Any) -> Any:
    """``cupy.full(n, value, dtype=dtype)`` (int32, int64 or uint64)."""
    return fill(cp, cp.empty(n, dtype=dtype), value)


def fill(cp: Any, out: Any, value: int) -> Any:
    """``out.fill(value)`` for a contiguous int32, int64 or uint64 array; allocates
    nothing (CUDA graph captures may call it)."""
    n = int(out.size)
    if n:
        bits = int(value) & ((1 << (8 * out.dtype.itemsize)) - 1)
        if bits == 0 or bits == (1 << (8 * out.dtype.itemsize)) - 1:  # -1, or all ones
            out.data.memset_async(0 if bits == 0 else 0xFF, out.nbytes)
        else:
            (name,) = names("full", out.dtype)
            _launch(cp, name, n, (out, np.int64(n), out.dtype.type(value)))
    return out


def copy(cp: Any, a: Any) -> Any:
    """A copy of the C-contiguous array ``a`` (one device-to-device copy)."""
    out = cp.empty_like(a)
    if a.nbytes:
        out.data.copy_from_device_async(a.data, a.nbytes)
    return out


def astype(cp: Any, a: Any, dtype: Any) -> Any:
    """``a.astype(dtype, copy=False)`` for 1-D id arrays; values must fit ``dtype``."""
    d = np.dtype(dtype)
    if a.dtype == d:
        return a
    if a.ndim != 1 or a.dtype not in _IDS or d not in _IDS or not a.flags.c_contiguous:
        return a.astype(d)
    n = int(a.shape[0])
    out = cp.empty(n, dtype=d)
    if n:
        (name,) = names("astype", a.dtype, d)
        _launch(cp, name, n, (a, np.int64(n), out))
    return out


def take(cp: Any, values: Any, idx: Any) -> Any:
    """``values[idx]`` for a 1-D array and int32 or int64 indices in range."""
    word = _WORDS.get(values.dtype.itemsize)
    if (
        values.ndim != 1
        or idx.ndim != 1
        or word is None
        or idx.dtype not in _IDS
        or not (values.flags.c_contiguous and idx.flags.c_contiguous)
    ):
        return values[idx]
    n = int(idx.shape[0])
    out = cp.empty(n, dtype=values.dtype)
    if n:
        (name,) = names("take", values.dtype, idx.dtype)
        w = _WORD_DTYPES[values.dtype.itemsize]
        _launch(cp, name, n, (values.view(w), idx, np.int64(n), out.view(w)))
    return out


def _carry(cp: Any, n: int, dtype: Any, tiles_kernel: str, src: Any) -> Any:
    """Each tile's exclusive carry, then the total at the end (two launches)."""
    tiles = -(-n // SCAN_TILE)
    carry = cp.empty(tiles + 1, dtype=dtype)
    _fn(cp, tiles_kernel)((tiles,), (256,), (src, np.int64(n), carry))
    _fn(cp, f"scan_carry<{_CTYPES[np.dtype(dtype)]}>")((1,), (256,), (carry, np.int64(tiles)))
    return carry


def cumsum(cp: Any, a: Any, out: Any = None) -> Any:
    """The inclusive prefix sum of the 1-D contiguous array ``a`` (int32, int64 or
    uint64) in its own dtype, into ``out`` (which may be ``a``) or a new array."""
    n = int(a.shape[0])
    if out is None:
        out = cp.empty(n, dtype=a.dtype)
    if a.dtype not in _CTYPES or out.dtype != a.dtype or not a.flags.c_contiguous:
        return cp.cumsum(a, out=out)
    if n:
        tiles_name, _, apply_name = names("cumsum", a.dtype)
        carry = _carry(cp, n, a.dtype, tiles_name, a)
        tiles = int(carry.shape[0]) - 1
        _fn(cp, apply_name)((tiles,), (256,), (a, np.int64(n), carry, out))
    return out


def root_numbers(cp: Any, roots: Any, dtype: Any) -> Any:
    """``numpy.cumsum(roots == numpy.arange(n), dtype=dtype)`` for 1-D contiguous int32
    or int64 root labels: each vertex's number of roots up to it, in one scan with no
    flag array."""
    n = int(roots.shape[0])
    out = cp.empty(n, dtype=dtype)
    if n:
        tiles_name, _, apply_name = names("root_numbers", roots.dtype, dtype)
        carry = _carry(cp, n, dtype, tiles_name, roots)
        tiles = int(carry.shape[0]) - 1
        _fn(cp, apply_name)((tiles,), (256,), (roots, np.int64(n), carry, out))
    return out


def flatnonzero(cp: Any, flags: Any) -> Any:
    """``cupy.flatnonzero(flags)`` (int64 positions, ascending) for 1-D bool, uint8, int32
    or int64 flags; one host read for the count, as CuPy's."""
    f = flags.view(np.uint8) if flags.dtype == np.bool_ else flags
    if f.ndim != 1 or f.dtype not in _FLAGS or not f.flags.c_contiguous:
        return cp.flatnonzero(flags)
    n = int(f.shape[0])
    if n == 0:
        return cp.empty(0, dtype=np.int64)
    tiles_name, _, write_name = names("flatnonzero", f.dtype)
    carry = _carry(cp, n, np.int64, tiles_name, f)
    tiles = int(carry.shape[0]) - 1
    out = cp.empty(int(carry[tiles].get()), dtype=np.int64)
    if out.shape[0]:
        _fn(cp, write_name)((tiles,), (256,), (f, np.int64(n), carry, out))
    return out
