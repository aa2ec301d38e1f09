"""One insert batch holding a whole suite graph, per union rule (GPU).

    PYTHONPATH=src python benchmarks/profile/profile_incremental.py \
        [--graphs ...] [--algorithms ...]

Times the engine call (validated already, as ``bench_incremental.py``'s ``kernel``
rows and GConn's numbers) with CUDA events, median of ``--reps`` after a warm-up,
each run on a fresh structure; checks the component count once per configuration.
Used to choose the defaults of ``concomp._gpu.incremental``; prints one line each.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _graphs import TARGET_MS, load_stream
from profile_gpu_cc import parse_options

from concomp.incremental import IncrementalConnectivity
from concomp.options import DEFAULTS, Options


def time_fresh(
    cp,
    n: int,
    alg: str | None,
    reps: int,
    call,
    setup=None,
    check=None,
    options: Options = DEFAULTS,
):
    """``(median ms, last structure, last result, every check passed?)`` of ``call(ic)``.

    Each of ``reps`` timed runs (after one warm-up) gets a fresh structure ``ic`` of
    ``n`` vertices whose engine runs with ``options``; ``setup(engine)``, if given, is
    applied to each before it runs, and ``check(ic)``, if given, after. CUDA events
    around the call only.
    """
    times, ic, out, ok = [], None, None, True
    for i in range(reps + 1):
        ic = IncrementalConnectivity(n, device="gpu", algorithm=alg or "auto")
        ic._engine.options = options  # the engine reads its options at every call
        if setup is not None:
            setup(ic._engine)
        cp.cuda.Device().synchronize()
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        out = call(ic)
        b.record()
        b.synchronize()
        if i:
            times.append(cp.cuda.get_elapsed_time(a, b))
        ok = ok and (check is None or check(ic))
    return statistics.median(times), ic, out, ok


def time_insert_batch(
    cp, n: int, alg: str, s, d, reps: int, components: int, setup=None, options: Options = DEFAULTS
) -> tuple[float, bool]:
    """``(median ms, component count right?)`` of inserting ``(s, d)`` as one batch
    through the engine (validated already), as :func:`time_fresh` times it."""
    ms, _, _, ok = time_fresh(
        cp,
        n,
        alg,
        reps,
        lambda ic: ic._engine.run("insert", None, s, d, 0),
        setup,
        lambda ic: ic._n - ic._engine.num_links() == components,
        options,
    )
    return ms, ok


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="rmat22,er22,gridp4k,cong22")
    ap.add_argument(
        "--algorithms", default="none-async-split-coo,none-rem_cas-split-coo,none-rem_cas-halve-coo"
    )
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="interleaved rounds of every configuration (A/B on one machine)",
    )
    ap.add_argument("--orders", default="csr", help="csr and/or permuted")
    ap.add_argument(
        "--blocks-per-sm",
        default="256",
        help="comma-separated values of _gpu.incremental.INSERT_BLOCKS_PER_SM",
    )
    ap.add_argument(
        "--knobs",
        default="",
        help="';'-separated configs of Options fields, each 'field=value,...', "
        "e.g. 'two_pass=never;two_pass=always'",
    )
    args = ap.parse_args(argv)
    import cupy as cp

    from concomp._gpu import incremental as eng

    configs = [c for c in args.knobs.split(";") if c] or [""]
    default_blocks = eng.INSERT_BLOCKS_PER_SM
    for name in args.graphs.split(","):
        n, csr, perm, components = load_stream(name, "gpu", False)
        for order in args.orders.split(","):
            s, d = csr if order == "csr" else perm
            for rnd, cfg, alg, bps in itertools.product(
                range(args.rounds),
                configs,
                args.algorithms.split(","),
                args.blocks_per_sm.split(","),
            ):
                eng.INSERT_BLOCKS_PER_SM = int(bps)
                ms, ok = time_insert_batch(
                    cp, n, alg, s, d, args.reps, components, options=parse_options(cfg)
                )
                print(
                    f"{name:8s} {order:8s} {alg:24s} blocks/SM={bps:>3s} [{cfg}] "
                    f"round={rnd} ms={ms:.3f} target={TARGET_MS[name]} "
                    f"{'ok' if ok else 'WRONG COMPONENT COUNT'}",
                    flush=True,
                )
        s = d = csr = perm = None
        cp.get_default_memory_pool().free_all_blocks()
    eng.INSERT_BLOCKS_PER_SM = default_blocks
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
