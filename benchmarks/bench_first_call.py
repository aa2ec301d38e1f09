"""A new user's first minute: ``import concomp`` and the first calls, in fresh processes.

For each entry point and device, one fresh Python process imports concomp, builds a
G(n, m) edge list with :mod:`concomp.generators` (not timed) and times its first and
its second call. With an empty cache (``CUPY_CACHE_DIR`` and ``NUMBA_CACHE_DIR`` point
at a new temporary folder), then with a warm one (the same folders, a second process).
``import concomp`` is timed as the median of fresh processes. numba's cache for the
kernels outside the entry points' own compile (validation, CSR building) lives beside
the package unless ``NUMBA_CACHE_DIR`` is set, so the empty-cache runs set it.

    python benchmarks/bench_first_call.py --device cpu --out first_call.json
    python benchmarks/bench_first_call.py --device gpu --out first_call_gpu.json

Writes JSON (``--out``) and prints a table.
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

SRC = str(Path(__file__).resolve().parents[1] / "src")
ENTRIES = ("connected_components", "spanning_forest", "minimum_spanning_forest", "insert", "stream")

#: Run in each fresh process: argv = entry, device, n, m. Prints one JSON line.
CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
import concomp
t_import = time.perf_counter() - t0
entry, device, n, m = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
g = concomp.generators.gnm(n, m, clean=False, seed=1)
src, dst = g.coo()
w = concomp.generators.random_weights(m, dtype="float", seed=2)

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
print(json.dumps({"import_s": t_import, "first_s": times[0], "second_s": times[1]}))
"""


def _env(cache: str | None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + os.pathsep + env.get("PYTHONPATH", "")
    if cache is not None:
        env["CUPY_CACHE_DIR"] = str(Path(cache) / "cupy")
        env["NUMBA_CACHE_DIR"] = str(Path(cache) / "numba")
    return env


def _child(entry: str, device: str, n: int, m: int, cache: str) -> dict:
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, entry, device, str(n), str(m)],
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


def time_import(repeats: int) -> dict:
    """Median wall time of ``import concomp`` in fresh processes, and -X importtime's top."""
    code = "import time; t = time.perf_counter(); import concomp; print(time.perf_counter() - t)"
    runs = []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=_env(None), check=True
        )
        runs.append(float(out.stdout.strip()))
    trace = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import concomp"],
        capture_output=True,
        text=True,
        env=_env(None),
        check=True,
    ).stderr
    top = []
    for line in trace.splitlines()[1:]:
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            top.append((int(parts[1]), parts[2].strip()))
    top.sort(reverse=True)
    return {
        "median_s": statistics.median(runs),
        "runs_s": runs,
        "top_cumulative_us": [[name, us] for us, name in top[:10]],
    }


def run(devices: list[str], n: int, m: int, import_repeats: int) -> dict:
    result: dict = {
        "date": time.strftime("%Y-%m-%d"),
        "python": sys.version.split()[0],
        "machine": platform.node(),
        "n": n,
        "m": m,
        "import": time_import(import_repeats),
        "calls": [],
    }
    for device in devices:
        for entry in ENTRIES:
            with tempfile.TemporaryDirectory(prefix="concomp-first-call-") as cache:
                cold = _child(entry, device, n, m, cache)
                warm = _child(entry, device, n, m, cache)
            result["calls"].append({"entry": entry, "device": device, "cold": cold, "warm": warm})
    return result


def _fmt(row: dict, key: str) -> str:
    return "error" if "error" in row else f"{row[key]:.3f}"


def table(result: dict) -> str:
    lines = [
        f"import concomp: median {result['import']['median_s']:.3f} s "
        f"({len(result['import']['runs_s'])} processes)",
        f"{'entry':<26}{'dev':<5}{'cold 1st':>10}{'cold 2nd':>10}{'warm 1st':>10}"
        f"{'warm 2nd':>10}{'warm proc':>10}",
    ]
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
    p.add_argument("--import-repeats", type=int, default=5)
    p.add_argument("--out", type=Path, help="write the result as JSON here")
    args = p.parse_args(argv)
    devices = ["cpu", "gpu"] if args.device == "both" else [args.device]
    result = run(devices, args.nodes, args.edges, args.import_repeats)
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(result, indent=2) + "\n")
    print(table(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
