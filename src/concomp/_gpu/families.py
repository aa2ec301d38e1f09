"""GPU driver of the non-union-find families and of Cong & Muzio's Stages.

``run_family(g, variant, options)`` is what :func:`concomp._gpu.components.run_variant` calls
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
``families_edges.py`` (edge-list algorithms) and ``families_csr.py``, on the
shared state of ``family_state.py``.

References
----------
Hong, Dhulipala, Shun (GConn, PACT 2020); Soman, Kothapalli, Narayanan (2010);
Cong & Muzio (Euro-Par 2014); Jaiganesh & Burtscher (ECL-CC, 2017). All in
``../shared/papers/``.
"""

from __future__ import annotations

from .._rules import family_records_forest
from ..errors import InvalidVariantError
from ..graph import Graph
from ..options import Options
from ..variants import Finish, Layout, Sampling, Variant
from . import families_csr, families_edges
from ._compat import out_of_memory_guard
from .family_state import Ctx, Labels


def run_family(g: Graph, variant: Variant, options: Options, record: bool = False):
    """Run a min-based family or Stages on a device graph; ``(roots, hook_edge or None)``.

    ``record`` asks for the spanning-forest version, which the root-based families
    have (:func:`concomp._rules.family_records_forest`); its ``hook_edge`` is an
    array whose entries >= 0 are the forest's input edge ids, each once.
    """
    if record and (
        not family_records_forest("gpu", str(variant.finish), str(variant.compress))
        or variant.sampling == Sampling.STAGES
    ):
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} cannot record a spanning forest on the GPU; see "
            "concomp.forest.is_forest_variant."
        )
    ctx = Ctx(g, variant, options)
    n = ctx.n
    if n == 0:
        return ctx.cp.zeros(0, ctx.dt), (ctx.cp.zeros(0, ctx.dt) if record else None)
    need = n * (64 if record else 48) + g.num_edges * 40
    with out_of_memory_guard(f"connected components of {g!r} ({variant})", need):
        if variant.sampling == Sampling.STAGES:
            return families_edges.stages(ctx), None
        if variant.finish == Finish.SOMAN:
            return families_edges.soman(ctx, record)
        if variant.finish in (Finish.GRAFT, Finish.GRAFT_UPDT):
            return families_edges.cong_muzio(ctx, record)
        if variant.finish == Finish.BFS_CC:
            return families_csr.bfs_cc(ctx, record)
        labels = Labels(ctx, record)
        finish = {
            Finish.SV: (
                families_csr.shiloach_vishkin
                if variant.layout == Layout.CSR
                else families_edges.shiloach_vishkin
            ),
            Finish.LT: families_edges.liu_tarjan,
            Finish.STERGIOU: families_edges.stergiou,
            Finish.LP: families_csr.label_propagation,
            Finish.ECL: families_csr.ecl,
            Finish.ECL_AF: families_csr.ecl,
            Finish.AFFOREST: families_csr.afforest,
        }[variant.finish]
        roots = finish(ctx, labels)
        return roots, (labels.forest() if record else None)
