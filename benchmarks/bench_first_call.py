"""A new user's first minute: ``import concomp`` and the first calls, in fresh processes.

For each entry point and device, a fresh Python process imports concomp, builds a
uniform random edge list with NumPy alone (not timed; concomp's generators would
load numba before the clock starts) and times its first and its second call, so
the first call carries everything a new process pays: importing numba (or CuPy),
loading or compiling the kernels, and the work itself. With an empty cache
(``NUMBA_CACHE_DIR`` and ``CUPY_CACHE_DIR`` point at a new temporary folder), then
with a warm one (the same folders, ``--warm-repeats`` more processes; their median
is reported).

Two references come with it:

- ``import``: ``python -X importtime -c "import concomp"`` in ``--import-repeats``
  fresh processes, the median of concomp's cumulative import time (and of the wall
  time around the import), with the slowest modules of one trace;
- ``numba_floor``: what numba itself costs a fresh process with a warm cache, with
  no concomp at all: ``import numba``, then the first call of a one-loop
  ``@njit(cache=True)`` function (numba loads its typing and lowering registries on
  the first call in a process, SciPy's BLAS bindings included). No first CPU call
  can take less.

    python benchmarks/bench_first_call.py --device cpu
    python benchmarks/bench_first_call.py --device both --out first_call_gpu.json

Writes ``benchmarks/results/<date>-<device>-<commit>-first-call.json`` (or ``--out``)
and prints a table.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = str(ROOT / "src")
ENTRIES = ("connected_components", "spanning_forest", "minimum_spanning_forest", "insert", "stream")

#: Run in each fresh process: argv = entry, device, n, m. Prints one JSON line.
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import concomp
t_import = time.perf_counter() - t0
import numpy as np
entry, device, n, m = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(1)
src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
w = rng.random(m)
preloaded = sorted(k for k in ("numba", "cupy", "scipy.sparse") if k in sys.modules)

def sync():
    if "cupy" in sys.modules:
        sys.modules["cupy"].cuda.Device().synchronize()

def call():
    if entry == "connected_components":
        concomp.connected_components((src, dst), num_nodes=n, device=device)
    elif entry == "spanning_forest":
        concomp.spanning_forest((src, dst), num_nodes=n, device=device)
    elif entry == "minimum_spanning_forest":
        concomp.minimum_spanning_forest(concomp.as_graph((src, dst), n, weights=w), device=device)
    elif entry == "insert":
        concomp.IncrementalConnectivity(n, device=device).insert(src, dst)
    elif entry == "stream":
        half = m // 2
        concomp.stream_components(
            [(src[:half], dst[:half]), (src[half:], dst[half:])], n, device=device
        )
    sync()

times = []
for _ in range(2):
    t = time.perf_counter()
    call()
    times.append(time.perf_counter() - t)
print(json.dumps({"import_s": t_import, "first_s": times[0], "second_s": times[1],
                  "loaded_before_call": preloaded}))
"""

#: numba alone: a cached one-loop function in its own module (argv: its folder).
FLOOR_MODULE = """
import numba

@numba.njit(cache=True)
def total(a):
    s = 0
    for x in a:
        s += x
    return s
"""
FLOOR_CHILD = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
t0 = time.perf_counter()
import numba
t1 = time.perf_counter()
import floor_kernel
floor_kernel.total(np.arange(10))
t2 = time.perf_counter()
print(json.dumps({"import_numba_s": t1 - t0, "first_call_s": t2 - t1, "total_s": t2 - t0}))
"""


def _env(cache: str | None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    if cache is not None:
        env["CUPY_CACHE_DIR"] = str(Path(cache) / "cupy")
        env["NUMBA_CACHE_DIR"] = str(Path(cache) / "numba")
    return env


def _python(args: list[str], cache: str | None) -> dict:
    """Run ``python args`` in a fresh process; its last stdout line as JSON, or the error."""
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        env=_env(cache),
        timeout=600,
        check=False,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1] if out.stderr else "failed"}
    row = json.loads(out.stdout.strip().splitlines()[-1])
    row["process_s"] = time.perf_counter() - start
    return row


def _median_row(rows: list[dict]) -> dict:
    """The run with the median first call (all runs kept under ``runs``)."""
    good = [r for r in rows if "error" not in r]
    if not good:
        return rows[0]
    pick = sorted(good, key=lambda r: r["first_s"])[len(good) // 2]
    return {**pick, "runs_first_s": [r["first_s"] for r in good]}


def time_import(repeats: int) -> dict:
    """``-X importtime``'s cumulative time of ``concomp`` and the wall time, median of
    ``repeats`` fresh processes; the slowest modules of the last trace."""
    code = "import time; t = time.perf_counter(); import concomp; print(time.perf_counter() - t)"
    wall, cumulative, top = [], [], []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", code],
            capture_output=True,
            text=True,
            env=_env(None),
            check=True,
        )
        wall.append(float(out.stdout.strip()))
        rows = []
        for line in out.stderr.splitlines()[1:]:
            parts = line.split("|")
            if len(parts) == 3 and parts[1].strip().isdigit():
                rows.append((int(parts[1]), parts[2].strip()))
        cumulative.append(next(us for us, name in rows if name == "concomp") / 1e6)
        top = sorted(rows, reverse=True)[:10]
    return {
        "importtime_median_s": statistics.median(cumulative),
        "importtime_runs_s": cumulative,
        "wall_median_s": statistics.median(wall),
        "wall_runs_s": wall,
        "top_cumulative_us": [[name, us] for us, name in top],
    }


def numba_floor(repeats: int) -> dict:
    """numba's own start in a fresh process with a warm cache (median of ``repeats``)."""
    with tempfile.TemporaryDirectory(prefix="concomp-numba-floor-") as d:
        Path(d, "floor_kernel.py").write_text(FLOOR_MODULE)
        cold = _python(["-c", FLOOR_CHILD, d], d)
        warm = [_python(["-c", FLOOR_CHILD, d], d) for _ in range(repeats)]
    good = [r for r in warm if "error" not in r]
    if not good:
        return {"cold": cold, "error": warm[0].get("error", "failed")}
    pick = sorted(good, key=lambda r: r["total_s"])[len(good) // 2]
    return {"cold": cold, "warm": pick, "warm_runs_total_s": [r["total_s"] for r in good]}


def _versions() -> dict:
    code = (
        "import json, importlib.metadata as m\n"
        "out = {}\n"
        "for p in ('numpy', 'scipy', 'numba', 'llvmlite', 'cupy-cuda12x', 'cupy-cuda13x', "
        "'isal'):\n"
        "    try: out[p] = m.version(p)\n"
        "    except m.PackageNotFoundError: pass\n"
        "print(json.dumps(out))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def _commit() -> str:
    out = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    )
    return out.stdout.strip() or "unknown"


def run(devices: list[str], n: int, m: int, import_repeats: int, warm_repeats: int) -> dict:
    result: dict = {
        "date": time.strftime("%Y-%m-%d"),
        "commit": _commit(),
        "python": sys.version.split()[0],
        "machine": platform.node(),
        "cpus": os.cpu_count(),
        "load_average_before": list(os.getloadavg()),
        "versions": _versions(),
        "n": n,
        "m": m,
        "import": time_import(import_repeats),
        "numba_floor": numba_floor(warm_repeats),
        "calls": [],
    }
    for device in devices:
        for entry in ENTRIES:
            args = ["-c", CHILD, entry, device, str(n), str(m)]
            with tempfile.TemporaryDirectory(prefix="concomp-first-call-") as cache:
                cold = _python(args, cache)
                warm = _median_row([_python(args, cache) for _ in range(warm_repeats)])
            result["calls"].append({"entry": entry, "device": device, "cold": cold, "warm": warm})
    result["load_average_after"] = list(os.getloadavg())
    return result


def _fmt(row: dict, key: str) -> str:
    return "error" if "error" in row else f"{row[key]:.3f}"


def table(result: dict) -> str:
    imp, floor = result["import"], result["numba_floor"]
    lines = [
        f"import concomp: -X importtime median {imp['importtime_median_s']:.3f} s, wall median "
        f"{imp['wall_median_s']:.3f} s ({len(imp['wall_runs_s'])} processes)",
    ]
    if "warm" in floor:
        w = floor["warm"]
        lines.append(
            f"numba alone, warm cache: import {w['import_numba_s']:.3f} s + first call "
            f"{w['first_call_s']:.3f} s = {w['total_s']:.3f} s"
        )
    lines.append(
        f"{'entry':<26}{'dev':<5}{'cold 1st':>10}{'cold 2nd':>10}{'warm 1st':>10}"
        f"{'warm 2nd':>10}{'warm proc':>10}"
    )
    for r in result["calls"]:
        c, w = r["cold"], r["warm"]
        lines.append(
            f"{r['entry']:<26}{r['device']:<5}{_fmt(c, 'first_s'):>10}{_fmt(c, 'second_s'):>10}"
            f"{_fmt(w, 'first_s'):>10}{_fmt(w, 'second_s'):>10}{_fmt(w, 'process_s'):>10}"
        )
        for name, row in (("cold", c), ("warm", w)):
            if "error" in row:
                lines.append(f"    {name}: {row['error']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=("cpu", "gpu", "both"), default="cpu")
    p.add_argument("--nodes", type=int, default=100_000)
    p.add_argument("--edges", type=int, default=300_000)
    p.add_argument("--import-repeats", type=int, default=7)
    p.add_argument("--warm-repeats", type=int, default=5)
    p.add_argument("--out", type=Path, help="write the result as JSON here")
    args = p.parse_args(argv)
    if min(args.import_repeats, args.warm_repeats) < 1:
        p.error("--import-repeats and --warm-repeats: give at least 1 (5 or more for a record)")
    devices = ["cpu", "gpu"] if args.device == "both" else [args.device]
    result = run(devices, args.nodes, args.edges, args.import_repeats, args.warm_repeats)
    out = args.out or ROOT / "benchmarks" / "results" / (
        f"{result['date']}-{args.device}-{result['commit']}-first-call.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(f"wrote {out}")
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
