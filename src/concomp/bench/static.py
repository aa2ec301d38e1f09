"""The static problems: connected components, spanning forests, minimum spanning forests
and the sweep over every variant (rows as :mod:`concomp.bench._case` describes)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import to_numpy
from .._dispatch import driver
from ..options import DEFAULTS
from ._case import (
    Case,
    Rows,
    Settings,
    count_roots,
    fresh_graph,
    gpu_peer_rows,
    peer_rows,
    row,
    timed,
)
from .timing import TooSlowError, measure

__all__ = ["run_cc", "run_forest", "run_msf", "run_scc", "run_variants"]

#: A variant of the sweep whose warm-up run takes longer is reported, not timed.
VARIANT_LIMIT_S = 20.0
#: BFS-CC runs one BFS per component: beyond this many components it is not run.
BFS_CC_MAX_COMPONENTS = 1000


def run_cc(case: Case, s: Settings) -> Rows:
    """Static connected components."""
    from ..components import connected_components

    g, dev, algo = case.graph, s.device, s.algorithm
    fresh = fresh_graph(g)
    variant = driver(dev, "components", "auto_variant")(g, DEFAULTS)
    roots = driver(dev, "components", "component_roots")

    # labels returned, as every peer returns them (a count alone skips work on the CPU)
    def prebuilt() -> int:
        return int(connected_components(g, device=dev, algorithm=algo)[0])

    def rebuilt() -> int:
        return int(connected_components(fresh(), device=dev, algorithm=algo)[0])

    def internal() -> Any:
        return roots(g, variant, DEFAULTS)

    rows = [
        row("concomp", "prebuilt", timed(prebuilt, s), {"components": prebuilt()}, algo),
        row("concomp", "fresh", timed(rebuilt, s), {"components": rebuilt()}, algo),
        row(
            "concomp", "internal", timed(internal, s),
            {"components": count_roots(internal())}, str(variant),
        ),
    ]  # fmt: skip
    if s.cpu_peers:
        from .cpu_peers import cc_peers

        rows += peer_rows(cc_peers(*case.host_csr, g.num_nodes, s.reps))
    if dev == "cpu":  # host memory: the call a user makes (labels included), and SciPy's
        from .cpu_peers import scipy_cc_memory
        from .memory import peak_memory

        entries = int(g.csr()[1].shape[0])
        rows[0]["memory"] = peak_memory(
            lambda: connected_components(g, device=dev, algorithm=algo), entries
        )
        for r in rows:
            if r["system"] == "scipy":
                r["memory"] = scipy_cc_memory(*case.host_csr, g.num_nodes)
    return rows + gpu_peer_rows("cc", case, s)


def run_forest(case: Case, s: Settings) -> Rows:
    """Spanning forests (the result is ``n`` minus the forest's edges: the component count)."""
    from ..forest import forest_variant, spanning_forest

    g, dev, n = case.graph, s.device, case.graph.num_nodes

    def count(f: Any) -> dict:
        return {"components": n - int(f.num_edges)}

    call = lambda: spanning_forest(g, device=dev)  # noqa: E731
    fresh = fresh_graph(g)
    call2 = lambda: spanning_forest(fresh(), device=dev)  # noqa: E731
    variant = forest_variant(g, "auto", dev)
    ids_of = driver(dev, "forest", "spanning_forest_ids")
    call3 = lambda: ids_of(g, variant, DEFAULTS)  # noqa: E731
    rows = [
        row("concomp", "prebuilt", timed(call, s), count(call())),
        row("concomp", "fresh", timed(call2, s), count(call2())),
        row(
            "concomp", "internal", timed(call3, s),
            {"components": n - int(call3()[0].shape[0])}, str(variant),
        ),
    ]  # fmt: skip
    if s.cpu_peers:
        from .cpu_peers import forest_peers

        rows += peer_rows(forest_peers(*case.host_csr, n, s.reps))
    return rows


def run_msf(case: Case, s: Settings) -> Rows:
    """Minimum spanning forests of the graph with the corpus's integer weights."""
    from ..msf import exact_int_sum, minimum_spanning_forest

    g, dev = case.weighted, s.device

    def result(f: Any) -> dict:
        return {"msf_weight": int(f.total_weight), "msf_edges": int(f.num_edges)}

    call = lambda: minimum_spanning_forest(g, device=dev)  # noqa: E731
    fresh = fresh_graph(g, g.weights)
    call2 = lambda: minimum_spanning_forest(fresh(), device=dev)  # noqa: E731
    algorithm = "boruvka" if dev == "gpu" else "kruskal"  # what "auto" runs on each engine
    ids_of = driver(dev, "msf", "minimum_spanning_forest_ids")
    call3 = lambda: ids_of(g, algorithm, False, DEFAULTS)  # noqa: E731
    ids = to_numpy(call3()).astype(np.int64)
    internal = {
        "msf_weight": exact_int_sum(to_numpy(g.weights)[ids]),
        "msf_edges": int(ids.shape[0]),
    }
    rows = [
        row("concomp", "prebuilt", timed(call, s), result(call())),
        row("concomp", "fresh", timed(call2, s), result(call2())),
        row("concomp", "internal", timed(call3, s), internal, algorithm),
    ]
    if s.cpu_peers:
        from .cpu_peers import msf_peers

        indptr, indices = case.host_csr
        rows += peer_rows(msf_peers(indptr, indices, to_numpy(g.weights), g.num_nodes, s.reps))
    return rows + gpu_peer_rows("msf", case, s, g.weights)


def run_variants(case: Case, s: Settings) -> Rows:
    """Every variant of ``all_variants(device)``, timed through its engine driver.

    A variant whose warm-up run exceeds :data:`VARIANT_LIMIT_S` is listed with the reason
    instead of a timing; so is BFS-CC on graphs of more than
    :data:`BFS_CC_MAX_COMPONENTS` components (one BFS per component).
    """
    from ..variants import all_variants

    g, dev = case.graph, s.device
    roots = driver(dev, "components", "component_roots")
    rows = []
    for v in all_variants(dev):
        skip = None
        if v.finish.value == "bfs_cc" and case.components > BFS_CC_MAX_COMPONENTS:
            skip = f"BFS-CC runs one BFS per component ({case.components} components)"
        else:
            try:
                t = measure(
                    lambda v=v: roots(g, v, DEFAULTS),
                    device=dev, reps=s.reps, limit_s=VARIANT_LIMIT_S,
                )  # fmt: skip
            except TooSlowError as exc:
                skip = str(exc)
        if skip is not None:
            rows.append({**row("concomp", "variant", None, {}, str(v)), "skipped": skip})
            continue
        result = {"components": count_roots(roots(g, v, DEFAULTS))}
        rows.append(row("concomp", "variant", t, result, str(v)))
    return rows


def run_scc(case: Case, s: Settings) -> Rows:
    """Strongly connected components of a directed corpus graph (``algorithm`` as given,
    ``auto`` for the default); the internal row runs the engine's ``scc_labels``."""
    from ..scc import strongly_connected_components

    g, dev = case.graph, s.device
    algo = (
        s.algorithm if s.algorithm != "auto" else driver(dev, "scc", "scc_algorithm")(g, DEFAULTS)
    )
    fresh = fresh_graph(g)
    labels = driver(dev, "scc", "scc_labels")

    # labels returned, as the peers return them
    def prebuilt() -> int:
        return int(strongly_connected_components(g, device=dev, algorithm=algo)[0])

    def rebuilt() -> int:
        return int(strongly_connected_components(fresh(), device=dev, algorithm=algo)[0])

    def internal() -> Any:
        return labels(g, algo, DEFAULTS)

    rows = [
        row("concomp", "prebuilt", timed(prebuilt, s), {"components": prebuilt()}, algo),
        row("concomp", "fresh", timed(rebuilt, s), {"components": rebuilt()}, algo),
        row("concomp", "internal", timed(internal, s),
            {"components": count_roots(internal())}, algo),
    ]  # fmt: skip
    if s.cpu_peers:
        from .cpu_peers import scc_peers

        rows += peer_rows(scc_peers(*case.host_csr, g.num_nodes, s.reps))
    return rows + gpu_peer_rows("scc", case, s)
