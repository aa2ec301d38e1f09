"""Union-find kernels of the CPU engine: every phase in parallel over all of numba's threads.

Every kernel that links takes ``unite``, the union rule of
:func:`concomp._cpu.rules.unite_for`, as an argument: numba compiles one
specialisation per rule, and the rules are safe to run concurrently (CAS links).
All arrays a kernel sees have one of two layouts, so each rule compiles once per
index type: parents, labels, ``indices``, ``src`` and ``dst`` in the state's index
type, ``indptr``, edge ids and forest hooks in int64.

With ``record`` every kernel stores the id of the edge that made a root a non-root
in that root's ``hook`` slot (GConn, Algorithm 2): each vertex is linked at most
once, so the slots hold one edge per merge, a spanning forest.

:class:`UnionFindRun` is one run of a union-find variant (sampling, finish,
compression), the CPU counterpart of ``_gpu/unionfind.py``. The static driver
(:mod:`~concomp._cpu.components`), the forests (:mod:`~concomp._cpu.forest`) and
the min-based families' sampling phase (:mod:`~concomp._cpu.family_state`) build
on it. Parallel kernels are wrapped by :func:`~concomp._shared.threads.serialized`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import numba as nb
import numpy as np

from .._rules import union_rule
from .._shared.threads import serialized
from ..graph import Graph
from ..options import Options
from ..variants import Layout, Sampling, Variant
from .atomics import atomic_load, atomic_min
from .bfs import bfs_sample
from .rules import aux_for, mix64, unite_for

__all__ = [
    "UnionFindRun",
    "coo_unite",
    "flatten",
    "hub_row_unite",
    "identity",
    "most_frequent_root",
    "one_thread",
    "rename_to_min",
    "rows_unite",
    "state_dtype",
    "threads_for",
]

_INT32_MAX = np.iinfo(np.int32).max
#: Seed of k-out sampling's random draws (fixed: results repeat).
KOUTR_SEED = 0x5EED

# The phases rows_unite runs (what a vertex unites), not rules: see rows_unite.
FINISH, LOWER, ANY, KOUT, KOUT_LOWER, KOUT_RANDOM, HB = range(7)


#: Vertex count from which :func:`identity` fills on all threads.
PARALLEL_IDENTITY_FROM = 1 << 20
#: Evenly spaced entries of a symmetric edge list read to find its hubs: a row of at
#: least ``len / HUB_SAMPLES`` entries always holds one of them.
HUB_SAMPLES = 1024
#: Symmetric edge lists shorter than this are united without looking for hubs.
HUBS_FROM_ENTRIES = 1 << 20


@serialized
@nb.njit(cache=True, parallel=True)
def _fill_identity(p):
    for v in nb.prange(p.shape[0]):
        p[v] = v


def identity(n: int, dtype) -> np.ndarray:
    """``numpy.arange(n, dtype=dtype)``, on all threads for large ``n`` (the union-find
    state's first pass; NumPy's fill runs on one)."""
    if n < PARALLEL_IDENTITY_FROM:
        return np.arange(n, dtype=dtype)
    p = np.empty(n, dtype=dtype)
    _fill_identity(p)
    return p


@serialized
@nb.njit(cache=True, parallel=True)
def flatten(p):
    """Point every vertex at its root. Benign races: writes only move pointers to ancestors."""
    for v in nb.prange(p.shape[0]):
        r = p[v]
        while p[r] != r:
            r = p[r]
        p[v] = r


@serialized
@nb.njit(cache=True, parallel=True)
def _root_minimum(p, minv):
    for i in nb.prange(p.shape[0]):
        atomic_min(minv, p[i], i)


@serialized
@nb.njit(cache=True, parallel=True)
def _apply_minimum(p, minv):
    for i in nb.prange(p.shape[0]):
        p[i] = minv[p[i]]


def rename_to_min(p: np.ndarray) -> None:
    """Rename each root of a flattened ``p`` to its component's smallest vertex (JTB)."""
    minv = np.full(p.shape[0], np.iinfo(p.dtype).max, dtype=p.dtype)
    _root_minimum(p, minv)
    _apply_minimum(p, minv)


@serialized
@nb.njit(cache=True, parallel=True)
def coo_unite(p, aux, src, dst, lmax, hook, record, unite):
    """Unite the endpoints of every COO edge; ``lmax >= 0`` skips edges inside that label.

    With ``record`` the edge's position (its input id) goes to the linked root's slot.
    """
    for i in nb.prange(src.shape[0]):
        u, w = src[i], dst[i]
        if lmax >= 0 and atomic_load(p, u) == lmax and atomic_load(p, w) == lmax:
            continue
        r = unite(p, aux, u, w)
        if record and r >= 0:
            hook[r] = i


@serialized
@nb.njit(cache=True, parallel=True)
def hub_row_unite(p, aux, hub, cols, hub_mask, lmax, unite):
    """Unite ``hub`` with the other hubs among ``cols`` (its row of a symmetric edge
    list); an edge to a non-hub is left to that vertex's own row, which lists it too.
    ``lmax >= 0`` skips edges inside that label."""
    for j in nb.prange(cols.shape[0]):
        w = cols[j]
        if hub_mask[w] == 0:
            continue
        if lmax >= 0 and atomic_load(p, hub) == lmax and atomic_load(p, w) == lmax:
            continue
        unite(p, aux, hub, w)


@serialized
@nb.njit(cache=True, parallel=True)
def rows_unite(p, aux, indptr, indices, eids, hook, record, mode, k, scan, lmax, unite):
    """One vertex-parallel pass over CSR rows; ``mode`` says what vertex ``v`` unites:

    - FINISH: entries from position ``k`` on, unless ``v`` is labelled ``lmax`` (the
      CSR is symmetric, so an edge leaving that component is seen from its other end);
    - ANY: the same for a CSR that need not be symmetric: an entry is skipped only
      when both its endpoints are labelled ``lmax``;
    - LOWER: the entries ``w < v`` (a symmetric CSR without sampling: each edge once);
    - KOUT: its first ``k`` entries; KOUT_RANDOM: ``k`` entries drawn at random;
    - KOUT_LOWER: its first ``k`` entries ``w < v`` among the first ``scan``;
    - HB: if its first neighbour is not smaller (hook-based sampling did not hook
      it), entries ``0 .. k``.

    Every mode is one range of positions and filters, so the loop has one call of
    ``unite``: numba inlines the rule once, which keeps each rule's compile short.
    """
    n = indptr.shape[0] - 1
    for i in nb.prange(n):
        v = np.int64(i)
        b, e = indptr[v], indptr[v + 1]
        start, end, limit = b, e, e - b
        lower = mode == LOWER or mode == KOUT_LOWER
        inside = (mode == FINISH or mode == ANY) and lmax >= 0 and atomic_load(p, v) == lmax
        if mode == FINISH or mode == ANY:
            if inside and mode == FINISH:
                continue
            start = b + k
        elif mode == KOUT:
            end = min(e, b + k)
        elif mode == KOUT_LOWER:
            end, limit = min(e, b + scan), k
        elif mode == KOUT_RANDOM:
            start, end = 0, k if e > b else 0
        elif mode == HB:
            if e == b or indices[b] < v:
                continue
            end = min(e, b + 1 + k)
        found = 0
        for t in range(start, end):
            j = t
            if mode == KOUT_RANDOM:
                draw = mix64(np.uint64(v * k + t) ^ np.uint64(KOUTR_SEED))
                j = b + np.int64(draw % np.uint64(e - b))
            w = indices[j]
            if (lower and w >= v) or (inside and atomic_load(p, w) == lmax):
                continue
            if found == limit:
                break
            found += 1
            r = unite(p, aux, v, w)
            if record and r >= 0:
                hook[r] = eids[j]


@serialized
@nb.njit(cache=True, parallel=True)
def hb_hook(p, indptr, indices, eids, hook, record):
    """Hook-based sampling, step 1: every vertex whose first neighbour is smaller hangs
    under it (only ``v`` writes ``p[v]``; every vertex is still a singleton)."""
    for i in nb.prange(p.shape[0]):
        v = np.int64(i)
        b = indptr[v]
        if b < indptr[v + 1] and indices[b] < v:
            p[v] = indices[b]
            if record:
                hook[v] = eids[b]


def most_frequent_root(p: np.ndarray, options: Options, seed: int = 0) -> int:
    """The most frequent label among ``options.label_samples`` sampled vertices (-1 if none)."""
    n = p.shape[0]
    if n == 0:
        return -1
    rng = np.random.default_rng(seed)
    picked = p[rng.integers(0, n, size=min(options.label_samples, n))]
    values, counts = np.unique(picked, return_counts=True)
    return int(values[np.argmax(counts)])


def state_dtype(graph: Graph, options: Options) -> np.dtype:
    """Index type of the union-find state: ``options.index_dtype`` where the vertex ids fit
    it, else the graph's."""
    if options.index_dtype == "int32" and graph.num_nodes - 1 > _INT32_MAX:
        return np.dtype(np.int64)
    return np.dtype(options.index_dtype or graph.index_dtype)


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """Run numba's parallel loops on this thread alone inside the block (the setting is
    per calling thread, so other threads keep theirs)."""
    before = nb.get_num_threads()
    nb.set_num_threads(1)
    try:
        yield
    finally:
        nb.set_num_threads(before)


def threads_for(graph: Graph, options: Options) -> contextlib.AbstractContextManager:
    """:func:`one_thread` for graphs below ``options.parallel_min_edges``, else nothing."""
    if graph.num_edges < options.parallel_min_edges:
        return one_thread()
    return contextlib.nullcontext()


def wide_indptr(graph: Graph, indptr: np.ndarray, symmetric: bool) -> np.ndarray:
    """``indptr`` as int64, the kernels' one row-pointer type. The copy of a 32-bit row
    pointer is kept on ``graph``: made on every call, it was a serial pass over 8 bytes
    per vertex in each call of a graph that is run many times."""
    if indptr.dtype == np.int64 and indptr.flags.c_contiguous:
        return indptr
    key = ("cpu_indptr64", symmetric)
    cached = graph._device_cache.get(key)
    if cached is None:
        cached = graph._device_cache[key] = np.ascontiguousarray(indptr, dtype=np.int64)
    return cached


class UnionFindRun:
    """One run of a union-find variant: parents, the rule's auxiliary array, forest hooks.

    ``record`` keeps the forest hooks (and takes the symmetric CSR, whose entries carry
    input edge ids); so does ``symmetric``. Otherwise a CSR built from the caller's
    arrays is used as it is.
    """

    def __init__(
        self,
        graph: Graph,
        variant: Variant,
        options: Options,
        record: bool = False,
        symmetric: bool = False,
    ) -> None:
        self.g, self.v, self.options, self.record = graph, variant, options, record
        self.symmetric = symmetric or record
        self.n = n = graph.num_nodes
        self.dt = state_dtype(graph, options)
        self.p = identity(n, self.dt)
        self.aux = aux_for(variant.finish, n)
        self.hook = np.full(n if record else 1, -1, dtype=np.int64)
        self.unite = unite_for(variant.finish, variant.compress)
        self.reroots = union_rule(variant.finish).reroots
        self._csr: tuple | None = None

    def csr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
        """``(indptr, indices, eids, symmetric)`` in the run's layouts (converted once)."""
        if self._csr is None:
            g = self.g
            if self.symmetric or g.symmetric or g._ucsr is not None or g._indptr is None:
                indptr, indices, eids = g.undirected_csr()
                symmetric = True
            else:  # a caller's CSR: its transpose is not needed for weak connectivity
                indptr, indices, eids = g.csr()
                symmetric = False
            e = np.zeros(1, np.int64) if eids is None or not self.record else eids
            self._csr = (
                wide_indptr(g, indptr, symmetric),
                np.ascontiguousarray(indices, dtype=self.dt),
                np.ascontiguousarray(e, dtype=np.int64),
                symmetric,
            )
        return self._csr

    def coo(self) -> tuple[np.ndarray, np.ndarray]:
        src, dst = self.g.coo()
        return np.ascontiguousarray(src, self.dt), np.ascontiguousarray(dst, self.dt)

    def hubs(self, src: np.ndarray) -> np.ndarray | None:
        """The rows holding at least ``len(src) / HUB_SAMPLES`` entries of a symmetric
        edge list laid out as its CSR's rows (ascending), or None where there are none
        or the rule does not apply.

        Such a hub's row and its neighbours' rows list the same edges. Run side by side
        on two threads they write the same parents at the same time: a star's edge
        list took longer on two threads than on one. Each pair is united once, from the
        neighbour's row (:meth:`edges_around_hubs`). Evenly spaced entries find every
        such row (it spans a whole spacing); runs that record a forest keep the plain
        pass (their hooks are entry positions).
        """
        g = self.g
        m = src.shape[0]
        if (
            self.record
            or not g.symmetric
            or g._indptr is None
            or g._coo_to_csr is not None  # the edge list is the caller's, not the rows
            or m < HUBS_FROM_ENTRIES
        ):
            return None
        spacing = m // HUB_SAMPLES
        at = np.arange(0, m, spacing)
        sampled = src[at].astype(np.int64)
        indptr = g._indptr
        if np.any((indptr[sampled] > at) | (indptr[sampled + 1] <= at)):
            return None  # a sampled entry outside its row: not laid out by the rows
        rows = np.unique(sampled)
        hubs = rows[(indptr[rows + 1] - indptr[rows]) >= spacing]
        return hubs if hubs.shape[0] else None

    def edges_around_hubs(
        self, src: np.ndarray, dst: np.ndarray, lmax: int, hubs: np.ndarray
    ) -> None:
        """:meth:`edges` for a symmetric edge list with ``hubs`` (ascending rows): the
        entries between the hubs' rows as they are, then from each hub's row only its
        edges to other hubs."""
        indptr = self.g._indptr
        mask = np.zeros(self.n, np.uint8)
        mask[hubs] = 1
        rows = [(h, int(indptr[h]), int(indptr[h + 1])) for h in hubs.tolist()]
        start = 0
        for _, b, e in rows:
            if b > start:
                self.edges(src[start:b], dst[start:b], lmax)
            start = e
        if start < src.shape[0]:
            self.edges(src[start:], dst[start:], lmax)
        for h, b, e in rows:
            hub_row_unite(self.p, self.aux, self.dt.type(h), dst[b:e], mask, lmax, self.unite)

    def rows(self, mode: int, k: int = 0, scan: int = 0, lmax: int = -1) -> None:
        indptr, indices, eids, _ = self.csr()
        rows_unite(
            self.p, self.aux, indptr, indices, eids, self.hook, self.record, mode, k, scan, lmax,
            self.unite,
        )  # fmt: skip

    def edges(self, src: np.ndarray, dst: np.ndarray, lmax: int = -1) -> None:
        coo_unite(self.p, self.aux, src, dst, lmax, self.hook, self.record, self.unite)

    def sample(self) -> tuple[int, int]:
        """Run the sampler, compress its forest into labels; ``(k0, lmax)``: the leading
        entries of every row it covered and the most frequent label."""
        s, k = self.v.sampling, self.v.k or 0
        indptr, indices, eids, _ = self.csr()
        k0 = 0
        if s == Sampling.KOUT:
            self.rows(KOUT, k)
            k0 = k
        elif s == Sampling.KOUT_RANDOM:
            self.rows(KOUT_RANDOM, k)
        elif s == Sampling.KOUT_LOWER:
            self.rows(KOUT_LOWER, k, self.options.kout_lower_scan)
        elif s == Sampling.HB:
            hb_hook(self.p, indptr, indices, eids, self.hook, self.record)
            self.rows(HB, k)
            k0 = 1  # every vertex's edge 0: its hook, or united by the HB pass
        elif s == Sampling.BFS:
            bfs_sample(self.p, indptr, indices, eids, self.hook, self.record, self.options)
        else:
            raise AssertionError(f"sampler {s} is not a union-find sampler")
        flatten(self.p)
        return k0, most_frequent_root(self.p, self.options)

    def finish(self, k0: int, lmax: int) -> None:
        """Unite the edges sampling left (all of them without sampling, ``lmax = -1``)."""
        sampled = lmax >= 0
        if self.v.layout == Layout.COO:
            src, dst = self.coo()
            hubs = self.hubs(src)
            if hubs is None:
                self.edges(src, dst, lmax)
            else:
                self.edges_around_hubs(src, dst, lmax, hubs)
            return
        symmetric = self.csr()[3]
        if not symmetric:
            self.rows(ANY, k0, lmax=lmax)
        else:
            self.rows(FINISH if sampled else LOWER, k0, lmax=lmax)

    def roots(self) -> np.ndarray:
        """Point every vertex at its root, renamed to its component's minimum."""
        flatten(self.p)
        if self.reroots:
            rename_to_min(self.p)
        return self.p

    def execute(self, roots: bool = True) -> np.ndarray:
        """Every phase (on one thread for a graph below ``options.parallel_min_edges``);
        the roots, or with ``roots=False`` the parents as the unions left them (a forest
        run needs only its hooks)."""
        if self.n == 0:
            return self.p
        with threads_for(self.g, self.options):
            if self.v.sampling == Sampling.NONE:
                self.finish(0, -1)
            else:
                self.finish(*self.sample())
            return self.roots() if roots else self.p
