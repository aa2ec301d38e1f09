"""A zoo of small graphs that exercise the corner cases of connectivity engines.

:func:`graph_zoo` returns edge lists over ``0 .. n-1`` (``int64`` ids; convert
as a test needs). Every random graph comes from a fixed seed, so a failing case
reproduces. :func:`real_graph_paths` lists the real graphs of
``../shared/data/real`` and :func:`real_graph_facts` the component counts its
README reports for them.

Examples
--------
>>> from concomp.testing import graph_zoo
>>> zoo = graph_zoo()
>>> src, dst, n = zoo["path"]
>>> n, len(src)
(100, 99)
>>> zoo["empty"].num_nodes
0
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from ._base import ZooGraph
from .adversarial import high_diameter_graphs

__all__ = [
    "ZooGraph",
    "graph_zoo",
    "real_data_dir",
    "real_graph_paths",
    "real_graph_facts",
    "RealGraphFacts",
]


def _graph(src, dst, n: int) -> ZooGraph:
    return ZooGraph(
        np.asarray(src, dtype=np.int64).ravel(), np.asarray(dst, dtype=np.int64).ravel(), int(n)
    )


def _relabel(g: ZooGraph, rng: np.random.Generator) -> ZooGraph:
    """Same graph with vertex ids permuted and the edge order shuffled."""
    perm = rng.permutation(g.num_nodes)
    order = rng.permutation(g.src.shape[0])
    return _graph(perm[g.src][order], perm[g.dst][order], g.num_nodes)


def _path(n: int) -> ZooGraph:
    v = np.arange(n)
    return _graph(v[:-1], v[1:], n)


def _grid(rows: int, cols: int) -> ZooGraph:
    ids = np.arange(rows * cols).reshape(rows, cols)
    src = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    return _graph(src, dst, rows * cols)


def _clique(k: int, offset: int) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(k, 1)
    return i + offset, j + offset


def _gnm(n: int, m: int, rng: np.random.Generator) -> ZooGraph:
    return _graph(rng.integers(0, n, m), rng.integers(0, n, m), n)


def graph_zoo(seed: int = 0) -> dict[str, ZooGraph]:
    """The zoo: a name for each graph, in a stable order.

    Covers the empty graph (n = 0), one vertex, isolated vertices only, self
    loops only, duplicate edges, path, star, cycle, a 20 x 20 grid, two
    cliques, many small components, random G(n, m) graphs of several
    densities (one below the percolation threshold, so with many components),
    a long path with shuffled ids and a reversed edge order (deep union-find
    trees), a high-degree star with a long tail, and the high-diameter shapes of
    :func:`concomp.testing.adversarial.high_diameter_graphs` with ids along their
    paths (``hd_*``, about 1000 vertices each).

    Parameters
    ----------
    seed : int
        Seed of the random graphs and shuffles.

    Returns
    -------
    dict of str to ZooGraph
    """
    rng = np.random.default_rng(seed)
    zoo: dict[str, ZooGraph] = {}
    none = np.zeros(0, dtype=np.int64)
    zoo["empty"] = _graph(none, none, 0)
    zoo["single_vertex"] = _graph(none, none, 1)
    zoo["isolated"] = _graph(none, none, 50)
    loops = np.arange(10)
    zoo["self_loops"] = _graph(loops, loops, 10)
    zoo["duplicates"] = _graph([0, 0, 0, 1, 2, 2, 4, 4, 5], [1, 1, 1, 0, 3, 3, 4, 5, 4], 7)
    zoo["path"] = _path(100)
    zoo["star"] = _graph(np.zeros(200), np.arange(1, 201), 201)
    v = np.arange(150)
    zoo["cycle"] = _graph(v, np.roll(v, -1), 150)
    zoo["grid_20x20"] = _grid(20, 20)
    a, b = _clique(15, 0)
    c, d = _clique(15, 15)
    zoo["two_cliques"] = _relabel(_graph(np.r_[a, c], np.r_[b, d], 30), rng)
    pairs = np.arange(400).reshape(200, 2)
    zoo["many_small"] = _relabel(_graph(pairs[:, 0], pairs[:, 1], 500), rng)
    zoo["gnm_1000_500"] = _gnm(1000, 500, rng)
    zoo["gnm_2000_2000"] = _gnm(2000, 2000, rng)
    zoo["gnm_3000_12000"] = _gnm(3000, 12000, rng)
    zoo["gnm_500_5000"] = _gnm(500, 5000, rng)
    zoo["shuffled_path"] = _relabel(_path(5000), rng)
    rev = np.arange(3000)[::-1]
    zoo["reversed_path"] = _graph(rev[:-1], rev[1:], 3000)
    hub = np.zeros(1000)
    tail = np.arange(1000, 1500)
    star_tail = _graph(np.r_[hub, tail], np.r_[np.arange(1, 1001), tail + 1], 1501)
    zoo["star_tail"] = _relabel(star_tail, rng)
    for name, g in high_diameter_graphs(1000, seed).items():
        zoo[f"hd_{name}"] = g
    return zoo


# --------------------------------------------------------------------------- real graphs
def real_data_dir() -> Path:
    """Folder of the real graphs: ``$CONCOMP_REAL_DATA``, else ``<repo>/../shared/data/real``."""
    env = os.environ.get("CONCOMP_REAL_DATA")
    if env:
        return Path(env)
    import concomp

    repo_root = Path(concomp.__file__).resolve().parents[2]
    return repo_root.parent / "shared" / "data" / "real"


def real_graph_paths() -> list[Path]:
    """Sorted graph files of :func:`real_data_dir` (``[]`` when the folder is absent)."""
    folder = real_data_dir()
    if not folder.is_dir():
        return []
    skip = {"README.md", "SHA256SUMS"}
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and p.name not in skip and not p.name.startswith(".")
    )


class RealGraphFacts(NamedTuple):
    """What the data README measured for one file."""

    num_nodes: int
    edge_lines: int
    weak_components: int
    largest_component: int


def real_graph_facts() -> dict[str, RealGraphFacts]:
    """File name -> facts, parsed from the README table (``{}`` when absent)."""
    readme = real_data_dir() / "README.md"
    if not readme.is_file():
        return {}
    facts = {}
    for line in readme.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\|\s*`([^`]+)`\s*\|", line)
        if not m:
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 13:
            continue
        num = [int(c.replace(",", "")) if re.fullmatch(r"[\d,]+", c) else None for c in cells]
        n, lines, ccs, largest = num[6], num[7], num[11], num[12]
        if None in (n, lines, ccs, largest):
            continue
        facts[m.group(1)] = RealGraphFacts(n, lines, ccs, largest)
    return facts
