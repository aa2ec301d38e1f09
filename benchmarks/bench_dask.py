"""concomp.dask end to end on Parquet: throughput against the single-process engine.

Usage::

    PYTHONPATH=src python benchmarks/bench_dask.py                 # CPU: 1e8 edges, 2 workers
    PYTHONPATH=src python benchmarks/bench_dask.py --device gpu    # one GPU, one GPU worker

The graph is R-MAT (``--scale``, Graph500 probabilities, ids scrambled by an odd
multiplier modulo 2**scale) written as ``--edges`` edges in Parquet files of one row
group of ``--row-group`` edges each (generated once into ``--data``, reused after).

Measured, median of ``--repeat`` runs after a warm-up run:

* single process: :func:`concomp.stream_components` over the same files (row group by
  row group, CPU engine or the GPU's pinned pipeline);
* Dask: :func:`concomp.dask.connected_components` on a local cluster of ``--workers``
  processes with ``--threads`` threads each (CPU; ``memory_limit`` 4 GiB each, the
  issue's bound), or one worker per GPU pinned by ``CUDA_VISIBLE_DEVICES`` (GPU;
  ``memory_limit`` Dask's default, the machine's memory shared by the workers: a GPU
  worker's resident memory also holds the CUDA context and pinned staging buffers, and
  Dask pauses a worker at 80% of its limit): wall time from the call to the NumPy
  labels on the client, per-round phase times, forest bytes moved between workers
  against the ``(W - 1)(n - 1)`` bound, and each worker's peak resident memory.

The labels of both are compared. Writes ``benchmarks/results/<date>-<device>-<commit>-dask.json``.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from concomp.bench.timing import measure

HERE = Path(__file__).resolve().parent
RMAT_MULTIPLIER = 0x9E3779B1  # odd: a bijection of [0, 2**scale) that scatters the hubs


def require_dask() -> None:
    """Fail fast, naming the wheels, where dask or distributed are missing."""
    missing = []
    for name in ("dask", "distributed", "pyarrow"):
        try:
            __import__(name)
        except ImportError:
            missing.append(name)
    if missing:
        sys.exit(
            f"error: {', '.join(missing)} not installed. Install them (offline: pip install "
            "--no-index --find-links <wheel folder> dask distributed pyarrow), or "
            "pip install 'concomp[dask,io]'."
        )


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=HERE, capture_output=True, text=True
        )
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def machine() -> dict:
    import dask
    import distributed

    import concomp

    info = {
        "platform": platform.platform(),
        "python": platform.python_version(),
        "cpu_count": os.cpu_count(),
        "load_average_at_start": os.getloadavg(),
        "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
        "numpy": np.__version__,
        "dask": dask.__version__,
        "distributed": distributed.__version__,
        "concomp": concomp.__version__,
        "commit": commit(),
    }
    try:
        from concomp._gpu._compat import device_info, gpu_status

        if gpu_status()[0]:
            info["gpu"] = device_info(0)
    except Exception as exc:  # no CuPy here: a CPU run
        info["gpu"] = f"none ({type(exc).__name__})"
    return info


# ----------------------------------------------------------------------------- the data
def rmat_piece(scale: int, edges: int, seed: int, device: str) -> tuple[np.ndarray, np.ndarray]:
    """``edges`` raw R-MAT edges over ``2**scale`` vertices, scrambled, on the host (int32
    while ids fit)."""
    from concomp.generators import rmat

    g = rmat(scale, edges / (1 << scale), clean=False, permute=False, seed=seed, device=device)
    src, dst = g.coo()
    mask = (1 << scale) - 1
    dt = np.int32 if scale < 31 else np.int64
    out = []
    for a in (src, dst):
        a = (a.astype(np.int64) * RMAT_MULTIPLIER) & mask
        out.append(a.astype(dt).get() if hasattr(a, "get") else a.astype(dt))
    return out[0], out[1]


def write_rmat_parquet(
    folder: Path, scale: int, edges: int, row_group: int, seed: int, device: str
) -> list[str]:
    """Files ``part-00000.parquet``, ... of one row group each; reused when present."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    stamp = folder / "DONE.json"
    spec = {"scale": scale, "edges": edges, "row_group": row_group, "seed": seed}
    parts = -(-edges // row_group)
    names = [str(folder / f"part-{i:05d}.parquet") for i in range(parts)]
    if stamp.exists() and json.loads(stamp.read_text()) == spec:
        return names
    meta = {b"concomp.num_nodes": str(1 << scale).encode(), b"concomp.directed": b"0"}
    for i, name in enumerate(names):
        m = min(row_group, edges - i * row_group)
        src, dst = rmat_piece(scale, m, seed * 1_000_003 + i, device)
        table = pa.table({"src": src, "dst": dst}).replace_schema_metadata(meta)
        pq.write_table(table, name, row_group_size=m)
    stamp.write_text(json.dumps(spec))
    return names


# ----------------------------------------------------------------------------- measuring
def peak_rss(dask_worker=None) -> int:
    """Peak resident bytes of this process (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def timed(fn, repeat: int) -> tuple[list[float], object]:
    """Seconds of each timed run (after a warm-up: numba caches, CUDA contexts, worker
    imports) and the last run's result."""
    last: list = []
    t = measure(lambda: last.append(fn()), reps=repeat)
    return [x / 1e3 for x in t.times_ms], last[-1]


def single_process(files: list[str], n: int, device: str, repeat: int) -> tuple[dict, np.ndarray]:
    import concomp

    times, (count, labels) = timed(
        lambda: concomp.stream_components(files, n, device=device), repeat
    )
    return {"times_s": times, "median_s": statistics.median(times), "components": count}, labels


def dask_run(client, files, n, device, repeat, split_every) -> tuple[dict, np.ndarray]:
    import concomp.dask as cd

    edges = cd.read_parquet_edges(files)
    runs = []

    def once():
        stats: dict = {}
        out = cd.connected_components(
            edges, n, device=device, split_every=split_every, client=client, stats=stats
        )
        runs.append(stats)
        return out

    times, (count, labels) = timed(once, repeat)
    return {
        "times_s": times,
        "median_s": statistics.median(times),
        "components": count,
        "partitions": edges.num_partitions,
        "stats_of_last_run": runs[-1],
        "worker_peak_rss_bytes": client.run(peak_rss),
    }, labels


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument("--edges", type=float, default=1e8)
    p.add_argument("--scale", type=int, default=24)
    p.add_argument("--row-group", type=float, default=4e6)
    p.add_argument("--workers", type=int, default=None, help="CPU: 2; GPU: 1 per GPU")
    p.add_argument("--threads", type=int, default=1, help="threads per worker")
    p.add_argument("--memory-limit", default=None, help="CPU: 4GiB; GPU: Dask's auto")
    p.add_argument("--split-every", type=int, default=8)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--data", type=Path, default=None, help="Parquet folder (default /tmp)")
    p.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    require_dask()
    import distributed

    if args.memory_limit is None:
        args.memory_limit = "auto" if args.device == "gpu" else "4GiB"

    from concomp.dask import local_gpu_cluster

    edges, row_group = int(args.edges), int(args.row_group)
    data = args.data or Path(f"/tmp/concomp-bench-dask/rmat{args.scale}-{edges}-{row_group}")
    t = time.perf_counter()
    files = write_rmat_parquet(data, args.scale, edges, row_group, args.seed, args.device)
    generate_s = time.perf_counter() - t
    n = 1 << args.scale
    result = {
        "benchmark": "bench_dask",
        "date": datetime.date.today().isoformat(),
        "machine": machine(),
        "args": {k: str(v) for k, v in vars(args).items()},
        "graph": {
            "kind": "rmat",
            "scale": args.scale,
            "num_nodes": n,
            "num_edges": edges,
            "row_group": row_group,
            "files": len(files),
            "folder": str(data),
            "generate_or_reuse_s": generate_s,
        },
    }
    base, want = single_process(files, n, args.device, args.repeat)
    base["edges_per_s"] = edges / base["median_s"]
    result["single_process"] = base
    print(
        f"single process stream_components: {base['median_s']:.2f} s, "
        f"{base['edges_per_s'] / 1e6:.1f} M edges/s",
        flush=True,
    )
    if args.device == "gpu":
        cluster = local_gpu_cluster(
            args.workers, memory_limit=args.memory_limit, nthreads=args.threads
        )
    else:
        cluster = distributed.LocalCluster(
            n_workers=args.workers or 2,
            threads_per_worker=args.threads,
            processes=True,
            memory_limit=args.memory_limit,
            dashboard_address=":0",
        )
    with cluster, distributed.Client(cluster) as client:
        res, labels = dask_run(client, files, n, args.device, args.repeat, args.split_every)
        res["workers"] = len(client.scheduler_info()["workers"])
    res["edges_per_s"] = edges / res["median_s"]
    res["speedup_vs_single_process"] = base["median_s"] / res["median_s"]
    res["labels_equal_single_process"] = bool(np.array_equal(labels, want))
    sh = res["stats_of_last_run"]
    res["shipped_within_bound"] = sh["shipped"].get("edges", 0) <= sh["edge_bound"]
    result["dask"] = res
    peak = max(res["worker_peak_rss_bytes"].values()) / 2**30
    print(
        f"dask ({res['workers']} workers): {res['median_s']:.2f} s, "
        f"{res['edges_per_s'] / 1e6:.1f} M edges/s, x{res['speedup_vs_single_process']:.2f}; "
        f"peak worker RSS {peak:.2f} GiB; shipped {sh['shipped']} (bound "
        f"{sh['edge_bound']} edges); labels equal: {res['labels_equal_single_process']}"
    )
    out = args.out or HERE / "results" / (
        f"{result['date']}-{args.device}-{result['machine']['commit']}-dask.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1, default=str))
    print(f"wrote {out}")
    return 0 if res["labels_equal_single_process"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
