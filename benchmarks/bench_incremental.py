"""Incremental connectivity throughput: batch size, insert/query mix, all edges as one batch.

Usage (GPU, graphs from ``gpu_suite``; ``--quick`` for small ones, and on a machine
without a GPU it runs the CPU engine on ``concomp.generators.suite(quick=True)``)::

    PYTHONPATH=src python benchmarks/bench_incremental.py --out benchmarks/results/incremental \
        [--graphs rmat22,er22,gridp4k,cong22] [--reps 5] [--quick] [--device cpu|gpu]

The stream is the graph's COO list with both directions (as GConn's reference feeds
it), randomly permuted. Timings: CUDA events around the region (``time.perf_counter``
on the CPU), one warm-up, median of ``--reps``, each on a fresh structure. Rows:

- ``one_batch``: every edge as a single insert batch. ``api`` is the public
  ``insert`` (validation reduction, one host sync, the insert kernel); ``kernel``
  calls the engine directly (validated already), the number GConn reports;
- ``batch_size``: streams of batches of 1e3 .. 1e8 edges (capped by the stream; at
  most ``--max-batches`` batches per run), ``api`` and ``kernel`` as above (one
  call per batch), ``stream`` one ``insert_batches`` call for the whole stream
  (validated once, no host sync per batch), plus the per-batch floor (time per
  batch at the smallest batch size);
- ``ratio``: one mixed batch of inserts and random-pair queries at several
  inserts:queries ratios (ops/s counts both).

Writes ``incremental.csv`` and ``incremental.json`` under ``--out`` and prints a table
against the targets of ``reference-numbers.md``.
"""

from __future__ import annotations

import argparse
import csv
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import concomp
from concomp.incremental import IncrementalConnectivity

#: GConn on the H100, all edges (both directions) as one batch, ms (reference-numbers.md).
TARGET_MS = {"rmat22": 1.57, "er22": 1.73, "gridp4k": 2.98, "cong22": 1.73}
TARGET_SMALL_BATCH_EPS = 1e9  # edges/s with batches of 1e4 edges
BATCH_SIZES = (10**3, 10**4, 10**5, 10**6, 10**7, 10**8)
RATIOS = (("inf", float("inf")), ("10:1", 10.0), ("1:1", 1.0), ("1:10", 0.1))
MAX_RATIO_OPS = 1 << 26


class Timer:
    """Median of ``reps`` timed runs after one warm-up; ``setup`` runs untimed before each."""

    def __init__(self, device: str, reps: int) -> None:
        self.device, self.reps = device, reps
        if device == "gpu":
            import cupy

            self.cp = cupy

    def __call__(self, setup, fn) -> float:
        out = []
        for i in range(self.reps + 1):
            state = setup()
            if self.device == "gpu":
                self.cp.cuda.Device().synchronize()
                s, e = self.cp.cuda.Event(), self.cp.cuda.Event()
                s.record()
                fn(state)
                e.record()
                e.synchronize()
                ms = self.cp.cuda.get_elapsed_time(s, e)
            else:
                t = time.perf_counter()
                fn(state)
                ms = (time.perf_counter() - t) * 1e3
            if i:
                out.append(ms)
        return statistics.median(out)


def load_stream(name: str, device: str, quick: bool):
    """``(n, (src, dst) in CSR order, (src, dst) permuted, components)`` of a suite graph."""
    if device == "gpu":
        import cupy as cp

        import gpu_suite

        g = gpu_suite.make(name)
        rng = cp.random.default_rng(17)
    else:
        from concomp.generators import suite

        g = suite(name, quick=quick)
        rng = np.random.default_rng(17)
    src, dst = g.coo()
    perm = rng.random(src.shape[0]).argsort()  # CuPy's Generator has no permutation()
    count = concomp.connected_components(g, device=device, return_labels=False)
    return g.num_nodes, (src, dst), (src[perm], dst[perm]), count


def bench_graph(name: str, args, timer: Timer) -> list[dict]:
    dev = args.device
    n, (csr_src, csr_dst), (src, dst), components = load_stream(name, dev, args.quick)
    m, rows = int(src.shape[0]), []
    xp = timer.cp if dev == "gpu" else np

    def fresh():
        return IncrementalConnectivity(n, device=dev)

    def row(exp, mode, ms, ops, **kw):
        rows.append(
            {
                "graph": name,
                "experiment": exp,
                "mode": mode,
                "ms": ms,
                "ops": ops,
                "ops_per_s": ops / (ms / 1e3),
                **kw,
            }
        )

    check = fresh()
    check.insert(src, dst)
    assert check.num_components == components, (name, check.num_components, components)
    del check
    for order, (s, d) in (("csr", (csr_src, csr_dst)), ("permuted", (src, dst))):
        ms = timer(fresh, lambda ic, s=s, d=d: ic.insert(s, d))
        row("one_batch", "api", ms, m, batch=m, order=order)
        ms = timer(fresh, lambda ic, s=s, d=d: ic._engine.run("insert", None, s, d, 0))
        row("one_batch", "kernel", ms, m, batch=m, order=order)
    sizes = sorted({min(b, m) for b in BATCH_SIZES})
    for b in sizes:
        k = min(-(-m // b), args.max_batches)
        chunks = [(src[i * b : (i + 1) * b], dst[i * b : (i + 1) * b]) for i in range(k)]
        edges = sum(int(c[0].shape[0]) for c in chunks)

        def api(ic, chunks=chunks):
            for s, d in chunks:
                ic.insert(s, d)

        def kernel(ic, chunks=chunks):
            for i, (s, d) in enumerate(chunks):
                ic._engine.run("insert", None, s, d, i)

        def stream(ic, b=b, edges=edges):
            ic.insert_batches(src[:edges], dst[:edges], b)

        ms = timer(fresh, api)
        row("batch_size", "api", ms, edges, batch=b, batches=k, us_per_batch=ms * 1e3 / k)
        ms = timer(fresh, kernel)
        row("batch_size", "kernel", ms, edges, batch=b, batches=k, us_per_batch=ms * 1e3 / k)
        ms = timer(fresh, stream)
        row("batch_size", "stream", ms, edges, batch=b, batches=k, us_per_batch=ms * 1e3 / k)
    rng = np.random.default_rng(23)
    for label, r in RATIOS:
        ins = m if r == float("inf") else int(min(m, MAX_RATIO_OPS * r / (1 + r)))
        q = 0 if r == float("inf") else round(ins / r)
        ops = np.concatenate([np.zeros(ins, np.int8), np.ones(q, np.int8)])
        order = rng.permutation(ins + q)
        qu, qv = rng.integers(0, n, q), rng.integers(0, n, q)
        u = xp.concatenate([src[:ins], xp.asarray(qu, src.dtype)])[xp.asarray(order)]
        v = xp.concatenate([dst[:ins], xp.asarray(qv, src.dtype)])[xp.asarray(order)]
        o = xp.asarray(ops[order])
        ms = timer(fresh, lambda ic, o=o, u=u, v=v: ic.process(o, u, v))
        row("ratio", "api", ms, ins + q, ratio=label, inserts=ins, queries=q)
    return rows


def report(rows: list[dict], device: str, quick: bool, verbose: bool) -> dict:
    summary = {}
    for name in dict.fromkeys(r["graph"] for r in rows):
        g = [r for r in rows if r["graph"] == name]
        one = {(r["mode"], r["order"]): r["ms"] for r in g if r["experiment"] == "one_batch"}
        small = {r["mode"]: r for r in g if r["experiment"] == "batch_size" and r["batch"] == 10**4}
        s = {
            "one_batch_api_ms": one["api", "csr"],
            "one_batch_kernel_ms": one["kernel", "csr"],
            "one_batch_permuted_api_ms": one["api", "permuted"],
            "one_batch_permuted_kernel_ms": one["kernel", "permuted"],
            "target_ms": None if quick else TARGET_MS.get(name),
            "edges": g[0]["ops"],
        }
        if small:
            s["batch1e4_api_eps"] = small["api"]["ops_per_s"]
            s["batch1e4_kernel_eps"] = small["kernel"]["ops_per_s"]
            s["batch1e4_stream_eps"] = small["stream"]["ops_per_s"]
        smallest = [
            r
            for r in g
            if r["experiment"] == "batch_size"
            and r["batch"] == min(x["batch"] for x in g if x["experiment"] == "batch_size")
        ]
        for r in smallest:  # the per-batch floor: time per batch at the smallest batch size
            s[f"floor_us_per_batch_{r['mode']}"] = r["us_per_batch"]
        summary[name] = s
    print(
        f"\nincremental connectivity ({device}); targets: GConn one batch (ms), "
        f">= {TARGET_SMALL_BATCH_EPS:.0e} edges/s at batch 1e4"
    )
    print("one batch: all edges in CSR order (as the reference) / randomly permuted; ms")
    print(
        f"{'graph':9} {'edges':>11} {'api':>8} {'kernel':>8} {'target':>7} {'perm api':>9} "
        f"{'perm kern':>9} {'1e4 api e/s':>12} {'1e4 kern e/s':>12} {'1e4 strm e/s':>12} "
        f"{'floor us':>9} {'kern us':>8} {'strm us':>8}"
    )
    for name, s in summary.items():
        tgt = f"{s['target_ms']:.2f}" if s["target_ms"] else "-"
        print(
            f"{name:9} {s['edges']:>11,} {s['one_batch_api_ms']:>8.3f} "
            f"{s['one_batch_kernel_ms']:>8.3f} {tgt:>7} {s['one_batch_permuted_api_ms']:>9.3f} "
            f"{s['one_batch_permuted_kernel_ms']:>9.3f} {s.get('batch1e4_api_eps', 0):>12.3e} "
            f"{s.get('batch1e4_kernel_eps', 0):>12.3e} {s.get('batch1e4_stream_eps', 0):>12.3e} "
            f"{s.get('floor_us_per_batch_api', 0):>9.1f} "
            f"{s.get('floor_us_per_batch_kernel', 0):>8.1f} "
            f"{s.get('floor_us_per_batch_stream', 0):>8.1f}"
        )
    if not verbose:
        return summary
    print(f"\n{'graph':9} {'experiment':10} {'mode':6} {'batch/ratio':>11} {'ms':>9} {'ops/s':>10}")
    for r in rows:
        key = r.get("ratio", r.get("batch", "")) if "order" not in r else r["order"]
        print(
            f"{r['graph']:9} {r['experiment']:10} {r['mode']:6} {key!s:>11} {r['ms']:>9.3f} "
            f"{r['ops_per_s']:>10.3e}"
        )
    return summary


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", default="rmat22,er22,gridp4k,cong22")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default="benchmarks/results/incremental")
    ap.add_argument("--quick", action="store_true", help="small graphs (CPU fallback)")
    ap.add_argument("--device", choices=("auto", "cpu", "gpu"), default="auto")
    ap.add_argument(
        "--max-batches",
        type=int,
        default=200,
        help="batches per timed stream (small batch sizes stream a prefix)",
    )
    ap.add_argument("--verbose", action="store_true", help="print every row, not just the summary")
    args = ap.parse_args(argv)
    from concomp._gpu._compat import gpu_status

    if args.device == "auto":
        args.device = "gpu" if gpu_status()[0] else "cpu"
    if args.device == "cpu":
        args.quick = True
    if args.quick and args.graphs == ap.get_default("graphs") and args.device == "gpu":
        args.graphs = "rmat16,er16,gridp256,cong16"
    timer = Timer(args.device, args.reps)
    rows = []
    for name in args.graphs.split(","):
        rows += bench_graph(name, args, timer)
        if args.device == "gpu":
            timer.cp.get_default_memory_pool().free_all_blocks()
    summary = report(rows, args.device, args.quick, args.verbose)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    keys = sorted({k for r in rows for k in r})
    with open(out / "incremental.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=keys)
        w.writeheader()
        w.writerows(rows)
    meta = {"device": args.device, "reps": args.reps, "quick": args.quick}
    if args.device == "gpu":
        props = timer.cp.cuda.runtime.getDeviceProperties(0)
        meta["gpu"] = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    (out / "incremental.json").write_text(
        json.dumps({"meta": meta, "summary": summary, "rows": rows}, indent=1)
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
