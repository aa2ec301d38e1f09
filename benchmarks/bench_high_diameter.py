"""High-diameter shapes (ids along their paths) at 2^20 and 2^24 vertices, on the GPU.

For every variant that GPU ``auto`` may choose, and for ``auto`` through the public
call on a fresh graph object (edge arrays on the device), CUDA-event medians of
``--reps`` calls after a warm-up; then the growth from 2^20 to 2^24 vertices (16x the
vertices: a linear rule grows about 16x). Writes JSON to ``--out``.

    PYTHONPATH=src python benchmarks/bench_high_diameter.py --out hd.json
"""

from __future__ import annotations

import argparse
import json
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
    args = ap.parse_args()
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


if __name__ == "__main__":
    main()
