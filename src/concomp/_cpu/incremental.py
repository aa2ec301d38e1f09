"""CPU engine of :class:`concomp.IncrementalConnectivity` (numba, one thread).

A batch runs its inserts in batch order, then its queries, so the CPU engine is
fully deterministic: an insert reports True exactly when no earlier edge (of an
earlier batch, or earlier in its own batch) already connected its endpoints. The
union rule is the registry's (every rule of ``union_rules_for("cpu",
"incremental")``, the GPU engine's incremental rules); rules with an auxiliary
array (hooks, locks) keep it beside the parents.

The state itself (parents, the hook slots of the spanning forest, growth,
export) is :class:`concomp._shared.state.ArrayState`, shared with the GPU engine.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from .._rules import union_rule
from .._shared.state import ArrayState
from ..options import Options
from ..variants import Variant
from .rules import aux_for, find_split, unite_for
from .unionfind import flatten

__all__ = ["IncrementalEngine"]


@nb.njit(cache=True)
def _insert_range(p, aux, ops, u, v, mixed, result, hs, hd, hb, hp, lo, hi, batch, unite):
    """Inserts of positions ``[lo, hi)``, one batch: hooks record ``i - lo``."""
    links = 0
    for i in range(lo, hi):
        if mixed and ops[i] != 0:
            continue
        a, b = u[i], v[i]
        r = unite(p, aux, a, b)
        result[i] = r >= 0
        if r >= 0:
            hs[r], hd[r], hb[r], hp[r] = a, b, batch, i - lo
            links += 1
    return links


@nb.njit(cache=True)
def _query_range(p, ops, u, v, mixed, result, lo, hi):
    for i in range(lo, hi):
        if mixed and ops[i] != 1:
            continue
        # path splitting: the cheapest compression, and queries never link
        result[i] = find_split(p, u[i]) == find_split(p, v[i])


@nb.njit(cache=True)
def _stream(p, aux, ops, u, v, mixed, result, hs, hd, hb, hp, first, size, unite):
    """Consecutive batches of ``size`` positions, ids ``first``, ...: inserts, then queries."""
    links, m = 0, u.shape[0]
    for k in range((m + size - 1) // size):
        lo = k * size
        hi = min(lo + size, m)
        links += _insert_range(
            p, aux, ops, u, v, mixed, result, hs, hd, hb, hp, lo, hi, first + k, unite
        )
        if mixed:
            _query_range(p, ops, u, v, mixed, result, lo, hi)
    return links


@nb.njit(cache=True)
def _find_batch(p, v, out):
    for i in range(v.shape[0]):
        out[i] = find_split(p, v[i])


class IncrementalEngine(ArrayState):
    """Sequential union-find over batches, with the variant's union rule from the registry."""

    def __init__(self, variant: Variant, capacity: int, dtype: Any, options: Options) -> None:
        self.unite = unite_for(variant.finish, variant.compress)
        self.needs_aux = union_rule(variant.finish).aux
        self.aux = aux_for(variant.finish, 0)
        self.options = options
        self.links = 0
        self._no_ops = np.zeros(1, np.int8)
        super().__init__(variant, capacity, dtype)

    def resize(self, capacity: int, dtype: Any) -> None:
        """Grow the shared state, and the rule's auxiliary array with it (new slots free)."""
        aux = self.aux
        if self.needs_aux and capacity > aux.shape[0]:
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
        o = ops if mixed else self._no_ops
        if kind != "query":
            self.links += _insert_range(
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
            _query_range(self.parents, o, u, v, mixed, result, 0, m)
        return result

    def run_stream(
        self, kind: str, ops: Any, u: np.ndarray, v: np.ndarray, first: int, size: int
    ) -> np.ndarray:
        """Apply consecutive batches of ``size`` entries (ids ``first``, ...) of a validated
        stream; ``kind`` is "insert" or "mixed"."""
        result = np.zeros(u.shape[0], dtype=bool)
        mixed = kind == "mixed"
        self.links += _stream(
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

    def find(self, v: np.ndarray) -> np.ndarray:
        out = np.empty(v.shape[0], dtype=np.int64)
        _find_batch(self.parents, v, out)
        return out

    def num_links(self) -> int:
        return self.links

    def _flatten(self, n: int) -> None:
        flatten(self.parents[:n])

    def _set_links(self, links: int) -> None:
        self.links = int(links)
