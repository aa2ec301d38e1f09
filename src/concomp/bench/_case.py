"""What every runner shares: the run's settings, a built corpus graph, row helpers.

Every runner (:mod:`concomp.bench.static`, :mod:`concomp.bench.dynamic`) returns rows
``{"system", "mode", "variant", "timing", "result"}`` for one graph. concomp is timed
three ways:

- ``prebuilt``: the public call on a :class:`~concomp.Graph` built beforehand (on the
  device when ``device="gpu"``), returning labels as the peers do (components and
  strong components; result files written before this rule timed the count alone);
- ``fresh``: the public call on a new Graph built from the same arrays (device arrays
  on the GPU, host arrays on the CPU) in every run, validation included;
- ``internal``: the engine driver of the variant that ``auto`` picks, called directly
  through :func:`concomp._dispatch.driver` (no validation, no result shaping).

Then the peers, each on its own structure built before the clock starts: the CPU peers
of :mod:`concomp.bench.cpu_peers` and, with ``--peers``, the GPU peers of
:mod:`concomp.bench.gpu_peers`. :func:`concomp.bench.runners.check_results` compares
every row's result (component count, forest weight) with the reference and raises on
any difference.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .._arrays import to_numpy
from .._dispatch import driver
from ..generators.corpus import CorpusGraph
from ..graph import Graph
from .timing import measure

__all__ = ["Case", "Settings", "Rows", "row", "timed", "fresh_graph", "count_roots", "peer_rows"]


@dataclass
class Settings:
    """What every runner needs to know about the run."""

    device: str = "cpu"
    reps: int = 5
    cpu_peers: bool = True
    peers_dir: Path | None = None
    algorithm: str = "auto"
    work: Path = field(default_factory=lambda: Path(tempfile.gettempdir()) / "concomp-bench")


@dataclass
class Case:
    """One corpus graph, built, with its host CSR and the reference results."""

    entry: CorpusGraph
    graph: Graph
    components: int
    _weighted: Graph | None = None

    @property
    def host_csr(self) -> tuple[np.ndarray, np.ndarray]:
        indptr, indices, _ = self.graph.csr()
        return to_numpy(indptr), to_numpy(indices)

    @property
    def weighted(self) -> Graph:
        """The graph with the corpus's integer weights (built on first use)."""
        if self._weighted is None:
            self._weighted = self.entry.weigh(self.graph, "int")
        return self._weighted


Rows = list[dict[str, Any]]


def row(system: str, mode: str, timing: Any, result: dict, variant: str | None = None) -> dict:
    t = timing if timing is None or isinstance(timing, dict) else timing.to_dict()
    return {"system": system, "mode": mode, "variant": variant, "timing": t, "result": result}


def timed(fn: Callable[..., Any], s: Settings, setup: Callable[[], Any] | None = None) -> Any:
    return measure(fn, device=s.device, reps=s.reps, setup=setup)


def fresh_graph(g: Graph, weights: Any = None) -> Callable[[], Graph]:
    indptr, indices, _ = g.csr()
    return lambda: Graph.from_csr(
        indptr, indices, g.num_nodes, weights=weights, directed=g.directed, symmetric=g.symmetric
    )


def count_roots(roots: Any) -> int:
    dev = "cpu" if isinstance(roots, np.ndarray) else "gpu"
    return int(driver(dev, "components", "count_roots")(roots))


def gpu_peer_rows(problem: str, case: Case, s: Settings, weights: Any = None) -> Rows:
    if s.peers_dir is None:
        return []
    from .gpu_peers import run_peers

    indptr, indices = case.host_csr
    w = None if weights is None else to_numpy(weights)
    found = run_peers(
        problem, s.peers_dir, s.work / case.entry.name, indptr, indices,
        case.graph.num_nodes, w, s.reps,
    )  # fmt: skip
    return [row(name, "peer", t, r) for name, (t, r) in found.items()]


def peer_rows(results: dict) -> Rows:
    return [row(name, "peer", t, r) for name, (t, r) in results.items()]
