"""CSR families: ECL-CC and ECL_af, Shiloach-Vishkin, G_Afforest, label propagation, BFS-CC.

Each function takes a :class:`~concomp._gpu.family_state.Ctx` (and, for GConn's
finishes, the sampled :class:`~concomp._gpu.family_state.Labels`) and returns the
roots array. The CSR is the symmetric one of ``Graph.undirected_csr``. With
``labels.record`` the root-based rules (SV, Afforest, ECL-CC) write the input edge
id of each CSR entry that hooks a root to the root's slot (``labels.hook``);
BFS-CC records the entry that discovers each vertex.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..variants import Finish
from .family_state import BLOCK, ECL_BLOCK_DEGREE, ECL_WARP_DEGREE, Ctx, Labels
from .kernels import heavy_queue_slots


class _CSRPass:
    """Vertex-parallel pass of a per-edge rule (SVHook, AfforestLink) with a heavy queue."""

    def __init__(self, ctx: Ctx, labels: Labels, op: str) -> None:
        self.ctx, self.labels = ctx, labels
        self.op = f"{op}_record" if labels.record else op
        self.hook = labels.hook if labels.record else ctx.dummy
        self.indptr, self.indices = ctx.csr()
        slots = heavy_queue_slots(ctx.n, int(self.indices.shape[0]), ctx.options.heavy_degree)
        self.queue = ctx.cp.empty(slots, ctx.dt)
        self.queue_len = ctx.cp.zeros(1, ctx.dt)

    def __call__(self, P) -> None:
        ctx, lab = self.ctx, self.labels
        k0, use = np.int32(lab.k0), np.int32(lab.use)
        self.queue_len.fill(0)
        ctx.launch(
            f"light_{self.op}",
            ctx.n,
            P,
            self.indptr,
            self.indices,
            lab.eids,
            self.hook,
            ctx.I(ctx.n),
            k0,
            lab.lmax,
            use,
            ctx.I(ctx.options.heavy_degree),
            self.queue,
            self.queue_len,
            ctx.flag,
        )
        getattr(ctx.k, f"heavy_{self.op}")(
            ctx.blocks,
            (BLOCK,),
            (
                P,
                self.indptr,
                self.indices,
                lab.eids,
                self.hook,
                k0,
                use,
                self.queue,
                self.queue_len,
                ctx.flag,
            ),
        )


def shiloach_vishkin(ctx: Ctx, labels: Labels):
    """Root-based SV over the CSR: atomic-min hooking of roots, full compression, repeat."""
    P = labels.P
    hook = _CSRPass(ctx, labels, "SVHook")
    while True:
        ctx.clear()
        hook(P)
        ctx.shortcut_full(P, ctx.scratch)
        if not ctx.changed():
            return P[: ctx.n]


def afforest(ctx: Ctx, labels: Labels):
    """G_Afforest: Afforest's link over the remaining edges, then its compress."""
    P = labels.P
    _CSRPass(ctx, labels, "AfforestLink")(P)
    ctx.shortcut_full(P, ctx.scratch)
    return P[: ctx.n]


def ecl(ctx: Ctx, labels: Labels):
    """ECL-CC: init, compute (thread / warp / block kernels over a double-sided worklist), flatten.

    ECL_af repeats the compute kernels with plain stores until nothing changes;
    the worklist is built by the first pass. With sampling the labels come from
    the sampler (no init), lmax vertices are skipped and every edge of the others
    is processed in both directions. With ``labels.record`` (ECL only) the init's
    hooks and every CAS that hooks a root record their edges.
    """
    cp, n, I = ctx.cp, ctx.n, ctx.I
    atomic = ctx.v.finish == Finish.ECL
    flag = "record" if labels.record else ("true" if atomic else "false")
    nstat = labels.P
    indptr, indices = ctx.csr()
    eids, hook = labels.eids, (labels.hook if labels.record else ctx.dummy)
    if not labels.use:
        ctx.launch("ecl_init", n, nstat, indptr, indices, I(n), eids, hook, np.int32(labels.record))
    wl = cp.empty(n, ctx.dt)
    top, pos = cp.zeros(1, ctx.dt), cp.full(1, n - 1, ctx.dt)
    k0, use = np.int32(labels.k0), np.int32(labels.use)
    compute2 = getattr(ctx.k, f"ecl_compute2_{flag}")
    compute3 = getattr(ctx.k, f"ecl_compute3_{flag}")
    first = True
    while True:
        ctx.clear()
        ctx.launch(
            f"ecl_compute1_{flag}",
            n,
            nstat,
            indptr,
            indices,
            eids,
            hook,
            I(n),
            k0,
            labels.lmax,
            use,
            wl,
            top,
            pos,
            np.int32(first),
            I(ECL_WARP_DEGREE),
            I(ECL_BLOCK_DEGREE),
            ctx.flag,
        )
        compute2(
            ctx.blocks, (BLOCK,), (nstat, indptr, indices, eids, hook, k0, use, wl, top, ctx.flag)
        )
        compute3(
            ctx.blocks,
            (BLOCK,),
            (nstat, indptr, indices, eids, hook, I(n), k0, use, wl, pos, ctx.flag),
        )
        first = False
        if atomic or not ctx.changed():
            break
    ctx.launch("ecl_flatten", n, nstat, I(n))
    return nstat[:n]


def label_propagation(ctx: Ctx, labels: Labels):
    """Data-driven label propagation: only vertices whose label fell last round are active.

    The first frontier is every vertex, or with sampling every vertex not labelled lmax.
    """
    cp, n, I, dt = ctx.cp, ctx.n, ctx.I, ctx.dt
    lab = labels.P
    indptr, indices = ctx.csr()
    if labels.use:
        first = cp.flatnonzero(lab[:n] != labels.lmax).astype(dt)
    else:
        first = cp.arange(n, dtype=dt)
    cur, nxt, heavy = cp.empty(n, dt), cp.empty(n, dt), cp.empty(n, dt)
    size = int(first.shape[0])
    cur[:size] = first
    cur_len, nxt_len, heavy_len = cp.full(1, size, dt), cp.zeros(1, dt), cp.zeros(1, dt)
    stamp = cp.full(n, -1, np.int32)
    rnd = 0
    while size > 0:
        nxt_len.fill(0)
        heavy_len.fill(0)
        ctx.launch(
            "lp_light",
            size,
            lab,
            indptr,
            indices,
            cur,
            cur_len,
            nxt,
            nxt_len,
            stamp,
            np.int32(rnd),
            I(ctx.options.heavy_degree),
            heavy,
            heavy_len,
        )
        ctx.k.lp_heavy(
            ctx.blocks,
            (BLOCK,),
            (lab, indptr, indices, heavy, heavy_len, nxt, nxt_len, stamp, np.int32(rnd)),
        )
        cur, nxt, cur_len, nxt_len = nxt, cur, nxt_len, cur_len
        size = int(cur_len[0])
        rnd += 1
    return lab[:n]


def bfs_cc(ctx: Ctx, record: bool = False):
    """BFS-CC (Ligra): a direction-optimising BFS from the smallest unvisited vertex,
    repeated; ``(roots, hook or None)``.

    Isolated vertices are labelled up front. Each source is the smallest vertex
    of its component, so the labels are already minimum-vertex roots. With
    ``record`` the BFS trees are the forest: each discovered vertex's slot gets the
    input edge id of the entry that discovered it.
    """
    cp, n, I, dt = ctx.cp, ctx.n, ctx.I, ctx.dt
    indptr, indices = ctx.csr()
    if record:  # the kernels' (edge ids, slots, record) arguments
        forest = (ctx.csr_edge_ids(), ctx.hooks(), np.int32(1))
    else:
        forest = (ctx.dummy, ctx.dummy, np.int32(0))
    comp = cp.empty(n, dt)
    ctx.launch("bfscc_init", n, comp, indptr, I(n))
    scratch = (cp.empty(n, dt), cp.empty(n, dt), cp.zeros(1, dt), cp.zeros(1, dt))
    best = cp.empty(1, dt)
    start = 0
    while start < n:
        best.fill(n)
        ctx.launch("bfscc_next_source", n - start, comp, I(start), I(n), best)
        source = int(best[0])
        if source >= n:
            break
        comp[source] = source
        _bfs(ctx, comp, indptr, indices, source, forest, *scratch)
        start = source + 1
    return comp, (forest[1] if record else None)


def _bfs(ctx: Ctx, comp, indptr, indices, source: int, forest, cur, nxt, cur_len, nxt_len) -> None:
    """Top-down steps over a queue; bottom-up steps over a bitmap while the frontier is large."""
    cp, n, I = ctx.cp, ctx.n, ctx.I
    cur[0] = source
    cur_len.fill(1)
    bits: Any = None  # the bitmaps, allocated on the first bottom-up step
    nbits: Any = None
    size = 1
    while size > 0:
        nxt_len.fill(0)
        if size > n // ctx.options.bfs_alpha:
            if bits is None:
                bits, nbits = cp.zeros(n, np.uint8), cp.zeros(n, np.uint8)
                ctx.launch("bfscc_to_bitmap", size, cur, cur_len, bits)
            nbits.fill(0)
            ctx.launch(
                "bfscc_bottom_up", n, comp, indptr, indices, I(source), I(n), bits, nbits,
                nxt_len, *forest,
            )  # fmt: skip
            bits, nbits = nbits, bits
            size = int(nxt_len[0])
            if size <= n // ctx.options.bfs_alpha:
                q = cp.flatnonzero(bits).astype(ctx.dt)
                cur[:size] = q
                cur_len.fill(size)
                bits = nbits = None
        else:
            ctx.launch(
                "bfscc_top_down", size, comp, indptr, indices, I(source), cur, cur_len, nxt,
                nxt_len, *forest,
            )  # fmt: skip
            cur, nxt, cur_len, nxt_len = nxt, cur, nxt_len, cur_len
            size = int(cur_len[0])
