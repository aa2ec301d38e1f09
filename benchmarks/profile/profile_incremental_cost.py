"""What one insert batch spends on its outputs: forest recording and per-entry results.

    PYTHONPATH=src python benchmarks/profile/profile_incremental_cost.py [--graphs ...]

Times the engine's insert kernel (one batch holding a whole suite graph, both
directions, as GConn feeds it) as shipped and with parts of its work removed
from a copy of ``cuda/incremental.cu``: the forest recording and the result
writes; or with an equal-parents shortcut added. CUDA events, median of ``--reps``
after a warm-up, a fresh structure per run. Diagnostic only: the stripped
kernels do not meet the API's contract.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _graphs import TARGET_MS, load_stream
from profile_incremental import time_insert_batch

RECORD = """    st_stream(rec, make_longlong2((long long)a, (long long)b));
    st_stream(rec + 1, make_longlong2(batch, pos));
"""
RESULT = (
    "    st_stream(reinterpret_cast<unsigned char*>(result + i), (unsigned char)(linked >= 0));\n"
)
UNITE = "I linked = U::unite(s, a, b);"
PATCHES = {
    "shipped": [],
    "no_record": [(RECORD, "")],
    "no_result": [(RESULT, "")],
    "no_outputs": [(RECORD, ""), (RESULT, "")],
    # skip the union when both endpoints already have the same parent (two plain loads)
    "shortcut": [(UNITE, "I linked = ld(s.p + a) == ld(s.p + b) ? (I)-1 : U::unite(s, a, b);")],
}


def patched_kernel(cp, name: str, patch):
    from concomp._gpu._compile import NVRTC_OPTIONS, source_text

    src = source_text("incremental.cu")
    for old, new in patch:
        assert old in src, old
        src = src.replace(old, new)
    mod = cp.RawModule(code=src, options=NVRTC_OPTIONS, name_expressions=[name])
    return mod.get_function(name)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--graphs", default="rmat22,gridp4k")
    ap.add_argument("--algorithms", default="none-rem_cas-halve-coo,none-async-split-coo")
    ap.add_argument("--patches", default=",".join(PATCHES))
    ap.add_argument("--orders", default="csr,permuted")
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args(argv)
    import cupy as cp

    from concomp._gpu.incremental import batch_names
    from concomp._gpu.kernels import ctype

    for gname in args.graphs.split(","):
        n, csr, perm, components = load_stream(gname, "gpu", False)
        for order in args.orders.split(","):
            s, d = csr if order == "csr" else perm
            for alg in args.algorithms.split(","):
                for pname in args.patches.split(","):
                    kernels: dict = {}

                    def setup(eng, patch=PATCHES[pname], kernels=kernels):
                        name = batch_names(eng.unite, ctype(eng.dtype))["insert"]
                        if name not in kernels:  # compiled once per configuration
                            kernels[name] = patched_kernel(cp, name, patch)
                        eng._fns[("insert", eng.dtype)] = kernels[name]

                    ms, ok = time_insert_batch(cp, n, alg, s, d, args.reps, components, setup)
                    print(
                        f"{gname:8s} {order:8s} {alg:24s} {pname:12s} "
                        f"ms={ms:.3f} target={TARGET_MS[gname]} "
                        f"{'ok' if ok else 'WRONG COMPONENT COUNT'}",
                        flush=True,
                    )
        s = d = csr = perm = None
        cp.get_default_memory_pool().free_all_blocks()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
