"""How every variant's time grows on the adversarial family: the linear-time check.

For each entry point (``--entries``: ``components``, ``forest``, ``incremental``,
``msf``) and each variant or algorithm the engine implements for it, the call is
timed on every graph of :func:`concomp.testing.adversarial.high_diameter_graphs`
(long paths, caterpillar, comb, ladder, deep tree, grids in three orders) and on one
star and many stars with permuted ids (:func:`concomp.generators.stars`), at
``2**small`` and ``2**big`` vertices: medians of ``--reps`` after a warm-up
(``concomp.bench.timing.measure``; CUDA events on the GPU). A linear call grows by about
the ratio of the sizes; a row whose growth exceeds ``--flag`` times that ratio is
printed. A run at the small size that takes longer than ``--limit-s`` is not repeated
at the big one (recorded under ``skipped`` with its time); each variant first runs
once, untimed, on every graph at the small size, so compiling its kernels (a graph
may need kernels of its own, such as those for very long rows) is not held against
that limit.

``incremental`` inserts all edges as one batch into a new structure; ``msf`` uses
random weights. Variants are those of :func:`concomp.all_variants` (forests: those
that record one), ``concomp.incremental.legal_algorithms`` and ``concomp.msf.ALGORITHMS``,
or those ``--algorithms`` names (any variant string, such as the sampler sizes ``auto``
picks, ``hb3-rem_cas-splice-csr``: a run at large sizes times the choices that matter).

    PYTHONPATH=src python benchmarks/bench_variant_growth.py --device cpu \\
        --entries components,forest --small 13 --big 16 --out growth.json
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import concomp
from concomp.bench import results
from concomp.bench.timing import TooSlowError, measure
from concomp.forest import is_forest_variant
from concomp.incremental import legal_algorithms
from concomp.msf import ALGORITHMS as MSF_ALGORITHMS
from concomp.testing.adversarial import high_diameter_graphs

ENTRIES = ("components", "forest", "incremental", "msf")


def family(n: int, weights: bool) -> dict[str, tuple[np.ndarray, np.ndarray, int, Any]]:
    """``name -> (src, dst, n, weights or None)`` of the adversarial family at ``n``."""
    rng = np.random.default_rng(n)
    out: dict[str, tuple[np.ndarray, np.ndarray, int, Any]] = {}
    for name, (s, d, m) in high_diameter_graphs(n).items():
        out[name] = (s, d, m, None)
    for name, (stars, leaves, seed) in {
        "star-permuted": (1, n - 1, 17),
        "stars-many-permuted": (max(n // 256, 1), 255, 18),
    }.items():
        g = concomp.generators.stars(stars, leaves, seed=seed)
        s, d = (np.asarray(a, np.int64) for a in g.coo())
        keep = s < d  # each edge once
        out[name] = (s[keep], d[keep], g.num_nodes, None)
    if weights:
        out = {k: (s, d, m, rng.random(s.shape[0])) for k, (s, d, m, _) in out.items()}
    return out


def algorithms(entry: str, device: str) -> list[str]:
    """The variants (or algorithms) of ``entry`` on ``device``."""
    if entry == "msf":
        return [a for a in MSF_ALGORITHMS if a != "auto"]
    if entry == "incremental":
        return legal_algorithms(device)
    variants = concomp.all_variants(device)
    if entry == "forest":
        variants = [v for v in variants if is_forest_variant(v, device)]
    return [str(v) for v in variants]


def unknown_algorithm(entry: str, device: str, algorithm: str) -> str | None:
    """Why ``entry`` on ``device`` cannot time ``algorithm`` (None where it can)."""
    if entry in ("components", "forest"):
        try:
            variant = concomp.Variant.parse(algorithm)
        except ValueError as exc:
            return f"{algorithm!r} is not a variant ({exc})"
        if entry == "forest" and not is_forest_variant(variant, device):
            return f"{algorithm!r} records no spanning forest on the {device} engine"
        return None
    if algorithm not in algorithms(entry, device):
        return f"{algorithm!r} is not one of {entry}'s: {', '.join(algorithms(entry, device))}"
    return None


def call(entry: str, device: str, algorithm: str, graph: Any) -> Callable[[], Any]:
    """The timed call of ``entry`` on a prebuilt ``graph`` (incremental: a new structure
    takes every edge as one batch)."""
    if entry == "components":
        return lambda: concomp.connected_components(graph, device=device, algorithm=algorithm)
    if entry == "forest":
        return lambda: concomp.spanning_forest(graph, device=device, algorithm=algorithm)
    if entry == "msf":
        return lambda: concomp.minimum_spanning_forest(graph, device=device, algorithm=algorithm)
    src, dst, n = graph

    def insert() -> Any:
        ic = concomp.IncrementalConnectivity(n, device=device, algorithm=algorithm)
        ic.insert(src, dst)
        return ic.num_components

    return insert


def prepared(entry: str, device: str, edges: tuple) -> Any:
    """The input of :func:`call`: a graph on ``device`` (the edge triple for incremental)."""
    src, dst, n, w = edges
    if entry == "incremental":
        return (src, dst, n)
    g = concomp.Graph.from_edges(src, dst, n, weights=w)
    return g.to(device) if device == "gpu" else g


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    ap.add_argument("--entries", default="components", help="comma-separated: " + ",".join(ENTRIES))
    ap.add_argument("--small", type=int, default=13, help="log2 of the small size")
    ap.add_argument("--big", type=int, default=16, help="log2 of the big size")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--limit-s", type=float, default=0.5, help="slowest small run repeated big")
    ap.add_argument("--flag", type=float, default=2.0, help="growth flagged above flag x ratio")
    ap.add_argument("--algorithms", help="comma-separated variants or algorithms to time")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    entries = [e for e in args.entries.split(",") if e]
    for e in entries:
        if e not in ENTRIES:
            ap.error(f"argument --entries: {e!r} is not one of {', '.join(ENTRIES)}")
    if args.big <= args.small:
        ap.error(f"argument --big: {args.big} must exceed --small ({args.small})")
    chosen = [a for a in (args.algorithms or "").split(",") if a] or None
    for e in entries:
        for a in chosen or []:
            problem = unknown_algorithm(e, args.device, a)
            if problem:
                ap.error(f"argument --algorithms: {problem}")
    ratio = 2.0 ** (args.big - args.small)
    rows: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    doc: dict[str, Any] = {
        "benchmark": "variant-growth",
        "command": "python benchmarks/bench_variant_growth.py "
        + " ".join(sys.argv[1:] if argv is None else argv),
        "date": datetime.date.today().isoformat(),
        "commit": results.source_commit(),
        "machine": results.machine(args.device),
        "versions": results.versions(),
        "device": args.device,
        "sizes": [2**args.small, 2**args.big],
        "timing": f"median of {args.reps} after a warm-up, ms",
        "rows": rows,
        "skipped": skipped,
    }
    for entry in entries:
        sizes = {
            k: {
                name: prepared(entry, args.device, e)
                for name, e in family(1 << k, entry == "msf").items()
            }
            for k in (args.small, args.big)
        }
        for algorithm in chosen or algorithms(entry, args.device):
            for name in sizes[args.small]:  # kernels compiled (or loaded) before any limit
                call(entry, args.device, algorithm, sizes[args.small][name])()
            for name in sizes[args.small]:
                t: dict[int, float] = {}
                try:
                    for k in (args.small, args.big):
                        fn = call(entry, args.device, algorithm, sizes[k][name])
                        limit = args.limit_s if k == args.small else None
                        t[k] = measure(
                            fn, device=args.device, reps=args.reps, limit_s=limit
                        ).median_ms
                except TooSlowError as exc:
                    skipped.append(
                        {"entry": entry, "algorithm": algorithm, "graph": name, "reason": str(exc)}
                    )
                    continue
                growth = t[args.big] / max(t[args.small], 1e-6)
                rows.append(
                    {
                        "entry": entry,
                        "algorithm": algorithm,
                        "graph": name,
                        "small_ms": t[args.small],
                        "big_ms": t[args.big],
                        "growth": growth,
                    }
                )
                if growth > args.flag * ratio:
                    print(
                        f"{entry:11s} {algorithm:32s} {name:20s} "
                        f"{t[args.small]:9.3f} -> {t[args.big]:9.3f} ms  x{growth:.1f}",
                        flush=True,
                    )
            if args.out:  # after every variant: a run cut short keeps its rows
                args.out.write_text(json.dumps(doc, indent=1))
    if args.out:
        results.write(doc, args.out)
    print(json.dumps({"rows": len(rows), "skipped": len(skipped), "written": str(args.out)}))


if __name__ == "__main__":
    main()
