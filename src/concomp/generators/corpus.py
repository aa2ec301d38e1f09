"""The benchmark corpus: every graph the benchmarks time, defined once, by name.

:data:`CORPUS` maps a name to a :class:`CorpusGraph`: its kind tags, a description,
and :meth:`CorpusGraph.build`, which generates it (on the GPU when ``device="gpu"``)
at full size, or at the tiny ``quick`` size that runs in seconds on a laptop.

The corpus covers the shapes users bring: R-MAT with several ``(a, b, c)`` and edge
factors 4 to 32 (with and without many isolated vertices), uniform random graphs
sparse and dense, 2-D and 3-D grids with natural and permuted ids, k-NN geometric and
Delaunay meshes, preferential attachment, long paths and deep trees with ids along
them, forests of many small trees, stars and hubs, the four graphs of
``reference-numbers.md`` under their names (``rmat22``, ``er22``, ``gridp4k``,
``cong22``, with the parameters of every earlier benchmark) and the real graphs of
``$CONCOMP_REAL_DATA`` (default ``../shared/data/real`` beside the repository):
road, social, citation and internet graphs. Full sizes keep the CSR many times the
50 MB L2 cache of an H100 and, with peers loaded beside concomp, well inside 80 GB;
the real graphs are as large as the data folder holds them.

Every graph is built in the benchmark form: a symmetric CSR (both directions) without
self loops or duplicate edges. ``weights="int"`` adds integer weights in
``[1, 10**6]`` (never 0, which SciPy's spanning tree would drop), the same for both
directions of an edge.

Examples
--------
>>> from concomp.generators.corpus import CORPUS, select
>>> g = CORPUS["gridp4k"].build(quick=True)
>>> g.num_nodes, g.symmetric
(65536, True)
>>> [e.name for e in select(tags=["suite"])]
['rmat22', 'er22', 'gridp4k', 'cong22']
>>> select(names=["nope"])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: argument `graphs`: unknown corpus graph(s) ['nope']; ...
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..graph import Graph

__all__ = ["CORPUS", "CorpusGraph", "REAL_DATA_ENV", "directed_arcs", "real_data_dir", "select"]

#: Environment variable naming the folder of real graphs.
REAL_DATA_ENV = "CONCOMP_REAL_DATA"
#: Weight range of ``weights="int"`` (1 and up: SciPy drops zero-weight edges).
WEIGHT_RANGE = (1, 10**6)


@dataclass(frozen=True)
class CorpusGraph:
    """One named benchmark graph.

    Attributes
    ----------
    name : str
        Its name in result files, tables and ``--graphs``.
    tags : frozenset of str
        Kinds it belongs to (``"rmat"``, ``"grid-natural"``, ``"road"``, ``"real"``, ...).
    description : str
        One line for the results page.
    source : str
        Generator function of :mod:`concomp.generators`, ``"adversarial:<shape>"``
        (:func:`concomp.testing.adversarial.high_diameter_graphs`) or ``"file:<name>"``
        (a file of the real-graph folder).
    full, quick : mapping
        Generator arguments at full and at quick size (empty for files).
    seed : int
        Seed of the generator and of the weights.
    directed : bool
        A directed graph (tag ``directed``, for strongly connected components): its arcs
        as generated or as the file lists them, not symmetrised. ``source`` is then
        ``"directed:<shape>"`` (:func:`directed_arcs`) or a file.
    """

    name: str
    tags: frozenset[str]
    description: str
    source: str
    full: Mapping[str, Any] = field(default_factory=dict)
    quick: Mapping[str, Any] = field(default_factory=dict)
    seed: int = 0
    directed: bool = False

    @property
    def is_real(self) -> bool:
        """Whether the graph is read from a file of the real-graph folder."""
        return self.source.startswith("file:")

    def skip_reason(self) -> str | None:
        """Why the graph cannot be built here (a real graph whose file is absent), or None."""
        if not self.is_real:
            return None
        folder = real_data_dir()
        path = folder / self.source[5:]
        if not folder.is_dir():
            return f"real-graph folder {folder} is absent (set ${REAL_DATA_ENV})"
        if not path.is_file():
            return f"{path.name} is not in {folder}"
        return None

    def params(self, quick: bool) -> dict[str, Any]:
        """Generator arguments at the chosen size."""
        return dict(self.quick if quick else self.full)

    def build(self, device: str = "cpu", *, quick: bool = False, weights: Any = None) -> Graph:
        """The graph as a clean symmetric CSR on ``device``.

        Parameters
        ----------
        device : {"cpu", "gpu"}
            Where to generate it (files are read on the host, then moved).
        quick : bool
            The tiny size (files have one size: quick reads them too).
        weights : {None, "int", "float"}
            Random weights in ``[1, 10**6]``, one per undirected edge.

        Raises
        ------
        FileNotFoundError
            A real graph whose file is absent (:meth:`skip_reason` says so first).
        """
        if self.directed:
            g = _directed_graph(self, quick)
        elif self.is_real:
            g = _read_real(self)
        elif self.source.startswith("adversarial:"):
            g = _adversarial(self.source.partition(":")[2], self.params(quick), self.seed)
        else:
            from .. import generators

            func = getattr(generators, self.source)
            g = func(**self.params(quick), seed=self.seed, device=device)
        if g.device != device:  # files and the adversarial shapes are built on the host
            g = g.to(device)
        return self.weigh(g, weights)

    def weigh(self, graph: Graph, weights: Any) -> Graph:
        """``graph`` (this entry, built) with the weights :meth:`build` would give it."""
        if weights is None:
            return graph
        from ._weights import random_weights, with_weights

        low, high = WEIGHT_RANGE
        w = random_weights(graph, low=low, high=high, dtype=weights, seed=self.seed)
        return with_weights(graph, w)


def _clean_host(src: Any, dst: Any, n: int) -> Graph:
    from ._weights import finish_graph

    return finish_graph(np, np.asarray(src), np.asarray(dst), n, True, None, 0)


def _adversarial(shape: str, params: Mapping[str, Any], seed: int) -> Graph:
    from ..testing.adversarial import high_diameter_graphs

    z = high_diameter_graphs(int(params["n"]), seed)[shape]
    return _clean_host(z.src, z.dst, z.num_nodes)


def _read_real(entry: CorpusGraph) -> Graph:
    from ..io import read_graph

    reason = entry.skip_reason()
    if reason is not None:
        raise FileNotFoundError(f"corpus graph {entry.name!r}: {reason}")
    g = read_graph(real_data_dir() / entry.source[5:])
    src, dst = g.coo()
    return _clean_host(src, dst, g.num_nodes)


def directed_arcs(shape: str, params: Mapping[str, Any], seed: int) -> tuple[Any, Any, int]:
    """``(src, dst, n)`` of a directed benchmark shape (NumPy, int64).

    ``rmat``: R-MAT arcs as drawn (``scale``, ``edge_factor``, ``a``, ``b``, ``c``;
    duplicates and self loops kept); ``grid``: a ``rows x cols`` grid of one-way streets
    (rows run east on even rows and west on odd ones, columns south on even columns
    and north on odd ones); ``chain``: the path ``0 -> 1 -> ... -> n-1``; ``dag``:
    ``m`` random arcs from the smaller to the larger id (``n``, ``m``).
    """
    rng = np.random.default_rng(seed)
    if shape == "rmat":
        scale, m = int(params["scale"]), int(params["edge_factor"] * (1 << params["scale"]))
        a, b, c = params["a"], params["b"], params["c"]
        src = np.zeros(m, dtype=np.int64)
        dst = np.zeros(m, dtype=np.int64)
        for bit in range(scale):
            r = rng.random(m)
            src |= (r >= a + b).astype(np.int64) << bit
            dst |= (((r >= a) & (r < a + b)) | (r >= a + b + c)).astype(np.int64) << bit
        return src, dst, 1 << scale
    if shape == "grid":
        rows, cols = int(params["rows"]), int(params["cols"])
        ids = np.arange(rows * cols, dtype=np.int64).reshape(rows, cols)
        east = np.where((np.arange(rows) % 2 == 0)[:, None], 1, -1)
        south = np.where(np.arange(cols) % 2 == 0, 1, -1)
        h_src, h_dst = ids[:, :-1], ids[:, 1:]
        h_src, h_dst = np.where(east > 0, h_src, h_dst), np.where(east > 0, h_dst, h_src)
        v_src, v_dst = ids[:-1, :], ids[1:, :]
        v_src, v_dst = np.where(south > 0, v_src, v_dst), np.where(south > 0, v_dst, v_src)
        return np.r_[h_src.ravel(), v_src.ravel()], np.r_[h_dst.ravel(), v_dst.ravel()], ids.size
    if shape == "chain":
        v = np.arange(int(params["n"]), dtype=np.int64)
        return v[:-1], v[1:], int(params["n"])
    if shape == "dag":
        n, m = int(params["n"]), int(params["m"])
        u, w = rng.integers(0, n, m), rng.integers(0, n, m)
        return np.minimum(u, w), np.maximum(u, w), n
    raise ValueError(f"unknown directed shape {shape!r}; use rmat, grid, chain or dag")


def _directed_graph(entry: CorpusGraph, quick: bool) -> Graph:
    if entry.is_real:
        from ..io import read_graph

        reason = entry.skip_reason()
        if reason is not None:
            raise FileNotFoundError(f"corpus graph {entry.name!r}: {reason}")
        src, dst = read_graph(real_data_dir() / entry.source[5:], directed=True).coo()
        n = int(max(src.max(initial=-1), dst.max(initial=-1))) + 1
    else:
        src, dst, n = directed_arcs(entry.source.partition(":")[2], entry.params(quick), entry.seed)
    return Graph.from_edges(src, dst, num_nodes=n, directed=True)


def real_data_dir() -> Path:
    """``$CONCOMP_REAL_DATA``, else ``../shared/data/real`` beside the repository."""
    env = os.environ.get(REAL_DATA_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3].parent / "shared" / "data" / "real"


def _g(name: str, tags: str, description: str, source: str, full=None, quick=None, seed=0):
    return CorpusGraph(
        name,
        frozenset(tags.split()),
        description,
        source,
        full or {},
        quick or {},
        seed,
        directed="directed" in tags.split(),
    )


def _rmat(scale: int, ef: float, a: float, b: float, c: float) -> dict[str, Any]:
    return {"scale": scale, "edge_factor": ef, "a": a, "b": b, "c": c}


_ENTRIES = [
    # the four graphs of reference-numbers.md: parameters as in every earlier benchmark
    _g("rmat22", "suite rmat skewed", "R-MAT scale 22, ef 16, (a,b,c) = (.57,.19,.19)", "rmat",
       _rmat(22, 16, 0.57, 0.19, 0.19), _rmat(12, 16, 0.57, 0.19, 0.19), 1),
    _g("er22", "suite rmat uniform", "R-MAT scale 22, ef 16, (a,b,c) = (.25,.25,.25)", "rmat",
       _rmat(22, 16, 0.25, 0.25, 0.25), _rmat(12, 16, 0.25, 0.25, 0.25), 2),
    _g("gridp4k", "suite grid grid-permuted high-diameter", "4096 x 4096 grid, permuted ids",
       "grid", {"rows": 4096, "cols": 4096, "permute": True},
       {"rows": 256, "cols": 256, "permute": True}, 3),
    _g("cong22", "suite rmat skewed", "R-MAT scale 22, ef 16, (a,b,c) = (.45,.15,.15)", "rmat",
       _rmat(22, 16, 0.45, 0.15, 0.15), _rmat(12, 16, 0.45, 0.15, 0.15), 4),
    # more R-MAT: edge factors 4 to 32, other skews, many isolated vertices
    _g("rmat24-ef4-isolated", "rmat skewed isolated many-components",
       "R-MAT scale 24, ef 4, (a,b,c) = (.70,.10,.10): most vertices isolated", "rmat",
       _rmat(24, 4, 0.70, 0.10, 0.10), _rmat(13, 4, 0.70, 0.10, 0.10), 5),
    _g("rmat23-ef8", "rmat skewed", "R-MAT scale 23, ef 8, (a,b,c) = (.50,.20,.20)", "rmat",
       _rmat(23, 8, 0.50, 0.20, 0.20), _rmat(12, 8, 0.50, 0.20, 0.20), 6),
    _g("rmat22-ef32", "rmat skewed dense", "R-MAT scale 22, ef 32, (a,b,c) = (.57,.19,.19)",
       "rmat", _rmat(22, 32, 0.57, 0.19, 0.19), _rmat(11, 32, 0.57, 0.19, 0.19), 7),
    # uniform random
    _g("gnm-sparse", "uniform sparse many-components",
       "G(n, m), n = 2^24, m = n (mean degree 2: near the giant-component threshold)",
       "gnm", {"n": 1 << 24, "m": 1 << 24}, {"n": 1 << 13, "m": 1 << 13}, 8),
    _g("gnm-dense", "uniform dense", "G(n, m), n = 2^20, m = 2^26 (mean degree 128)",
       "gnm", {"n": 1 << 20, "m": 1 << 26}, {"n": 1 << 9, "m": 1 << 15}, 9),
    # grids
    _g("grid2d-natural", "grid grid-natural high-diameter", "4096 x 4096 grid, row-major ids",
       "grid", {"rows": 4096, "cols": 4096}, {"rows": 128, "cols": 128}, 10),
    _g("grid3d-natural", "grid grid3d grid-natural high-diameter",
       "256^3 grid (6 neighbours), ids in x-y-z order", "grid3d",
       {"nx": 256, "ny": 256, "nz": 256}, {"nx": 16, "ny": 16, "nz": 16}, 11),
    _g("grid3d-permuted", "grid grid3d grid-permuted high-diameter",
       "256^3 grid (6 neighbours), permuted ids", "grid3d",
       {"nx": 256, "ny": 256, "nz": 256, "permute": True},
       {"nx": 16, "ny": 16, "nz": 16, "permute": True}, 12),
    # geometric meshes
    _g("knn2d", "mesh knn geometric", "k-NN graph, k = 6, of 2^22 uniform points in the square",
       "knn_geometric", {"n": 1 << 22, "k": 6}, {"n": 1 << 12, "k": 6}, 13),
    _g("knn3d", "mesh knn geometric", "k-NN graph, k = 10, of 2^21 uniform points in the cube",
       "knn_geometric", {"n": 1 << 21, "k": 10, "dim": 3}, {"n": 1 << 11, "k": 10, "dim": 3}, 14),
    _g("delaunay", "mesh delaunay geometric",
       "Delaunay triangulation of 2^22 uniform points in the square", "delaunay",
       {"n": 1 << 22}, {"n": 1 << 12}, 15),
    # preferential attachment, hubs
    _g("ba", "preferential hubs", "Barabasi-Albert, n = 2^22, 8 edges per new vertex",
       "barabasi_albert", {"n": 1 << 22, "m_attach": 8}, {"n": 1 << 12, "m_attach": 8}, 16),
    _g("star", "stars hubs", "one star: a hub joined to 2^24 - 1 leaves, permuted ids",
       "stars", {"num_stars": 1, "leaves": (1 << 24) - 1}, {"num_stars": 1, "leaves": 4095}, 17),
    _g("stars-many", "stars hubs many-components",
       "2^16 disjoint stars of 255 leaves, permuted ids", "stars",
       {"num_stars": 1 << 16, "leaves": 255}, {"num_stars": 64, "leaves": 63}, 18),
    # paths, chains, deep trees
    _g("path-natural", "path chain high-diameter", "path of 2^24 vertices, ids along it",
       "path", {"n": 1 << 24}, {"n": 1 << 12}, 19),
    _g("path-permuted", "path chain high-diameter", "path of 2^24 vertices, permuted ids",
       "path", {"n": 1 << 24, "permute": True}, {"n": 1 << 12, "permute": True}, 20),
    _g("tree-dfs", "chain tree high-diameter",
       "deep random tree of 2^22 vertices, ids in depth-first preorder", "adversarial:tree_dfs",
       {"n": 1 << 22}, {"n": 1 << 12}, 21),
    _g("comb", "chain tree high-diameter",
       "comb of 2^22 vertices: a spine with a 15-vertex tooth at every 16th vertex, ids in order",
       "adversarial:comb", {"n": 1 << 22}, {"n": 1 << 12}, 22),
    # many small components
    _g("tree-forest", "forest many-components",
       "2^20 random recursive trees of 16 vertices, permuted ids", "tree_forest",
       {"num_trees": 1 << 20, "size": 16}, {"num_trees": 256, "size": 16}, 23),
    # real graphs: one size, read from the data folder
    _g("road-usa-nw", "real road high-diameter", "DIMACS-9 USA road network NW",
       "file:road_usa-NW_pace.gr.xz"),
    _g("road-usa-fla", "real road high-diameter", "DIMACS-9 USA road network FLA",
       "file:road_usa-FLA_pace.gr.xz"),
    _g("road-luxembourg", "real road high-diameter", "OSM road network of Luxembourg",
       "file:road_luxembourg-osm.mtx.gz"),
    _g("mesh-delaunay-n16", "real mesh delaunay", "DIMACS-10 Delaunay mesh, 2^16 points",
       "file:mesh_delaunay_n16_noheader.mtx.gz"),
    _g("soc-twitter", "real social", "SNAP ego-Twitter, symmetrised",
       "file:soc_ego-twitter-undirected_snap.txt.gz"),
    _g("soc-github", "real social", "MUSAE GitHub developers",
       "file:soc_github-musae_edges.csv.gz"),
    _g("cit-hep-ph", "real citation", "SNAP cit-HepPh citations (direction ignored)",
       "file:cit_arxiv-hep-ph_snap.txt.gz"),
    _g("inet-as-caida", "real web-like", "CAIDA AS graph (power-law internet; the data folder "
       "holds no web crawl)", "file:inet_as-caida20071105_snap.txt.gz"),
    # directed graphs (strongly connected components): arcs as generated or listed
    _g("rmat22-directed", "directed rmat skewed", "R-MAT scale 22, ef 16, (.57,.19,.19), "
       "arcs as drawn", "directed:rmat", _rmat(22, 16, 0.57, 0.19, 0.19),
       _rmat(12, 16, 0.57, 0.19, 0.19), 31),
    _g("grid-oneway", "directed grid high-diameter", "4096 x 4096 grid of one-way streets "
       "(alternating directions): one giant component", "directed:grid",
       {"rows": 4096, "cols": 4096}, {"rows": 128, "cols": 128}, 32),
    _g("chain-directed", "directed chain high-diameter", "directed path of 2^24 vertices, "
       "ids along it", "directed:chain", {"n": 1 << 24}, {"n": 1 << 12}, 33),
    _g("dag-random", "directed dag", "2^26 random arcs from smaller to larger ids on 2^22 "
       "vertices", "directed:dag", {"n": 1 << 22, "m": 1 << 26}, {"n": 1 << 12, "m": 1 << 16},
       34),
    _g("cit-hep-ph-directed", "directed real citation", "SNAP cit-HepPh citations, arcs",
       "file:cit_arxiv-hep-ph_snap.txt.gz"),
    _g("cit-hep-th-directed", "directed real citation", "SNAP cit-HepTh citations, arcs",
       "file:cit_arxiv-hep-th_snap.txt.gz"),
    _g("wiki-vote-directed", "directed real social", "SNAP wiki-Vote, arcs",
       "file:soc_wiki-vote_snap.txt.gz"),
    _g("road-rome99-directed", "directed real road", "Rome 1999 one-way streets (DIMACS-9)",
       "file:road_rome99_dimacs.gr.gz"),
]  # fmt: skip

#: Every benchmark graph by name, in a stable order.
CORPUS: dict[str, CorpusGraph] = {e.name: e for e in _ENTRIES}


def select(
    names: Iterable[str] | None = None, tags: Iterable[str] | None = None
) -> list[CorpusGraph]:
    """Corpus entries named in ``names`` (in that order; default all), keeping those that
    carry any of ``tags`` when tags are given.

    Raises
    ------
    ValueError
        An unknown name or tag (the message lists the valid ones).
    """
    if names is not None:
        names = list(names)
        unknown = [x for x in names if x not in CORPUS]
        if unknown:
            raise ValueError(
                f"argument `graphs`: unknown corpus graph(s) {unknown}; valid: "
                f"{', '.join(CORPUS)}. Fix: pass names from that list."
            )
        chosen = [CORPUS[x] for x in names]
    else:
        chosen = list(CORPUS.values())
    if tags is not None:
        tags = set(tags)
        known = set().union(*(e.tags for e in CORPUS.values()))
        if tags - known:
            raise ValueError(
                f"argument `tags`: unknown tag(s) {sorted(tags - known)}; valid: "
                f"{', '.join(sorted(known))}. Fix: pass tags from that list."
            )
        chosen = [e for e in chosen if e.tags & tags]
    return chosen
