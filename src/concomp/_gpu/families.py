"""GPU driver of the non-union-find families and of Cong & Muzio's Stages.

``run_family(g, variant)`` is what :func:`concomp._gpu.components.run_variant` calls
for every variant whose finish is not a CAS union-find rule, and for Stages. It
returns ``(roots, hook_edge or None)`` with ``roots[v]`` the smallest vertex id of
``v``'s component (an array of the index dtype).

The min-based finishes follow GConn (Algorithm 1): the sampling phase is the
union-find one of ``_gpu/components.py`` (Union-Async with path halving), its
forest is compressed into labels, the most frequent label ``lmax`` is found on the
device, and the finish skips vertices (CSR) or edges (COO) labelled ``lmax``.
The skip test reads the current labels every round, so a vertex that leaves the
``lmax`` tree (possible in the rules that are not root-based) brings its edges
back. Kernels live in ``cuda/families.cu``; the families themselves in
``families_edges.py`` (edge-list algorithms) and ``families_csr.py``.

References
----------
Hong, Dhulipala, Shun (GConn, PACT 2020); Soman, Kothapalli, Narayanan (2010);
Cong & Muzio (Euro-Par 2014); Jaiganesh & Burtscher (ECL-CC, 2017). All in
``../shared/papers/``.
"""

from __future__ import annotations

import itertools

import numpy as np

from ..errors import InvalidVariantError
from ..graph import Graph
from ..variants import Compress, Finish, Layout, Sampling, Variant
from ._compat import cupy_or_raise, device_info, out_of_memory_guard
from .kernels import BLOCK, KernelSet, ctype, grid_for

#: Vertices with more remaining edges than this are handled by a whole block
#: (SV and Afforest CSR passes, label propagation).
HEAVY_DEGREE = 64
#: ECL-CC's double-sided worklist thresholds: degree <= ECL_WARP_DEGREE is done by
#: one thread, <= ECL_BLOCK_DEGREE by one warp, larger by one block (the thesis's 16, 352).
ECL_WARP_DEGREE = 16
ECL_BLOCK_DEGREE = 352
#: BFS-CC switches to bottom-up once the frontier holds more than n / BFS_ALPHA vertices.
BFS_ALPHA = 20
#: Seed of the random edge permutation of Stages (fixed: results and timings repeat).
STAGES_SEED = 0x5EED

_OPS = ("SVHook", "AfforestLink")


def kernel_names(itype: str) -> dict[str, str]:
    """Name expressions of every families.cu kernel for one index type."""
    names = {k: f"{k}<{itype}>" for k in (
        "shortcut_full", "shortcut_once", "relabel_edges", "hash_keys", "soman_hook",
        "soman_claim", "soman_commit", "soman_jump", "soman_multi", "cm_graft", "cm_graft_updt",
        "sv_hook_coo", "lt_connect", "lt_update", "stergiou_edges", "lp_light", "lp_heavy",
        "ecl_init", "ecl_flatten", "bfscc_init", "bfscc_next_source", "bfscc_top_down",
        "bfscc_bottom_up", "bfscc_to_bitmap")}
    for op in _OPS:
        names[f"light_{op}"] = f"csr_light<{itype}, {op}>"
        names[f"heavy_{op}"] = f"csr_heavy<{itype}, {op}>"
    for step, atomic in itertools.product((1, 2, 3), (True, False)):
        flag = "true" if atomic else "false"
        names[f"ecl_compute{step}_{flag}"] = f"ecl_compute{step}<{itype}, {flag}>"
    return names


#: Every families.cu name expression (the nvcc compile test builds them all).
INSTANTIATIONS: list[str] = sorted(set(itertools.chain.from_iterable(
    kernel_names(t).values() for t in ("int", "long long"))))


class FamilyKernels(KernelSet):
    """The families.cu kernels of one index type, compiled as one NVRTC module."""

    def __init__(self, dtype: np.dtype) -> None:
        super().__init__("families.cu", kernel_names(ctype(dtype)))


class Ctx:
    """One run: the device, the index type, the kernels, a convergence flag."""

    def __init__(self, g: Graph, variant: Variant, index_dtype=None) -> None:
        cp = cupy_or_raise()
        self.cp, self.g, self.v = cp, g, variant
        self.n = g.num_nodes
        self.dt = np.dtype(index_dtype or g.index_dtype)
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

    def shortcut_full(self, P, flag) -> None:
        self.launch("shortcut_full", self.n, P, self.I(self.n), flag)


class Labels:
    """GConn's state before a finish: labels ``P``, ``lmax`` and the sampler's run.

    ``use`` is 1 when a sampler ran (skip ``lmax``), ``k0`` the number of leading
    CSR edges per vertex the sampler covered (usable only by root-based finishes).
    """

    def __init__(self, ctx: Ctx) -> None:
        from . import components

        sampling = ctx.v.sampling
        proxy = Variant(sampling, Finish.ASYNC, Compress.HALVE, Layout.CSR, ctx.v.k)
        self.run = run = components._Run(ctx.g, proxy, False, ctx.dt)
        run.init()
        self.use, self.k0 = 0, 0
        if sampling != Sampling.NONE:
            self.k0 = run.sample()
            self.use = 1
            if not components.SAMPLE_COMPRESS:  # the finishes want labels, i.e. roots
                run.launch("compress", run.n, *run.uf, run.I(run.n))
        self.P = run.p
        self.lmax = run.lmax if self.use else run.dummy

    def normalise(self, P) -> None:
        """Rename each root (``P`` must point at roots) to its component's minimum."""
        run, n = self.run, self.run.n
        minv = run.cp.full(n, np.iinfo(run.dt).max, run.dt)
        run.launch("root_min", n, P, minv, run.I(n))
        run.launch("apply_root_min", n, P, minv, run.I(n))


#: Finishes that can record a spanning forest here (the union-find ones do in components.py).
FOREST_FINISHES = (Finish.SOMAN,)


def run_family(g: Graph, variant: Variant, record: bool = False, index_dtype=None):
    """Run a min-based family or Stages on a device graph; ``(roots, hook_edge or None)``."""
    if record and (variant.finish not in FOREST_FINISHES or variant.sampling == Sampling.STAGES):
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} cannot record a spanning forest on the GPU; use "
            "'soman' or a union-find variant such as 'kout-async-halve-csr'.")
    ctx = Ctx(g, variant, index_dtype)
    n = ctx.n
    if n == 0:
        return ctx.cp.zeros(0, ctx.dt), (ctx.cp.zeros(0, ctx.dt) if record else None)
    need = n * 48 + g.num_edges * 40
    with out_of_memory_guard(f"connected components of {g!r} ({variant})", need):
        from . import families_csr, families_edges

        if variant.sampling == Sampling.STAGES:
            return families_edges.stages(ctx), None
        if variant.finish == Finish.SOMAN:
            return families_edges.soman(ctx, record)
        if variant.finish in (Finish.GRAFT, Finish.GRAFT_UPDT):
            return families_edges.cong_muzio(ctx), None
        if variant.finish == Finish.BFS_CC:
            return families_csr.bfs_cc(ctx), None
        labels = Labels(ctx)
        finish = {
            Finish.SV: (families_csr.shiloach_vishkin if variant.layout == Layout.CSR
                        else families_edges.shiloach_vishkin),
            Finish.LT: families_edges.liu_tarjan,
            Finish.STERGIOU: families_edges.stergiou,
            Finish.LP: families_csr.label_propagation,
            Finish.ECL: families_csr.ecl,
            Finish.ECL_AF: families_csr.ecl,
            Finish.AFFOREST: families_csr.afforest,
        }[variant.finish]
        return finish(ctx, labels), None
