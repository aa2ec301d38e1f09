"""Incremental (streaming) connectivity: batches of edge inserts and connectivity queries.

GConn's incremental setting (Algorithm 3): the union-find state persists between
batches, each batch arrives in COO form and is processed with a root-based
finish rule only, never revisiting earlier batches. Semantics of one batch:
**all inserts of the batch first, then its queries**, so a query observes every
insert of earlier batches and every insert of its own batch, wherever it sits
in the batch. The vertex set grows on demand: any id a batch names (insert or
query) becomes a vertex, new ones as singletons.

References
----------
Hong, Dhulipala, Shun: GConn (PACT 2020), section 3.6, ``../shared/papers/``.
"""

from __future__ import annotations

import logging
import os
from typing import Any

import numpy as np

from .._arrays import astype
from .._checks import check_num_nodes
from .._dispatch import driver, resolve_device
from .._rules import union_rules_for
from ..errors import (
    ConcompError,
    DeviceMemoryError,
    InvalidGraphError,
    InvalidStateError,
    InvalidVariantError,
)
from ..forest import SpanningForest
from ..options import Options, resolve_options
from ..variants import Variant, resolve_variant
from ._batches import INSERT, QUERY, Batch, check_batch_size, load_state, place, prepare, save_state

__all__ = ["INSERT", "QUERY", "IncrementalConnectivity", "legal_algorithms", "plan_capacity"]

log = logging.getLogger("concomp.incremental")

#: Largest capacity kept in int32 (ids must fit the index type); beyond it, int64.
INT32_CAPACITY = int(np.iinfo(np.int32).max)
#: Smallest capacity allocated once anything is stored (growth is geometric from here).
MIN_CAPACITY = 1024
#: Rem's rule with path halving: a batch's unions walk both paths by parent order and
#: stop at the first common node, touching fewer parents than Union-Async's two finds
#: (GConn's choice); ``benchmarks/bench_incremental.py`` measures every rule.
DEFAULT_ALGORITHM = "none-rem_cas-halve-coo"


def legal_algorithms(device: str) -> list[str]:
    """Variant strings the incremental engine of ``device`` runs (no sampling, COO).

    The rules come from the registry (:mod:`concomp._rules`). Every batch records
    its spanning forest, so a rule is left out where the engine's concurrent run
    of it does not record one: on the GPU Rem's ``splice`` (it moves subtrees
    without a root link, so the recorded forest could close cycles).

    Examples
    --------
    >>> legal_algorithms("cpu")[:2]
    ['none-async-naive-coo', 'none-async-split-coo']
    """
    concurrent = device == "gpu"
    return [
        str(Variant("none", row.name, c, "coo"))
        for row in union_rules_for(device, "incremental")
        for c in row.compress
        if row.records_forest(device, c, concurrent=concurrent)
    ]


def plan_capacity(
    capacity: int, dtype: Any, needed: int, int32_capacity: int = INT32_CAPACITY
) -> tuple[int, np.dtype]:
    """Capacity and index dtype that hold ``needed`` vertices, growing geometrically.

    Stays in int32 while ``needed`` fits (capping the doubling at ``int32_capacity``,
    by default :data:`INT32_CAPACITY`), switches to int64 beyond. Pure arithmetic: nothing
    is allocated.

    Examples
    --------
    >>> plan_capacity(0, "int32", 10)
    (1024, dtype('int32'))
    >>> plan_capacity(2**30, "int32", 2**31 + 5)
    (2147483653, dtype('int64'))
    """
    dt = np.dtype(dtype)
    if needed <= capacity:
        return capacity, dt
    new = max(needed, 2 * capacity, MIN_CAPACITY)
    if dt == np.int32 and new > int32_capacity:
        if needed <= int32_capacity:
            new = int32_capacity
        else:
            dt = np.dtype(np.int64)
    return new, dt


def _choose_device(device: Any) -> str:
    # a stream of batches has no size to weigh up front: the state lives on a usable GPU
    return resolve_device(device, data_device="cpu", num_edges=None, what="IncrementalConnectivity")


def _choose_variant(algorithm: Any, dev: str) -> Variant:
    variant = resolve_variant(algorithm) or Variant.parse(DEFAULT_ALGORITHM)
    if str(variant) not in legal_algorithms(dev):
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} is not an incremental rule of the {dev} engine; "
            f"batches are COO edge lists without sampling (GConn, section 3.6). Legal choices: "
            f"{', '.join(legal_algorithms(dev))}."
        )
    return variant


class IncrementalConnectivity:
    """Connectivity of a growing graph under batches of inserts and queries.

    Parameters
    ----------
    num_nodes : int, optional
        Initial number of vertices (default 0); ids beyond it are accepted and
        grow the vertex set (capacity doubles; new slots start as singletons).
    device : {"auto", "cpu", "gpu"}
        ``"auto"`` (or ``CONCOMP_DEVICE``) keeps the state on the GPU when one
        is usable, else on the CPU. Results come back where the batch came from
        (NumPy batches get NumPy results, CuPy batches CuPy results).
    algorithm : str
        ``"auto"`` (Rem's union with CAS and path halving, ``"none-rem_cas-halve-coo"``)
        or one of :func:`legal_algorithms`.
    options : concomp.options.Options, optional
        Engine settings (default: the measured defaults).

    Raises
    ------
    InvalidGraphError
        A batch has an id that is negative or not an integer (the batch is rejected
        whole), or ``num_nodes`` cannot be indexed or held in host memory.
    DeviceMemoryError
        On the GPU, before anything is allocated: the state for ``num_nodes``, or for
        a batch's largest id, needs more than the device's total memory.

    Notes
    -----
    Determinism: labels, roots, query results, component counts and sizes are
    the same on every run and engine. On the CPU an insert reports True exactly
    when nothing earlier (earlier batches, earlier positions of its batch)
    connected its endpoints. On the GPU a batch's inserts run concurrently:
    how many report True is fixed, but among inserts that could join the same
    two components, which one wins depends on thread timing.

    Many small batches are cheaper as one stream: :meth:`insert_batches` and
    :meth:`process_batches` equal one :meth:`insert` / :meth:`process` call per
    slice, but validate once and, on the GPU, never wait for the host in between.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.incremental import IncrementalConnectivity
    >>> ic = IncrementalConnectivity(device="cpu")
    >>> ic.insert([0, 2], [1, 3]).tolist()
    [True, True]
    >>> ic.process([1, 0, 1], [0, 1, 5], [3, 2, 5]).tolist()  # query, insert, query
    [True, True, True]
    >>> ic.labels().tolist(), ic.num_components
    ([0, 0, 0, 0, 1, 2], 3)
    """

    def __init__(
        self,
        num_nodes: int | None = None,
        *,
        device: str = "auto",
        algorithm: str | Variant = "auto",
        options: Options | None = None,
    ) -> None:
        n = 0 if num_nodes is None else num_nodes
        if isinstance(n, (bool, np.bool_)) or not isinstance(n, (int, np.integer)) or n < 0:
            raise InvalidGraphError(
                f"argument `num_nodes`: expected an int >= 0, got "
                f"{num_nodes!r}. Fix: pass a count or None."
            )
        # parents, two hook endpoints (int32) and two int64 hook ids per vertex
        check_num_nodes(
            int(n),
            "num_nodes",
            per_item=28,
            fix="pass the number of vertices "
            "you need (the state grows on demand); ids must be dense",
        )
        self._requested = (device, str(algorithm))
        self._options = resolve_options(options)
        dev = _choose_device(device)
        self._variant = _choose_variant(algorithm, dev)
        if resolve_variant(algorithm) is not None:  # a named rule runs its compiled kernels
            self._options = self._options.with_(numpy_start=False)
        cap, dt = plan_capacity(0, np.int32, int(n), self._options.int32_capacity)
        self._engine = driver(dev, "incremental", "IncrementalEngine")(
            self._variant, cap, dt, self._options
        )
        self._n = int(n)
        self._batches = 0

    # ------------------------------------------------------------------ facts
    @property
    def num_nodes(self) -> int:
        """Current number of vertices (largest id seen + 1, or ``num_nodes`` if larger)."""
        return self._n

    @property
    def num_batches(self) -> int:
        """Batches applied so far (calls of :meth:`insert` and :meth:`process`, plus the
        batches of :meth:`insert_batches` and :meth:`process_batches`)."""
        return self._batches

    @property
    def num_components(self) -> int:
        """Number of connected components (isolated vertices count)."""
        return self._n - self._engine.num_links()

    @property
    def device(self) -> str:
        """``"cpu"`` or ``"gpu"``: where the state lives."""
        return self._engine.device

    @property
    def algorithm(self) -> str:
        """The variant string of the union rule."""
        return str(self._variant)

    @property
    def capacity(self) -> int:
        """Allocated vertex slots (grows geometrically)."""
        return self._engine.capacity

    @property
    def index_dtype(self) -> np.dtype:
        """int32 while every id fits, int64 beyond."""
        return self._engine.dtype

    def __repr__(self) -> str:
        return (
            f"IncrementalConnectivity(num_nodes={self._n}, num_batches={self._batches}, "
            f"device={self.device!r}, algorithm={self.algorithm!r})"
        )

    # ------------------------------------------------------------------ batches
    def insert(self, src: Any, dst: Any) -> Any:
        """Insert one batch of edges; return, per edge, whether it joined two components.

        The batch is validated first (ids: non-negative integers, equal lengths)
        and rejected whole with :class:`~concomp.InvalidGraphError` otherwise. On the
        GPU, a host batch of at least ``STAGED_MIN_ENTRIES`` (2**21) edges crosses the
        bus once through pinned slots, narrowed to int32 while its ids fit, its range
        found in the same pass (no separate check on the device).
        """
        return self._apply(prepare("insert", None, src, dst, ("src", "dst"), self.device))

    def connected(self, u: Any, v: Any) -> Any:
        """Per pair, whether ``u[i]`` and ``v[i]`` are connected (a query-only batch)."""
        return self._apply(prepare("query", None, u, v, ("u", "v"), self.device))

    def process(self, ops: Any, u: Any, v: Any) -> Any:
        """Apply a mixed batch: ``ops[i]`` is 0 (insert ``(u[i], v[i])``) or 1 (query).

        Returns one bool per op: for an insert whether it joined two components,
        for a query whether the endpoints are connected after all of the batch's
        inserts.
        """
        return self._apply(prepare("mixed", ops, u, v, ("u", "v"), self.device))

    def insert_batches(self, src: Any, dst: Any, batch_size: int) -> Any:
        """Insert a stream of edges as consecutive batches of ``batch_size`` edges.

        The same as calling :meth:`insert` once per slice ``[k * batch_size,
        (k + 1) * batch_size)`` (the last slice may be shorter): one result per
        edge, :attr:`num_batches` advances by the number of slices, and the
        spanning forest records each edge's batch and its position within that
        batch. Faster for small batches: the whole stream is validated once (and
        rejected whole, changing nothing, if any id is bad), the state grows once,
        and on the GPU nothing waits for the host between batches.

        Parameters
        ----------
        src, dst : array_like of int
            Endpoints, one pair per edge (NumPy, CuPy, torch, lists).
        batch_size : int
            Edges per batch (>= 1).

        Returns
        -------
        ndarray of bool
            Per edge, whether it joined two components (NumPy for host input,
            CuPy for device input).

        Examples
        --------
        >>> from concomp.incremental import IncrementalConnectivity
        >>> ic = IncrementalConnectivity(device="cpu")
        >>> ic.insert_batches([0, 1, 2, 0, 3], [1, 2, 0, 3, 4], batch_size=2).tolist()
        [True, True, False, True, True]
        >>> ic.num_batches, ic.num_components
        (3, 1)
        >>> ic.spanning_forest().batch_ids.tolist(), ic.spanning_forest().edge_ids.tolist()
        ([0, 0, 1, 2], [0, 1, 1, 0])
        """
        return self._apply_stream(
            prepare("insert", None, src, dst, ("src", "dst"), self.device), batch_size
        )

    def process_batches(self, ops: Any, u: Any, v: Any, batch_size: int) -> Any:
        """Apply a stream of inserts and queries as consecutive mixed batches of ``batch_size``.

        The same as calling :meth:`process` once per slice of ``batch_size``
        entries (the last may be shorter): within a batch all inserts come
        first, then its queries; a query never sees a later batch's insert. See
        :meth:`insert_batches` for validation, growth and the forest's ids.

        Parameters
        ----------
        ops : array_like of int
            Per entry 0 (insert ``(u[i], v[i])``) or 1 (query).
        u, v : array_like of int
            Endpoints, one pair per entry.
        batch_size : int
            Entries per batch (>= 1).

        Returns
        -------
        ndarray of bool
            Per entry: for an insert whether it joined two components, for a
            query whether the endpoints are connected after its batch's inserts.

        Examples
        --------
        >>> from concomp.incremental import IncrementalConnectivity
        >>> ic = IncrementalConnectivity(device="cpu")
        >>> # batch 0: query (0, 1), insert (0, 1); batch 1: query (1, 2), insert (1, 2)
        >>> ic.process_batches([1, 0, 1, 0], [0, 0, 1, 1], [1, 1, 2, 2], batch_size=2).tolist()
        [True, True, True, True]
        >>> ic.process_batches([1, 0, 1], [3, 3, 0], [4, 4, 4], batch_size=1).tolist()
        [False, True, False]
        >>> ic.num_batches
        5
        """
        return self._apply_stream(prepare("mixed", ops, u, v, ("u", "v"), self.device), batch_size)

    def find(self, v: Any) -> Any:
        """Root of each vertex: the smallest vertex id of its component (int64)."""
        b = prepare("query", None, v, v, ("v", "v"), self.device)
        self._reserve(b)
        return place(self._engine.find(b.u.astype(self._engine.dtype, copy=False)), b.like)

    def _apply(self, b: Batch) -> Any:
        self._reserve(b)
        dt = self._engine.dtype
        u, v = astype(b.u, dt), astype(b.v, dt)  # on the device by the engine's own cast
        ops = None if b.ops is None else b.ops.astype(np.int8, copy=False)  # codes are 0 / 1 now
        result = self._engine.run(b.kind, ops, u, v, self._batches)
        if b.kind != "query":
            self._batches += 1
        return place(result, b.like)

    def _apply_stream(self, b: Batch, batch_size: Any) -> Any:
        size = check_batch_size(batch_size)
        self._reserve(b)
        dt = self._engine.dtype
        u, v = astype(b.u, dt), astype(b.v, dt)  # on the device by the engine's own cast
        ops = None if b.ops is None else b.ops.astype(np.int8, copy=False)
        m = int(u.shape[0])
        size = min(size, max(m, 1))  # same slices; keeps the engines' offsets from overflowing
        result = self._engine.run_stream(b.kind, ops, u, v, self._batches, size)
        self._batches += -(-m // size)
        return place(result, b.like)

    def _reserve(self, b: Batch) -> None:
        """Validate ``b`` on the engine (one reduction) and grow the state to hold its ids."""
        if b.span is not None and b.ops is None:  # the staging pass found the range
            neg, hi, bad = int(b.span[0] < 0), b.span[1], 0
        else:
            neg, hi, bad = self._engine.bounds(b.ops, b.u, b.v)
        if neg or bad:
            b.raise_error(neg, bad)
        eng = self._engine
        cap, dt = plan_capacity(eng.capacity, eng.dtype, hi + 1, self._options.int32_capacity)
        if cap != eng.capacity or dt != eng.dtype:
            limit = eng.memory_limit()
            if eng.state_bytes(cap, dt) > limit:
                cap = hi + 1  # doubling would pass the memory: hold exactly these ids
            need = eng.state_bytes(cap, dt)
            # checked up front: a size that overflows would not fail cleanly on the GPU
            if need > limit:
                gpu = eng.device == "gpu"
                raise (DeviceMemoryError if gpu else InvalidGraphError)(
                    f"vertex id {hi} needs state for {hi + 1} vertices ({need} bytes, "
                    f"{need / 2**30:.3g} GiB), more than the {'device' if gpu else 'host'}'s "
                    f"total memory of {limit} bytes ({limit / 2**30:.3g} GiB); ids must be "
                    "dense. Fix: relabel the vertices to 0 .. n-1."
                )
            try:
                eng.resize(cap, dt)
            except ConcompError:
                raise
            except (MemoryError, ValueError, OverflowError) as exc:
                raise InvalidGraphError(
                    f"vertex id {hi} needs state for {hi + 1} vertices, which cannot be "
                    f"allocated ({exc}); ids must be dense. Fix: relabel the vertices to "
                    "0 .. n-1."
                ) from exc
        self._n = max(self._n, hi + 1)

    # ------------------------------------------------------------------ results
    def labels(self) -> Any:
        """Component label per vertex, numbered like SciPy (by smallest vertex, from 0)."""
        roots = self._engine.roots(self._n)
        return driver(self._engine.device, "components", "canonical_labels")(roots)[1]

    def component_sizes(self) -> Any:
        """Size of each component, indexed by label."""
        lab = self.labels()
        return self._engine.xp.bincount(lab, minlength=self.num_components)

    def spanning_forest(self) -> SpanningForest:
        """The inserts that joined two components, ordered by (batch, position in batch).

        ``edge_ids`` holds the position within its batch, ``batch_ids`` the batch
        (0-based, one per call of :meth:`insert` / :meth:`process`, one per slice
        of :meth:`insert_batches` / :meth:`process_batches`).
        """
        src, dst, batch, pos = self._engine.forest(self._n)
        return SpanningForest(
            src=src,
            dst=dst,
            edge_ids=pos,
            num_nodes=self._n,
            num_components=self.num_components,
            batch_ids=batch,
        )

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike | Any) -> None:
        """Write the whole state to ``path`` (an ``.npz`` archive; see :meth:`load`).

        The file is written under exactly the name given (no ``.npz`` is appended),
        through a temporary file in the same directory that is synced and then
        renamed over ``path``: if the write fails, the previous file is untouched.
        """
        save_state(
            path,
            self._engine.export(self._n),
            num_nodes=self._n,
            num_batches=self._batches,
            links=self._engine.num_links(),
            device=str(self._requested[0]),
            algorithm=self._requested[1],
            variant=self.algorithm,
            engine=self.device,
        )

    @classmethod
    def load(
        cls,
        path: str | os.PathLike | Any,
        *,
        device: str | None = None,
        algorithm: str | None = None,
    ) -> IncrementalConnectivity:
        """Rebuild a saved structure; ``device`` / ``algorithm`` default to the saved ones.

        Everything read is checked (format version, dtypes, shapes, ranges, the parent
        forest, hooks and counters) before the state is used; a damaged or edited file
        raises :class:`~concomp.InvalidStateError` naming the field.
        """
        meta, arrays = load_state(path)
        try:
            ic = cls(
                meta["num_nodes"],
                device=meta["device"] if device is None else device,
                algorithm=meta["algorithm"] if algorithm is None else algorithm,
            )
        except (InvalidGraphError, InvalidVariantError) as exc:
            if device is not None and algorithm is not None:
                raise  # the caller's own arguments
            raise InvalidStateError(
                f"argument `path`: the saved device {meta['device']!r} / "
                f"algorithm {meta['algorithm']!r} cannot be used: {exc}"
            ) from exc
        ic._engine.restore(arrays, meta["links"])
        ic._batches = meta["num_batches"]
        return ic
