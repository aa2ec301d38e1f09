"""A/B of two source trees through the public API on the GPU, interleaved in one run.

Each tree runs in its own process (``PYTHONPATH=<tree>``), round after round in
alternation, so both see the same machine state. A process builds the four suite
graphs on the device (``gpu_suite.make``) and times, with CUDA events, the median
of ``--reps`` calls after a warm-up:

- ``cc/<graph>``: ``concomp.connected_components(g)`` on a prebuilt device Graph;
- ``msf/<graph>``: ``concomp.minimum_spanning_forest(g)`` on two weighted graphs;
- ``incremental/<graph>``: one ``IncrementalConnectivity.insert`` of the whole graph
  (both directions of every edge, in CSR order) into a fresh structure;
- ``user/...``: calls as users make them, wall clock (``perf_counter`` around a call that
  ends in a device synchronisation): a fresh ``Graph.from_csr`` of device arrays per call,
  host NumPy edge pairs and a SciPy CSR sent to the GPU, and a path and a grid whose ids
  follow their geometry.

Usage (on a GPU machine)::

    python benchmarks/ab_public_calls.py --tree old=path/to/src --tree new=src \\
        --rounds 2 --out ab.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _events_median(cp, fn, reps: int, setup=None) -> float:
    if setup is not None:
        setup()
    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        state = setup() if setup is not None else None
        cp.cuda.Device().synchronize()
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn() if state is None else fn(state)
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def _wall_median(cp, fn, reps: int) -> float:
    import time

    fn()
    cp.cuda.Device().synchronize()
    times = []
    for _ in range(reps):
        start = time.perf_counter()
        fn()
        cp.cuda.Device().synchronize()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def user_paths(cp, np, concomp, reps: int) -> dict:
    """Public calls on inputs that are not a prebuilt device Graph."""
    import scipy.sparse as sp

    out: dict = {}
    g = concomp.generators.rmat(20, 16, seed=1, clean=False)
    s, d = (np.asarray(a) for a in g.coo())
    n = g.num_nodes
    out["user/numpy-pair-rmat20"] = _wall_median(
        cp, lambda: concomp.connected_components((s, d), num_nodes=n, device="gpu"), reps
    )
    a = sp.csr_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(n, n))
    out["user/scipy-csr-rmat20"] = _wall_median(
        cp, lambda: concomp.connected_components(a, device="gpu"), reps
    )
    ip, ix = cp.asarray(a.indptr), cp.asarray(a.indices)
    out["user/fresh-device-graph-rmat20"] = _wall_median(
        cp,
        lambda: concomp.connected_components(concomp.Graph.from_csr(ip, ix, n)),
        reps,
    )
    for k in (20, 22):
        v = cp.arange(1 << k, dtype=cp.int32)
        out[f"user/path-2^{k}-ids-in-order"] = _wall_median(
            cp,
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
        cp, lambda: concomp.connected_components((gs, gd), num_nodes=int(ids.size)), reps
    )
    return out


def child(reps: int) -> dict:
    """Run in a tree's process: every timing, as one JSON object."""
    import cupy as cp
    import numpy as np

    import concomp
    from gpu_suite import make

    out: dict = user_paths(cp, np, concomp, reps)
    for name in ("rmat22", "er22", "gridp4k", "cong22"):
        g = make(name)
        count, _ = concomp.connected_components(g)
        out[f"cc/{name}"] = _events_median(cp, lambda g=g: concomp.connected_components(g), reps)
        out[f"count/{name}"] = int(count)
        src, dst = g.coo()
        n = g.num_nodes

        def fresh(n=n):
            return concomp.IncrementalConnectivity(n, device="gpu")

        out[f"incremental/{name}"] = _events_median(
            cp, lambda ic=None, s=src, d=dst: (ic or fresh()).insert(s, d), reps, setup=fresh
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
            cp, lambda gw=gw: concomp.minimum_spanning_forest(gw), reps
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
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.reps)))
        return
    trees = dict(t.split("=", 1) for t in args.tree)
    runs: dict[str, list[dict]] = {label: [] for label in trees}
    for r in range(args.rounds):
        for label, path in trees.items():
            env = dict(os.environ, PYTHONPATH=f"{Path(path).resolve()}{os.pathsep}{HERE}")
            res = subprocess.run(
                [sys.executable, __file__, "--child", "--reps", str(args.reps), "--tree", "x=y"],
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
    for k in runs[labels[0]][0]:
        if k.split("/")[0] in ("count", "weight"):
            vals = {lab: runs[lab][0][k] for lab in labels}
            if len(set(vals.values())) != 1:
                sys.exit(f"results differ between trees: {k} {vals}")
    if args.out:
        args.out.write_text(json.dumps({"trees": trees, "rounds": runs, "table": table}, indent=1))


if __name__ == "__main__":
    main()
