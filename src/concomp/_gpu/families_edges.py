"""Edge-list (COO) families: Soman's GPU-CC, Cong & Muzio's CC, CC-updt and Stages,
Shiloach-Vishkin, Liu-Tarjan and Stergiou.

Each function takes a :class:`~concomp._gpu.family_state.Ctx` (and, for GConn's
finishes, the sampled :class:`~concomp._gpu.family_state.Labels`) and returns the
roots array. Host loops read one convergence flag per round. The root-based rules
record a spanning forest when asked (``record``, or ``labels.record``): each root
is hooked by one compare-and-swap, and the edge's input id goes to its slot.
"""

from __future__ import annotations

import numpy as np

from .._rules import liu_tarjan_rule
from ..variants import UNION_FIND, Finish, Layout, Sampling, Variant
from .family_state import STAGES_SEED, Ctx, Labels
from .unionfind import UnionFindRun


# ------------------------------------------------------------------ Soman et al.
def soman(ctx: Ctx, record: bool):
    """Soman, Kothapalli & Narayanan's GPU-CC (and its spanning-forest version).

    Each iteration hooks over the unhidden edges with alternating orientation
    (no atomics), then reduces every tree to a star by multilevel pointer
    jumping, then runs the coalesced termination check (one tree left). With
    ``record`` every hook is decided by one winning edge per tree, stored in
    ``hook_edge[tree root]``. The roots are renamed to the component minimum.
    """
    cp, n, I = ctx.cp, ctx.n, ctx.I
    labels = Labels(ctx)
    P = labels.P
    src, dst = ctx.coo()
    m = int(src.shape[0])
    M = np.int64(m)
    hidden = cp.zeros(max(m, 1), np.uint8)
    settled = cp.empty(n, np.uint8)
    multi = cp.zeros(1, np.int32)
    hook_edge = cp.full(n, -1, ctx.dt) if record else None
    if record:
        winner, P_next = cp.empty(n, ctx.dt), cp.empty_like(P)
    it = 0
    while True:
        ctx.clear()
        if record:
            winner.fill(-1)
            ctx.launch("soman_claim", m, P, src, dst, hidden, M, np.int32(it), winner, ctx.flag)
            cp.copyto(P_next, P)
            ctx.launch(
                "soman_commit", m, P, P_next, src, dst, hidden, M, np.int32(it), winner, hook_edge
            )
            P, P_next = P_next, P
        else:
            ctx.launch("soman_hook", m, P, src, dst, hidden, M, np.int32(it), ctx.flag)
        if not ctx.changed():
            break
        _multilevel_jump(ctx, P, settled)
        multi.fill(0)
        ctx.launch("soman_multi", n, P, I(n), multi)
        if not int(multi[0]):
            break
        it += 1
    labels.normalise(P)
    return P[:n], hook_edge


def _multilevel_jump(ctx: Ctx, P, settled) -> None:
    settled.fill(0)
    while True:
        ctx.clear()
        ctx.launch("soman_jump", ctx.n, P, settled, ctx.I(ctx.n), ctx.flag)
        if not ctx.changed():
            return


# ------------------------------------------------------------------ Cong & Muzio
def _graft_rounds(ctx: Ctx, P, src, dst, update: bool, hook=None) -> None:
    """Graft and shortcut until no graft happens (CC; CC-updt also rewrites the edges).

    With ``hook`` (a forest's slots) each root is grafted by one CAS that records
    the edge; the edges keep their input positions, so ``i`` is the edge's id.
    """
    m = int(src.shape[0])
    while True:
        ctx.clear()
        if hook is not None:
            args = (np.int64(m), np.int32(update), hook, ctx.flag)
            ctx.launch("cm_graft_record", m, P, src, dst, *args)
        else:
            name = "cm_graft_updt" if update else "cm_graft"
            ctx.launch(name, m, P, src, dst, np.int64(m), ctx.flag)
        ctx.shortcut_full(P, ctx.scratch)
        if update:
            ctx.launch("relabel_edges", m, src, dst, P, np.int64(m))
        if not ctx.changed():
            return


def cong_muzio(ctx: Ctx, record: bool = False):
    """CC (graft larger under smaller, shortcut to stars) or CC-updt (plus the update
    step); ``(roots, hook or None)``."""
    update = ctx.v.finish == Finish.GRAFT_UPDT
    P = ctx.cp.arange(ctx.n, dtype=ctx.dt)
    src, dst = ctx.coo(copy=update)
    hook = ctx.hooks() if record else None
    _graft_rounds(ctx, P, src, dst, update, hook)
    return P, hook


def stages(ctx: Ctx):
    """Cong & Muzio's Stages: permute the edges, then finish q*n edges at a time.

    The edges are the input's (COO layout) or the symmetric CSR's (CSR layout:
    every edge in both directions). Before each group its endpoints are replaced
    by their current labels; the finish (CC, CC-updt, SV, or a union-find rule
    through the cc.cu kernels) leaves every tree a star, so labels are roots.
    """
    cp, n, I, v = ctx.cp, ctx.n, ctx.I, ctx.v
    if v.layout == Layout.CSR:  # the symmetric CSR's entries as an edge list
        indptr, dst = ctx.csr()
        pos = cp.arange(dst.shape[0], dtype=indptr.dtype)
        src = (cp.searchsorted(indptr, pos, side="right") - 1).astype(ctx.dt)
    else:
        src, dst = ctx.coo()
    m = int(src.shape[0])
    if m:
        keys = cp.empty(m, np.uint64)
        ctx.launch("hash_keys", m, keys, np.int64(m), np.uint64(STAGES_SEED))
        order = cp.argsort(keys)
        src, dst = src[order], dst[order]
    if v.finish in UNION_FIND:
        run = UnionFindRun(
            ctx.g, Variant(Sampling.NONE, v.finish, v.compress, Layout.COO), False, ctx.options
        )
        run.init()
        P = run.p

        def finish(s, d):  # finish_coo(.., lmax, use_lmax=0, one_way=0)
            k = int(s.shape[0])
            run.launch(
                "finish_coo",
                k,
                *run.uf,
                s,
                d,
                run.hook_edge,
                np.int64(k),
                run.dummy,
                np.int32(0),
                np.int32(0),
            )
            run.launch("compress", n, *run.uf, I(n))
    else:
        P = cp.arange(n, dtype=ctx.dt)
        if v.finish == Finish.SV:

            def finish(s, d):
                _sv_rounds(ctx, P, s, d)
        else:

            def finish(s, d):
                _graft_rounds(ctx, P, s, d, v.finish == Finish.GRAFT_UPDT)

    q = v.k
    assert q is not None  # Variant gives Stages its q (default 1)
    size = q * n
    for start in range(0, m, size):
        s, d = src[start : start + size], dst[start : start + size]
        if start:
            ctx.launch("relabel_edges", int(s.shape[0]), s, d, P, np.int64(s.shape[0]))
        finish(s, d)
    if v.finish in UNION_FIND:
        return run.roots()  # roots in the link order renamed to the minima
    return P[:n]


# ------------------------------------------------------------------ GConn's min-based finishes
def _sv_rounds(ctx: Ctx, P, src, dst, hook=None) -> None:
    m = int(src.shape[0])
    name, slots = ("sv_hook_coo", ctx.dummy) if hook is None else ("sv_hook_coo_record", hook)
    while True:
        ctx.clear()
        ctx.launch(name, m, P, src, dst, np.int64(m), slots, ctx.flag)
        ctx.shortcut_full(P, ctx.scratch)
        if not ctx.changed():
            return


def shiloach_vishkin(ctx: Ctx, labels: Labels):
    """Root-based SV over the edge list: atomic-min hooking of roots, then full compression.

    With sampling no explicit lmax test is needed: an edge inside the lmax tree
    has equal labels, which is the first thing the hook checks.
    """
    src, dst = ctx.coo()
    _sv_rounds(ctx, labels.P, src, dst, labels.hook)
    return labels.P[: ctx.n]


def liu_tarjan(ctx: Ctx, labels: Labels):
    """Liu-Tarjan: connect (c/p/e) + update (u/r) + shortcut (s/f) [+ alter (a)] rounds.

    Connect sends candidate parents into a message array (atomic min), update
    applies them (root-update: to roots only), shortcut compresses one level or
    fully, alter replaces every edge by its endpoints' parents. Rounds repeat
    until no message, parent or edge changes. With ``labels.record`` (root-update
    rules only) every hooked root records an edge whose message it took: after the
    connect, each edge that sent a root its final message offers its id.
    """
    rule = liu_tarjan_rule(str(ctx.v.compress))
    connect, root_only, full, alter = rule.connect, rule.root_only, rule.full, rule.alter
    n, I, P = ctx.n, ctx.I, labels.P
    src, dst = ctx.coo(copy=alter)
    m = int(src.shape[0])
    msg = P.copy()
    win = ctx.hooks() if labels.record else None
    if alter:
        ctx.launch("relabel_edges", m, src, dst, P, np.int64(m))
    while True:
        ctx.clear()
        ctx.launch(
            "lt_connect",
            m,
            P,
            msg,
            src,
            dst,
            np.int64(m),
            np.int32(connect),
            labels.lmax,
            np.int32(labels.use),
            ctx.flag,
        )
        if win is not None:
            ctx.launch(
                "lt_claim", m, P, msg, win, src, dst, np.int64(m), np.int32(connect),
                labels.lmax, np.int32(labels.use),
            )  # fmt: skip
            ctx.launch("lt_update_record", n, P, msg, win, labels.hook, I(n), ctx.flag)
        else:
            ctx.launch("lt_update", n, P, msg, I(n), np.int32(root_only), ctx.flag)
        ctx.launch("shortcut_full" if full else "shortcut_once", n, P, I(n), ctx.flag)
        if alter:
            ctx.launch("relabel_edges", m, src, dst, P, np.int64(m))
        if not ctx.changed():
            break
    ctx.shortcut_full(P, ctx.scratch)
    return P[:n]


def stergiou(ctx: Ctx, labels: Labels):
    """Stergiou et al.: labels of the previous round flow across every edge, then one shortcut."""
    n, I, P = ctx.n, ctx.I, labels.P
    src, dst = ctx.coo()
    m = int(src.shape[0])
    prev = ctx.cp.empty_like(P)
    while True:
        ctx.cp.copyto(prev, P)
        ctx.clear()
        ctx.launch(
            "stergiou_edges",
            m,
            P,
            prev,
            src,
            dst,
            np.int64(m),
            labels.lmax,
            np.int32(labels.use),
            ctx.flag,
        )
        ctx.launch("shortcut_once", n, P, I(n), ctx.flag)
        if not ctx.changed():
            break
    ctx.shortcut_full(P, ctx.scratch)
    return P[:n]
