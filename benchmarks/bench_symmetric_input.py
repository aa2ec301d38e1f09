"""Weak components of an already-symmetric SciPy CSR: concomp vs SciPy (issue 20, item 6).

The matrix is an R-MAT graph (``concomp.generators.rmat(scale, 16, seed=1)``, a
symmetric CSR) turned into a ``scipy.sparse.csr_array`` with float64 ones, saved once
as ``.npz`` (uncompressed). Each measurement runs in a fresh interpreter that loads
the matrix, records its RSS, resets the peak (``/proc/self/clear_refs``, so that
``VmHWM``, the kernel's ``ru_maxrss``, forgets the loading), runs one warm-up call (numba
compilation, page faults) and then ``--repeat`` timed calls; the report gives the
median time and the peak RSS growth over the loaded matrix, per method:

* ``scipy``: ``scipy.sparse.csgraph.connected_components(A, directed=False)``
* ``concomp.csgraph``: ``concomp.csgraph.connected_components(A, directed=False)``
* ``concomp``: ``concomp.connected_components(A, device="cpu")``

    PYTHONPATH=src python benchmarks/bench_symmetric_input.py --scale 22 \
        --out benchmarks/results/symmetric_input_cpu.json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile

CHILD = r"""
import json, resource, statistics, sys, time
import numpy as np, scipy.sparse as sp
path, method, repeat = sys.argv[1], sys.argv[2], int(sys.argv[3])
A = sp.load_npz(path)
A = sp.csr_array(A)
if method == "scipy":
    from scipy.sparse.csgraph import connected_components as run
    call = lambda: run(A, directed=False)
elif method == "concomp.csgraph":
    from concomp.csgraph import connected_components as run
    call = lambda: run(A, directed=False)
else:
    import concomp
    call = lambda: concomp.connected_components(A, device="cpu")
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))
base = status("VmRSS")  # the loaded matrix
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # resets VmHWM to the current RSS, forgetting the loading peak
count = call()[0]  # warm-up: numba compilation (cached on disk after the first run)
times = []
for _ in range(repeat):
    t = time.perf_counter()
    count = call()[0]
    times.append(time.perf_counter() - t)
peak = status("VmHWM")
print(json.dumps({"count": int(count), "times_s": times, "median_s": statistics.median(times),
                  "base_rss_kib": base, "peak_rss_kib": peak,
                  "ru_maxrss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "peak_growth_bytes": (peak - base) * 1024}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=int, default=22)
    ap.add_argument("--edge-factor", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--methods", default="scipy,concomp.csgraph,concomp")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    import numpy as np
    import scipy.sparse as sp

    from concomp.generators import rmat

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "A.npz")
        g = rmat(args.scale, args.edge_factor, seed=1)
        indptr, indices, _ = g.csr()
        A = sp.csr_array(
            (np.ones(indices.shape[0]), indices, indptr), shape=(g.num_nodes, g.num_nodes)
        )
        info = {
            "scale": args.scale,
            "edge_factor": args.edge_factor,
            "n": int(A.shape[0]),
            "nnz": int(A.nnz),
            "indices_dtype": str(A.indices.dtype),
            "symmetric_flag": bool(g.symmetric),
        }
        sp.save_npz(path, A, compressed=False)
        del g, A, indptr, indices
        rows = {}
        for method in args.methods.split(","):
            out = subprocess.run(
                [sys.executable, "-c", CHILD, path, method, str(args.repeat)],
                capture_output=True,
                text=True,
                check=True,
            )
            rows[method] = json.loads(out.stdout.strip().splitlines()[-1])
            print(method, json.dumps(rows[method]), flush=True)
    if "scipy" in rows:
        for row in rows.values():
            row["speedup_vs_scipy"] = rows["scipy"]["median_s"] / row["median_s"]
            row["peak_vs_scipy"] = row["peak_growth_bytes"] / max(
                1, rows["scipy"]["peak_growth_bytes"]
            )
    doc = {
        "graph": info,
        "machine": {
            "platform": platform.platform(),
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "mem_bytes": os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"),
        },
        "results": rows,
    }
    print(json.dumps(doc, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)


if __name__ == "__main__":
    main()
