"""The GPU probe's launches and their reading, below the kernel getter.

:mod:`concomp._gpu.probe` asks a graph for the statistics ``auto`` decides from;
this module launches its kernels (``cuda/probe.cu``) into a caller's buffer and reads
the downloaded words, taking the CuPy module from its caller (as
:mod:`concomp._gpu.checks` does), so that the fused input checks can run it beside
their own kernels and read both in one download (:class:`CheckProbe`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .. import options
from .._shared import locality
from . import _build

__all__ = ["DEGREE_SAMPLES", "WORDS", "CheckProbe", "Launched", "launch"]

_CTYPES = {np.dtype(np.int32): "int", np.dtype(np.int64): "long long"}
_THREADS = 256
_MAX_BLOCKS = 32
#: Vertices whose degrees the probe samples (evenly spaced).
DEGREE_SAMPLES = 4096


def _blocks(samples: int) -> tuple[int]:
    return (max(1, min(_MAX_BLOCKS, -(-samples // _THREADS))),)


#: Words of the probe's reductions (``cuda/probe.cu``: four used, six kept zeroed).
WORDS = 6


class Launched:
    """The probe's reductions, launched into ``out`` (float64 words, zeroed), and how to
    read them: :meth:`facts` turns the downloaded words into ``probe``'s answers."""

    def __init__(self, num: int, degrees: bool) -> None:
        self.num, self.degrees = num, degrees

    def facts(self, words: Any) -> dict[str, float]:
        k, total, squares, local = (float(x) for x in words[:4])
        num = self.num
        facts = {"local_share": local / num if num else 0.0}
        if self.degrees:
            mean = total / k if k else 0.0
            var = max(squares / k - mean * mean, 0.0) if k else 0.0
            facts["degree_cv"] = math.sqrt(var) / mean if mean > 0 else 0.0
        return facts


def launch(
    cp: Any,
    out: Any,
    n: int,
    m: int,
    *,
    coo: tuple[Any, Any] | None = None,
    csr: tuple[Any, Any] | None = None,
    degree_indptr: Any = None,
) -> Launched | None:
    """Launch the probe of a graph of ``n`` vertices and ``m`` edges into ``out`` (at
    least :data:`WORDS` zeroed float64 words on the device), without reading anything
    back: the share of :data:`~concomp._shared.locality.SAMPLES` sampled edges of
    ``coo`` (``src, dst``) or ``csr`` (``indptr, indices``) whose ends are at most
    :func:`~concomp._shared.locality.window` ids apart, and, given ``degree_indptr``
    (rows that are the undirected degrees), the degrees of :data:`DEGREE_SAMPLES`
    evenly spaced vertices. The sample sizes and the window are set here alone, so
    every caller's answers (cached on the graph) mean the same. None when an array's
    type is not one the kernels read (int32, int64)."""
    arrays = [a for pair in (coo, csr) if pair is not None for a in pair]
    if degree_indptr is not None:
        arrays.append(degree_indptr)
    if any(np.dtype(a.dtype) not in _CTYPES for a in arrays):
        return None
    if degree_indptr is not None and n:
        step = max(1, n // DEGREE_SAMPLES)
        name = f"probe_degrees<{_CTYPES[np.dtype(degree_indptr.dtype)]}>"
        args0 = (degree_indptr, np.int64(n), np.int64(step), out)
        _build.function(cp, "probe.cu", name)(_blocks(-(-n // step)), (_THREADS,), args0)
    num = min(locality.SAMPLES, m)
    if num:
        if coo is not None:
            src, dst = coo
            if src.dtype != dst.dtype:
                src, dst = src.astype(np.int64), dst.astype(np.int64)
            name = f"probe_local_coo<{_CTYPES[np.dtype(src.dtype)]}>"
            args: tuple = (src, dst)
        else:
            assert csr is not None
            indptr, indices = csr
            p, t = _CTYPES[np.dtype(indptr.dtype)], _CTYPES[np.dtype(indices.dtype)]
            name = f"probe_local_csr<{p}, {t}>"
            args = (indptr, indices, np.int64(n))
        _build.function(cp, "probe.cu", name)(
            _blocks(num), (_THREADS,),
            (*args, np.int64(m), np.int64(num), np.int64(locality.window(n)), out),
        )  # fmt: skip
    return Launched(num, degree_indptr is not None)


class CheckProbe:
    """The probe as an extra of the fused input checks (:class:`concomp._gpu.checks.Extra`),
    launched beside them and read in their download: a graph built from device arrays
    knows its link order, and a symmetric CSR (``degrees``: its rows are the undirected
    degrees) large enough for ``auto`` to ask its degree spread, without a host
    synchronisation of their own. ``cp`` is the CuPy module. :attr:`facts` is None
    until read, and stays None for arrays of types the kernels do not read."""

    words = WORDS

    def __init__(
        self,
        cp: Any,
        n: int,
        *,
        coo: tuple[Any, Any] | None = None,
        csr: tuple[Any, Any] | None = None,
        degrees: bool = False,
    ) -> None:
        pair = coo if coo is not None else csr
        assert pair is not None
        self.m = int(pair[1].shape[0])
        # auto asks for degrees only on graphs of auto_small_entries entries or more
        degrees = degrees and csr is not None and self.m >= options.DEFAULTS.auto_small_entries
        self.cp, self.n, self.coo, self.csr, self.degrees = cp, n, coo, csr, degrees
        self.launched: Launched | None = None
        self.facts: dict[str, float] | None = None

    def launch(self, out: Any) -> None:
        rows = self.csr[0] if self.degrees and self.csr is not None else None
        self.launched = launch(
            self.cp, out, self.n, self.m, coo=self.coo, csr=self.csr, degree_indptr=rows
        )

    def read(self, words: Any) -> None:
        if self.launched is not None:
            self.facts = self.launched.facts(words)
