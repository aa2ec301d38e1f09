"""Host data on the GPU: every host input kind, end to end, against the streaming engine.

For R-MAT graphs (ids permuted, each undirected edge once, shuffled), times the
public ``connected_components`` call (labels back to the host) on every host input
kind with ``device="gpu"``, ``"auto"`` and ``"cpu"``, next to ``stream_components``
on the same NumPy pair, SciPy's ``connected_components`` on the symmetric CSR, and
the pinned host-to-device bandwidth of the machine. A size sweep times the CPU
engine and the GPU on NumPy pairs of growing size, which is where
``device="auto"`` has to switch. Wall clock (``perf_counter``), median of
``--reps`` after a warm-up; the counts of every call must agree.

Usage (GPU machine)::

    python benchmarks/bench_host_input.py --scales 22 24 --out host_input.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import concomp
from concomp.streaming import stream_components


def timed(fn, reps: int) -> tuple[float, list[float], object]:
    out = fn()
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        out = fn()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times), times, out


def count_of(out) -> int:
    return int(out[0] if isinstance(out, tuple) else out)


def pinned_bandwidth() -> float:
    """Host-to-device GB/s of one 1 GiB copy from page-locked memory (median of 5)."""
    import cupy as cp
    import cupyx

    h = cupyx.empty_pinned(1 << 28, np.int32)
    h[:] = 1
    d = cp.empty(1 << 28, np.int32)
    ts = []
    for _ in range(6):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        d.set(h)
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t)
    return h.nbytes / statistics.median(ts[1:]) / 1e9


def rmat_host(scale: int, seed: int = 1) -> tuple[np.ndarray, np.ndarray, int]:
    g = concomp.generators.rmat(scale, 16, seed=seed, device="gpu")
    s, d = (a.get().astype(np.int64) for a in g.coo())
    keep = s < d  # each undirected edge once
    s, d = s[keep], d[keep]
    order = np.random.default_rng(seed).permutation(s.shape[0])
    return s[order], d[order], g.num_nodes


def kinds(s, d, n) -> dict:
    import pandas as pd
    import torch

    one = sp.csr_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(n, n))
    out = {
        "numpy pair int64": (s, d),
        "(2, m) int32": np.stack([s, d]).astype(np.int32),
        "scipy csr one direction": one,
        "scipy csr symmetric": (one + one.T).tocsr(),
        "pandas frame": pd.DataFrame({"src": s, "dst": d}),
        "torch cpu edge_index": torch.from_numpy(np.stack([s, d])),
    }
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="+", default=[22])
    ap.add_argument("--sweep", type=int, nargs="*", default=[14, 16, 18, 20, 22, 24])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--scipy-max-scale", type=int, default=22)
    ap.add_argument("--out")
    args = ap.parse_args()
    res: dict = {
        "machine": {"cpu": platform.processor(), "cores": os.cpu_count()},
        "pinned_h2d_gbs": pinned_bandwidth(),
        "graphs": {},
        "sweep": [],
    }
    print(f"pinned host-to-device: {res['pinned_h2d_gbs']:.1f} GB/s", flush=True)
    for scale in args.scales:
        s, d, n = rmat_host(scale)
        m = int(s.shape[0])
        row: dict = {"n": n, "m": m, "times_ms": {}}
        med, ts, out = timed(lambda s=s, d=d, n=n: stream_components([(s, d)], n, device="gpu"), 5)
        ref = count_of(out)
        row["count"] = ref
        row["times_ms"]["stream_components gpu"] = ts
        print(f"rmat{scale} n={n} m={m} components={ref}", flush=True)
        print(f"  {'stream_components gpu':34s} {med:9.1f} ms", flush=True)
        for name, graph in kinds(s, d, n).items():
            for dev in ("gpu", "auto", "cpu"):
                key = f"{name} / {dev}"
                med, ts, out = timed(
                    lambda graph=graph, dev=dev: concomp.connected_components(
                        graph, num_nodes=n, device=dev
                    ),
                    args.reps,
                )
                if count_of(out) != ref:
                    raise SystemExit(f"{key}: {count_of(out)} components, expected {ref}")
                row["times_ms"][key] = ts
                print(f"  {key:34s} {med:9.1f} ms", flush=True)
            if name == "scipy csr symmetric" and scale <= args.scipy_max_scale:
                med, ts, out = timed(lambda graph=graph: scipy_cc(graph, directed=False), args.reps)
                if count_of(out) != ref:
                    raise SystemExit(f"scipy: {count_of(out)} components, expected {ref}")
                row["times_ms"]["scipy.sparse.csgraph symmetric csr"] = ts
                print(f"  {'scipy csgraph (symmetric csr)':34s} {med:9.1f} ms", flush=True)
        row["bytes_int64_pairs"] = int(s.nbytes + d.nbytes)
        res["graphs"][f"rmat{scale}"] = row
        del s, d
    for scale in args.sweep:
        s, d, n = rmat_host(scale, seed=7)
        for dev in ("cpu", "gpu", "auto"):
            med, ts, _ = timed(
                lambda s=s, d=d, n=n, dev=dev: concomp.connected_components(
                    (s, d), num_nodes=n, device=dev
                ),
                args.reps,
            )
            res["sweep"].append(
                {"scale": scale, "m": int(s.shape[0]), "device": dev, "times_ms": ts}
            )
            print(f"sweep rmat{scale} m={s.shape[0]:>10d} {dev:5s} {med:9.2f} ms", flush=True)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
