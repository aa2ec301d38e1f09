"""CPU streaming connected components.

:class:`Streamer` keeps one parent array and unites each chunk's edges into it
as the chunk arrives, on all of numba's threads (the registry's rules link with
compare-and-swap, :mod:`concomp._cpu.rules`). When
the vertex count is not known in advance the array grows geometrically, new slots
starting as singletons. The staging primitives both engines use live in
:mod:`concomp._shared.staging`.

A stream with the default variant starts with NumPy while the compiled kernels are
not loaded (:mod:`concomp._cpu.numpy_start`): small chunks are united by hooking roots
under smaller roots, which keeps every entry a root; the first chunk that the NumPy
start does not take (too large, the rent spent, a round limit) switches the stream to
the kernels, which take the parent array as it is.

The engine contract's ``streaming`` module (:mod:`concomp._engine`); the CPU
engine has no ``components_out_of_core`` (see ``concomp._cpu.UNSUPPORTED``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._rules import union_rule
from .._shared.staging import INT32_IDS, RangeCheck, stage_csr
from ..graph import Graph
from ..options import Options
from ..variants import Finish, Layout, Sampling, Variant
from .components import canonical_labels
from .numpy_start import stream_open, unite_chunk

__all__ = ["Streamer", "default_variant", "fits_in_memory", "stream_labels"]

#: CSR entries expanded to edge pairs at a time by :meth:`Streamer.add_csr`.
_CSR_PIECE = 1 << 22


class Streamer:
    """Union-find labels on the host, fed one edge chunk at a time.

    Parameters
    ----------
    num_nodes : int or None
        Vertex count; ``None`` grows the labels as larger ids arrive.
    variant : Variant
        A streaming variant (sampling ``none``, layout ``coo``) whose union rule
        the registry gives the CPU's ``streaming`` driver.
    options : Options
        ``int32_ids`` caps the ids kept in 32-bit labels.
    max_device_bytes : int, optional
        Ignored: the labels live in host memory.
    index_dtype : dtype, optional
        Force the label type (default int32 while ids fit, else int64).
    one_way : bool
        Ignored: the CPU unites each edge once, in one direction, and uniting
        both directions of an edge gives the same components.
    """

    def __init__(
        self,
        num_nodes: int | None,
        variant: Variant,
        options: Options,
        *,
        max_device_bytes: int | None = None,
        index_dtype: Any = None,
        one_way: bool = False,
    ) -> None:
        self.fixed = num_nodes is not None
        self.n = int(num_nodes or 0)
        self.int32_ids = min(options.int32_ids, INT32_IDS)
        dt = index_dtype or (np.int32 if self.n - 1 <= self.int32_ids else np.int64)
        self.p = np.arange(max(self.n, 16), dtype=dt)
        self.variant, self.options = variant, options
        self.reroots = union_rule(variant.finish).reroots
        self._no_hook = np.zeros(1, np.int64)
        self.chunks = 0
        self.edges = 0
        # the NumPy start: the default variant's stream, until a chunk it does not take
        self.numpy = variant == default_variant() and stream_open(self.n, 0, options)
        self.aux = np.zeros(0, np.int32)
        if not self.numpy:
            self._load_kernels()

    def _load_kernels(self) -> None:
        """Switch to the compiled rule (the parent array carries over as it is)."""
        from .rules import aux_for, unite_for

        self.numpy = False
        self.unite = unite_for(self.variant.finish, self.variant.compress)
        self.aux = aux_for(self.variant.finish, self.p.shape[0])

    def ensure_nodes(self, n: int) -> None:
        """Make ids ``0 .. n-1`` valid (a chunk's declared vertex count, say)."""
        if n > self.n:
            self._grow(n)
            self.n = n

    def add(self, src: np.ndarray, dst: np.ndarray, check: RangeCheck) -> None:
        """Unite one chunk's edges; ``check(lo, hi)`` raises for ids out of range."""
        if src.shape[0] == 0:
            check(0, -1)
            return
        # NumPy's reductions take any dtype and layout without a numba compile each
        lo = int(min(src.min(), dst.min()))
        hi = int(max(src.max(), dst.max()))
        check(lo, hi)
        self.ensure_nodes(hi + 1)
        # one label type, contiguous: the union loop compiles for two signatures only
        dt = self.p.dtype
        src, dst = np.ascontiguousarray(src, dt), np.ascontiguousarray(dst, dt)
        self.chunks += 1
        self.edges += int(src.shape[0])
        if self.numpy and stream_open(self.n, int(src.shape[0]), self.options):
            united = unite_chunk(self.p, src, dst)
            if united is not None:
                self.p = united
                return
        if self.numpy:
            self._load_kernels()
        from .unionfind import coo_unite

        coo_unite(self.p, self.aux, src, dst, -1, self._no_hook, False, self.unite)

    def add_csr(self, indptr: np.ndarray, indices: np.ndarray, check: RangeCheck) -> None:
        """Unite the edges of a CSR (row ``r`` to ``indices[indptr[r]:indptr[r + 1]]``).

        ``indptr`` is a valid row pointer (checked by the caller); ``check(lo, hi)``
        raises for column ids out of range.
        """
        if self.numpy:
            self._load_kernels()
        rows = int(indptr.shape[0]) - 1
        self.ensure_nodes(rows)
        m = int(indices.shape[0])
        if m == 0:
            check(0, -1)
            return
        # pieces of bounded size: the rows are expanded on all cores, never as a
        # full-length copy of the columns
        step = min(m, _CSR_PIECE)
        src, dst = np.empty(step, np.int64), np.empty(step, np.int64)
        for a in range(0, m, step):
            b = min(a + step, m)
            stage_csr(indptr, indices, a, b, src, dst)
            self.add(src[: b - a], dst[: b - a], check)

    def roots(self) -> np.ndarray:
        """Smallest vertex id of each vertex's component, for ids ``0 .. n-1``."""
        p = self.p[: self.n]
        if self.numpy:  # every entry is a root already, the smallest of its component
            return p
        from .unionfind import flatten, rename_to_min

        flatten(p)
        if self.reroots:  # JTB links by a random order: name each root by its minimum
            p = p.copy()
            rename_to_min(p)
        return p

    def _grow(self, need: int) -> None:
        p = self.p
        if need - 1 > self.int32_ids and p.dtype == np.int32:
            p = p.astype(np.int64)
        cap = p.shape[0]
        if need > cap:
            # geometric growth: a stream of slowly rising ids costs O(n) copies in all
            new_cap = max(need, 2 * cap)
            p = np.concatenate([p, np.arange(cap, new_cap, dtype=p.dtype)])
            if not self.numpy and self.aux.shape[0] > 1:  # the rule's hooks or locks: free
                self.aux = np.concatenate([self.aux, np.zeros(new_cap - cap, np.int32)])
        self.p = p


def fits_in_memory(graph: Graph, max_device_bytes: int | None, options: Options) -> bool:
    """True: a host graph is already in host memory, so nothing needs streaming."""
    return True


def stream_labels(
    roots: np.ndarray, max_device_bytes: int | None, to_host: bool
) -> tuple[int, np.ndarray]:
    """``(count, canonical labels)`` of a stream's roots (host labels; no budget applies)."""
    return canonical_labels(roots)


def default_variant() -> Variant:
    """Rem's union with splicing over COO edges: the CPU stream's ``algorithm="auto"``."""
    return Variant(Sampling.NONE, Finish.REM_CAS, "splice", Layout.COO)
