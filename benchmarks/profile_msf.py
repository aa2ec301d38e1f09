"""Where GPU Borůvka spends its time: edge order, keys, each round, alternative sorts.

    PYTHONPATH=src python benchmarks/profile_msf.py [--graphs grid2048,random8M]

CUDA events, median of 5 after a warm-up, graph already on the device. Prints one
line per measured piece; used to decide what to optimise, not a benchmark of record
(that is ``device_msf.py``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from device_msf import grid, random_graph  # noqa: E402

from concomp.benchsuite import gpu_median_ms  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="grid2048,random8M")
    args = ap.parse_args()
    import cupy as cp

    from concomp._gpu import msf as engine

    rng = np.random.default_rng(2)
    makers = {"grid2048": lambda: grid(2048, rng), "random8M": lambda: random_graph(1 << 23, 8, rng)}
    for name in args.graphs.split(","):
        s, d, w, n = makers[name]()
        ds, dd, dw = cp.asarray(s), cp.asarray(d), cp.asarray(w)
        m = int(ds.shape[0])
        dt = np.dtype(np.int32)
        t = {}
        from concomp._gpu import msf_keys
        from concomp.graph import Graph
        from concomp.msf import minimum_spanning_forest

        t["total"] = gpu_median_ms(lambda: engine.spanning_forest_ids(ds, dd, dw, n))
        cache: dict = {}
        t["total_cached"] = gpu_median_ms(
            lambda: engine.spanning_forest_ids(ds, dd, dw, n, cache=cache))
        g = Graph.from_edges(ds, dd, n, weights=dw)
        t["api_warm"] = gpu_median_ms(lambda: minimum_spanning_forest(g))
        t["api_cold"] = gpu_median_ms(lambda: minimum_spanning_forest(
            Graph.from_edges(ds, dd, n, weights=dw)))
        engine.KEY_BORUVKA = False
        t["total_ranking_path"] = gpu_median_ms(lambda: engine.spanning_forest_ids(ds, dd, dw, n))
        engine.KEY_BORUVKA = True
        t["weight_keys"] = gpu_median_ms(lambda: engine.weight_keys(dw, m, False))
        key = engine.weight_keys(dw, m, False)
        t["edge_order"] = gpu_median_ms(lambda: msf_keys.edge_order(ds, dd, n, dt))
        t["edge_order_rows"] = gpu_median_ms(lambda: msf_keys._order_by_rows(ds, dd, n, dt))
        order = msf_keys.edge_order(ds, dd, n, dt)
        t["packed_keys"] = gpu_median_ms(lambda: msf_keys.packed_keys(order, ds, dd, key))
        pk = msf_keys.packed_keys(order, ds, dd, key)
        t["boruvka_keys"] = gpu_median_ms(lambda: msf_keys.boruvka_keys(order, pk, n, m))
        for light in (n // 2, 2 * n, 4 * n):
            t[f"boruvka_keys_light{light // n if light >= n else 0.5}n"] = gpu_median_ms(
                lambda x=light: msf_keys.boruvka_keys(order, pk, n, m, light=x))
        trace: list = []
        msf_keys.boruvka_keys(order, pk, n, m, trace=trace)
        print(f"{name}: n={n} m={m} " + " ".join(f"{k}={v:.3f}" for k, v in t.items()),
              flush=True)
        for phase, cin, kept, live, ms in trace:
            print(f"  key round phase={phase} in={cin} kept={kept} live_roots={live} ms={ms:.3f}",
                  flush=True)
        t = {}
        g = order = pk = cache = None  # free device memory before the next measurements
        word = cp.random.default_rng(1).integers(0, 2**62, m, dtype=cp.int64).view(cp.uint64)
        w32 = (word >> cp.uint64(40)).astype(cp.uint32)
        w16 = (word >> cp.uint64(48)).astype(cp.uint16)
        t["argsort_u64"] = gpu_median_ms(lambda: cp.argsort(word))
        t["sort_u64_keys"] = gpu_median_ms(lambda: cp.sort(word))
        t["argsort_u32"] = gpu_median_ms(lambda: cp.argsort(w32))
        t["sort_u32_keys"] = gpu_median_ms(lambda: cp.sort(w32))
        t["argsort_u16"] = gpu_median_ms(lambda: cp.argsort(w16))
        order = cp.argsort(word)
        t["gather_u64"] = gpu_median_ms(lambda: word[order])
        t["flatnonzero"] = gpu_median_ms(lambda: cp.flatnonzero(ds != dd))
        ranked = msf_keys.EdgeOrder(*engine.rank_edges(ds, dd, key, n, dt))
        ranks = cp.arange(ranked.eid.shape[0], dtype=cp.uint64)
        t["boruvka_on_ranks"] = gpu_median_ms(
            lambda: msf_keys.boruvka_keys(ranked, ranks, n, m, position_bits=64))
        print(f"{name}: n={n} m={m} " + " ".join(f"{k}={v:.3f}" for k, v in t.items()),
              flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
