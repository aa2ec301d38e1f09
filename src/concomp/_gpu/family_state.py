"""Shared state of the GPU family drivers: kernels of ``cuda/families.cu``, the run
context, and GConn's labels after sampling.

:mod:`concomp._gpu.families` (the dispatcher), :mod:`concomp._gpu.families_csr`
and :mod:`concomp._gpu.families_edges` all build on this module, which depends
only on the union-find run (:mod:`concomp._gpu.unionfind`), so the imports go
one way.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from ..graph import Graph
from ..options import Options
from ..variants import Compress, Finish, Layout, Sampling, Variant
from ._compat import cupy_or_raise, device_info
from .kernels import BLOCK, KernelSet, ctype, grid_for
from .unionfind import UnionFindRun, index_dtype_of

#: ECL-CC's double-sided worklist thresholds: degree <= ECL_WARP_DEGREE is done by
#: one thread, <= ECL_BLOCK_DEGREE by one warp, larger by one block (the thesis's 16, 352).
ECL_WARP_DEGREE = 16
ECL_BLOCK_DEGREE = 352
#: Seed of the random edge permutation of Stages (fixed: results and timings repeat).
STAGES_SEED = 0x5EED

_OPS = ("SVHook", "AfforestLink")


def kernel_names(itype: str) -> dict[str, str]:
    """Name expressions of every families.cu kernel for one index type."""
    names = {
        k: f"{k}<{itype}>"
        for k in (
            "shortcut_full",
            "shortcut_once",
            "relabel_edges",
            "hash_keys",
            "soman_hook",
            "soman_claim",
            "soman_commit",
            "soman_jump",
            "soman_multi",
            "cm_graft",
            "cm_graft_updt",
            "cm_graft_record",
            "lt_connect",
            "lt_update",
            "lt_claim",
            "lt_update_record",
            "stergiou_edges",
            "lp_light",
            "lp_heavy",
            "ecl_init",
            "ecl_flatten",
            "bfscc_init",
            "bfscc_next_source",
            "bfscc_top_down",
            "bfscc_bottom_up",
            "bfscc_to_bitmap",
        )
    }
    # the spanning-forest versions (RECORD) carry the suffix "_record"
    for tail, record in (("", "false"), ("_record", "true")):
        names[f"sv_hook_coo{tail}"] = f"sv_hook_coo<{itype}, {record}>"
        for op in _OPS:
            names[f"light_{op}{tail}"] = f"csr_light<{itype}, {op}, {record}>"
            names[f"heavy_{op}{tail}"] = f"csr_heavy<{itype}, {op}, {record}>"
    for step, atomic in itertools.product((1, 2, 3), (True, False)):
        flag = "true" if atomic else "false"
        names[f"ecl_compute{step}_{flag}"] = f"ecl_compute{step}<{itype}, {flag}, false>"
    for step in (1, 2, 3):  # ECL_af's plain-store hooks cannot record a forest
        names[f"ecl_compute{step}_record"] = f"ecl_compute{step}<{itype}, true, true>"
    return names


#: Every families.cu name expression (the nvcc compile test builds them all).
INSTANTIATIONS: list[str] = sorted(
    set(itertools.chain.from_iterable(kernel_names(t).values() for t in ("int", "long long")))
)


class FamilyKernels(KernelSet):
    """The families.cu kernels of one index type (each compiled on first use)."""

    def __init__(self, dtype: np.dtype) -> None:
        super().__init__("families.cu", kernel_names(ctype(dtype)))


class Ctx:
    """One run: the device, the index type, the kernels, a convergence flag."""

    def __init__(self, g: Graph, variant: Variant, options: Options) -> None:
        cp = cupy_or_raise()
        self.cp, self.g, self.v, self.options = cp, g, variant, options
        self.n = g.num_nodes
        self.dt = index_dtype_of(g, options)
        self.I = self.dt.type
        self.k = FamilyKernels(self.dt)
        self.flag = cp.zeros(1, np.int32)
        self.scratch = cp.zeros(1, np.int32)  # a flag nobody reads
        self.dummy = cp.zeros(1, self.dt)
        self.blocks = (device_info()["sm_count"] * 4,)

    def launch(self, name: str, work: int, *args) -> None:
        if work <= 0:
            return
        getattr(self.k, name)(grid_for(work), (BLOCK,), args)

    def clear(self) -> None:
        self.flag.fill(0)

    def changed(self) -> bool:
        """Read the convergence flag (the one device-to-host read of a round)."""
        return bool(int(self.flag[0]))

    def coo(self, copy: bool = False):
        src, dst = self.g.coo()
        return (src.astype(self.dt, copy=copy), dst.astype(self.dt, copy=copy))

    def csr(self):
        indptr, indices, _ = self.g.undirected_csr()
        return indptr.astype(self.dt, copy=False), indices.astype(self.dt, copy=False)

    def csr_edge_ids(self):
        """The input edge id of every entry of the symmetric CSR (spanning forests)."""
        return self.g.undirected_csr()[2].astype(self.dt, copy=False)

    def hooks(self):
        """An empty forest: one slot per vertex, -1 until a link records its edge there."""
        return self.cp.full(max(self.n, 1), -1, self.dt)

    def shortcut_full(self, P, flag) -> None:
        self.launch("shortcut_full", self.n, P, self.I(self.n), flag)


class Labels:
    """GConn's state before a finish: labels ``P``, ``lmax`` and the sampler's run.

    ``use`` is 1 when a sampler ran (skip ``lmax``), ``k0`` the number of leading
    CSR edges per vertex the sampler covered (usable only by root-based finishes).

    With ``record`` the finish records its links in ``hook`` (one slot per vertex,
    -1 until set). The sampler's links stay in their own array: a keyed sampler's
    roots are renamed to the minima below, after which the new roots' slots hold
    sampler edges, so the finish gets empty slots and :meth:`forest` joins both.
    """

    def __init__(self, ctx: Ctx, record: bool = False) -> None:
        sampling = ctx.v.sampling
        proxy = Variant(sampling, Finish.ASYNC, Compress.HALVE, Layout.CSR, ctx.v.k)
        self.run = run = UnionFindRun(ctx.g, proxy, record, ctx.options)
        self.record = record
        run.init()
        self.use, self.k0 = 0, 0
        if sampling != Sampling.NONE:
            self.k0 = run.sample()  # leaves the forest compressed: labels are roots
            if sampling == Sampling.HB:
                # hook-based sampling unites edge 0 only of the vertices it hooked (a
                # vertex another union linked first skips its edges), and these
                # finishes start every row at k0, with no per-vertex exception as
                # cc.cu's first_edge makes: they read every edge again
                self.k0 = 0
            self.use = 1
            # the min-label families hook roots by id: start them from the sampled
            # forest with its roots the trees' minima (a star still; keyed runs rename)
            if run.keyed:
                minv = self.normalise(run.p)
                run.lmax[...] = minv[run.lmax]  # lmax names a root: rename it as well
        self.P = run.p
        self.lmax = run.lmax if self.use else run.dummy
        self.hook = None
        if record:  # without a sampler the run's slots are all still empty
            self.hook = ctx.hooks() if self.use else run.hook_edge
        self.eids = run.csr()[2] if record else run.dummy

    def forest(self) -> Any:
        """The slots of the sampler's and the finish's links together (entries >= 0
        are the forest's edge ids, each once)."""
        if self.use:
            return self.run.cp.concatenate([self.run.hook_edge[: self.run.n], self.hook])
        return self.hook

    def normalise(self, P) -> Any:
        """Rename each root (``P`` must point at roots) to its component's minimum;
        return the renaming (entry ``r`` is root ``r``'s new name)."""
        run, n = self.run, self.run.n
        minv = run.cp.full(n, np.iinfo(run.dt).max, run.dt)
        run.launch("root_min", n, P, minv, run.I(n))
        run.launch("apply_root_min", n, P, minv, run.I(n))
        return minv
