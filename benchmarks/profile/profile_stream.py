"""Streams of small insert batches: one persistent launch against per-batch launches (GPU).

    PYTHONPATH=src python benchmarks/profile/profile_stream.py [--graphs ...] [--sizes ...]

Times ``IncrementalConnectivity.insert_batches`` over the first ``--batches`` batches
of each suite graph's permuted stream (as ``bench_incremental.py``'s ``stream`` rows),
with ``Options.stream_persistent_max`` set so that the stream runs as one
persistent launch (a grid barrier per batch) or as captured per-batch launches.
CUDA events, median of ``--reps`` after a warm-up, a fresh structure per run; the
two modes must agree on the partition, the number of links and the per-insert
results of every batch. Configurations are interleaved over ``--rounds``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _graphs import load_stream
from profile_incremental import time_fresh

from concomp.options import DEFAULTS, Options

MODES = {
    "persistent": DEFAULTS.with_(stream_persistent_max=1 << 62),
    "launches": DEFAULTS.with_(stream_persistent_max=0),
}


def time_stream(cp, n: int, s, d, size: int, reps: int, options: Options = DEFAULTS):
    """``(median ms, last structure, last results)`` of one ``insert_batches`` call."""
    return time_fresh(cp, n, None, reps, lambda ic: ic.insert_batches(s, d, size), options=options)[
        :3
    ]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="rmat22,er22,gridp4k,cong22")
    ap.add_argument("--sizes", default="1000,10000,100000")
    ap.add_argument("--batches", type=int, default=200)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--flags", default="", help="extra NVRTC options, e.g. '-lineinfo'")
    args = ap.parse_args(argv)
    import cupy as cp

    from concomp._gpu import _compile

    _compile.NVRTC_OPTIONS = _compile.NVRTC_OPTIONS + tuple(args.flags.split())
    modes = {k: MODES[k] for k in args.modes.split(",")}

    for name in args.graphs.split(","):
        n, _, (src, dst), _ = load_stream(name, "gpu", False)
        for size in map(int, args.sizes.split(",")):
            edges = min(int(src.shape[0]), size * args.batches)
            s, d = src[:edges], dst[:edges]
            ref = None
            for rnd in range(args.rounds):
                for mode, options in modes.items():
                    ms, ic, res = time_stream(cp, n, s, d, size, args.reps, options)
                    state = (ic.num_components, int(res.sum()))
                    ok = ref is None or state == ref
                    ref = ref or state
                    print(
                        f"{name:8s} size={size:>7d} batches={-(-edges // size):>4d} "
                        f"{mode:10s} round={rnd} ms={ms:.3f} "
                        f"us/batch={ms * 1e3 / -(-edges // size):.2f} "
                        f"edges/s={edges / ms * 1e3:.3e} {'ok' if ok else 'MISMATCH'}",
                        flush=True,
                    )
        src = dst = s = d = None
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
