"""Input checks of device arrays in one fused pass per array and one host read.

The general checks (:mod:`concomp._checks`) reduce each array several times and
read every scalar back on its own: a minimum, a maximum, the row pointer's ends,
whether it ever decreases, each a host synchronisation. On a graph built once and
run once that is a visible share of the call. Here one kernel per array
(``cuda/checks.cu``) gathers the same facts and a single download returns them.
The callers use the facts only to pass valid input; input that fails goes to the
general checks, which find the position and word the error message.

The engine-neutral checks reach this module through :mod:`concomp._gpu._compat`,
which hands it the CuPy module; it compiles its kernels itself (from
:mod:`concomp._gpu._source`), so that it sits below the kernel getter, which
imports ``_compat``.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ._source import NVRTC_OPTIONS, source_text

__all__ = ["INSTANTIATIONS", "csr_facts", "fast_dtype", "id_range"]

#: Integer dtypes the kernels read (the others take the general path).
_CTYPES = {
    "int8": "signed char",
    "int16": "short",
    "int32": "int",
    "int64": "long long",
    "uint8": "unsigned char",
    "uint16": "unsigned short",
    "uint32": "unsigned int",
}
INSTANTIATIONS = [f"{k}<{t}>" for k in ("id_range", "offsets_check") for t in _CTYPES.values()]


def fast_dtype(a: Any) -> bool:
    """Whether ``a`` is a 1-D device array of a dtype the fused checks read (integers
    whose every value fits int64)."""
    return a.ndim == 1 and np.dtype(a.dtype).name in _CTYPES


#: Threads per block, and at most this many blocks (each thread strides over the rest).
_BLOCK = 256
_MAX_BLOCKS = 4096


@functools.cache
def _kernel(cp: Any, name: str, device_id: int) -> Any:
    with cp.cuda.Device(device_id):
        mod = cp.RawModule(
            code=source_text("checks.cu"), options=NVRTC_OPTIONS, name_expressions=[name]
        )
        mod.compile()
    return mod.get_function(name)


def _launch(cp: Any, name: str, work: int, args: tuple) -> None:
    blocks = max(1, min(-(-int(work) // _BLOCK), _MAX_BLOCKS))
    _kernel(cp, name, cp.cuda.Device().id)((blocks,), (_BLOCK,), args)


def _facts(cp: Any) -> Any:
    return cp.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, 0, 0], dtype=np.int64)


def _range_into(cp: Any, a: Any, out: Any) -> None:
    m = int(a.shape[0])
    if m:
        _launch(cp, f"id_range<{_CTYPES[a.dtype.name]}>", m, (a, np.int64(m), out))


def id_range(cp: Any, *arrays: Any) -> tuple[int, int]:
    """``(smallest, largest)`` value over every array (``fast_dtype`` ones; at least one
    entry in all), in one pass each and one download; ``cp`` is the CuPy module."""
    out = _facts(cp)
    for a in arrays:
        _range_into(cp, a, out)
    lo, hi = (int(x) for x in out[:2].get())
    return lo, hi


def csr_facts(cp: Any, indptr: Any, indices: Any) -> dict[str, int]:
    """The facts the CSR checks need, in one download: ``lo``/``hi`` (range of the
    indices, ``lo > hi`` when there are none), ``decreases`` (how often the row
    pointer falls), ``first`` and ``last`` (its ends); ``cp`` is the CuPy module."""
    out = _facts(cp)
    _range_into(cp, indices, out)
    rows = int(indptr.shape[0]) - 1
    name = f"offsets_check<{_CTYPES[indptr.dtype.name]}>"
    _launch(cp, name, max(rows, 1), (indptr, np.int64(rows), out))
    lo, hi, dec, first, last = (int(x) for x in out.get())
    return {"lo": lo, "hi": hi, "decreases": dec, "first": first, "last": last}
