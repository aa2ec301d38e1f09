"""One runner per problem, and the check that every system agrees.

:data:`PROBLEMS` maps a problem to its runner (:mod:`concomp.bench.static`,
:mod:`concomp.bench.dynamic`); :func:`run_problem` runs one on a built corpus graph
and compares every row's result (component count, forest weight and size) with
SciPy's, computed untimed, raising :class:`ResultMismatchError` with all results side
by side on any difference.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .._arrays import to_numpy
from ._case import Case, Rows, Settings
from .design import run_incremental_rules, run_sampling
from .dynamic import run_incremental, run_streaming
from .static import run_cc, run_forest, run_msf, run_scc, run_variants

__all__ = ["PROBLEMS", "ResultMismatchError", "check_results", "run_problem"]


class ResultMismatchError(AssertionError):
    """Systems disagree on a result (a component count or a forest weight)."""


#: Problem name -> runner, in the order a run takes them.
PROBLEMS: dict[str, Callable[[Case, Settings], Rows]] = {
    "cc": run_cc,
    "forest": run_forest,
    "incremental": run_incremental,
    "streaming": run_streaming,
    "msf": run_msf,
    "variants": run_variants,
    "sampling": run_sampling,
    "incremental-rules": run_incremental_rules,
    "scc": run_scc,
}


def run_problem(problem: str, case: Case, s: Settings) -> Rows:
    """The rows of ``problem`` on ``case``, checked against the reference."""
    rows = PROBLEMS[problem](case, s)
    reference = _reference(problem, case)
    check_results(problem, case.entry.name, rows, reference)
    return rows


def _reference(problem: str, case: Case) -> dict[str, Any]:
    """SciPy's result, computed untimed: the count every system must match."""
    if problem == "scc":
        from scipy.sparse import csr_array
        from scipy.sparse.csgraph import connected_components

        indptr, indices = case.host_csr
        n = case.graph.num_nodes
        a = csr_array((np.ones(indices.shape[0], dtype=np.int8), indices, indptr), shape=(n, n))
        return {"components": int(connected_components(a, connection="strong")[0])}
    if problem != "msf":
        return {"components": case.components}
    from scipy.sparse import csr_array
    from scipy.sparse.csgraph import minimum_spanning_tree

    indptr, indices = case.host_csr
    w = to_numpy(case.weighted.weights).astype(np.float64)
    n = case.graph.num_nodes
    t = minimum_spanning_tree(csr_array((w, indices, indptr), shape=(n, n)))
    return {"msf_weight": int(round(float(t.sum()))), "msf_edges": int(t.nnz)}


def check_results(problem: str, graph: str, rows: Rows, reference: dict[str, Any]) -> None:
    """Raise :class:`ResultMismatchError`, listing every system's result side by side, when
    a row's result differs from ``reference`` in any field they share."""
    bad = [
        r
        for r in rows
        if "skipped" not in r
        and (
            not (set(r["result"]) & set(reference))
            or any(r["result"][k] != reference[k] for k in set(r["result"]) & set(reference))
        )
    ]
    if not bad:
        return
    lines = [f"  {'reference (scipy, untimed)':40s} {reference}"]
    for r in rows:
        mark = "  <- differs" if r in bad else ""
        label = f"{r['system']} {r['mode']} {r['variant'] or ''}".strip()
        lines.append(f"  {label:40s} {r['result']}{mark}")
    raise ResultMismatchError(
        f"{problem} on {graph}: results differ between systems:\n" + "\n".join(lines)
    )
