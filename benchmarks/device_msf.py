"""GPU minimum spanning forest: correctness check and timings on the GPU machine.

Run from the repository root on a machine with a CUDA GPU and CuPy::

    PYTHONPATH=src python benchmarks/device_msf.py [--quick] [--out FILE.json]

1. Checks GPU Borůvka and GPU Prim against the CPU engine (and the pure-Python
   oracle on the small graphs), int32 and int64 kernels, minimum and maximum.
2. Times, with CUDA events (warm-up, median of 5), the graph already on the
   device: GPU Borůvka end to end (packed keys; nothing is kept between calls),
   through the public ``minimum_spanning_forest`` too (on one ``Graph`` and on a
   new ``Graph`` per call), the ranking path (sorts by weight every call) and its
   parts, on a 2048 x 2048 grid with uniform integer weights in [0, 1e6] and a
   uniform random graph with 8,388,608 vertices and 33,554,432 edges (average
   degree 8, uniform integer weights in [1, 1e6]); SciPy's
   ``minimum_spanning_tree`` (CSR built beforehand, one run) and the concomp CPU
   engine on the same graphs.
3. GPU Prim (Wang et al.) runs one step per vertex, so on those graphs it is
   timed over its first steps and extrapolated; a sweep over grids of growing
   size shows where it stops being competitive, with and without CUDA graphs.

Graphs are generated with plain NumPy.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from concomp._gpu import msf_rank
from concomp.benchsuite import gpu_median_ms


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


def boruvka_on_ranks(eu, ev, eid, n: int, m: int, light: int | None = None):
    """GPU Borůvka over ranked edges (the ranking path's rounds, without the ranking)."""
    from concomp._gpu import msf_keys

    return msf_keys.boruvka(eu, ev, n, m, eu.dtype, eid=eid, light=light)


def check(cp, engine) -> list[str]:
    """GPU results against the CPU engine / oracle; returns failure messages."""
    from concomp._cpu import msf as cpu
    from concomp.testing.msf import kruskal_reference

    rng = np.random.default_rng(0)
    cases = {
        "grid64_ints": grid(64, rng),
        "rand_ties": (
            *[rng.integers(0, 5000, 20000) for _ in range(2)],
            rng.integers(0, 3, 20000),
            5000,
        ),
        "rand_float_neg": (
            *[rng.integers(0, 3000, 6000) for _ in range(2)],
            rng.normal(size=6000),
            3000,
        ),
        "sparse_forest": (
            *[rng.integers(0, 20000, 8000) for _ in range(2)],
            rng.random(8000),
            20000,
        ),
        "grid512_ints": grid(512, rng),
    }
    failures = []
    for name, (s, d, w, n) in cases.items():
        for maximum in (False, True):
            key = cpu.weight_keys(w, w.size, maximum)
            expect = (
                kruskal_reference(s, d, w, n, maximum=maximum)
                if s.size <= 20000
                else cpu.kruskal(s, d, key, n)
            )
            for algorithm in ("boruvka", "prim"):
                for dt in (np.int32, np.int64):
                    got = engine.msf_edge_ids(
                        cp.asarray(s),
                        cp.asarray(d),
                        cp.asarray(w),
                        n,
                        algorithm=algorithm,
                        maximum=maximum,
                        index_dtype=dt,
                    )
                    ok = np.array_equal(cp.asnumpy(got), expect)
                    tag = f"{name} {algorithm} {np.dtype(dt).name} max={maximum}"
                    print(f"  check {tag:45s} {'ok' if ok else 'FAILED'}", flush=True)
                    if not ok:
                        failures.append(tag)
    return failures


def time_graph(cp, engine, name: str, graph: tuple, prim_steps: int) -> dict:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import minimum_spanning_tree

    from concomp._cpu import msf as cpu

    s, d, w, n = graph
    m = s.size
    ds, dd, dw = cp.asarray(s), cp.asarray(d), cp.asarray(w)
    row = {"graph": name, "n": n, "m": m}
    # nothing is kept between calls: every call is a first call on the graph
    row["gpu_boruvka_ms"] = gpu_median_ms(lambda: engine.msf_edge_ids(ds, dd, dw, n))
    from concomp.graph import Graph
    from concomp.msf import minimum_spanning_forest

    g = Graph.from_edges(ds, dd, n, weights=dw)
    row["api_same_graph_ms"] = gpu_median_ms(lambda: minimum_spanning_forest(g))
    row["api_new_graph_ms"] = gpu_median_ms(
        lambda: minimum_spanning_forest(Graph.from_edges(ds, dd, n, weights=dw))
    )
    row["gpu_ranking_path_ms"] = gpu_median_ms(
        lambda: engine.msf_edge_ids(ds, dd, dw, n, packed_keys=False)
    )
    g = None  # free device memory before the next measurements
    key = msf_rank.weight_keys(dw, m, False)
    row["gpu_rank_ms"] = gpu_median_ms(
        lambda: msf_rank.rank_edges(ds, dd, key, n, np.dtype(np.int32))
    )
    eu, ev, eid = msf_rank.rank_edges(ds, dd, key, n, np.dtype(np.int32))
    row["gpu_boruvka_rounds_ms"] = gpu_median_ms(lambda: boruvka_on_ranks(eu, ev, eid, n, m))
    for label, light in (("0", 0), ("n/2", n // 2), ("2n", 2 * n)):  # default: n
        row[f"gpu_boruvka_rounds_ms_light_{label}"] = gpu_median_ms(
            lambda x=light: boruvka_on_ranks(eu, ev, eid, n, m, light=x)
        )
    # the difference of two step counts cancels Prim's setup (adjacency build)
    short, long_ = (
        gpu_median_ms(lambda s_=s_: engine.prim(eu, ev, n, max_steps=s_), reps=3)
        for s_ in (prim_steps, 2 * prim_steps)
    )
    row["gpu_prim_step_us"] = 1e3 * (long_ - short) / prim_steps
    row["gpu_prim_est_s"] = row["gpu_prim_step_us"] * n / 1e6
    t0 = time.perf_counter()
    ids = cpu.kruskal(s, d, cpu.weight_keys(w, m), n)
    row["cpu_kruskal_s"] = time.perf_counter() - t0
    gpu_ids = cp.asnumpy(engine.msf_edge_ids(ds, dd, dw, n))
    row["gpu_equals_cpu"] = bool(np.array_equal(gpu_ids, ids))
    order = np.argsort(s, kind="stable")  # CSR entry by entry: SciPy must not sum duplicates
    indptr = np.concatenate([[0], np.cumsum(np.bincount(s, minlength=n))])
    A = sp.csr_array(((w + 1.0)[order], d[order], indptr), shape=(n, n))  # +1: no zero weights
    t0 = time.perf_counter()
    minimum_spanning_tree(A)
    row["scipy_s"] = time.perf_counter() - t0
    row["gpu_boruvka_edges_per_s"] = m / (row["gpu_boruvka_ms"] / 1e3)
    return row


def prim_sweep(cp, engine, sizes: list[int]) -> list[dict]:
    """GPU Prim (graph / plain launches) vs GPU Borůvka and CPU Kruskal on k x k grids."""
    from concomp._cpu import msf as cpu

    rng = np.random.default_rng(1)
    rows = []
    for k in sizes:
        s, d, w, n = grid(k, rng)
        ds, dd, dw = cp.asarray(s), cp.asarray(d), cp.asarray(w)
        eu, ev, eid = msf_rank.rank_edges(
            ds, dd, msf_rank.weight_keys(dw, s.size, False), n, np.dtype(np.int32)
        )
        row = {"grid": f"{k}x{k}", "n": n}
        run = {
            "prim_graph_ms": lambda e=(eu, ev, n): engine.prim(*e),
            "prim_plain_ms": lambda e=(eu, ev, n): engine.prim(*e, use_graph=False),
            "boruvka_ms": lambda e=(eu, ev, eid, n, s.size): boruvka_on_ranks(*e),
        }
        for label, fn in run.items():
            if label != "prim_plain_ms" or n <= 65536:  # plain launches: small grids only
                row[label] = gpu_median_ms(fn, reps=3 if label.startswith("prim") else 5)
        args = (s, d, cpu.weight_keys(w, w.size), n)
        prim_args = (*args, _csr(s, d, n))
        for label, fn in (
            ("cpu_kruskal_ms", lambda a=args: cpu.kruskal(*a)),
            ("cpu_prim_ms", lambda a=prim_args: cpu.prim(*a)),
        ):
            fn()  # numba compiles on the first call
            t0 = time.perf_counter()
            fn()
            row[label] = 1e3 * (time.perf_counter() - t0)
        rows.append(row)
        print(
            "  "
            + "  ".join(
                f"{k_}={v:.3g}" if isinstance(v, float) else f"{k_}={v}" for k_, v in row.items()
            ),
            flush=True,
        )
    return rows


def _csr(s, d, n):
    from concomp.graph import Graph

    return Graph.from_edges(s, d, n).undirected_csr()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="smaller graphs (smoke test)")
    ap.add_argument("--out", help="write the results as JSON here")
    args = ap.parse_args()
    from concomp._gpu._compat import device_info, gpu_status

    ok, reason = gpu_status()
    if not ok:
        print(f"no usable GPU: {reason}")
        return 2
    import cupy as cp

    from concomp._gpu import msf as engine

    print(f"device: {device_info()['name']}, CuPy {cp.__version__}")
    print("correctness (GPU vs CPU engine / oracle):")
    failures = check(cp, engine)
    rng = np.random.default_rng(2)
    graphs = (
        {"grid512": grid(512, rng), "random_n262k_deg8": random_graph(1 << 18, 8, rng)}
        if args.quick
        else {"grid2048": grid(2048, rng), "random_n8M_deg8": random_graph(1 << 23, 8, rng)}
    )
    print("timings (graph on the device; GPU: CUDA events, median of 5 after warm-up):")
    rows = []
    for name, g in graphs.items():
        rows.append(time_graph(cp, engine, name, g, prim_steps=2048))
        print("  " + json.dumps(rows[-1]), flush=True)
    print("GPU Prim sweep (k x k grids, uniform integer weights):")
    sweep = prim_sweep(cp, engine, [32, 64, 128, 256] if args.quick else [32, 64, 128, 256, 512])
    _print_table(rows)
    if args.out:
        with open(args.out, "w") as fh:
            json.dump({"timings": rows, "prim_sweep": sweep, "failures": failures}, fh, indent=1)
    print("FAILURES: " + ", ".join(failures) if failures else "all checks passed")
    return 1 if failures else 0


def _print_table(rows: list[dict]) -> None:
    head = (
        f"{'graph':20s} {'n':>10s} {'m':>11s} {'GPU ms':>8s} "
        f"{'API ms':>9s} {'API new g':>9s} {'ranking':>8s} {'Medges/s':>9s} "
        f"{'Prim est s':>11s} {'CPU s':>7s} {'SciPy s':>8s} {'SciPy/GPU':>10s}"
    )
    print(head)
    for r in rows:
        print(
            f"{r['graph']:20s} {r['n']:>10,d} {r['m']:>11,d} {r['gpu_boruvka_ms']:>8.2f} "
            f"{r['api_same_graph_ms']:>9.2f} "
            f"{r['api_new_graph_ms']:>9.2f} {r['gpu_ranking_path_ms']:>8.2f} "
            f"{r['gpu_boruvka_edges_per_s'] / 1e6:>9.0f} {r['gpu_prim_est_s']:>11.1f} "
            f"{r['cpu_kruskal_s']:>7.2f} {r['scipy_s']:>8.2f} "
            f"{r['scipy_s'] * 1e3 / r['gpu_boruvka_ms']:>10.0f}"
        )


if __name__ == "__main__":
    sys.exit(main())
