"""High-diameter shapes (ids along their paths) at 2^20 and 2^24 vertices.

On the GPU (default): for every variant that GPU ``auto`` may choose, and for ``auto``
through the public call on a fresh graph object (edge arrays on the device),
CUDA-event medians of ``--reps`` calls after a warm-up. With ``--device cpu``: the
public call with labels on the edge pair as NumPy arrays (a fresh input each call) and
on a prebuilt ``Graph``, beside the CPU peers on their own prebuilt graphs (SciPy's
``csgraph`` on the symmetric CSR, igraph, NetworKit where installed;
:func:`concomp.bench.cpu_peers.cc_peers`), ``perf_counter`` medians; every system's
component count is checked against concomp's. Then the growth from 2^20 to 2^24
vertices (16x the vertices: a linear rule grows about 16x). Writes JSON to ``--out``.

    PYTHONPATH=src python benchmarks/bench_high_diameter.py --out hd.json
    PYTHONPATH=src python benchmarks/bench_high_diameter.py --device cpu --out hd-cpu.json
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from concomp.bench.timing import TooSlowError, measure

AUTO_CHOICES = (
    "none-rem_cas-splice-coo",
    "none-rem_cas-splice-csr",
    "hb3-rem_cas-splice-csr",
    "koutl-rem_cas-splice-csr",
    "hb8-rem_cas-splice-csr",
)


def median_ms(cp, fn, reps: int, budget_s: float) -> float | None:
    """CUDA-event median, or None when the warm-up run alone exceeds ``budget_s``."""
    try:
        return measure(fn, device="gpu", reps=reps, limit_s=budget_s).median_ms
    except TooSlowError:
        return None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", default="20,24")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--budget-s", type=float, default=20.0, help="per variant and graph")
    ap.add_argument("--out", type=Path)
    ap.add_argument("--device", choices=("gpu", "cpu"), default="gpu")
    args = ap.parse_args()
    if args.device == "cpu":
        run_cpu(args)
        return
    import cupy as cp

    import concomp
    from concomp.testing.adversarial import high_diameter_graphs

    rows = []
    for scale in (int(s) for s in args.scales.split(",")):
        for name, (src, dst, n) in high_diameter_graphs(1 << scale).items():
            s, d = cp.asarray(src), cp.asarray(dst)
            g = concomp.Graph.from_edges(s, d, n)
            g.undirected_csr()
            row = {"graph": name, "scale": scale, "n": n, "m": int(src.shape[0])}
            row["auto_variant"] = str(
                concomp._dispatch.driver("gpu", "components", "auto_variant")(g, concomp.Options())
            )
            row["public_fresh_ms"] = median_ms(
                cp,
                lambda s=s, d=d, n=n: concomp.connected_components((s, d), num_nodes=n),
                args.reps,
                args.budget_s,
            )
            for v in AUTO_CHOICES:
                row[v] = median_ms(
                    cp,
                    lambda g=g, v=v: concomp.connected_components(
                        g, algorithm=v, return_labels=False
                    ),
                    args.reps,
                    args.budget_s,
                )
            rows.append(row)
            print(
                f"2^{scale} {name:18s} auto={row['auto_variant']:26s} "
                + " ".join(f"{row[k]:.3f}" for k in ("public_fresh_ms", *AUTO_CHOICES)),
                flush=True,
            )
            if args.out:  # after every row: a run cut short keeps what it measured
                args.out.write_text(json.dumps({"rows": rows}, indent=1))
            del g, s, d
            cp.get_default_memory_pool().free_all_blocks()
    scales = sorted({r["scale"] for r in rows})
    growth = {}
    if len(scales) == 2:
        lo, hi = scales
        for name in {r["graph"] for r in rows}:
            a = next(r for r in rows if r["graph"] == name and r["scale"] == lo)
            b = next(r for r in rows if r["graph"] == name and r["scale"] == hi)
            growth[name] = {k: b[k] / a[k] for k in ("public_fresh_ms", *AUTO_CHOICES)}
    print(
        f"{f'growth 2^{scales[0]} -> 2^{scales[-1]}':30s}"
        + "".join(f"{k[:14]:>16s}" for k in ("public_fresh_ms", *AUTO_CHOICES))
    )
    for name, g in sorted(growth.items()):
        print(f"{name:30s}" + "".join(f"{x:16.1f}" for x in g.values()))
    if args.out:
        args.out.write_text(
            json.dumps(
                {
                    "rows": rows,
                    "growth": growth,
                    "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                    "numpy": np.__version__,
                },
                indent=1,
            )
        )


def run_cpu(args: argparse.Namespace) -> None:
    """The ``--device cpu`` form (see the module docstring)."""
    import platform
    import subprocess

    import numba

    import concomp
    from concomp.bench.cpu_peers import cc_peers
    from concomp.bench.timing import measure as cpu_measure
    from concomp.testing.adversarial import high_diameter_graphs

    systems = ("concomp pair", "concomp graph", "scipy", "igraph", "networkit")
    rows = []
    for scale in (int(s) for s in args.scales.split(",")):
        for name, (src, dst, n) in high_diameter_graphs(1 << scale).items():
            g = concomp.Graph.from_edges(src, dst, n)
            row: dict = {"graph": name, "scale": scale, "n": n, "m": int(src.shape[0])}
            count = concomp.connected_components(g, device="cpu").num_components
            row["components"] = count
            timed = {
                "concomp pair": lambda s=src, d=dst, n=n: concomp.connected_components(
                    (s, d), num_nodes=n, device="cpu"
                ),
                "concomp graph": lambda g=g: concomp.connected_components(g, device="cpu"),
            }
            for system, fn in timed.items():
                row[system] = cpu_measure(fn, reps=args.reps).median_ms
                assert fn().num_components == count, (system, name, scale)
            indptr, indices = g.undirected_rows()
            for peer, (timing, result) in cc_peers(indptr, indices, n, args.reps).items():
                if peer not in systems:
                    continue
                if result["components"] != count:
                    raise SystemExit(f"{peer} finds {result['components']} components of "
                                     f"{name} at 2^{scale}, concomp {count}")  # fmt: skip
                row[peer] = timing.median_ms
            rows.append(row)
            print(
                f"2^{scale} {name:18s} "
                + " ".join(f"{k} {row[k]:.1f}" for k in systems if k in row),
                flush=True,
            )
            if args.out:  # after every row: a run cut short keeps what it measured
                args.out.write_text(json.dumps({"rows": rows}, indent=1))
            del g
    scales = sorted({r["scale"] for r in rows})
    growth = {}
    if len(scales) == 2:
        lo, hi = scales
        for name in sorted({r["graph"] for r in rows}):
            a = next(r for r in rows if r["graph"] == name and r["scale"] == lo)
            b = next(r for r in rows if r["graph"] == name and r["scale"] == hi)
            growth[name] = {k: b[k] / a[k] for k in systems if k in a and k in b}
    for name, gr in growth.items():
        print(f"growth {name:18s} " + " ".join(f"{k} {x:.1f}" for k, x in gr.items()))
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False
    ).stdout.strip()
    if args.out:
        args.out.write_text(
            json.dumps(
                {
                    "benchmark": "high-diameter-cpu",
                    "command": "python benchmarks/bench_high_diameter.py --device cpu "
                    f"--scales {args.scales} --reps {args.reps}",
                    "commit": commit,
                    "machine": {
                        "cpus": os.cpu_count(),
                        "platform": platform.platform(),
                        "numba_threads": numba.get_num_threads(),
                    },
                    "timing": "median of --reps after a warm-up, perf_counter, ms",
                    "rows": rows,
                    "growth": growth,
                    "numpy": np.__version__,
                },
                indent=1,
            )
        )


if __name__ == "__main__":
    main()
