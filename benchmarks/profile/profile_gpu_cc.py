"""Per-phase GPU time of a few variants on the suite graphs (CUDA events), plus host overhead.

PYTHONPATH=src python benchmarks/profile/profile_gpu_cc.py [--graphs ...] [--variants ...]
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from concomp._gpu.components import run_variant
from concomp.bench.timing import measure
from concomp.generators.corpus import CORPUS
from concomp.options import DEFAULTS, Options
from concomp.variants import Variant


def parse_options(cfg: str) -> Options:
    """``Options`` from "field=value,...", each value of its field's default type."""
    changes = {}
    for item in filter(None, cfg.split(",")):
        key, val = item.split("=")
        default = getattr(DEFAULTS, key)
        if isinstance(default, bool):
            changes[key] = val.lower() in ("1", "true")
        elif isinstance(default, (int, float)) or default is None:
            changes[key] = type(default or 0)(float(val)) if val != "None" else None
        else:
            changes[key] = val
    return DEFAULTS.with_(**changes)


def replay_times(cp, g, v: Variant, reps: int, options: Options = DEFAULTS) -> list[float]:
    """CUDA-event ms of ``reps`` calls of ``v`` on ``g`` (after a capture: replays)."""
    return list(measure(lambda: run_variant(g, v, options), device="gpu", reps=reps).times_ms)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="rmat22,gridp4k")
    ap.add_argument("--variants", default="kout-async-halve-csr,kout-rem_cas-splice-csr")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument(
        "--knobs",
        default="",
        help="';'-separated configs of Options fields, e.g. 'heavy_degree=32;heavy_degree=64'",
    )
    ap.add_argument("--flags", default="", help="extra NVRTC options, e.g. '-lineinfo'")
    args = ap.parse_args(argv)
    import cupy as cp

    from concomp._gpu import _compile

    _compile.NVRTC_OPTIONS = _compile.NVRTC_OPTIONS + tuple(args.flags.split())

    configs = [c for c in args.knobs.split(";") if c] or [""]

    for name in args.graphs.split(","):
        g = CORPUS[name].build("gpu")
        for cfg, vs in [(c, v) for c in configs for v in args.variants.split(",")]:
            opts = parse_options(cfg)
            v = Variant.parse(vs)
            run_variant(g, v, opts)
            phases: dict[str, list[float]] = {}
            walls = []
            for _ in range(args.reps):
                prof: list = []
                cp.cuda.Device().synchronize()
                t = time.perf_counter()
                run_variant(g, v, opts, profile=prof)
                walls.append((time.perf_counter() - t) * 1e3)
                prof[-1][1].synchronize()
                for (_, ea), (b, eb) in itertools.pairwise(prof):
                    phases.setdefault(b, []).append(cp.cuda.get_elapsed_time(ea, eb))
                phases.setdefault("total", []).append(
                    cp.cuda.get_elapsed_time(prof[0][1], prof[-1][1])
                )
            run_variant(g, v, opts)  # captures the plan; the next calls replay it
            phases["replay"] = replay_times(cp, g, v, args.reps, opts)
            g.clear_device_cache()
            cells = " ".join(f"{k}={statistics.median(x):.3f}" for k, x in phases.items())
            print(
                f"{name:8s} {vs:28s} [{cfg}] host_wall={statistics.median(walls):.3f} {cells}",
                flush=True,
            )
        g = None  # release the device graph before the next one is built
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    sys.exit(main())
