"""What streaming cache hints and the finish order buy: static ``auto`` and one insert batch.

    PYTHONPATH=src python benchmarks/profile_cache_hints.py [--graphs ...] [--configs ...]

CONCOMP_STREAM_HINT (``cuda/uf.cuh``, default on) makes the kernels read edge
inputs and write per-edge outputs with evict-first "streaming" accesses, so that
they do not push the parent array out of L2. ``components.FINISH_IN_ORDER``
(default on) runs the static CSR finish with one thread per vertex, in about
increasing id order. Each configuration recompiles the kernels with its ``-D``
flags; configurations are interleaved over ``--rounds`` so that drift of the
machine spreads evenly. Static runs are timed as the suite times them (replay of
the captured run, CUDA events), inserts as ``profile_incremental.py`` does (one
batch holding the whole graph, fresh structure per run; the finish order does
not apply). Prints one line per (graph, experiment, configuration): the median
over all rounds, and the component counts seen.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_incremental import load_stream
from profile_gpu_cc import replay_times
from profile_incremental import time_insert_batch

S0, S1 = "-DCONCOMP_STREAM_HINT=0", "-DCONCOMP_STREAM_HINT=1"
#: name: (compile flags, ``components.FINISH_IN_ORDER``)
CONFIGS = {
    "plain": ((S0,), True),
    "stream": ((S1,), True),
    "plain-strided": ((S0,), False),
    "stream-strided": ((S1,), False),
    # the grandparent reads of Rem's compression steps relaxed instead of cached
    "stream-relaxed-step": ((S1, "-DCONCOMP_CACHED_STEP=0"), True),
    # Rem's union re-reads both parents every iteration instead of the moved side's
    "stream-both-sides": ((S1, "-DCONCOMP_REM_ONE_SIDE=0"), True),
}


def use_config(config: tuple[tuple[str, ...], bool]) -> None:
    """Recompile every kernel with the config's flags on its next use; set the finish order."""
    from concomp._gpu import _compile, components, kernels

    flags, in_order = config
    base = tuple(o for o in _compile.NVRTC_OPTIONS
                 if not o.startswith("-DCONCOMP_") or o == "-DCONCOMP_NVRTC")
    _compile.NVRTC_OPTIONS = base + flags
    _compile.get_module.cache_clear()
    kernels.cc_kernels.cache_clear()
    components.FINISH_IN_ORDER = in_order


def time_static(cp, g, reps: int) -> tuple[float, int]:
    """``(median ms, components)`` of ``auto`` on ``g``, replayed as the suite times it."""
    from concomp._gpu.autoselect import choose
    from concomp._gpu.components import run_variant

    g.clear_device_cache()
    v = choose(g)
    run_variant(g, v)
    roots = run_variant(g, v)[0]  # captured now; later calls replay
    count = int((roots == cp.arange(roots.shape[0], dtype=roots.dtype)).sum())
    return statistics.median(replay_times(cp, g, v, reps)), count


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="rmat22,er22,gridp4k,cong22")
    ap.add_argument("--configs", default=",".join(CONFIGS))
    ap.add_argument("--experiments", default="static,insert")
    ap.add_argument("--algorithm", default="none-rem_cas-halve-coo")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args(argv)
    import cupy as cp
    import gpu_suite

    configs = args.configs.split(",")
    exps = args.experiments.split(",")
    for gname in args.graphs.split(","):
        results: dict = {}
        if "static" in exps:
            g = gpu_suite.make(gname)
            for _ in range(args.rounds):
                for c in configs:
                    use_config(CONFIGS[c])
                    ms, count = time_static(cp, g, args.reps)
                    results.setdefault(("static", c), []).append((ms, count))
            g = None
        if "insert" in exps:
            n, (s, d), _, components = load_stream(gname, "gpu", False)
            for _ in range(args.rounds):
                for c in configs:
                    use_config(CONFIGS[c])
                    ms, ok = time_insert_batch(cp, n, args.algorithm, s, d, args.reps, components)
                    results.setdefault(("insert", c), []).append((ms, components if ok else -1))
            s = d = None
        cp.get_default_memory_pool().free_all_blocks()
        for (exp, c), rows in results.items():
            counts = {r[1] for r in rows}
            print(f"{gname:8s} {exp:7s} {c:7s} ms={statistics.median(r[0] for r in rows):.3f} "
                  f"runs={','.join(f'{r[0]:.3f}' for r in rows)} components={sorted(counts)}",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
