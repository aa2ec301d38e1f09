"""CPU driver of the non-union-find families and of Cong & Muzio's Stages.

``run_family(graph, variant, options, record)`` is what
:func:`concomp._cpu.components.component_roots` calls for every variant whose
finish is not a union-find rule, and for Stages (the CPU mirror of
``_gpu/families.py``). It returns ``(roots, hook or None)``: ``roots[v]`` is the
smallest vertex id of ``v``'s component, ``hook[v]`` (with ``record``) the input
edge id that made ``v`` a non-root.

The min-based finishes follow GConn (Algorithm 1): the sampling phase is the
union-find one (Union-Async with path halving), its forest compressed into
labels, the most frequent label ``lmax`` found, and the finish skips vertices
(CSR) or edges (COO) labelled ``lmax`` (:class:`~concomp._cpu.family_state.Labels`).
The families run as parallel rounds (:mod:`~concomp._cpu.families_edges`,
:mod:`~concomp._cpu.families_csr`); ECL-CC in :mod:`~concomp._cpu.ecl`, BFS-CC in
:mod:`~concomp._cpu.bfs`.

References
----------
Hong, Dhulipala, Shun (GConn, PACT 2020); Soman, Kothapalli, Narayanan (2010);
Cong & Muzio (Euro-Par 2014); Jaiganesh & Burtscher (ECL-CC, 2017); Liu & Tarjan
(2019); Stergiou, Rughwani & Tsioutsiouliklis (2018). All in ``../shared/papers/``.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._rules import family_records_forest
from ..errors import InvalidVariantError
from ..graph import Graph
from ..options import Options
from ..variants import UNION_FIND, Finish, Layout, Sampling, Variant
from . import families_csr, families_edges
from .bfs import bfs_components
from .ecl import ecl_af_roots, ecl_roots
from .family_state import Labels, relabel_edges
from .unionfind import UnionFindRun, flatten, rename_to_min, state_dtype, threads_for

__all__ = ["parallel_threads", "records_family_forest", "run_family"]


def parallel_threads() -> int:
    """Threads numba's parallel loops use (1 means: ECL-CC runs its serial version)."""
    return nb.get_num_threads()


def records_family_forest(variant: Variant) -> bool:
    """Whether the CPU run of a family (not Stages) records a spanning forest: the
    registry's :func:`concomp._rules.family_records_forest`."""
    if variant.sampling == Sampling.STAGES:
        return False
    return family_records_forest("cpu", str(variant.finish), str(variant.compress))


def run_family(graph: Graph, variant: Variant, options: Options, record: bool = False):
    """Run a min-based family or Stages; ``(roots, hook or None)``.

    Graphs with fewer than ``options.parallel_min_edges`` edges run on one
    thread (a round on a small graph costs less than a parallel region).
    """
    with threads_for(graph, options):
        return _run_family(graph, variant, options, record)


def _run_family(graph: Graph, variant: Variant, options: Options, record: bool):
    if record and not records_family_forest(variant):
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} cannot record a spanning forest on the CPU; see "
            "concomp.forest.is_forest_variant."
        )
    n = graph.num_nodes
    if n == 0:
        dt = state_dtype(graph, options)
        return np.zeros(0, dt), (np.zeros(0, np.int64) if record else None)
    if variant.sampling == Sampling.STAGES:
        return _stages(graph, variant, options), None
    f = variant.finish
    if f == Finish.BFS_CC:
        labels = Labels(graph, variant, options, record)  # no sampler: just the arrays
        indptr, indices, eids = labels.csr()
        hook = labels.hook if record else None
        return bfs_components(indptr, indices, labels.dt, options, eids, hook), hook
    labels = Labels(graph, variant, options, record)
    P, hook = labels.P, labels.hook
    if f == Finish.SOMAN:
        families_edges.soman(P, *labels.coo(), hook, record)
        rename_to_min(P)
    elif f in (Finish.GRAFT, Finish.GRAFT_UPDT):
        families_edges.cong_muzio(P, *labels.coo(copy=True), f == Finish.GRAFT_UPDT, hook, record)
    elif f == Finish.SV and variant.layout == Layout.COO:
        families_edges.shiloach_vishkin(P, *labels.coo(), hook, record)
    elif f == Finish.SV:
        families_csr.shiloach_vishkin_csr(P, *_csr_args(labels), hook, record)
    elif f == Finish.AFFOREST:
        families_csr.afforest(P, *_csr_args(labels), hook, record)
    elif f == Finish.LT:
        rule = str(variant.compress)
        src, dst = labels.coo(copy=rule.endswith("a"))
        families_edges.liu_tarjan(P, src, dst, rule, labels.lmax, labels.use, hook, record)
    elif f == Finish.STERGIOU:
        families_edges.stergiou(P, *labels.coo(), labels.lmax, labels.use)
    elif f == Finish.LP:
        indptr, indices, _ = labels.csr()
        families_csr.label_propagation(P, indptr, indices, labels.lmax, labels.use)
    elif f in (Finish.ECL, Finish.ECL_AF):
        P = _ecl(labels, f, record)
    else:
        raise InvalidVariantError(f"algorithm={str(variant)!r} has no CPU family driver.")
    return P, (hook if record else None)


def _csr_args(labels: Labels) -> tuple:
    indptr, indices, eids = labels.csr()
    return indptr, indices, eids, labels.k0, labels.lmax, labels.use


def _ecl(labels: Labels, finish: Finish, record: bool) -> np.ndarray:
    indptr, indices, eids = labels.csr()
    if finish == Finish.ECL_AF:
        return ecl_af_roots(indptr, indices)
    parallel = parallel_threads() > 1
    hook = labels.hook if record else None
    if labels.use:
        return ecl_roots(
            indptr, indices, parallel=parallel, labels=labels.P, lmax=labels.lmax,
            k0=labels.k0, eids=eids, hook=hook,
        )  # fmt: skip
    return ecl_roots(indptr, indices, parallel=parallel, eids=eids, hook=hook)


def _stages(graph: Graph, variant: Variant, options: Options) -> np.ndarray:
    """Cong & Muzio's Stages: permute the edges, then finish q*n of them at a time.

    The edges are the input's (COO layout) or the symmetric CSR's (CSR layout:
    every edge in both directions). Before each group its endpoints are replaced by
    their current labels; the finish (CC, CC-updt, SV, or a union-find rule) leaves
    every tree a star, so labels are roots.
    """
    n, f = graph.num_nodes, variant.finish
    dt = state_dtype(graph, options)
    if variant.layout == Layout.CSR:
        indptr, dst, _ = graph.undirected_csr()
        src = np.repeat(np.arange(n, dtype=dt), np.diff(indptr))
    else:
        src, dst = graph.coo()
    src, dst = families_edges.permuted(src.astype(dt, copy=False), dst.astype(dt, copy=False))
    no_hook = np.zeros(1, np.int64)
    run = None
    if f in UNION_FIND:
        run = UnionFindRun(graph, Variant(Sampling.NONE, f, variant.compress, Layout.COO), options)
        P = run.p
    else:
        P = np.arange(n, dtype=dt)
    q = variant.k
    assert q is not None  # Variant gives Stages its q (default 1)
    size = q * n
    for start in range(0, src.shape[0], size):
        s, d = src[start : start + size], dst[start : start + size]
        if start:
            relabel_edges(s, d, P)
        if run is not None:
            run.edges(s, d)
            flatten(P)
        elif f == Finish.SV:
            families_edges.shiloach_vishkin(P, s, d, no_hook, False)
        else:
            families_edges.cong_muzio(P, s, d, f == Finish.GRAFT_UPDT, no_hook, False)
    return run.roots() if run is not None else P
