"""GPU static connected components: the design-space sweep and the peers, in one run.

Usage (on a machine with a CUDA GPU and CuPy)::

    PYTHONPATH=src python benchmarks/bench_gpu_cc.py --out benchmarks/results/gpu_cc \
        [--graphs rmat22,er22,gridp4k,cong22] [--variants all|auto|LIST] [--reps 5] [--quick]

Per graph and variant: median of ``--reps`` runs timed with CUDA events after a
warm-up (which also compiles the kernels), graph already on the device. Also
edges/s, the ratio to the memory floor (CSR read once + labels written once, over
the measured device-to-device copy bandwidth), and the peers measured in the same
run: SciPy (one CPU core, graph already in CSR) and the concomp CPU engine.
Writes ``sweep.csv``, ``summary.json`` and prints a short table.
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
import gpu_suite
from concomp._gpu.components import run_variant
from concomp.benchsuite import gpu_median_ms
from concomp.options import DEFAULTS
from concomp.variants import Variant, all_variants


def copy_bandwidth(cp) -> float:
    """Device-to-device copy bandwidth in bytes/s (bytes read + written)."""
    a = cp.empty(1 << 28, cp.int32)
    b = cp.empty_like(a)
    times = []
    for _ in range(6):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        cp.copyto(b, a)
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e) / 1e3)
    return 2 * a.nbytes / statistics.median(times[1:])


#: A variant whose first run takes longer than this is timed once, not ``--reps`` times.
SLOW_S = 1.0


def time_gpu(cp, fn, reps: int) -> float:
    t = time.perf_counter()
    fn()
    cp.cuda.Device().synchronize()
    first = time.perf_counter() - t
    if first > SLOW_S:  # pathological pairs (LP on a grid): one run is enough to rank them
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        fn()
        e.record()
        e.synchronize()
        return cp.cuda.get_elapsed_time(s, e)
    return gpu_median_ms(fn, reps)


def check(cp, g, variant, ref_count) -> None:
    roots, _ = run_variant(g, variant, DEFAULTS)
    count = int((roots == cp.arange(roots.shape[0], dtype=roots.dtype)).sum())
    if count != ref_count:
        raise AssertionError(f"{variant}: {count} components, expected {ref_count}")


def peers(g, reps: int) -> dict[str, float]:
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    indptr, indices, _ = g.csr()
    a = sp.csr_matrix(
        (np.ones(indices.shape[0], np.int8), indices.get(), indptr.get()),
        shape=(g.num_nodes, g.num_nodes),
    )
    out = {}
    t = time.perf_counter()
    count, _ = connected_components(a, directed=False)
    out["scipy_ms"] = (time.perf_counter() - t) * 1e3
    out["components"] = int(count)
    try:
        host = g.to("cpu")
        concomp.connected_components(host, device="cpu")
        ts = []
        for _ in range(max(1, reps // 2)):
            t = time.perf_counter()
            concomp.connected_components(host, device="cpu")
            ts.append((time.perf_counter() - t) * 1e3)
        out["concomp_cpu_ms"] = statistics.median(ts)
    except Exception as exc:  # numba may be unavailable on the device image
        out["concomp_cpu_error"] = f"{type(exc).__name__}: {exc}"
    return out


def write(out: Path, rows: list[dict], summary: dict) -> None:
    with open(out / "sweep.csv", "w", newline="") as f:
        w = csv.DictWriter(
            f, fieldnames=["graph", "variant", "ms", "edges_per_s", "floor_ratio", "error"]
        )
        w.writeheader()
        for r in rows:
            w.writerow(r)
    (out / "summary.json").write_text(json.dumps(summary, indent=1))


def real_graphs(
    cp, folder: Path, summary: dict, reps: int, only_auto: bool = False, with_peers: bool = True
) -> list[dict]:
    """Auto, the papers' presets and the suite's top variants on every real graph."""
    from concomp.variants import PRESETS

    picks = {str(v) for v in PRESETS.values() if v.supported_on("gpu")}
    picks |= {
        "hb-rem_cas-splice-csr",
        "kout-rem_cas-splice-csr",
        "none-rem_cas-splice-csr",
        "kout-async-halve-csr",
        "none-async-halve-csr",
        "none-rem_cas-splice-coo",
    }
    if only_auto:
        picks = set()
    rows = []
    for path in sorted(folder.glob("*.*z*")):
        try:
            rows += _one_real(cp, path, picks, summary, reps, with_peers)
        except Exception as exc:  # keep the sweep going; the error is in the CSV
            rows.append(
                {
                    "graph": path.name,
                    "variant": "*",
                    "ms": float("nan"),
                    "error": f"{type(exc).__name__}: {exc}"[:300],
                }
            )
    return rows


def _one_real(
    cp, path: Path, picks: set, summary: dict, reps: int, with_peers: bool = True
) -> list[dict]:
    from concomp._gpu.autoselect import choose
    from concomp.io import read_graph

    rows = []
    host = read_graph(path)
    src, dst = host.coo()
    g = gpu_suite.symmetric_csr_graph(
        cp, cp.asarray(src).astype(cp.int64), cp.asarray(dst).astype(cp.int64), host.num_nodes
    )
    info = peers(g, reps) if with_peers else {}
    info.update(n=g.num_nodes, undirected_edges=g.num_edges // 2)
    auto_v = choose(g, DEFAULTS)
    info["auto_variant"] = str(auto_v)
    ref = info.get("components")
    for vs in sorted(picks | {str(auto_v)}):
        v = Variant.parse(vs)
        if v.finish.value == "bfs_cc" and (ref or 0) > 1000:
            continue
        try:
            if ref is not None:
                check(cp, g, v, ref)
            ms = time_gpu(cp, lambda: run_variant(g, v, DEFAULTS), reps)
            rows.append(
                {
                    "graph": path.name,
                    "variant": vs,
                    "ms": ms,
                    "edges_per_s": g.num_edges / 2 / (ms / 1e3),
                    "floor_ratio": "",
                }
            )
        except Exception as exc:
            rows.append(
                {
                    "graph": path.name,
                    "variant": vs,
                    "ms": float("nan"),
                    "error": f"{type(exc).__name__}: {exc}"[:300],
                }
            )
    mine = [r for r in rows if r["graph"] == path.name and r["ms"] == r["ms"]]
    best = min(mine, key=lambda r: r["ms"])
    info.update(
        best_variant=best["variant"],
        best_ms=best["ms"],
        auto_ms=next(r["ms"] for r in mine if r["variant"] == str(auto_v)),
    )
    summary["graphs"][path.name] = info
    print(
        f"{path.name}: best {best['variant']} {best['ms']:.3f} ms, auto {auto_v} "
        f"{info['auto_ms']:.3f} ms, scipy {info.get('scipy_ms', float('nan')):.1f} ms",
        flush=True,
    )
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graphs", default="rmat22,er22,gridp4k,cong22")
    ap.add_argument("--variants", default="all")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default="benchmarks/results/gpu_cc")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument(
        "--skip-slow-bfs",
        action="store_true",
        help="skip BFS sampling on graphs with a grid-like diameter",
    )
    ap.add_argument(
        "--real",
        default="",
        help="folder of real graphs (../shared/data/real) to run --real-variants on",
    )
    ap.add_argument("--real-variants", default="auto,presets,top")
    args = ap.parse_args(argv)
    import cupy as cp

    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    bw = copy_bandwidth(cp)
    if args.variants == "all":
        variants = all_variants("gpu")
    elif args.variants == "auto":
        variants = []
    else:  # "auto" in the list is added per graph below
        variants = [Variant.parse(x) for x in args.variants.split(",") if x != "auto"]
    rows, summary = (
        [],
        {
            "copy_bandwidth_GBps": bw / 1e9,
            "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
            "graphs": {},
        },
    )
    for name in args.graphs.split(","):
        g = gpu_suite.make(name)
        n, entries = g.num_nodes, g.num_edges
        floor_ms = ((n + 1) * 4 + entries * 4 + n * 4) / bw * 1e3
        info = {"n": n, "undirected_edges": entries // 2, "floor_ms": floor_ms}
        if not args.no_peers:
            info.update(peers(g, args.reps))
        ref = info.get("components")
        auto = concomp.components.component_roots  # noqa: F841 (documented path)
        from concomp._gpu.autoselect import choose

        auto_v = choose(g, DEFAULTS)
        info["auto_variant"] = str(auto_v)
        todo = list(variants) + ([auto_v] if auto_v not in variants else [])
        for v in todo:
            if args.skip_slow_bfs and v.sampling.value == "bfs" and name.startswith("grid"):
                continue
            if v.finish.value == "bfs_cc" and (ref or 0) > 1000:
                continue  # one BFS per component: hours on a graph with ~10^6 components
            try:
                if ref is not None:
                    check(cp, g, v, ref)
                ms = time_gpu(cp, lambda: run_variant(g, v, DEFAULTS), args.reps)
                rows.append(
                    {
                        "graph": name,
                        "variant": str(v),
                        "ms": ms,
                        "edges_per_s": entries / 2 / (ms / 1e3),
                        "floor_ratio": ms / floor_ms,
                    }
                )
            except Exception as exc:
                rows.append(
                    {
                        "graph": name,
                        "variant": str(v),
                        "ms": float("nan"),
                        "error": f"{type(exc).__name__}: {exc}"[:300],
                    }
                )
        graph_rows = [r for r in rows if r["graph"] == name and r["ms"] == r["ms"]]
        best = min(graph_rows, key=lambda r: r["ms"]) if graph_rows else None
        auto_row = next((r for r in graph_rows if r["variant"] == str(auto_v)), None)
        info["best_variant"], info["best_ms"] = (
            (best["variant"], best["ms"]) if best else (None, None)
        )
        info["auto_ms"] = auto_row["ms"] if auto_row else None
        summary["graphs"][name] = info
        print(
            f"{name}: n={n} m={entries // 2} best {info['best_variant']} {info['best_ms']} ms, "
            f"auto {auto_v} {info['auto_ms']} ms, scipy {info.get('scipy_ms')} ms",
            flush=True,
        )
        g = None  # release the device graph before the next one is built
        cp.get_default_memory_pool().free_all_blocks()
    write(out, rows, summary)
    if args.real:
        rows += real_graphs(
            cp,
            Path(args.real),
            summary,
            args.reps,
            only_auto=args.real_variants == "auto",
            with_peers=not args.no_peers,
        )
        write(out, rows, summary)
    errors = [r for r in rows if "error" in r]
    for r in errors[:20]:
        print("ERROR", r["graph"], r["variant"], r["error"])
    print(f"{len(rows)} timings, {len(errors)} errors; copy bandwidth {bw / 1e9:.0f} GB/s")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
