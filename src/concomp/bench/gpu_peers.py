"""The seam to the GPU peers (ECL-CC, Afforest, GConn, ECL-MST) of :mod:`concomp.bench.peers`.

The adapter module is imported only when ``--peers BIN_DIR`` is given, so the harness
runs where the peers are not built. Each binary serves one problem, told by its name:
``*mst*`` minimum spanning forests, GConn's incremental build (``gconn`` with ``inc``)
incremental connectivity, and ECL-CC, Afforest and GConn's static builds connected
components. The graph is written in every peer's input format once per graph.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["peer_problem", "run_peers", "peer_sources"]

_RUNNERS = {"cc": "run_cc", "msf": "run_msf", "incremental": "run_incremental"}


def peer_problem(name: str) -> str | None:
    """The problem a peer binary named ``name`` solves (None: none the harness times)."""
    key = name.lower().replace("_", "-")
    if "scc" in key:
        return None
    if "mst" in key:
        return "msf"
    if "gconn" in key and "inc" in key:
        return "incremental"
    if any(k in key for k in ("ecl-cc", "eclcc", "afforest", "gconn")):
        return "cc"
    return None


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
    from . import peers  # type: ignore[attr-defined]  # the adapter, when it is installed

    names = [p for p in peers.available(bin_dir) if peer_problem(p) == problem]
    if not names or problem not in _RUNNERS:
        return {}
    work.mkdir(parents=True, exist_ok=True)
    files = peers.write_inputs(indptr, indices, num_nodes, weights, work)
    run = getattr(peers, _RUNNERS[problem])
    out = {}
    for name in names:
        r = run(name, files, reps)
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
