"""CPU engine of :class:`concomp.IncrementalConnectivity` (numba, one thread).

A batch runs its inserts in batch order, then its queries, so the CPU engine is
fully deterministic: an insert reports True exactly when no earlier edge (of an
earlier batch, or earlier in its own batch) already connected its endpoints. The
union rule is the registry's (every rule of ``union_rules_for("cpu",
"incremental")``, the GPU engine's incremental rules); rules with an auxiliary
array (hooks, locks) keep it beside the parents.

While concomp's compiled CPU kernels are not loaded, the batches of a rule that links
roots by id (no auxiliary array, no random order) are answered with NumPy
(:func:`concomp._cpu.numpy_start.insert_links`), with the gates and the half-second
rent of the other calls' NumPy start. The results are the same (the inserts that join
two components are Kruskal's edges by position) and so is the forest; the NumPy state
keeps every parent a root, the smallest vertex of its component, which is a forest the
compiled rule continues from when the kernels load.

The state itself (parents, the hook slots of the spanning forest, growth,
export) is :class:`concomp._shared.state.ArrayState`, shared with the GPU engine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._rules import union_rule
from .._shared.state import ArrayState
from ..options import Options
from ..variants import Variant
from .numpy_start import insert_links, stream_open

__all__ = ["IncrementalEngine"]


class IncrementalEngine(ArrayState):
    """Sequential union-find over batches, with the variant's union rule from the registry."""

    def __init__(self, variant: Variant, capacity: int, dtype: Any, options: Options) -> None:
        rule = union_rule(variant.finish)
        self.needs_aux = rule.aux
        self.options = options
        self.links = 0
        self._no_ops = np.zeros(1, np.int8)
        self.aux = np.zeros(1, np.int32)
        # the NumPy start: rules that link roots by id, until a batch it does not take
        self.numpy = not rule.aux and not rule.reroots and stream_open(capacity, 0, options)
        super().__init__(variant, capacity, dtype)
        if not self.numpy:
            self._load_kernels()

    def _load_kernels(self) -> None:
        """Switch to the compiled rule (the parents carry over as they are)."""
        from .rules import aux_for, unite_for

        self.numpy = False
        self.unite = unite_for(self.variant.finish, self.variant.compress)
        self.aux = aux_for(self.variant.finish, self.capacity)

    def resize(self, capacity: int, dtype: Any) -> None:
        """Grow the shared state, and the rule's auxiliary array with it (new slots free)."""
        aux = self.aux
        if self.needs_aux and not self.numpy and capacity > aux.shape[0]:
            aux = np.zeros(capacity, np.int32)
            aux[: self.aux.shape[0]] = self.aux
        super().resize(capacity, dtype)
        self.aux = aux

    def bounds(self, ops: Any, u: np.ndarray, v: np.ndarray) -> tuple[int, int, int]:
        """``(negative ids, max id, bad op codes)`` of a batch (``(0, -1, 0)`` if empty)."""
        if u.shape[0] == 0:
            return 0, -1, 0
        neg = int(min(u.min(), v.min()) < 0)
        hi = max(int(u.max()), int(v.max()))
        bad = 0 if ops is None else int(np.count_nonzero((ops != 0) & (ops != 1)))
        return neg, hi, bad

    def run(self, kind: str, ops: Any, u: np.ndarray, v: np.ndarray, batch: int) -> np.ndarray:
        """Apply one batch: ``kind`` is "insert", "query" or "mixed" (inserts, then queries)."""
        m = u.shape[0]
        result = np.zeros(m, dtype=bool)
        mixed = kind == "mixed"
        if self._numpy_takes(m):
            at = np.arange(m) if not mixed else np.flatnonzero(ops == 0)
            # an insert past the round limit changes nothing: the kernels take the batch
            if kind == "query" or self._numpy_insert(
                u, v, at, np.full(at.shape[0], batch), at, result
            ):
                if kind != "insert":  # every parent is a root
                    at = np.arange(m) if not mixed else np.flatnonzero(ops == 1)
                    result[at] = self.parents[u[at]] == self.parents[v[at]]
                return result
        from .incremental_kernels import insert_range, query_range

        o = ops if mixed else self._no_ops
        if kind != "query":
            self.links += insert_range(
                self.parents,
                self.aux,
                o,
                u,
                v,
                mixed,
                result,
                self.hook_src,
                self.hook_dst,
                self.hook_batch,
                self.hook_pos,
                0,
                m,
                np.int64(batch),
                self.unite,
            )
        if kind != "insert":
            query_range(self.parents, o, u, v, mixed, result, 0, m)
        return result

    def run_stream(
        self, kind: str, ops: Any, u: np.ndarray, v: np.ndarray, first: int, size: int
    ) -> np.ndarray:
        """Apply consecutive batches of ``size`` entries (ids ``first``, ...) of a validated
        stream; ``kind`` is "insert" or "mixed"."""
        result = np.zeros(u.shape[0], dtype=bool)
        mixed = kind == "mixed"
        if not mixed and self._numpy_takes(u.shape[0]):
            # batches in a row are one sequence: Kruskal's edges by position over all of it
            at = np.arange(u.shape[0])
            if self._numpy_insert(u, v, at, first + at // size, at % size, result):
                return result
        elif self.numpy:  # queries between the batches: the compiled kernels
            self._load_kernels()
        from .incremental_kernels import stream

        self.links += stream(
            self.parents,
            self.aux,
            ops if mixed else self._no_ops,
            u,
            v,
            mixed,
            result,
            self.hook_src,
            self.hook_dst,
            self.hook_batch,
            self.hook_pos,
            np.int64(first),
            np.int64(size),
            self.unite,
        )
        return result

    def _numpy_takes(self, m: int) -> bool:
        """Whether NumPy answers a batch of ``m`` entries (else the kernels load now)."""
        if self.numpy and stream_open(self.capacity, m, self.options):
            return True
        if self.numpy:
            self._load_kernels()
        return False

    def _numpy_insert(
        self,
        u: np.ndarray,
        v: np.ndarray,
        at: np.ndarray,
        batch: np.ndarray,
        pos: np.ndarray,
        result: np.ndarray,
    ) -> bool:
        """Insert the edges ``at`` of a batch in their order with NumPy: mark those that
        join two components in ``result`` and record each in the hook slot of a root it
        joins (``batch``, ``pos``: their batch and position, per edge of ``at``). False,
        with nothing changed, when the run passes its round limit (the kernels load)."""
        links = insert_links(self.parents, u[at], v[at])
        if links is None:
            self._load_kernels()
            return False
        picked, parents, slots = links
        edge = at[picked]
        result[edge] = True
        self.hook_src[slots], self.hook_dst[slots] = u[edge], v[edge]
        self.hook_batch[slots], self.hook_pos[slots] = batch[picked], pos[picked]
        self.parents[: parents.shape[0]] = parents
        self.links += int(picked.shape[0])
        return True

    def find(self, v: np.ndarray) -> np.ndarray:
        if self.numpy:  # every parent is a root
            return self.parents[v].astype(np.int64)
        from .incremental_kernels import find_batch

        out = np.empty(v.shape[0], dtype=np.int64)
        find_batch(self.parents, v, out)
        return out

    def restore(self, arrays: dict[str, np.ndarray], links: int) -> None:
        """Load ``export()`` output; the compiled rule takes it (its parents need not all
        be roots)."""
        if self.numpy:
            self._load_kernels()
        super().restore(arrays, links)

    def num_links(self) -> int:
        return self.links

    def _flatten(self, n: int) -> None:
        if self.numpy:  # every parent is a root already
            return
        from .unionfind import flatten

        flatten(self.parents[:n])

    def _set_links(self, links: int) -> None:
        self.links = int(links)
