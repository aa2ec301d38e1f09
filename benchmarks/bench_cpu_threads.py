"""The CPU engine's thread curve: the public ``connected_components`` call against the
number of numba threads, on large corpus graphs.

Each graph is built once (a symmetric CSR, as the harness builds it); then for each
thread count of ``--threads`` (numba's ``set_num_threads``; counts above the machine's
cores are dropped and recorded) the prebuilt call ``connected_components(g,
device="cpu")`` is timed, median of ``--reps`` after a warm-up, in ``--rounds`` rounds
whose thread counts take turns (so a slow spell of the machine falls on every count).
The speed-up of ``t`` threads is the one-thread median over the ``t``-thread median.
The variant ``auto`` runs and the counts of every call are recorded; the counts must
agree.

Usage::

    PYTHONPATH=src python benchmarks/bench_cpu_threads.py --threads 1 2 \\
        --out benchmarks/results/<date>-cpu-<commit>-threads.json
    PYTHONPATH=src python benchmarks/bench_cpu_threads.py --threads 1 2 4 8 16 --out ...
"""

from __future__ import annotations

import argparse
import datetime
import os
import statistics
from pathlib import Path

import numba

import concomp
from concomp._cpu.components import auto_variant
from concomp.bench.results import machine, source_commit, write
from concomp.bench.timing import measure
from concomp.generators.corpus import CORPUS
from concomp.options import DEFAULTS

#: The large corpus graphs (about 1e7 to 1e8 CSR entries) of every kind.
GRAPHS = (
    "rmat22",
    "er22",
    "gridp4k",
    "grid2d-natural",
    "knn2d",
    "delaunay",
    "ba",
    "path-permuted",
    "tree-forest",
    "road-usa-fla",
)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--graphs", nargs="+", default=list(GRAPHS))
    p.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--out", type=Path, required=True)
    args = p.parse_args(argv)
    cores = numba.config.NUMBA_NUM_THREADS
    threads = [t for t in args.threads if 1 <= t <= cores]
    document = {
        "benchmark": "bench_cpu_threads",
        "date": datetime.date.today().isoformat(),
        "commit": source_commit(),
        "machine": machine("cpu"),
        "numba_max_threads": cores,
        "threads": threads,
        "threads_dropped": [t for t in args.threads if t not in threads],
        "reps": args.reps,
        "rounds": args.rounds,
        "rows": [],
    }
    for name in args.graphs:
        corpus_graph = CORPUS[name]
        reason = corpus_graph.skip_reason() if corpus_graph.is_real else None
        if reason:
            document.setdefault("skipped", {})[name] = reason
            continue
        g = corpus_graph.build()
        row = {
            "graph": name,
            "num_nodes": g.num_nodes,
            "num_edges_stored": g.num_edges,
            "variant": str(auto_variant(g, DEFAULTS)),
            "round_medians_ms": {str(t): [] for t in threads},
            "counts": [],
        }
        for _ in range(args.rounds):
            for t in threads:
                numba.set_num_threads(t)
                counts: list[int] = []
                timing = measure(
                    lambda: counts.append(
                        concomp.connected_components(g, device="cpu", return_labels=False)
                    ),
                    reps=args.reps,
                )
                row["round_medians_ms"][str(t)].append(timing.median_ms)
                row["counts"].extend(sorted(set(counts)))
        numba.set_num_threads(cores)
        if len(set(row["counts"])) != 1:
            raise RuntimeError(f"{name}: the thread counts disagree: {row['counts']}")
        row["counts"] = row["counts"][0]
        med = {t: statistics.median(v) for t, v in row["round_medians_ms"].items()}
        row["median_ms"] = med
        row["speedup"] = {t: med[str(threads[0])] / v for t, v in med.items()}
        document["rows"].append(row)
        print(
            f"{name:16s} "
            + "  ".join(f"{t}t {v:8.1f} ms x{row['speedup'][t]:4.2f}" for t, v in med.items()),
            flush=True,
        )
        write(document, args.out)  # after every graph: a cut run keeps what it measured
    write(document, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    raise SystemExit(main())
