"""The CPU engine's NumPy start against its compiled kernels, as users call it.

Each row is a fresh Python process with a warm numba cache that builds one input
(NumPy edge pair, SciPy CSR, or a fresh ``concomp.Graph``; before the clock), then
times three calls of one entry point in a row (for ``insert``, every edge into a new
``IncrementalConnectivity`` each time): the first shows what a new process
pays, the next two whether anything stays slow. Each row runs with the default
options (the NumPy start on) and with ``Options(numpy_start=False)`` (the kernels
from the first call), median of ``--repeats`` processes after one that fills the
cache. Shapes: a uniform random graph, and high-diameter ones with ids in order (a
path, a natural-order 2-D grid), at and beyond the start's size bound. ``--calls K``
times K calls a process; ``--scipy`` adds, for ``connected_components``, SciPy's
``csgraph.connected_components`` on the same input in the same process after
concomp's calls (its first call importing ``scipy.sparse.csgraph``); ``--shapes``
keeps the rows of the shapes named.

Usage::

    PYTHONPATH=src python benchmarks/bench_numpy_start.py \\
        --out benchmarks/results/<date>-cpu-<commit>-numpy-start.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_first_call import _commit, _python  # noqa: E402  (a sibling script)

ENTRIES = ("connected_components", "spanning_forest", "minimum_spanning_forest", "stream", "insert")

#: (shape, n, input kinds): the random graph in every input kind, the others as pairs.
ROWS = (
    ("random", 100_000, ("pair", "csr", "graph")),
    ("path-natural", 1 << 18, ("pair",)),
    ("path-natural", (1 << 20) - 1, ("pair",)),
    ("grid-natural", 1 << 18, ("pair",)),
    ("grid-natural", 1 << 20, ("pair",)),
    ("path-natural", 1 << 22, ("pair",)),
)

CHILD = r"""
import json, sys, time
import numpy as np
entry, shape, n, kind, start = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
ncalls, with_scipy = int(sys.argv[6]), sys.argv[7] == "scipy"
if shape == "random":
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, n, 3 * n), rng.integers(0, n, 3 * n)
elif shape == "path-natural":
    src = np.arange(n - 1)
    dst = src + 1
else:  # a side x side grid in row-major order: right and down edges
    side = int(n ** 0.5)
    ids = np.arange(side * side).reshape(side, side)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    n = side * side
w = np.random.default_rng(2).random(src.shape[0])
import concomp
from concomp.options import Options
opts = Options(numpy_start=start == "on")
if kind == "csr":
    import scipy.sparse as sp
    graph = sp.csr_array((w, (src, dst)), shape=(n, n))
elif kind == "graph":
    graph = concomp.Graph.from_edges(src, dst, num_nodes=n, weights=w)
else:
    graph = (src, dst)

def call():
    if entry == "connected_components":
        concomp.connected_components(graph, num_nodes=n, device="cpu", options=opts)
    elif entry == "spanning_forest":
        concomp.spanning_forest(graph, num_nodes=n, device="cpu", options=opts)
    elif entry == "minimum_spanning_forest":
        g = graph if kind != "pair" else concomp.as_graph(graph, n, weights=w)
        concomp.minimum_spanning_forest(g, device="cpu", options=opts)
    elif entry == "insert":  # every edge into a new structure
        concomp.IncrementalConnectivity(n, device="cpu", options=opts).insert(src, dst)
    else:
        half = src.shape[0] // 2
        pieces = [(src[:half], dst[:half]), (src[half:], dst[half:])]
        concomp.stream_components(pieces, n, device="cpu", options=opts)

times = []
for _ in range(ncalls):
    t = time.perf_counter()
    call()
    times.append(time.perf_counter() - t)
numba_loaded = "numba" in sys.modules
scipy_s = []
if with_scipy and entry == "connected_components":
    for _ in range(ncalls):
        t = time.perf_counter()
        import scipy.sparse as sp
        from scipy.sparse.csgraph import connected_components as scc
        a = graph if kind == "csr" else sp.coo_array((w, (src, dst)), shape=(n, n))
        scc(a, directed=False)
        scipy_s.append(time.perf_counter() - t)
print(json.dumps({"first_s": times[0], "calls_s": times, "edges": int(src.shape[0]),
                  "numba_loaded": numba_loaded, "scipy_s": scipy_s}))
"""


def measure(
    entry: str,
    shape: str,
    n: int,
    kind: str,
    start: str,
    repeats: int,
    calls: int = 3,
    scipy: bool = False,
) -> dict:
    args = ["-c", CHILD, entry, shape, str(n), kind, start, str(calls), "scipy" if scipy else ""]
    with tempfile.TemporaryDirectory(prefix="concomp-numpy-start-") as cache:
        _python(args, cache)  # fills the numba cache (its compile is not the question)
        rows = [_python(args, cache) for _ in range(repeats)]
    failed = [r for r in rows if "error" in r]
    if failed:
        return {"error": failed[0]["error"]}
    pick = sorted(rows, key=lambda r: r["first_s"])[len(rows) // 2]
    return {**pick, "runs_first_s": [r["first_s"] for r in rows]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--entries", nargs="+", choices=ENTRIES, default=list(ENTRIES))
    p.add_argument("--out", type=Path)
    p.add_argument("--calls", type=int, default=3)
    p.add_argument("--scipy", action="store_true")
    p.add_argument("--shapes", nargs="+", default=None)
    args = p.parse_args(argv)
    result: dict = {
        "benchmark": "numpy-start",
        "date": time.strftime("%Y-%m-%d"),
        "commit": _commit(),
        "cpus": os.cpu_count(),
        "repeats": args.repeats,
        "entries": args.entries,
        "calls": args.calls,
        "command": "python benchmarks/bench_numpy_start.py " + " ".join(sys.argv[1:]),
        "rows": [],
    }
    out = args.out or HERE / "results" / f"{result['date']}-cpu-{result['commit']}-numpy-start.json"
    print(f"{'entry':<24}{'shape':<14}{'n':>9}{'input':>7}  first on/off (s)  later calls on")
    for entry in args.entries:
        for shape, n, kinds in ROWS:
            if args.shapes and shape not in args.shapes:
                continue
            for kind in kinds:
                if entry in ("stream", "insert") and kind != "pair":
                    continue
                on = measure(entry, shape, n, kind, "on", args.repeats, args.calls, args.scipy)
                off = measure(entry, shape, n, kind, "off", args.repeats, args.calls)
                result["rows"].append(
                    {"entry": entry, "shape": shape, "n": n, "input": kind, "on": on, "off": off}
                )
                out.write_text(json.dumps(result, indent=1) + "\n")  # after every row

                def f(r: dict, key: str = "first_s") -> str:
                    return "error" if "error" in r else f"{r[key]:.3f}"

                later = (
                    "error" if "error" in on else ",".join(f"{t:.3f}" for t in on["calls_s"][1:])
                )
                sci = on.get("scipy_s") or []
                scipy_txt = ("   scipy " + ",".join(f"{t:.3f}" for t in sci)) if sci else ""
                print(
                    f"{entry:<24}{shape:<14}{n:>9}{kind:>7}  {f(on):>7} /{f(off):>7}   {later}"
                    + scipy_txt,
                    flush=True,
                )
    result["median_first_ratio_on_off"] = statistics.median(
        r["on"]["first_s"] / r["off"]["first_s"]
        for r in result["rows"]
        if "error" not in r["on"] and "error" not in r["off"]
    )
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
