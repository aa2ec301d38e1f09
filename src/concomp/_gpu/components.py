"""GPU connected components driver: allocation, launch configuration, phase order.

Driver contract (shared with ``_cpu/components.py``): ``component_roots(graph, variant)``
returns a CuPy array whose entry ``v`` is the smallest vertex id of ``v``'s component.
``run_variant(..., record=True)`` also returns, per vertex, the id of the edge that
made it a non-root (the spanning-forest version of every kernel).
"""

from __future__ import annotations

import numpy as np

from ..graph import Graph
from ..variants import Finish, Layout, Sampling, Variant
from ._compat import cupy_or_raise, device_info, out_of_memory_guard
from .kernels import BLOCK, cc_kernels
from .kernels import grid_for as _grid

#: Vertices whose remaining degree exceeds this go to the block-per-vertex kernel
#: (ECL-CC's threshold between warp and block work is 352; one thread handles 32 fine).
HEAVY_DEGREE = 64
#: BFS switches to bottom-up once the frontier holds more than n / BFS_ALPHA vertices.
BFS_ALPHA = 20
#: Compress the forest after sampling (Afforest). When False the finish's skip test
#: walks to the root itself, saving one pass over the labels.
SAMPLE_COMPRESS = True
#: Hook-based sampling as one pass (hb_fused) where no spanning forest is recorded.
HB_ONE_PASS = True
#: Capture each run as a CUDA graph on first use and replay it on later calls.
USE_CUDA_GRAPHS = True
#: k-out: hook each vertex to its first neighbour with a plain store when that
#: neighbour is smaller (ECL-CC's init, no atomics), leaving CAS unions for the rest.
KOUT_HOOK_FIRST = False  # measured slower on the suite (deeper trees to compress)
#: CSR finish with one thread per vertex (no grid stride), so that blocks run in
#: about increasing vertex order. Parents have smaller ids than their children, so
#: the unions of vertex v (with its neighbours w < v when unsampled) touch only
#: parents below v: in id order the parents in use grow from a prefix that L2
#: holds, instead of spanning the whole array from the start. gridp4k (a 67 MB
#: parent array): 2.06 -> 1.44 ms on the H100; no change on the sampled graphs.
FINISH_IN_ORDER = True
#: The unsampled CSR finish and k-out over lower neighbours walk Rem's unions
#: one-sided (``cuda/uf.cuh``) when the parent array has more bytes than this;
#: None: the device's L2 size (tests force it).
ONE_SIDE_ABOVE_BYTES: int | None = None
#: The COO finish with one thread per entry instead of a grid-stride loop, for the
#: same reason as FINISH_IN_ORDER when entries come sorted by source (a symmetric
#: input unites each edge from its larger end). H100, ms, grid-stride -> in order:
#: gridp4k unsampled 3.48 -> 1.58, hb 4.70 -> 2.40; rmat22 hb 1.76 -> 1.27; cong22
#: 2.35 -> 2.08 and 1.10 -> 0.98; the largest real graphs 0-25% faster (roads even).
#: Only er22 unsampled lost (1.63 -> 2.08; its parents fit in L2 either way), and
#: ``auto`` runs er22 sampled over the CSR.
COO_IN_ORDER = True
#: k-out over lower neighbours looks for its k neighbours w < v among the first
#: this many entries of v's row, so that one thread never walks a hub's whole row
#: (sampling may miss edges; the finish unites every edge of the vertices it keeps).
KOUT_LOWER_SCAN = 64
#: The CSR finish after sampling a warp at a time (``finish_csr_warp``) instead of a
#: thread per vertex. H100, ``auto``, ms: cong22 0.276 -> 0.254, rmat22 0.170 -> 0.161,
#: er22 0.263 -> 0.254, gridp4k 1.141 -> 1.133 (interleaved, 3 rounds).
SAMPLED_FINISH_WARP = True


class _Run:
    """State of one run: the union-find arrays and the kernels for this variant."""

    def __init__(self, g: Graph, variant: Variant, record: bool, index_dtype=None) -> None:
        cp = cupy_or_raise()
        self.cp, self.g, self.v = cp, g, variant
        self.n = g.num_nodes
        self.dt = np.dtype(index_dtype or g.index_dtype)
        self.I = self.dt.type
        self.k = cc_kernels(variant.finish, str(variant.compress), self.dt.str, record)
        self.record = record
        n = max(self.n, 1)
        needs_aux = variant.finish in (Finish.HOOKS, Finish.REM_LOCK)
        self.needs_aux = needs_aux
        # cp.empty only: init_state resets everything in one launch
        self.p = cp.empty(n, self.dt)
        self.aux = cp.empty(n if needs_aux else 1, np.int32)
        self.packed = cp.empty(n if self.k.jtb else 1, np.uint64)
        self.hook_edge = cp.empty(n if record else 1, self.dt)
        self.scratch = cp.empty(4, self.dt)
        self.lmax, self.qlen, self.dummy = self.scratch[0:1], self.scratch[1:2], self.scratch[2:3]
        self.queue = cp.empty(n if variant.layout == Layout.CSR else 1, self.dt)
        self.minv = cp.empty(n if self.k.jtb else 1, self.dt)
        self.uf = (self.p, self.aux, self.packed)
        self._csr = self._coo = None
        # materialise every array a phase reads now: a CUDA graph capture of
        # execute() must not allocate (the temporaries would be freed under it)
        if variant.sampling != Sampling.NONE or variant.layout == Layout.CSR:
            self.csr()
        if variant.layout == Layout.COO:
            self.coo()

    def launch(self, name: str, work: int, *args, grid=None, block=BLOCK) -> None:
        if work <= 0:
            return
        kern = getattr(self.k, name)
        kern(grid or _grid(work), (block,), args)

    # -------------------------------------------------------------- phases
    def hb_one_pass(self) -> bool:
        """Whether hook-based sampling runs as the single hb_fused pass (no records)."""
        return (HB_ONE_PASS and self.v.sampling == Sampling.HB and not self.k.jtb
                and not self.needs_aux and not self.record)

    def parents_overflow_l2(self) -> bool:
        """Whether the parent array has more bytes than L2 (or ONE_SIDE_ABOVE_BYTES)."""
        above = ONE_SIDE_ABOVE_BYTES
        return self.n * self.dt.itemsize > (device_info()["l2_bytes"] if above is None
                                            else above)

    def init(self) -> None:
        self.launch("init", self.n, self.p, self.aux, self.packed, self.hook_edge,
                    self.scratch, self.I(self.n), np.int32(self.needs_aux),
                    np.int32(self.k.jtb), np.int32(self.record))

    def csr(self):
        """The symmetric CSR in this run's index type (converted once, before any capture)."""
        if self._csr is None:
            indptr, indices, eids = self.g.undirected_csr()
            self._csr = (indptr.astype(self.dt, copy=False), indices.astype(self.dt, copy=False),
                         eids.astype(self.dt, copy=False))
        return self._csr

    def coo(self):
        """The COO edge list in this run's index type (converted once)."""
        if self._coo is None:
            src, dst = self.g.coo()
            self._coo = (src.astype(self.dt, copy=False), dst.astype(self.dt, copy=False))
        return self._coo

    def sample(self, mark=lambda name: None) -> int:
        """Run the sampling phase; return how many leading CSR edges it covered (k0)."""
        s, n, I = self.v.sampling, self.n, self.I
        indptr, indices, eids = self.csr()
        e = eids if self.record else self.dummy
        if s == Sampling.KOUT_LOWER:
            # one thread per vertex, no grid stride: block order is the id order
            name = "kout_lower_one_side" if self.parents_overflow_l2() else "kout_lower"
            self.launch(name, n, *self.uf, indptr, indices, e, self.hook_edge, I(n),
                        np.int32(self.v.k), I(KOUT_LOWER_SCAN), grid=(-(-n // BLOCK),))
            k0 = 0  # the sampled edges are not a prefix of the rows
        elif s == Sampling.KOUT:
            k = self.v.k
            if KOUT_HOOK_FIRST:
                self.launch("hb_hook", n, *self.uf, indptr, indices, e, self.hook_edge, I(n))
            self.launch("kout", n * k, *self.uf, indptr, indices, e, self.hook_edge, I(n),
                        np.int32(k), np.int32(KOUT_HOOK_FIRST))
            k0 = k
        elif s == Sampling.KOUT_RANDOM:
            k = self.v.k
            self.launch("koutr", n * k, *self.uf, indptr, indices, e, self.hook_edge, I(n),
                        np.int32(k), np.uint64(0x5EED))
            k0 = 0
        elif s == Sampling.HB and self.hb_one_pass():
            # one thread per vertex, no grid stride: block order is the id order
            self.launch("hb_fused", n, *self.uf, indptr, indices, I(n), np.int32(self.v.k),
                        grid=((n + BLOCK - 1) // BLOCK,))
            mark("hook")
            k0 = 1
        elif s == Sampling.HB:
            self.launch("hb_hook", n, *self.uf, indptr, indices, e, self.hook_edge, I(n))
            mark("hook")
            self.launch("hb_roots", n, *self.uf, indptr, indices, e, self.hook_edge, I(n),
                        np.int32(self.v.k))
            k0 = 1
        else:
            self.bfs(indptr, indices, e)
            k0 = 0
        mark("sample")
        if SAMPLE_COMPRESS:
            self.launch("compress", n, *self.uf, I(n))
        mark("sample_compress")
        self.k.frequent(((1,)), ((1024,)), (*self.uf, I(n), self.lmax, np.uint64(12345)))
        mark("frequent")
        return k0

    def bfs(self, indptr, indices, eids) -> None:
        """Direction-optimising BFS from the highest-degree of 1024 sampled vertices.

        Top-down steps expand a queue; once the frontier holds more than
        n / BFS_ALPHA vertices, bottom-up steps let unvisited vertices look for a
        frontier neighbour (a bitmap), and it switches back when the frontier shrinks.
        """
        cp, n, I = self.cp, self.n, self.I
        probe = cp.random.default_rng(7).integers(0, n, size=min(1024, n)).astype(self.dt)
        deg = indptr[probe + 1] - indptr[probe]
        source = int(probe[int(cp.argmax(deg))])
        cur, nxt = cp.empty(n, self.dt), cp.empty(n, self.dt)
        cur_len, nxt_len = cp.ones(1, self.dt), cp.zeros(1, self.dt)
        cur[0] = source
        bits = nbits = None
        size = 1
        while size > 0:
            nxt_len.fill(0)
            if size > n // BFS_ALPHA:
                if bits is None:  # switch to bottom-up: the queue becomes a bitmap
                    bits, nbits = cp.zeros(n, np.uint8), cp.zeros(n, np.uint8)
                    self.launch("q2bits", size, cur, cur_len, bits)
                nbits.fill(0)
                self.launch("bfs_bu", n, *self.uf, indptr, indices, eids, self.hook_edge,
                            I(source), I(n), bits, nbits, nxt_len)
                bits, nbits = nbits, bits
                size = int(nxt_len[0])
                if size <= n // BFS_ALPHA:  # switch back: the bitmap becomes a queue
                    q = cp.flatnonzero(bits).astype(self.dt)
                    cur[: q.shape[0]] = q
                    cur_len[0] = q.shape[0]
                    bits = nbits = None
            else:
                self.launch("bfs_td", size, *self.uf, indptr, indices, eids, self.hook_edge,
                            I(source), cur, cur_len, nxt, nxt_len)
                cur, nxt, cur_len, nxt_len = nxt, cur, nxt_len, cur_len
                size = int(cur_len[0])
        minv = cp.full(1, source, self.dt)
        self.launch("bfs_min", n, *self.uf, I(source), I(n), minv)
        self.launch("bfs_reroot", n, *self.uf, I(source), I(n), minv)

    def finish(self, k0: int, sampled: bool, mark=lambda name: None) -> None:
        n, I = self.n, self.I
        lmax, use = (self.lmax, 1) if sampled else (self.dummy, 0)
        if self.v.layout == Layout.CSR:
            indptr, indices, eids = self.csr()
            e = eids if self.record else self.dummy
            queue, qlen = self.queue, self.qlen
            hb = np.int32(self.v.sampling == Sampling.HB)
            # one thread per vertex (blocks of 128 to 1024 threads measured the same)
            grid = (-(-n // BLOCK),) if FINISH_IN_ORDER else None
            # Rem re-reads one side per step where the parents overflow L2 (uf.cuh)
            one_side = not sampled and self.parents_overflow_l2()
            if sampled and SAMPLED_FINISH_WARP:
                self.launch("finish_csr_warp", n, *self.uf, indptr, indices, e,
                            self.hook_edge, I(n), np.int32(k0), hb, lmax,
                            np.int32(not SAMPLE_COMPRESS), I(HEAVY_DEGREE), queue, qlen,
                            grid=grid)
            else:
                self.launch("finish_csr_one_side" if one_side else "finish_csr", n, *self.uf,
                            indptr, indices, e, self.hook_edge, I(n), np.int32(k0), hb, lmax,
                            np.int32(use), np.int32(not SAMPLE_COMPRESS), I(HEAVY_DEGREE),
                            queue, qlen, grid=grid)
            mark("finish_light")
            self.k.finish_heavy(_grid(device_info()["sm_count"] * 4 * BLOCK), (BLOCK,),
                                (*self.uf, indptr, indices, e, self.hook_edge, np.int32(k0), hb,
                                 np.int32(use), queue, qlen))
        else:
            src, dst = self.coo()
            m = src.shape[0]
            self.launch("finish_coo", m, *self.uf, src, dst, self.hook_edge, np.int64(m), lmax,
                        np.int32(use), np.int32(not SAMPLE_COMPRESS),
                        np.int32(self.g.symmetric),
                        grid=(-(-m // BLOCK),) if COO_IN_ORDER else None)

    def roots(self, final: bool = True):
        """Point every vertex at its root. ``final=False`` (a captured plan) leaves the
        last flattening to :meth:`_Plan.replay`, which writes it into a fresh array;
        rules with min-renamed roots (JTB) still need the compressed forest here."""
        n, I = self.n, self.I
        if final or self.k.jtb:
            self.launch("compress", n, *self.uf, I(n))
        p = self.p[: self.n]
        if self.k.jtb:
            minv = self.minv
            minv.fill(np.iinfo(self.dt).max)
            self.launch("root_min", n, p, minv, I(n))
            self.launch("apply_root_min", n, p, minv, I(n))
        return p


    def execute(self, mark=lambda name: None, final: bool = True):
        """Issue every phase; no host synchronisation unless the sampler is BFS."""
        self.init()
        mark("init")
        sampled = self.v.sampling != Sampling.NONE
        k0 = self.sample(mark) if sampled else 0
        self.finish(k0, sampled, mark)
        mark("finish")
        roots = self.roots(final)
        mark("compress")
        return roots


class _Plan:
    """A captured CUDA graph of one run, replayed by later calls on the same graph.

    Launching ~8 kernels from Python costs tens of microseconds of host time,
    which is a large share of a sub-millisecond run; a replay costs one launch.
    """

    def __init__(self, run: _Run) -> None:
        cp = run.cp
        self.run = run
        stream = cp.cuda.Stream(non_blocking=True)  # capture needs a stream of its own
        with stream:
            stream.begin_capture()
            try:
                run.execute(final=False)
            finally:
                self.graph = stream.end_capture()

    def replay(self):
        run = self.run
        # on the caller's stream: ordered after its pending work without extra events
        # (each host call here is GPU idle time inside a short timed run)
        self.graph.launch()
        out = run.cp.empty(run.n, run.dt)
        run.launch("flatten", run.n, run.p, out, run.I(run.n))
        hook = run.hook_edge.copy() if run.record else None
        return out, hook


def run_variant(g: Graph, variant: Variant, record: bool = False, index_dtype=None,
                profile: list | None = None):
    """Run ``variant`` on a device graph; return ``(roots, hook_edge or None)``.

    ``index_dtype`` forces int64 kernels on a small graph (tests use it); by
    default the graph's own index type (int32 unless n or 2m needs int64).
    ``profile``, a list, receives ``(phase, cupy Event)`` pairs (benchmarks use it).
    Repeat calls with the same graph and variant replay a cached CUDA graph
    (:meth:`concomp.Graph.clear_device_cache` releases it).
    The min-based families and Stages have their own driver (``_gpu/families.py``).
    """
    if variant.family != "unionfind" or variant.sampling == Sampling.STAGES:
        from .families import run_family

        return run_family(g, variant, record=record, index_dtype=index_dtype)
    n = g.num_nodes
    need = (n * 40 + g.num_edges * 24) if n else 0
    key = (variant, np.dtype(index_dtype or g.index_dtype).str, record)
    with out_of_memory_guard(f"connected components of {g!r}", need):
        plan = g._device_cache.get("cc_plan")
        if profile is None and plan is not None and plan[0] == key:
            return plan[1].replay()
        mark = _marker(profile)
        mark("start")
        run = _Run(g, variant, record, index_dtype)
        if n == 0:
            return run.p[:0], (run.hook_edge[:0] if record else None)
        roots = run.execute(mark)
        if variant.sampling != Sampling.BFS and profile is None and USE_CUDA_GRAPHS:
            _capture(g, key, variant, record, index_dtype)
        return roots, (run.hook_edge if record else None)


def _capture(g: Graph, key: tuple, variant: Variant, record: bool, index_dtype) -> None:
    """Capture a plan for later calls; the first run already compiled the kernels
    and built the graph's views, so nothing is allocated while capturing."""
    import logging

    try:
        g._device_cache["cc_plan"] = (key, _Plan(_Run(g, variant, record, index_dtype)))
    except Exception as exc:  # capture unsupported here: later calls just launch again
        logging.getLogger("concomp.gpu").debug("CUDA graph capture failed: %s", exc)
        g._device_cache.pop("cc_plan", None)


def _marker(profile: list | None):
    if profile is None:
        return lambda name: None

    def mark(name: str) -> None:
        import cupy

        ev = cupy.cuda.Event()
        ev.record()
        profile.append((name, ev))

    return mark


def component_roots(graph: Graph, variant: Variant):
    return run_variant(graph, variant)[0]


def auto_variant(graph: Graph) -> Variant:
    """Pick a GPU variant from cheap statistics (see ``_gpu/autoselect.py``)."""
    from .autoselect import choose

    return choose(graph)
