"""Where GPU Borůvka spends its time: keys, each round, light splits, the ranking path.

    PYTHONPATH=src python benchmarks/profile/profile_msf.py [--graphs grid2048,random8M]

CUDA events, median of 5 after a warm-up, graph already on the device. Prints one
line per measured piece; used to decide what to optimise, not a benchmark of record
(that is ``python -m concomp.bench msf``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from concomp.bench.timing import measure


def gpu_median_ms(fn) -> float:
    return measure(fn, device="gpu").median_ms


def grid(k: int, rng) -> tuple:
    idx = np.arange(k * k, dtype=np.int32).reshape(k, k)
    s = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    d = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return s, d, rng.integers(0, 1_000_001, s.size, dtype=np.int64), k * k


def random_graph(n: int, avg_degree: int, rng) -> tuple:
    m = n * avg_degree // 2
    s = rng.integers(0, n, m, dtype=np.int32)
    d = rng.integers(0, n, m, dtype=np.int32)
    return s, d, rng.integers(1, 1_000_001, m, dtype=np.int64), n


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="grid2048,random8M")
    args = ap.parse_args()
    import cupy as cp

    from concomp._gpu import msf as engine
    from concomp._gpu import msf_rank

    rng = np.random.default_rng(2)
    makers = {
        "grid2048": lambda: grid(2048, rng),
        "random8M": lambda: random_graph(1 << 23, 8, rng),
    }
    for name in args.graphs.split(","):
        s, d, w, n = makers[name]()
        ds, dd, dw = cp.asarray(s), cp.asarray(d), cp.asarray(w)
        m = int(ds.shape[0])
        dt = np.dtype(np.int32)
        t = {}
        from concomp._gpu import msf_keys
        from concomp.graph import Graph
        from concomp.msf import minimum_spanning_forest

        t["total"] = gpu_median_ms(lambda: engine.msf_edge_ids(ds, dd, dw, n))
        g = Graph.from_edges(ds, dd, n, weights=dw)
        t["api_same_graph"] = gpu_median_ms(lambda: minimum_spanning_forest(g))
        t["api_new_graph"] = gpu_median_ms(
            lambda: minimum_spanning_forest(Graph.from_edges(ds, dd, n, weights=dw))
        )
        t["total_ranking_path"] = gpu_median_ms(
            lambda: engine.msf_edge_ids(ds, dd, dw, n, packed_keys=False)
        )
        t["weight_keys"] = gpu_median_ms(lambda: msf_rank.weight_keys(dw, m, False))
        code = msf_rank.weight_keys(dw, m, False)
        t["key_stats"] = gpu_median_ms(lambda: msf_keys.key_stats(ds, dd, code))
        kmin = msf_keys.key_stats(ds, dd, code)[0]
        t["boruvka"] = gpu_median_ms(
            lambda: msf_keys.boruvka(ds, dd, n, m, dt, code=code, kmin=kmin)
        )
        for light in (n // 2, 2 * n, 4 * n):
            t[f"boruvka_light{light // n if light >= n else 0.5}n"] = gpu_median_ms(
                lambda x=light: msf_keys.boruvka(ds, dd, n, m, dt, code=code, kmin=kmin, light=x)
            )
        for batch in (1, 8):
            msf_keys.ROUND_BATCH, saved = batch, msf_keys.ROUND_BATCH
            t[f"boruvka_round_batch{batch}"] = gpu_median_ms(
                lambda: msf_keys.boruvka(ds, dd, n, m, dt, code=code, kmin=kmin)
            )
            msf_keys.ROUND_BATCH = saved
        trace: list = []
        msf_keys.boruvka(ds, dd, n, m, dt, code=code, kmin=kmin, trace=trace)
        print(f"{name}: n={n} m={m} " + " ".join(f"{k}={v:.3f}" for k, v in t.items()), flush=True)
        for phase, rounds, ms in trace:
            print(f"  phase={phase} round={rounds} ms={ms:.3f}", flush=True)
        t = {}
        g = None  # free device memory before the next measurements
        ranked = msf_rank.rank_edges(ds, dd, code, n, dt)
        t["rank_edges"] = gpu_median_ms(lambda: msf_rank.rank_edges(ds, dd, code, n, dt))
        t["boruvka_on_ranks"] = gpu_median_ms(
            lambda: msf_keys.boruvka(ranked[0], ranked[1], n, m, dt, eid=ranked[2])
        )
        print(f"{name}: n={n} m={m} " + " ".join(f"{k}={v:.3f}" for k, v in t.items()), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
