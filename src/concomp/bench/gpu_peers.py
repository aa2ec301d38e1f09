"""The seam to the GPU peers (ECL-CC, Afforest, GConn, ECL-MST, ECL-SCC) of
:mod:`concomp.bench.peers`.

The adapter module is imported only when ``--peers BIN_DIR`` is given, so the harness
runs where the peers are not built. Each peer serves one problem
(:data:`concomp.bench.peers.PEERS`). The graph is written in every peer's input format
once per graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["peer_problem", "run_peers", "peer_sources"]

_RUNNERS = {
    "cc": "run_cc",
    "msf": "run_msf",
    "incremental": "run_incremental",
    "scc": "run_scc",
}


def peer_problem(name: str) -> str | None:
    """The problem the peer ``name`` solves (None: not a peer the adapter knows)."""
    from . import peers

    return peers.PEERS.get(name)


def peer_sources(bin_dir: Path) -> list[str]:
    """The peers' repositories and commits, as ``SOURCES.txt`` beside the binaries records."""
    for folder in (bin_dir, bin_dir.parent):
        path = folder / "SOURCES.txt"
        if path.is_file():
            return [x for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    return []


def _result(problem: str, value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return dict(value)
    if problem == "msf":
        return {"msf_weight": int(round(float(value)))}
    return {"components": int(value)}


def run_peers(
    problem: str,
    bin_dir: Path,
    work: Path,
    indptr: np.ndarray,
    indices: np.ndarray,
    num_nodes: int,
    weights: np.ndarray | None,
    reps: int,
) -> dict[str, tuple[dict[str, Any], dict[str, Any]]]:
    """``{peer: (timing fields, result)}`` for every built peer that solves ``problem``."""
    from . import peers

    names = [p for p in peers.available(bin_dir) if peers.PEERS[p] == problem]
    if not names or problem not in _RUNNERS:
        return {}
    work.mkdir(parents=True, exist_ok=True)
    if problem == "scc":
        # directed graphs keep their self loops and repeated arcs; ECL-SCC's input is
        # the simple graph, whose strongly connected components are the same
        indptr, indices = peers.simple_csr(indptr, indices)
        files = peers.write_inputs(indptr, indices, num_nodes, None, work, formats=("ecl",))
    else:
        files = peers.write_inputs(indptr, indices, num_nodes, weights, work)
    run = getattr(peers, _RUNNERS[problem])
    out = {}
    for name in names:
        r = run(name, files, reps, bin_dir=bin_dir)
        times = [float(t) for t in r.times_ms]
        timing = {
            "median_ms": float(r.median_ms),
            "min_ms": min(times),
            "max_ms": max(times),
            "times_ms": times,
            "clock": "peer's own timer",
            "warmup": None,
        }
        out[name] = (timing, _result(problem, r.result))
    return out
