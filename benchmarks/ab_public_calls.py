"""A/B of two source trees through the public API on the GPU, interleaved in one run.

Each tree runs in its own process (``PYTHONPATH=<tree>``), round after round in
alternation, so both see the same machine state. A process builds the four suite
graphs on the device (with the parameters of ``concomp.generators.corpus``, passed
from this checkout so that older trees build the same graphs) and times, with the
harness's timer (``concomp.bench.timing`` of this checkout, loaded by path for the same
reason; CUDA events), the median of ``--reps`` calls after a warm-up:

- ``cc/<graph>``: ``concomp.connected_components(g)`` on a prebuilt device Graph;
- ``msf/<graph>``: ``concomp.minimum_spanning_forest(g)`` on two weighted graphs;
- ``incremental/<graph>``: one ``IncrementalConnectivity.insert`` of the whole graph
  (both directions of every edge, in CSR order) into a fresh structure;
- ``user/...``: calls as users make them, wall clock (``perf_counter`` around a call that
  ends in a device synchronisation): a fresh ``Graph.from_csr`` of device arrays per call,
  host NumPy edge pairs and a SciPy CSR sent to the GPU, spanning forests of host and
  device edge pairs, a minimum spanning forest of device pairs with float64 weights,
  and a path and a grid whose ids follow their geometry.

Usage (on a GPU machine)::

    python benchmarks/ab_public_calls.py --tree old=path/to/src --tree new=src \\
        --rounds 2 --out ab.json
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _measure():
    """``measure`` of this checkout's ``concomp.bench.timing``, whatever tree is imported
    as ``concomp`` (trees older than the harness lack it; both trees get the same timer)."""
    path = HERE.parent / "src" / "concomp" / "bench" / "timing.py"
    spec = importlib.util.spec_from_file_location("concomp_ab_timing", path)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "concomp.bench"  # its GPU import resolves in the tree under test
    sys.modules[spec.name] = module  # dataclasses look their module up while it executes
    spec.loader.exec_module(module)
    return module.measure


def _events_median(measure, fn, reps: int, setup=None) -> float:
    return measure(fn, device="gpu", reps=reps, setup=setup).median_ms


def _wall_median(measure, fn, reps: int) -> float:
    return measure(fn, device="gpu", reps=reps, wall=True).median_ms


def _suite_params() -> dict:
    """The four suite graphs' generator calls, from this checkout's corpus."""
    sys.path.insert(0, str(HERE.parent / "src"))
    from concomp.generators.corpus import select

    return {e.name: [e.source, dict(e.full), e.seed] for e in select(tags=["suite"])}


def user_paths(measure, cp, np, concomp, reps: int) -> dict:
    """Public calls on inputs that are not a prebuilt device Graph."""
    import scipy.sparse as sp

    out: dict = {}
    g = concomp.generators.rmat(20, 16, seed=1, clean=False)
    s, d = (np.asarray(a) for a in g.coo())
    n = g.num_nodes
    out["user/numpy-pair-rmat20"] = _wall_median(
        measure, lambda: concomp.connected_components((s, d), num_nodes=n, device="gpu"), reps
    )
    a = sp.csr_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(n, n))
    out["user/scipy-csr-rmat20"] = _wall_median(
        measure, lambda: concomp.connected_components(a, device="gpu"), reps
    )
    ip, ix = cp.asarray(a.indptr), cp.asarray(a.indices)
    out["user/fresh-device-graph-rmat20"] = _wall_median(
        measure,
        lambda: concomp.connected_components(concomp.Graph.from_csr(ip, ix, n)),
        reps,
    )
    cs, cd = cp.asarray(s), cp.asarray(d)
    out["user/forest-numpy-pair-rmat20"] = _wall_median(
        measure, lambda: concomp.spanning_forest((s, d), num_nodes=n, device="gpu"), reps
    )
    out["user/forest-device-pair-rmat20"] = _wall_median(
        measure, lambda: concomp.spanning_forest((cs, cd), num_nodes=n), reps
    )
    out["count/forest-rmat20"] = int(concomp.spanning_forest((cs, cd), num_nodes=n).src.shape[0])
    wf = cp.asarray(np.random.default_rng(2).random(s.shape[0]))  # wide keys: ranked edges

    def msf_float():
        return concomp.minimum_spanning_forest(concomp.as_graph((cs, cd), n, weights=wf))

    out["user/msf-float64-device-pair-rmat20"] = _wall_median(measure, msf_float, reps)
    out["weight/msf-float64-rmat20"] = float(msf_float().total_weight)
    for k in (20, 22):
        v = cp.arange(1 << k, dtype=cp.int32)
        out[f"user/path-2^{k}-ids-in-order"] = _wall_median(
            measure,
            lambda v=v: concomp.connected_components((v[:-1], v[1:]), num_nodes=int(v.size)),
            reps,
        )
        out[f"count/path-2^{k}"] = int(
            concomp.connected_components((v[:-1], v[1:]), num_nodes=int(v.size))[0]
        )
    ids = cp.arange(2048 * 2048, dtype=cp.int32).reshape(2048, 2048)
    gs = cp.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    gd = cp.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    out["user/grid-2048^2-natural"] = _wall_median(
        measure, lambda: concomp.connected_components((gs, gd), num_nodes=int(ids.size)), reps
    )
    return out


def child(reps: int, suite: dict) -> dict:
    """Run in a tree's process: every timing, as one JSON object."""
    import cupy as cp
    import numpy as np

    import concomp

    measure = _measure()
    out: dict = user_paths(measure, cp, np, concomp, reps)
    for name, (source, params, seed) in suite.items():
        g = getattr(concomp.generators, source)(**params, seed=seed, device="gpu")
        g.coo()  # the COO view is built before any timed region
        count, _ = concomp.connected_components(g)
        out[f"cc/{name}"] = _events_median(
            measure, lambda g=g: concomp.connected_components(g), reps
        )
        out[f"count/{name}"] = int(count)
        src, dst = g.coo()
        n = g.num_nodes

        def fresh(n=n):
            return concomp.IncrementalConnectivity(n, device="gpu")

        out[f"incremental/{name}"] = _events_median(
            measure, lambda ic, s=src, d=dst: ic.insert(s, d), reps, setup=fresh
        )
        del g, src, dst
        cp.get_default_memory_pool().free_all_blocks()
    for name, gw in (
        ("grid2048", concomp.generators.grid(2048, 2048, device="gpu", weights="int", seed=5)),
        (
            "gnm8M_deg8",
            concomp.generators.gnm(1 << 23, 1 << 25, device="gpu", weights="int", seed=5),
        ),
    ):
        f = concomp.minimum_spanning_forest(gw)
        out[f"msf/{name}"] = _events_median(
            measure, lambda gw=gw: concomp.minimum_spanning_forest(gw), reps
        )
        out[f"weight/{name}"] = float(f.total_weight)
        del gw
        cp.get_default_memory_pool().free_all_blocks()
    out["device"] = cp.cuda.runtime.getDeviceProperties(0)["name"].decode()
    out["numpy"] = np.__version__
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", action="append", required=True, help="label=path/to/src")
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.reps, json.loads(args.child))))
        return
    suite = json.dumps(_suite_params())
    trees = dict(t.split("=", 1) for t in args.tree)
    runs: dict[str, list[dict]] = {label: [] for label in trees}
    for r in range(args.rounds):
        for label, path in trees.items():
            env = dict(os.environ, PYTHONPATH=f"{Path(path).resolve()}{os.pathsep}{HERE}")
            res = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--child",
                    suite,
                    "--reps",
                    str(args.reps),
                    "--tree",
                    "x=y",
                ],
                env=env,
                capture_output=True,
                text=True,
                check=False,
            )
            if res.returncode:
                sys.exit(f"{label} round {r}: {res.stderr[-3000:]}")
            runs[label].append(json.loads(res.stdout.strip().splitlines()[-1]))
    keys = [
        k
        for k in runs[next(iter(trees))][0]
        if k.split("/")[0] in ("cc", "msf", "incremental", "user")
    ]
    table = {k: {label: [run[k] for run in rs] for label, rs in runs.items()} for k in keys}
    labels = list(trees)
    print(f"{'ms (median per round)':28s}" + "".join(f"{lab:>22s}" for lab in labels))
    for k, row in table.items():
        print(
            f"{k:28s}"
            + "".join(f"{' / '.join(f'{x:.3f}' for x in row[lab]):>22s}" for lab in labels)
        )
    if args.out:  # written before the check, so a mismatch keeps its numbers
        args.out.write_text(json.dumps({"trees": trees, "rounds": runs, "table": table}, indent=1))
    for k in runs[labels[0]][0]:
        if k.split("/")[0] in ("count", "weight"):
            vals = {lab: runs[lab][0][k] for lab in labels}
            if len(set(vals.values())) != 1:
                sys.exit(f"results differ between trees: {k} {vals}")


if __name__ == "__main__":
    main()
