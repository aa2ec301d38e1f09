"""concomp.dask on several GPUs of one host (issue 24): strong and weak scaling.

Usage (a host with 2 or more GPUs; dask, distributed, pyarrow and CuPy installed)::

    PYTHONPATH=src python benchmarks/bench_dask_multigpu.py --out results-multigpu \
        [--scale 24] [--edge-factor 16] [--weak-scale 23] [--row-group 5e7] [--repeat 5] \
        [--parts strong,weak]

A LocalCluster-like ``SpecCluster`` with one worker per GPU (``CUDA_VISIBLE_DEVICES``
per worker, ``NCCL_NVLS_ENABLE=0``) runs connected components and the minimum spanning
forest of R-MAT graphs generated on the GPUs (:func:`concomp.generators.rmat`,
``device="gpu"``) and written as Parquet files of one row group each, with 1 and 2
workers (and 4 when present):

* strong scaling: one graph (``--scale``, ``--edge-factor``) on every worker count;
* weak scaling: ``--weak-scale`` edges per worker (the graph grows with the workers).

Per run: wall time (median of ``--repeat`` after a warm-up), time per phase (local
forests, each merge round, labels: first start to last stop on the workers), forest
edges and bytes moved between workers against ``(W - 1)(n - 1)``, and correctness
against a single-GPU :func:`concomp.stream_components` run (components) and
:func:`concomp.minimum_spanning_forest` of the whole graph on one GPU (MSF, when it
fits). Writes ``<out>/multigpu.json`` after every row (a run cut short keeps what it
measured) and ``<out>/multigpu.png`` at the end; ``--parts strong`` or ``--parts weak``
runs one half (each fits a command of limited length on a larger graph).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_dask import machine, require_dask, rmat_piece, timed


def gpu_count() -> int:
    from concomp._gpu._compat import cupy_module, gpu_status

    ok, reason = gpu_status()
    if not ok:
        sys.exit(f"error: no usable GPU: {reason}")
    return int(cupy_module().cuda.runtime.getDeviceCount())


def write_graph(folder: Path, scale: int, edges: int, row_group: int, weighted: bool) -> list[str]:
    """R-MAT edges generated on the GPU, piece by piece, as Parquet files of one row
    group; integer weights (ties aplenty) drawn per piece."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    meta = {b"concomp.num_nodes": str(1 << scale).encode(), b"concomp.directed": b"0"}
    names = []
    for i, a in enumerate(range(0, edges, row_group)):
        m = min(row_group, edges - a)
        src, dst = rmat_piece(scale, m, 7919 * scale + i, "gpu")
        cols = {"src": src, "dst": dst}
        if weighted:
            cols["weight"] = np.random.default_rng(i).integers(0, 1 << 20, m, dtype=np.int64)
        name = str(folder / f"part-{i:05d}.parquet")
        pq.write_table(pa.table(cols).replace_schema_metadata(meta), name, row_group_size=m)
        names.append(name)
    return names


def reference(files: list[str], n: int) -> dict:
    """Single-GPU answers in this process: stream_components and (if it fits) the MSF."""
    import pyarrow.parquet as pq

    import concomp

    t = time.perf_counter()
    count, labels = concomp.stream_components(files, n, device="gpu")
    ref = {"stream_components_s": time.perf_counter() - t, "components": count, "labels": labels}
    try:
        table = pq.read_table(files)
        src, dst = table["src"].to_numpy(), table["dst"].to_numpy()
        w = table["weight"].to_numpy()
        t = time.perf_counter()
        f = concomp.minimum_spanning_forest((src, dst), w, device="gpu")
        ref.update(msf_s=time.perf_counter() - t, msf_total=f.total_weight, msf_edges=f.num_edges)
        del table, src, dst, w
    except Exception as exc:  # too big for one GPU: checked for consistency only
        ref["msf_error"] = f"{type(exc).__name__}: {exc}"[:300]
    return ref


def run_workers(workers: int, files: list[str], n: int, ref: dict, args) -> dict:
    import distributed

    import concomp.dask as cd

    edges = cd.read_parquet_edges(files)
    out: dict = {"workers": workers, "partitions": edges.num_partitions, "edges": edges.num_edges}
    with (
        cd.local_gpu_cluster(list(range(workers))) as cluster,
        distributed.Client(cluster) as client,
    ):
        client.wait_for_workers(workers, timeout=300)
        for what in ("cc", "msf"):
            runs: list[dict] = []

            def once(what=what, runs=runs):
                stats: dict = {}
                if what == "cc":
                    r = cd.connected_components(
                        edges, n, device="gpu", stats=stats, split_every=args.split_every
                    )
                else:
                    r = cd.minimum_spanning_forest(
                        edges, device="gpu", stats=stats, split_every=args.split_every
                    )
                runs.append(stats)
                return r

            times, result = timed(once, args.repeat)
            st = runs[-1]
            row = {
                "times_s": times,
                "median_s": statistics.median(times),
                "edges_per_s": edges.num_edges / statistics.median(times),
                "phases": st["phases"],
                "shipped": st["shipped"],
                "edge_bound": st["edge_bound"],
                "within_bound": st["shipped"].get("edges", 0) <= st["edge_bound"],
            }
            if what == "cc":
                count, labels = result
                row["correct"] = bool(count == ref["components"]) and bool(
                    np.array_equal(labels, ref["labels"])
                )
            else:
                row["total_weight"] = result.total_weight
                row["correct"] = (
                    result.total_weight == ref["msf_total"] if "msf_total" in ref else None
                )
                row["forest_edges"] = result.num_edges
            out[what] = row
            print(
                f"  {workers} worker(s) {what}: {row['median_s']:.2f} s, "
                f"{row['edges_per_s'] / 1e9:.2f} G edges/s, correct={row['correct']}",
                flush=True,
            )
    return out


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for ax, kind in zip(axes, ("strong", "weak")):
        rows = result[kind]
        for what in ("cc", "msf"):
            ws = [r["workers"] for r in rows]
            ax.plot(ws, [r[what]["edges_per_s"] / 1e9 for r in rows], "o-", label=what)
        if kind == "strong" and "strong_reference" in result:
            ax.axhline(
                result["strong_reference"]["edges_per_s"] / 1e9,
                ls="--",
                color="gray",
                label="1 GPU stream_components",
            )
        ax.set_xlabel("GPU workers")
        ax.set_ylabel("G edges/s")
        ax.set_xticks([r["workers"] for r in rows])
        ax.set_title(f"{kind} scaling")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--scale", type=int, default=24, help="strong scaling: R-MAT scale")
    p.add_argument("--edge-factor", type=int, default=16)
    p.add_argument("--weak-scale", type=int, default=23, help="weak: scale of 1 worker's graph")
    p.add_argument("--row-group", type=float, default=5e7)
    p.add_argument("--split-every", type=int, default=8)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--data", type=Path, default=None, help="Parquet folder (default <out>/data)")
    p.add_argument(
        "--parts", default="strong,weak", help="which scaling runs, comma-separated (strong, weak)"
    )
    args = p.parse_args(argv)
    parts = {x.strip() for x in args.parts.split(",") if x.strip()}
    if not parts <= {"strong", "weak"}:
        p.error(f"--parts {args.parts!r}: name strong and/or weak")
    require_dask()
    gpus = gpu_count()
    counts = [w for w in (1, 2, 4) if w <= gpus]
    args.out.mkdir(parents=True, exist_ok=True)
    data = args.data or args.out / "data"
    result: dict = {
        "machine": machine(),
        "args": {k: str(v) for k, v in vars(args).items()},
        "gpus": gpus,
        "strong": [],
        "weak": [],
    }
    row_group = int(args.row_group)
    t0 = time.perf_counter()

    def save() -> None:  # after every row: a run cut short keeps what it measured
        result["total_s"] = time.perf_counter() - t0
        (args.out / "multigpu.json").write_text(json.dumps(result, indent=1, default=str))

    def graph(scale: int, edges: int, name: str) -> tuple[list[str], dict]:
        t = time.perf_counter()
        files = write_graph(data / name, scale, edges, row_group, weighted=True)
        gen = time.perf_counter() - t
        ref = reference(files, 1 << scale)
        ref["edges_per_s"] = edges / ref["stream_components_s"]
        print(
            f"{name}: {edges} edges, generated+written in {gen:.1f} s; 1 GPU "
            f"stream_components {ref['stream_components_s']:.2f} s",
            flush=True,
        )
        return files, ref

    strong_edges = args.edge_factor << args.scale
    graph_files = None
    if "strong" in parts:
        files, ref = graph(args.scale, strong_edges, f"strong-rmat{args.scale}")
        graph_files = (files, ref)
        result["strong_reference"] = {k: v for k, v in ref.items() if k != "labels"}
        for w in counts:
            result["strong"].append(run_workers(w, files, 1 << args.scale, ref, args))
            save()
    for w in counts if "weak" in parts else []:
        scale = args.weak_scale + (w - 1).bit_length()  # n and m grow with the workers
        if scale == args.scale and graph_files is not None:  # the strong graph is this one
            files, ref = graph_files
        else:
            files, ref = graph(scale, args.edge_factor << scale, f"weak-rmat{scale}")
        row = run_workers(w, files, 1 << scale, ref, args)
        row["reference"] = {k: v for k, v in ref.items() if k != "labels"}
        result["weak"].append(row)
        save()
    save()
    plot(result, args.out / "multigpu.png")
    print(f"wrote {args.out / 'multigpu.json'} and multigpu.png in {result['total_s']:.0f} s")
    ok = all(
        r[k]["correct"] is not False
        for key in ("strong", "weak")
        for r in result[key]
        for k in ("cc", "msf")
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
