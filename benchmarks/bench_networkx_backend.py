"""NetworkX with and without the concomp backend, conversion included and excluded.

Run from the repository root (the backend must be installed: ``pip install -e .``)::

    python benchmarks/bench_networkx_backend.py [--device cpu|gpu|auto]
        [--edges 100000 1000000] [--repeats 5] [--out FILE.json]

Graphs: ``concomp.generators.gnm`` (uniform random, ``--edges`` edges on ``edges / 4``
vertices, self loops and duplicates removed, uniform integer weights in [1, 1e6]),
turned into a NetworkX ``Graph`` (for connected components and minimum spanning trees)
and a ``DiGraph`` with the same edges in random orientations (for strongly connected
components; most vertices form one giant strong component).

Per graph and function, each timed with ``time.perf_counter`` as the median of
``--repeats`` runs after one warm-up run:

- ``networkx``: NetworkX's own function;
- ``backend_total``: ``f(G, backend="concomp")`` on a graph with an empty conversion
  cache (``G.__networkx_cache__`` cleared before each run): conversion included;
- ``backend_cached``: the same call again, the conversion served from the cache:
  conversion excluded (NetworkX's dispatch overhead and the result's Python objects
  included);
- ``convert``: ``concomp.nx.from_networkx`` alone;
- ``read_floor``: reading every adjacency entry of the NetworkX graph into a Python
  list (``list(chain.from_iterable(G._adj.values()))``), the least any conversion
  does; ``networkx / read_floor`` bounds the speedup a backend can reach with the
  conversion included (``speedup_bound_total``).

Results check equal (the components as a list of sets, the tree's edges). The JSON
holds the machine, the commit and every median; the table prints speedups.
"""

from __future__ import annotations

import argparse
import datetime
import itertools
import json
import os
import platform
import subprocess
import time
import warnings
from collections.abc import Callable
from typing import Any

import networkx as nx
import numba
import numpy as np

import concomp
import concomp.nx as cnx
from concomp.bench.timing import measure
from concomp.generators import gnm

FUNCTIONS = {
    # name: (graph kind, call, result normaliser)
    "connected_components": ("undirected", nx.connected_components, list),
    "strongly_connected_components": ("directed", nx.strongly_connected_components, list),
    "minimum_spanning_tree": (
        "undirected",
        nx.minimum_spanning_tree,
        lambda T: sorted((min(u, v), max(u, v)) for u, v in T.edges),
    ),
}


def make_graphs(edges: int, seed: int = 1) -> tuple[nx.Graph, nx.DiGraph]:
    n = max(2, edges // 4)
    g = gnm(n, edges, seed=seed)
    s, d = (np.asarray(a) for a in g.coo())
    once = s < d  # the generator lists each edge in both directions
    s, d = s[once], d[once]
    rng = np.random.default_rng(seed)
    w = rng.integers(1, 1_000_001, s.shape[0]).tolist()
    G = nx.Graph()
    G.add_nodes_from(range(n))
    G.add_weighted_edges_from(zip(s.tolist(), d.tolist(), w))
    flip = rng.random(s.shape[0]) < 0.5  # random orientations: a giant strong component
    D = nx.DiGraph()
    D.add_nodes_from(range(n))
    D.add_edges_from(zip(np.where(flip, d, s).tolist(), np.where(flip, s, d).tolist()))
    return G, D


def median_time(fn: Callable[[], Any], repeats: int, before: Callable[[], None]) -> float:
    # the warm-up run compiles numba and warms NetworkX's caches; before() runs untimed
    return measure(lambda _: fn(), reps=repeats, setup=before).median_ms / 1e3


def bench_function(name: str, G: Any, repeats: int, device: str) -> dict:
    _, func, norm = FUNCTIONS[name]
    clear = G.__networkx_cache__.clear

    def run_nx():
        return norm(func(G))

    def run_backend():
        return norm(func(G, backend="concomp", device=device))

    assert run_nx() == run_backend(), f"{name}: the backend disagrees with NetworkX"
    row = {
        "networkx_s": median_time(run_nx, repeats, lambda: None),
        "backend_total_s": median_time(run_backend, repeats, clear),
        "convert_s": median_time(
            lambda: cnx.from_networkx(
                G, weight="weight" if name == "minimum_spanning_tree" else None, use_cache=False
            ),
            repeats,
            lambda: None,
        ),
    }
    adj = G._adj
    row["read_floor_s"] = median_time(
        lambda: list(itertools.chain.from_iterable(adj.values())), repeats, lambda: None
    )
    row["speedup_bound_total"] = row["networkx_s"] / row["read_floor_s"]
    clear()
    run_backend()  # fills the cache
    row["backend_cached_s"] = median_time(run_backend, repeats, lambda: None)
    row["speedup_total"] = row["networkx_s"] / row["backend_total_s"]
    row["speedup_cached"] = row["networkx_s"] / row["backend_cached_s"]
    return row


def machine() -> dict:
    info = {
        "platform": platform.platform(),
        "processor": platform.processor(),
        "python": platform.python_version(),
        "cpus": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "networkx": nx.__version__,
        "numpy": np.__version__,
        "concomp": concomp.__version__,
    }
    try:
        info["load_average"] = os.getloadavg()
    except OSError:
        pass
    try:
        from concomp._gpu._compat import gpu_status

        info["gpu"] = gpu_status()[1]
    except Exception as exc:  # no CuPy: the reason is the information
        info["gpu"] = f"unavailable ({exc})"
    return info


def commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", default="cpu", choices=["cpu", "gpu", "auto"])
    ap.add_argument("--edges", type=int, nargs="+", default=[100_000, 1_000_000])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--functions", nargs="+", default=list(FUNCTIONS), choices=list(FUNCTIONS))
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if "concomp" not in nx.utils.backends.backends:
        raise SystemExit("the concomp backend is not installed: run `pip install -e .` first")
    nx.config.warnings_to_ignore.add("cache")
    warnings.simplefilter("ignore", UserWarning)

    rows = []
    for edges in args.edges:
        t0 = time.perf_counter()
        G, D = make_graphs(edges)
        print(
            f"graphs with {G.number_of_edges():,} edges built in {time.perf_counter() - t0:.1f} s"
        )
        for name in args.functions:
            graph = D if FUNCTIONS[name][0] == "directed" else G
            row = {
                "function": name,
                "nodes": graph.number_of_nodes(),
                "edges": graph.number_of_edges(),
                **bench_function(name, graph, args.repeats, args.device),
            }
            rows.append(row)
            print(
                f"{name:32s} m={row['edges']:>10,}  networkx {row['networkx_s'] * 1e3:9.1f} ms"
                f"  backend {row['backend_total_s'] * 1e3:8.1f} ms (x{row['speedup_total']:6.1f})"
                f"  cached {row['backend_cached_s'] * 1e3:8.1f} ms (x{row['speedup_cached']:7.1f})"
                f"  convert {row['convert_s'] * 1e3:8.1f} ms"
                f"  read floor {row['read_floor_s'] * 1e3:7.1f} ms"
                f" (bound x{row['speedup_bound_total']:5.1f})",
                flush=True,
            )
        del G, D

    sha = commit()
    date = datetime.date.today().isoformat()
    out = args.out or os.path.join(
        os.path.dirname(__file__), "results", f"{date}-{args.device}-{sha}-networkx-backend.json"
    )
    result = {
        "benchmark": "bench_networkx_backend.py",
        "date": date,
        "commit": sha,
        "device": args.device,
        "repeats": args.repeats,
        "statistic": "median after one warm-up, time.perf_counter",
        "machine": machine(),
        "rows": rows,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(result, f, indent=2)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
