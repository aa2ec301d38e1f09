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

from typing import Any, Protocol

import numpy as np

from . import _build

__all__ = ["INSTANTIATIONS", "Extra", "csr_facts", "fast_dtype", "id_range", "nan_count"]

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
INSTANTIATIONS = [f"{k}<{t}>" for k in ("id_range", "offsets_check") for t in _CTYPES.values()] + [
    f"nan_count<{t}>" for t in ("float", "double")
]
#: Float dtypes the NaN count reads (float16 takes the general path).
_FLOAT_CTYPES = {"float32": "float", "float64": "double"}


def fast_dtype(a: Any) -> bool:
    """Whether ``a`` is a 1-D device array of a dtype the fused checks read (integers
    whose every value fits int64)."""
    return a.ndim == 1 and np.dtype(a.dtype).name in _CTYPES


def _launch(cp: Any, name: str, work: int, args: tuple) -> None:
    _build.function(cp, "checks.cu", name)(_build.grid(work), (_build.BLOCK,), args)


class Extra(Protocol):
    """More reductions launched beside the checks into ``words`` further zeroed words
    of the same buffer (as float64) and read back in the same download: the caller's
    statistics cost no host synchronisation of their own."""

    words: int

    def launch(self, out: Any) -> None: ...

    def read(self, words: np.ndarray) -> None: ...


def _facts(cp: Any, extra: Extra | None = None) -> Any:
    """The five words the kernels reduce into, zeroed (``checks.cu`` says why zero),
    and ``extra``'s words after them."""
    return cp.zeros(5 + (extra.words if extra is not None else 0), dtype=np.int64)


def _download(out: Any, extra: Extra | None) -> np.ndarray:
    """Launch ``extra`` into its words, download everything, hand ``extra`` its words,
    and return the five facts' words."""
    if extra is not None:
        extra.launch(out[5:].view(np.float64))
    words = out.get()
    if extra is not None:
        extra.read(words[5:].view(np.float64))
    return words[:5]


_SIGN = 1 << 63


def _decode(words: np.ndarray) -> tuple[int, int, int, int, int]:
    """``(lo, hi, decreases, first, last)`` from the downloaded words: ``lo`` and ``hi``
    come as ``~order_key(lo)`` and ``order_key(hi)``, ``order_key(x) = x ^ 2**63`` on
    the 64-bit pattern (``checks.cu``); zero words decode to ``lo > hi`` (no ids).

    Examples
    --------
    >>> import numpy as np
    >>> key = lambda x: (x + 2**64) % 2**64 ^ 2**63  # order_key on the 64-bit pattern
    >>> words = np.array([~key(-3) % 2**64, key(9), 0, 0, 7], dtype=np.uint64).view(np.int64)
    >>> _decode(words)
    (-3, 9, 0, 0, 7)
    >>> _decode(np.zeros(5, np.int64))[:2] == (2**63 - 1, -(2**63))
    True
    """
    bits = words.view(np.uint64)
    lo = (~int(bits[0]) & (2**64 - 1)) ^ _SIGN
    hi = int(bits[1]) ^ _SIGN
    lo, hi = (x - 2**64 if x >= _SIGN else x for x in (lo, hi))
    return lo, hi, int(words[2]), int(words[3]), int(words[4])


def _range_into(cp: Any, a: Any, out: Any) -> None:
    m = int(a.shape[0])
    if m:
        _launch(cp, f"id_range<{_CTYPES[a.dtype.name]}>", m, (a, np.int64(m), out))


def id_range(cp: Any, *arrays: Any, extra: Extra | None = None) -> tuple[int, int]:
    """``(smallest, largest)`` value over every array (``fast_dtype`` ones; at least one
    entry in all), in one pass each and one download (``extra``'s too); ``cp`` is the
    CuPy module."""
    out = _facts(cp, extra)
    for a in arrays:
        _range_into(cp, a, out)
    lo, hi = _decode(_download(out, extra))[:2]
    return lo, hi


def csr_facts(cp: Any, indptr: Any, indices: Any, extra: Extra | None = None) -> dict[str, int]:
    """The facts the CSR checks need, in one download (``extra``'s too): ``lo``/``hi``
    (range of the indices, ``lo > hi`` when there are none), ``decreases`` (how often
    the row pointer falls), ``first`` and ``last`` (its ends); ``cp`` is the CuPy
    module."""
    out = _facts(cp, extra)
    _range_into(cp, indices, out)
    rows = int(indptr.shape[0]) - 1
    name = f"offsets_check<{_CTYPES[indptr.dtype.name]}>"
    _launch(cp, name, max(rows, 1), (indptr, np.int64(rows), out))
    lo, hi, dec, first, last = _decode(_download(out, extra))
    return {"lo": lo, "hi": hi, "decreases": dec, "first": first, "last": last}


def nan_count(cp: Any, w: Any) -> int | None:
    """How many entries of the 1-D device array ``w`` are NaN (one pass, one download),
    or None for a dtype the kernel does not read (the general check then counts);
    ``cp`` is the CuPy module."""
    t = _FLOAT_CTYPES.get(np.dtype(w.dtype).name)
    if t is None or w.ndim != 1:
        return None
    out = _facts(cp)
    m = int(w.shape[0])
    if m:
        _launch(cp, f"nan_count<{t}>", m, (cp.ascontiguousarray(w), np.int64(m), out))
    return _decode(out.get())[2]
