"""Where GPU Borůvka spends its time: the ranking steps, alternative sorts, each round.

    PYTHONPATH=src python benchmarks/profile_msf.py [--graphs grid2048,random8M]

CUDA events, median of 5 after a warm-up, graph already on the device. Prints one
line per measured piece; used to decide what to optimise, not a benchmark of record
(that is ``device_msf.py``).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from device_msf import grid, random_graph  # noqa: E402


def timed(cp, fn, reps: int = 5) -> float:
    fn()
    cp.cuda.Device().synchronize()
    out = []
    for _ in range(reps):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b))
    return statistics.median(out)


def rounds(cp, engine, eu, ev, n):
    """Per-round time and live-edge count of ``engine.boruvka`` (same loop, with events)."""
    from concomp._gpu.kernels import BLOCK, grid_for

    dt, m = eu.dtype, int(eu.shape[0])
    parent = cp.arange(n, dtype=dt)
    comp = parent.copy()
    best = cp.full(n, np.iinfo(dt).max, dtype=dt)
    in_forest = cp.zeros(m, dtype=cp.uint8)
    split = min(m, n)
    lists = [cp.empty((3, max(split, m - split)), dtype=dt) for _ in range(2)]
    out_count = cp.zeros(1, dtype=cp.uint64)
    k_min, k_hook, k_comp = (engine._kernel(s, dt) for s in
                             ("boruvka_min_edge", "boruvka_hook", "boruvka_compress"))
    rows = []
    for first, count in ((0, split), (split, m - split)):
        listed = False
        while count:
            src, dst = lists
            e = [cp.cuda.Event() for _ in range(4)]
            e[0].record()
            out_count.fill(0)
            k_min(grid_for(count), (BLOCK,), (eu, ev, src[0], src[1], src[2], np.int32(listed),
                                               np.int64(count), np.int64(first), comp, best,
                                               dst[0], dst[1], dst[2], out_count))
            e[1].record()
            k_hook(grid_for(n), (BLOCK,), (eu, ev, comp, best, parent, in_forest, dt.type(n)))
            e[2].record()
            k_comp(grid_for(n), (BLOCK,), (parent, comp, best, dt.type(n)))
            e[3].record()
            e[3].synchronize()
            rows.append((first, count, *(cp.cuda.get_elapsed_time(a, b)
                                         for a, b in zip(e, e[1:]))))
            count, listed, lists = int(out_count.item()), True, lists[::-1]
    return rows


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

        t["total"] = timed(cp, lambda: engine.spanning_forest_ids(ds, dd, dw, n))
        cache: dict = {}
        t["total_cached"] = timed(cp, lambda: engine.spanning_forest_ids(ds, dd, dw, n,
                                                                         cache=cache))
        g = Graph.from_edges(ds, dd, n, weights=dw)
        t["api_warm"] = timed(cp, lambda: minimum_spanning_forest(g))
        t["api_cold"] = timed(cp, lambda: minimum_spanning_forest(
            Graph.from_edges(ds, dd, n, weights=dw)))
        engine.KEY_BORUVKA = False
        t["total_ranking_path"] = timed(cp, lambda: engine.spanning_forest_ids(ds, dd, dw, n))
        engine.KEY_BORUVKA = True
        t["weight_keys"] = timed(cp, lambda: engine.weight_keys(dw, m, False))
        key = engine.weight_keys(dw, m, False)
        t["edge_order"] = timed(cp, lambda: msf_keys.edge_order(ds, dd, n, dt))
        t["edge_order_rows"] = timed(cp, lambda: msf_keys._order_by_rows(ds, dd, n, dt))
        order = msf_keys.edge_order(ds, dd, n, dt)
        t["packed_keys"] = timed(cp, lambda: msf_keys.packed_keys(order, ds, dd, key))
        pk = msf_keys.packed_keys(order, ds, dd, key)
        t["boruvka_keys"] = timed(cp, lambda: msf_keys.boruvka_keys(order, pk, n, m))
        for light in (n // 2, 2 * n, 4 * n):
            t[f"boruvka_keys_light{light // n if light >= n else 0.5}n"] = timed(
                cp, lambda x=light: msf_keys.boruvka_keys(order, pk, n, m, light=x))
        trace: list = []
        msf_keys.boruvka_keys(order, pk, n, m, trace=trace)
        print(f"{name}: n={n} m={m} " + " ".join(f"{k}={v:.3f}" for k, v in t.items()),
              flush=True)
        for phase, cin, kept, live, ms in trace:
            print(f"  key round phase={phase} in={cin} kept={kept} live_roots={live} ms={ms:.3f}",
                  flush=True)
        t = {}
        del g, order, pk, cache
        word = cp.random.default_rng(1).integers(0, 2**62, m, dtype=cp.int64).view(cp.uint64)
        w32 = (word >> cp.uint64(40)).astype(cp.uint32)
        w16 = (word >> cp.uint64(48)).astype(cp.uint16)
        t["argsort_u64"] = timed(cp, lambda: cp.argsort(word))
        t["sort_u64_keys"] = timed(cp, lambda: cp.sort(word))
        t["argsort_u32"] = timed(cp, lambda: cp.argsort(w32))
        t["sort_u32_keys"] = timed(cp, lambda: cp.sort(w32))
        t["argsort_u16"] = timed(cp, lambda: cp.argsort(w16))
        order = cp.argsort(word)
        t["gather_u64"] = timed(cp, lambda: word[order])
        t["flatnonzero"] = timed(cp, lambda: cp.flatnonzero(ds != dd))
        eu, ev, eid = engine.rank_edges(ds, dd, key, n, dt)
        t["boruvka"] = timed(cp, lambda: engine.boruvka(eu, ev, n))
        ranks = engine.boruvka(eu, ev, n)
        t["final_ids"] = timed(cp, lambda: cp.sort(eid[ranks].astype(cp.int64)))
        print(f"{name}: n={n} m={m} " + " ".join(f"{k}={v:.3f}" for k, v in t.items()),
              flush=True)
        for first, count, a, b, c in rounds(cp, engine, eu, ev, n):
            print(f"  round first={first} live={count} min_edge={a:.3f} hook={b:.3f} "
                  f"compress={c:.3f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
