"""What renumbering costs next to the components themselves.

For each edge count, one input whose ids need renumbering: a pandas frame of string ids
(``--kind strings``; ids drawn from a pool of ``edges / --edges-per-id`` names) or two
int64 arrays of sparse ids in ``[0, 2**62)`` (``--kind sparse``; CuPy arrays with
``--device gpu``, renumbered on the device). Three medians (the one timer,
:func:`concomp.bench.timing.measure`):

- ``renumber``: ``concomp.as_graph(input)``, the validation and renumbering a call pays
  before its engine runs;
- ``components``: ``concomp.connected_components(g)`` on that renumbered graph (a fresh
  copy per run, so no run reuses a cached CSR);
- ``public``: ``concomp.connected_components(input)``, the whole call.

    python benchmarks/bench_renumber.py --kind strings --edges 1e6 1e7 --device cpu
    python benchmarks/bench_renumber.py --kind sparse --edges 1e8 1e9 --device gpu

Writes ``benchmarks/results/<date>-<device>-<commit>-renumber-<kind>.json`` (or
``--out``) and prints a table.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

import concomp
from concomp.bench.results import default_path, machine, source_commit, versions, write
from concomp.bench.timing import measure


def string_frame(m: int, per_id: int, seed: int = 1) -> Any:
    """A frame of ``m`` edges over ``m // per_id`` string ids (shared objects, as a
    frame read from a file with repeated names holds them after interning)."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    k = max(m // per_id, 2)
    pool = np.array([f"user-{x:016x}" for x in rng.integers(0, 2**62, k)], dtype=object)
    return pd.DataFrame({"src": pool[rng.integers(0, k, m)], "dst": pool[rng.integers(0, k, m)]})


def sparse_ids(m: int, per_id: int, device: str, seed: int = 1) -> tuple[Any, Any]:
    """``m`` edges over ``m // per_id`` int64 ids spread over ``[0, 2**62)``."""
    rng = np.random.default_rng(seed)
    k = max(m // per_id, 2)
    pool = rng.integers(0, 2**62, k)
    src, dst = pool[rng.integers(0, k, m)], pool[rng.integers(0, k, m)]
    if device == "gpu":
        import cupy

        return cupy.asarray(src), cupy.asarray(dst)
    return src, dst


def run(kind: str, m: int, per_id: int, device: str, reps: int) -> dict[str, Any]:
    data = string_frame(m, per_id) if kind == "strings" else sparse_ids(m, per_id, device)
    g = concomp.as_graph(data)
    row: dict[str, Any] = {
        "kind": kind,
        "edges": m,
        "distinct_ids": g.num_nodes,
        "components": concomp.number_connected_components(g, device=device),
    }
    timings = {
        "renumber": measure(lambda: concomp.as_graph(data), device=device, reps=reps, wall=True),
        # a fresh graph per run (built outside the timed region): no cached CSR or plan
        "components": measure(
            lambda fresh: concomp.connected_components(fresh, device=device),
            device=device,
            reps=reps,
            wall=True,
            setup=lambda: concomp.Graph.from_edges(*g.coo(), g.num_nodes),
        ),
        "public": measure(
            lambda: concomp.connected_components(data, device=device),
            device=device,
            reps=reps,
            wall=True,
        ),
    }
    for name, t in timings.items():
        row[f"{name}_ms"] = t.median_ms
        row[f"{name}_times_ms"] = t.times_ms
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=("strings", "sparse"), default="strings")
    parser.add_argument("--edges", nargs="+", type=float, default=[1e6])
    parser.add_argument("--edges-per-id", type=int, default=10)
    parser.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    rows = [run(args.kind, int(m), args.edges_per_id, args.device, args.reps) for m in args.edges]
    doc = {
        "benchmark": "renumber",
        "command": "python benchmarks/bench_renumber.py "
        + f"--kind {args.kind} --edges {' '.join(str(int(m)) for m in args.edges)} "
        + f"--edges-per-id {args.edges_per_id} --device {args.device} --reps {args.reps}",
        "commit": source_commit(),
        "machine": machine(args.device),
        "versions": versions(),
        "rows": rows,
    }
    base = default_path(args.device)
    out = args.out or base.with_name(f"{base.stem}-renumber-{args.kind}.json")
    write(doc, out)
    head = ("edges", "distinct", "renumber ms", "components ms", "public ms")
    print("{:>12} {:>10} {:>12} {:>14} {:>10}".format(*head))
    for r in rows:
        print(
            f"{r['edges']:>12} {r['distinct_ids']:>10} {r['renumber_ms']:>12.1f} "
            f"{r['components_ms']:>14.1f} {r['public_ms']:>10.1f}"
        )
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()
