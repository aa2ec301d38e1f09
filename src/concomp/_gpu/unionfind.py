"""One run of a union-find variant on the GPU: its arrays, kernels and phases.

:class:`UnionFindRun` holds the union-find state of one run (parents, the
auxiliary array of the rules that need one, JTB's packed words, hook edges) and
issues its phases: sampling, the finish, the final compression. The static
driver (:mod:`concomp._gpu.components`) runs and captures whole runs; the
families (:mod:`concomp._gpu.family_state`, :mod:`concomp._gpu.families_edges`)
borrow its sampling phase and its COO finish.

Every union links the root that comes later in the link order under the earlier
one: the id order, or for graphs whose ids follow their long paths a fixed
pseudo-random permutation of the ids (:mod:`concomp._gpu.link_order` decides,
``uf.cuh`` says why). In the id order parents have smaller ids than their
children, so in id order the parents in use grow from a prefix that L2 holds.
That is why the finishes and k-out over lower neighbours run one thread per
vertex (or per entry) in id order rather than a grid-stride loop, and why
hook-based sampling runs in decreasing id order (its hooks land before the
unions of the low ids that read them). :meth:`UnionFindRun.roots` renames the
roots to their components' smallest ids.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._rules import union_rule
from ..graph import Graph
from ..options import Options
from ..variants import Layout, Sampling, Variant
from . import ops
from ._compat import cupy_or_raise, device_info
from .kernels import BLOCK, cc_kernels, grid_for, heavy_queue_slots
from .link_order import keyed
from .probe import prefetch_canonical

__all__ = ["UnionFindRun", "index_dtype_of"]


#: Runs whose kernels went to the compile threads: (kernels, variant, keyed, one-sided, device).
_PREFETCHED: set = set()


def index_dtype_of(g: Graph, options: Options) -> np.dtype:
    """The kernels' index type: ``options.index_dtype`` where the graph's ids and offsets
    fit it (32-bit kernels would overrun on a larger graph), else the graph's."""
    own, forced = np.dtype(g.index_dtype), options.index_dtype
    return own if forced is None or np.dtype(forced).itemsize < own.itemsize else np.dtype(forced)


def _in_order(work: int) -> tuple[int]:
    """One thread per item, no grid stride: blocks start in about increasing item order."""
    return (-(-int(work) // BLOCK),)


class UnionFindRun:
    """State of one run: the union-find arrays and the kernels for this variant."""

    def __init__(self, g: Graph, variant: Variant, record: bool, options: Options) -> None:
        cp = cupy_or_raise()
        self.cp, self.g, self.v, self.options = cp, g, variant, options
        self.n = g.num_nodes
        self.dt = index_dtype_of(g, options)
        self.I = self.dt.type
        self.k = cc_kernels(variant.finish, str(variant.compress), self.dt.str, record)
        self.record = record
        n = max(self.n, 1)
        self.needs_aux = union_rule(variant.finish).aux
        # cp.empty only: init_state resets everything in one launch
        self.p = cp.empty(n, self.dt)
        self.aux = cp.empty(n if self.needs_aux else 1, np.int32)
        self.packed = cp.empty(n if self.k.jtb else 1, np.uint64)
        self.hook_edge = cp.empty(n if record else 1, self.dt)
        self.scratch = cp.empty(4, self.dt)
        self.lmax, self.qlen, self.dummy = self.scratch[0:1], self.scratch[1:2], self.scratch[2:3]
        self.keyed = keyed(g, options)
        #: roots are not their trees' smallest vertices: JTB links by rank
        self.renames_roots = self.keyed or self.k.jtb
        self.minv = cp.empty(n if self.renames_roots else 1, self.dt)
        self.uf = (self.p, self.aux, self.packed, np.int32(self.keyed))
        self._csr = self._coo = None
        # a new machine compiles this run's kernels side by side, while the views build
        plan = (self.k, variant, bool(self.keyed), self.parents_overflow_l2(), cp.cuda.Device().id)
        if plan not in _PREFETCHED:
            _PREFETCHED.add(plan)
            self.k.prefetch(self.kernel_plan())
            if self.renames_roots:
                ops.prefetch(cp, ops.names("full", self.dt))
            if not record:  # the labels' numbering, which most runs are followed by
                prefetch_canonical(self.dt, np.int32 if n <= np.iinfo(np.int32).max else np.int64)
        # materialise every array a phase reads now: a CUDA graph capture of
        # execute() must not allocate (the temporaries would be freed under it)
        if variant.sampling != Sampling.NONE or variant.layout == Layout.CSR:
            self.csr()
        self.queue = cp.empty(self.queue_slots(), self.dt)
        if variant.layout == Layout.COO:
            self.coo()

    def queue_slots(self) -> int:
        """Slots of the heavy-row queue (none but one for an edge-list run)."""
        if self.v.layout != Layout.CSR:
            return 1
        entries = int(self.csr()[1].shape[0])
        return heavy_queue_slots(self.n, entries, self.options.heavy_degree)

    def launch(self, name: str, work: int, *args, grid=None, block=BLOCK) -> None:
        if work <= 0:
            return
        kern = getattr(self.k, name)
        kern(grid or grid_for(work), (block,), args)

    def kernel_plan(self) -> list[str]:
        """The kernels (keys of ``self.k``) that :meth:`execute` may launch in this run."""
        s = self.v.sampling
        keys = ["init", "compress"]
        if s != Sampling.NONE:
            keys.append("frequent")
            if s == Sampling.KOUT_LOWER:
                keys.append("kout_lower_one_side" if self.parents_overflow_l2() else "kout_lower")
            elif s == Sampling.KOUT:
                keys.append("kout")
            elif s == Sampling.KOUT_RANDOM:
                keys.append("koutr")
            elif s == Sampling.HB:
                keys += ["hb_fused"] if self.hb_one_pass() else ["hb_hook", "hb_roots"]
            else:
                keys += ["bfs_td", "bfs_bu", "q2bits", "bfs_min", "bfs_reroot"]
        if self.v.layout == Layout.CSR:
            if s != Sampling.NONE:
                keys.append("finish_csr_warp")
            else:
                keys.append("finish_csr_one_side" if self.parents_overflow_l2() else "finish_csr")
            keys.append("finish_heavy")
        else:
            keys.append("finish_coo")
        if self.renames_roots:
            keys += ["root_min", "apply_root_min"]
        return keys

    # -------------------------------------------------------------- phases
    def hb_one_pass(self) -> bool:
        """Whether hook-based sampling runs as the single hb_fused pass: it records no
        forest, its plain hook stores need a rule without aux or packed state, and
        the id order. Its hooks land while other threads' unions run; in the keyed
        order half the vertices unite instead of hooking, and a hook that overwrites
        a link they made loses unions the finish does not redo (found by comparing
        with the CPU engine on R-MAT, deep-tree and road graphs), so keyed runs hook
        in a pass of their own first (hb_hook, then hb_roots)."""
        return (
            self.v.sampling == Sampling.HB
            and not self.k.jtb
            and not self.needs_aux
            and not self.record
            and not self.keyed
        )

    def parents_overflow_l2(self) -> bool:
        """Whether the parent array has more bytes than ``options.one_side_above_bytes``
        (default: the device's L2 size)."""
        above = self.options.one_side_above_bytes
        return self.n * self.dt.itemsize > (device_info()["l2_bytes"] if above is None else above)

    def init(self) -> None:
        self.launch(
            "init",
            self.n,
            self.p,
            self.aux,
            self.packed,
            self.hook_edge,
            self.scratch,
            self.I(self.n),
        )

    def csr(self):
        """The symmetric CSR in this run's index type (converted once, before any capture);
        its edge ids (None unless the run records a forest)."""
        if self._csr is None:
            if self.record:
                indptr, indices, eids = self.g.undirected_csr()
                eids = eids.astype(self.dt, copy=False)
            else:
                (indptr, indices), eids = self.g.undirected_rows(), None
            as_dt = self.dt
            self._csr = (indptr.astype(as_dt, copy=False), indices.astype(as_dt, copy=False), eids)
        return self._csr

    def coo(self):
        """The COO edge list in this run's index type (converted once)."""
        if self._coo is None:
            src, dst = self.g.coo()
            self._coo = (src.astype(self.dt, copy=False), dst.astype(self.dt, copy=False))
        return self._coo

    def sample(self, mark=lambda name: None) -> int:
        """Run the sampling phase, then compress the forest into labels and find the
        most frequent one (``lmax``); return how many leading CSR edges it covered (k0)."""
        s, n, I = self.v.sampling, self.n, self.I
        k = self.v.k or 0  # Variant gives every sampler but bfs (which does not read it) a k
        indptr, indices, eids = self.csr()
        e = eids if self.record else self.dummy
        if s == Sampling.KOUT_LOWER:
            name = "kout_lower_one_side" if self.parents_overflow_l2() else "kout_lower"
            self.launch(
                name,
                n,
                *self.uf,
                indptr,
                indices,
                e,
                self.hook_edge,
                I(n),
                np.int32(k),
                I(self.options.kout_lower_scan),
                grid=_in_order(n),
            )
            k0 = 0  # the sampled edges are not a prefix of the rows
        elif s == Sampling.KOUT:
            self.launch(
                "kout", n * k, *self.uf, indptr, indices, e, self.hook_edge, I(n), np.int32(k)
            )
            k0 = k
        elif s == Sampling.KOUT_RANDOM:
            self.launch(
                "koutr",
                n * k,
                *self.uf,
                indptr,
                indices,
                e,
                self.hook_edge,
                I(n),
                np.int32(k),
                np.uint64(0x5EED),
            )
            k0 = 0
        elif s == Sampling.HB and self.hb_one_pass():
            self.launch(
                "hb_fused",
                n,
                *self.uf,
                indptr,
                indices,
                I(n),
                np.int32(k),
                grid=_in_order(n),
            )
            mark("hook")
            k0 = 1
        elif s == Sampling.HB:
            self.launch("hb_hook", n, *self.uf, indptr, indices, e, self.hook_edge, I(n))
            mark("hook")
            self.launch(
                "hb_roots",
                n,
                *self.uf,
                indptr,
                indices,
                e,
                self.hook_edge,
                I(n),
                np.int32(k),
            )
            k0 = 1
        else:
            self.bfs(indptr, indices, e)
            k0 = 0
        mark("sample")
        # compress the sampled forest (Afforest): the finish's skip test then reads
        # one label instead of walking to the root
        self.launch("compress", n, *self.uf, I(n))
        mark("sample_compress")
        self.k.frequent(((1,)), ((1024,)), (*self.uf, I(n), self.lmax, np.uint64(12345)))
        mark("frequent")
        return k0

    def bfs(self, indptr, indices, eids) -> None:
        """Direction-optimising BFS from the highest-degree of 1024 sampled vertices.

        Top-down steps expand a queue; once the frontier holds more than
        ``n / options.bfs_alpha`` vertices, bottom-up steps let unvisited vertices
        look for a frontier neighbour (a bitmap), and it switches back when the
        frontier shrinks.
        """
        cp, n, I = self.cp, self.n, self.I
        alpha = self.options.bfs_alpha
        probe = cp.random.default_rng(7).integers(0, n, size=min(1024, n)).astype(self.dt)
        deg = indptr[probe + 1] - indptr[probe]
        source = int(probe[int(cp.argmax(deg))])
        cur, nxt = cp.empty(n, self.dt), cp.empty(n, self.dt)
        cur_len, nxt_len = cp.ones(1, self.dt), cp.zeros(1, self.dt)
        cur[0] = source
        bits: Any = None  # the bitmaps, allocated on the first bottom-up step
        nbits: Any = None
        size = 1
        while size > 0:
            nxt_len.fill(0)
            if size > n // alpha:
                if bits is None:  # switch to bottom-up: the queue becomes a bitmap
                    bits, nbits = cp.zeros(n, np.uint8), cp.zeros(n, np.uint8)
                    self.launch("q2bits", size, cur, cur_len, bits)
                nbits.fill(0)
                self.launch(
                    "bfs_bu",
                    n,
                    *self.uf,
                    indptr,
                    indices,
                    eids,
                    self.hook_edge,
                    I(source),
                    I(n),
                    bits,
                    nbits,
                    nxt_len,
                )
                bits, nbits = nbits, bits
                size = int(nxt_len[0])
                if size <= n // alpha:  # switch back: the bitmap becomes a queue
                    q = cp.flatnonzero(bits).astype(self.dt)
                    cur[: q.shape[0]] = q
                    cur_len[0] = q.shape[0]
                    bits = nbits = None
            else:
                self.launch(
                    "bfs_td",
                    size,
                    *self.uf,
                    indptr,
                    indices,
                    eids,
                    self.hook_edge,
                    I(source),
                    cur,
                    cur_len,
                    nxt,
                    nxt_len,
                )
                cur, nxt, cur_len, nxt_len = nxt, cur, nxt_len, cur_len
                size = int(cur_len[0])
        minv = cp.full(1, -1, self.dt)  # all ones: the largest key (uf.cuh's order_key)
        self.launch("bfs_min", n, *self.uf, I(source), I(n), minv)
        self.launch("bfs_reroot", n, *self.uf, I(source), I(n), minv)

    def finish(self, k0: int, sampled: bool, mark=lambda name: None) -> None:
        """Unite the edges sampling left: over the CSR (a warp per 32 vertices after
        sampling, a thread per vertex without) or over the COO, a thread per entry."""
        n, I = self.n, self.I
        lmax, use = (self.lmax, 1) if sampled else (self.dummy, 0)
        heavy = I(self.options.heavy_degree)
        if self.v.layout == Layout.CSR:
            indptr, indices, eids = self.csr()
            e = eids if self.record else self.dummy
            queue, qlen = self.queue, self.qlen
            hb = np.int32(self.v.sampling == Sampling.HB)
            if sampled:
                self.launch(
                    "finish_csr_warp",
                    n,
                    *self.uf,
                    indptr,
                    indices,
                    e,
                    self.hook_edge,
                    I(n),
                    np.int32(k0),
                    hb,
                    lmax,
                    heavy,
                    queue,
                    qlen,
                    grid=_in_order(n),
                )
            else:
                # Rem re-reads one side per step where the parents overflow L2 (uf.cuh)
                name = "finish_csr_one_side" if self.parents_overflow_l2() else "finish_csr"
                self.launch(
                    name,
                    n,
                    *self.uf,
                    indptr,
                    indices,
                    e,
                    self.hook_edge,
                    I(n),
                    heavy,
                    queue,
                    qlen,
                    grid=_in_order(n),
                )
            mark("finish_light")
            self.k.finish_heavy(
                grid_for(device_info()["sm_count"] * 4 * BLOCK),
                (BLOCK,),
                (
                    *self.uf,
                    indptr,
                    indices,
                    e,
                    self.hook_edge,
                    np.int32(k0),
                    hb,
                    np.int32(use),
                    queue,
                    qlen,
                ),
            )
        else:
            src, dst = self.coo()
            m = src.shape[0]
            # a symmetric input lists entries sorted by source and unites each edge
            # from its larger end: in entry order the parents in use grow as above
            self.launch(
                "finish_coo",
                m,
                *self.uf,
                src,
                dst,
                self.hook_edge,
                np.int64(m),
                lmax,
                np.int32(use),
                np.int32(self.g.symmetric),
                grid=_in_order(m),
            )

    def roots(self):
        """Point every vertex at its component's smallest vertex: compress, then, where
        roots are not the minima (keyed order, JTB's ranks), rename them."""
        n, I = self.n, self.I
        self.launch("compress", n, *self.uf, I(n))
        p = self.p[: self.n]
        if self.renames_roots:
            minv = ops.fill(self.cp, self.minv, np.iinfo(self.dt).max)
            self.launch("root_min", n, p, minv, I(n), grid=_in_order(n))
            self.launch("apply_root_min", n, p, minv, I(n))
        return p

    def execute(self, mark=lambda name: None):
        """Issue every phase; no host synchronisation unless the sampler is BFS."""
        self.init()
        mark("init")
        sampled = self.v.sampling != Sampling.NONE
        k0 = self.sample(mark) if sampled else 0
        self.finish(k0, sampled, mark)
        mark("finish")
        roots = self.roots()
        mark("compress")
        return roots
