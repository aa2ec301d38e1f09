"""A graph run once, on the GPU: the public call on a fresh graph object, and where its time goes.

Most graphs are built and run once, so the call a user sees is ``connected_components``
on a new :class:`concomp.Graph`: validation, ``auto``'s statistics and the run, with no
CUDA graph to replay. For each corpus graph (on the device), wall-clock medians of
``--reps`` calls after a warm-up (``concomp.bench.timing``, ``wall=True``: from the
call to a device synchronisation):

- ``fresh_csr``: ``connected_components(Graph.from_csr(indptr, indices, symmetric=True))``,
  the graph's symmetric CSR as device arrays;
- ``fresh_pairs``: ``connected_components(Graph.from_edges(src, dst))`` with each edge
  once (``src < dst``), in CSR order, as device arrays;
- ``internal``: the variant's engine driver on a prebuilt graph (the run alone; from
  its second call a replayed CUDA graph);

for ``algorithm="auto"`` and for the unsampled finish on either layout
(``none-rem_cas-splice-coo`` / ``-csr``), and the stages of a fresh ``auto`` call from
the CSR, each ended by a device synchronisation: ``validate`` (``Graph.from_csr``),
``choose`` (``auto``'s statistics), ``run`` (the variant, launched directly) and
``count``. Writes JSON to ``--out``.

    PYTHONPATH=src python benchmarks/bench_fresh_calls.py --out fresh.json
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

GRAPHS = (
    "road-luxembourg", "inet-as-caida", "cit-hep-ph", "soc-github", "mesh-delaunay-n16",
    "road-usa-nw", "rmat22", "tree-dfs", "comb", "path-natural", "grid2d-natural",
)  # fmt: skip
UNSAMPLED = ("none-rem_cas-splice-coo", "none-rem_cas-splice-csr")


def stages(cp, concomp, indptr, indices, n: int, reps: int) -> dict[str, float]:
    """Medians of the stages of a fresh ``auto`` call, each ended by a synchronisation."""
    from concomp._dispatch import driver
    from concomp.options import DEFAULTS

    auto = driver("gpu", "components", "auto_variant")
    roots = driver("gpu", "components", "component_roots")
    count = driver("gpu", "components", "count_roots")
    sync = cp.cuda.Device().synchronize
    times: dict[str, list[float]] = {"validate": [], "choose": [], "run": [], "count": []}
    for i in range(reps + 1):
        sync()
        t = [time.perf_counter()]
        g = concomp.Graph.from_csr(indptr, indices, n, symmetric=True)
        sync()
        t.append(time.perf_counter())
        v = auto(g, DEFAULTS)
        sync()
        t.append(time.perf_counter())
        r = roots(g, v, DEFAULTS)
        sync()
        t.append(time.perf_counter())
        count(r)
        sync()
        t.append(time.perf_counter())
        if i:  # the first round is the warm-up
            for k, key in enumerate(times):
                times[key].append((t[k + 1] - t[k]) * 1e3)
    return {k: float(np.median(v)) for k, v in times.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", nargs="*", default=list(GRAPHS))
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()

    import cupy as cp

    import concomp
    from concomp._dispatch import driver
    from concomp.bench.results import machine, versions
    from concomp.bench.timing import measure
    from concomp.generators.corpus import CORPUS
    from concomp.options import DEFAULTS
    from concomp.variants import Variant

    def wall(fn) -> float:
        return measure(fn, device="gpu", reps=args.reps, wall=True).median_ms

    auto = driver("gpu", "components", "auto_variant")
    roots = driver("gpu", "components", "component_roots")
    cc = concomp.connected_components
    doc: dict = {
        "benchmark": "fresh-calls",
        "command": "python benchmarks/bench_fresh_calls.py "
        + " ".join([f"--reps {args.reps}", "--graphs", *args.graphs]),
        "machine": machine("gpu"),
        "versions": versions(),
        "clock": "perf_counter around the call and a device synchronisation (wall=True)",
        "graphs": {},
    }
    for name in args.graphs:
        g = CORPUS[name].build("gpu")
        indptr, indices, _ = g.csr()
        n = g.num_nodes
        src, dst = g.coo()
        one_way = src < dst
        us, ud = src[one_way].copy(), dst[one_way].copy()
        csr_graph = concomp.Graph.from_csr(indptr, indices, n, symmetric=True)
        pairs_graph = concomp.Graph.from_edges(us, ud, n)
        row: dict = {
            "n": n,
            "entries": int(indices.shape[0]),
            "auto_on_csr": str(auto(csr_graph, DEFAULTS)),
            "auto_on_pairs": str(auto(pairs_graph, DEFAULTS)),
            "ms": {},
        }
        for algo in ("auto", *UNSAMPLED):
            variant = Variant.parse(row["auto_on_csr"] if algo == "auto" else algo)
            prebuilt = concomp.Graph.from_csr(indptr, indices, n, symmetric=True)

            def fresh_csr(a=algo):
                g1 = concomp.Graph.from_csr(indptr, indices, n, symmetric=True)
                return cc(g1, device="gpu", algorithm=a, return_labels=False)

            def fresh_pairs(a=algo):
                return cc(concomp.Graph.from_edges(us, ud, n), device="gpu", algorithm=a,
                          return_labels=False)  # fmt: skip

            row["ms"][algo] = {
                "internal": wall(lambda v=variant, p=prebuilt: roots(p, v, DEFAULTS)),
                "fresh_csr": wall(fresh_csr),
                "fresh_pairs": wall(fresh_pairs),
            }
        row["stages_fresh_csr_auto"] = stages(cp, concomp, indptr, indices, n, args.reps)
        doc["graphs"][name] = row
        ms = row["ms"]
        print(
            f"{name}: auto {row['auto_on_csr']} / {row['auto_on_pairs']}; "
            + "; ".join(
                f"{a.split('-')[-1] if a != 'auto' else a} "
                + "/".join(f"{ms[a][k]:.3f}" for k in ("internal", "fresh_csr", "fresh_pairs"))
                for a in ms
            )
            + "; stages "
            + " ".join(f"{k}={v:.3f}" for k, v in row["stages_fresh_csr_auto"].items()),
            flush=True,
        )
        del g, csr_graph, pairs_graph, prebuilt
        cp.get_default_memory_pool().free_all_blocks()
    args.out.write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
