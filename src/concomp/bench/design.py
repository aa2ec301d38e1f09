"""The papers' design-space measurements that are not one public call per graph.

- ``sampling`` (GConn, Table 3): every union-find sampler with the Rem-CAS finish; per
  sampler the whole run's time, the share of vertices in the largest sampled component
  (``coverage``), the share of CSR entries joining two sampled components
  (``inter_component``) and sampling's share of one run's time (``sample_share``), from
  the engine's ``sampling_coverage``.
- ``incremental-rules`` (GConn, Table 4 and Figs. 8-10): every rule the incremental engine
  runs, all edges inserted as one batch into a fresh structure, in three batch orders:
  ``csr`` (every stored CSR entry in CSR order, as the ``incremental`` problem), ``gconn``
  (each edge with ``u < v`` then the reversed pairs, the batch GConn's own code builds)
  and ``random`` (the CSR entries in a seeded random order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._arrays import get_xp
from .._dispatch import driver
from ..options import DEFAULTS
from ..variants import Variant
from ._case import Case, Rows, Settings, count_roots, row, timed

__all__ = ["SAMPLERS", "BATCH_ORDERS", "run_sampling", "run_incremental_rules"]

#: The union-find samplers, each measured with the finish below.
SAMPLERS = ("kout", "koutr", "koutl", "hb", "bfs")
#: The finish every sampler is measured with (GConn's Table 3 holds the finish fixed too).
SAMPLING_FINISH = "rem_cas-splice-csr"
#: Batch orders of ``incremental-rules``.
BATCH_ORDERS = ("csr", "gconn", "random")


def run_sampling(case: Case, s: Settings) -> Rows:
    """Every sampler's coverage and time on ``case`` (see the module docstring)."""
    g, dev = case.graph, s.device
    roots = driver(dev, "components", "component_roots")
    coverage = driver(dev, "components", "sampling_coverage")
    rows = []
    for sampler in SAMPLERS:
        v = Variant.parse(f"{sampler}-{SAMPLING_FINISH}")
        t = timed(lambda v=v: roots(g, v, DEFAULTS), s)
        shares = [coverage(g, v, DEFAULTS) for _ in range(3)]
        cov = dict(shares[-1])
        cov["sample_share"] = float(np.median([c["sample_share"] for c in shares]))
        result = {"components": count_roots(roots(g, v, DEFAULTS))}
        rows.append({**row("concomp", "sampling", t, result, str(v)), "coverage": cov})
    return rows


def _batches(case: Case) -> dict[str, tuple[Any, Any]]:
    g = case.graph
    src, dst = g.coo()
    xp = get_xp(src)
    upper = src < dst
    us, ud = src[upper], dst[upper]
    perm = xp.asarray(np.random.default_rng(20).permutation(int(src.shape[0])))
    return {
        "csr": (src, dst),
        "gconn": (xp.concatenate([us, ud]), xp.concatenate([ud, us])),
        "random": (src[perm], dst[perm]),
    }


def run_incremental_rules(case: Case, s: Settings) -> Rows:
    """Every incremental rule, all edges as one batch, in every batch order."""
    from ..incremental import legal_algorithms, plan_capacity

    n, dev = case.graph.num_nodes, s.device
    capacity, dtype = plan_capacity(0, np.int32, n, DEFAULTS.int32_capacity)
    engine_cls = driver(dev, "incremental", "IncrementalEngine")
    rows = []
    for order, (src, dst) in _batches(case).items():
        u, v = src.astype(dtype, copy=False), dst.astype(dtype, copy=False)
        for name in legal_algorithms(dev):
            rows.append(_insert_row(engine_cls, Variant.parse(name), capacity, dtype, u, v, n, s))
            rows[-1]["order"] = order
            rows[-1]["mode"] = f"insert-{order}"
    return rows


def _insert_row(
    engine_cls: Any, variant: Variant, capacity: int, dtype: Any, u: Any, v: Any, n: int,
    s: Settings,
) -> dict[str, Any]:  # fmt: skip
    def engine() -> Any:
        return engine_cls(variant, capacity, dtype, DEFAULTS)

    t = timed(lambda e: e.run("insert", None, u, v, 0), s, engine)
    eng = engine()
    eng.run("insert", None, u, v, 0)
    return row("concomp", "insert", t, {"components": count_roots(eng.roots(n))}, str(variant))
