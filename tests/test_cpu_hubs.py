"""The CPU edge-list finish around hubs (:meth:`concomp._cpu.unionfind.UnionFindRun.hubs`).

A graph flagged symmetric lists every edge twice. Where a row holds a large share of
the entries (a hub), the finish unites each edge between the hub and another vertex
once, from that vertex's row, and from the hub's row only the edges to other hubs.
Checked against SciPy on graphs of several hubs: hubs joined only by one direct edge
(which must not be skipped from both sides), duplicates, self loops, isolated
vertices; every CPU union rule, sampled and unsampled, int32 and int64, one thread and
all threads.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from concomp import Graph, Variant, _rules
from concomp._cpu import unionfind
from concomp._dispatch import driver
from concomp.options import Options

RULES = [(rule.name, rule.compress[0]) for rule in _rules.union_rules_for("cpu")]


def _hub_graph(seed: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A symmetric CSR (duplicates kept) of three hubs with their leaves, hubs 0 and 1
    joined by one edge only, plus a few leaf-to-leaf edges and isolated vertices."""
    rng = np.random.default_rng(seed)
    n = 4000
    ids = rng.permutation(n)
    hubs, leaves = ids[:3], np.split(ids[3:3603], [1500, 3000])
    edges = [np.column_stack([np.full(len(x), h), x]) for h, x in zip(hubs, leaves)]
    edges.append(np.array([[hubs[0], hubs[1]], [hubs[0], leaves[0][0]], [hubs[2], hubs[2]]]))
    edges.append(ids[3603:3699].reshape(-1, 2))  # leaf pairs; ids 3699.. stay isolated
    e = np.concatenate(edges).astype(np.int64)
    src, dst = np.concatenate([e[:, 0], e[:, 1]]), np.concatenate([e[:, 1], e[:, 0]])
    order = np.lexsort((dst, src))
    src, dst = src[order], dst[order]
    indptr = np.zeros(n + 1, np.int64)
    np.add.at(indptr, src + 1, 1)
    return np.cumsum(indptr), dst, n


def _smallest_vertex_roots(indptr: np.ndarray, indices: np.ndarray, n: int) -> np.ndarray:
    a = sp.csr_matrix((np.ones(indices.shape[0]), indices, indptr), shape=(n, n))
    count, labels = connected_components(a, directed=False)
    smallest = np.full(count, n, dtype=np.int64)
    np.minimum.at(smallest, labels, np.arange(n))
    return smallest[labels]


@pytest.fixture
def hubs_everywhere(monkeypatch):
    """Look for hubs in edge lists of any length (the default starts at 2**20 entries)."""
    monkeypatch.setattr(unionfind, "HUBS_FROM_ENTRIES", 1)


@pytest.mark.parametrize("dtype", ["int32", "int64"])
@pytest.mark.parametrize("parallel_min_edges", [0, 1 << 30])  # all threads / one thread
@pytest.mark.parametrize(("finish", "compress"), RULES)
def test_edge_list_finish_around_hubs_matches_scipy(
    hubs_everywhere, finish, compress, parallel_min_edges, dtype
):
    indptr, indices, n = _hub_graph(seed=len(finish))
    g = Graph.from_csr(indptr, indices, n, symmetric=True)
    options = Options(index_dtype=dtype, parallel_min_edges=parallel_min_edges)
    variant = Variant.parse(f"none-{finish}-{compress}-coo")
    run = unionfind.UnionFindRun(g, variant, options)
    hubs = run.hubs(run.coo()[0])
    assert hubs is not None and hubs.shape[0] == 3  # the rule is taken, on the three hubs
    roots = driver("cpu", "components", "component_roots")(g, variant, options)
    np.testing.assert_array_equal(roots, _smallest_vertex_roots(indptr, indices, n))


@pytest.mark.parametrize("variant", ["kout-rem_cas-splice-coo", "koutl-async-halve-coo"])
def test_sampled_edge_list_finish_around_hubs_matches_scipy(hubs_everywhere, variant):
    """After sampling, the hubs' rows skip the edges inside the most frequent label."""
    indptr, indices, n = _hub_graph(seed=7)
    g = Graph.from_csr(indptr, indices, n, symmetric=True)
    options = Options(parallel_min_edges=0)
    roots = driver("cpu", "components", "component_roots")(g, Variant.parse(variant), options)
    np.testing.assert_array_equal(roots, _smallest_vertex_roots(indptr, indices, n))


def test_hub_rule_applies_only_to_rows_of_a_symmetric_csr(hubs_everywhere):
    indptr, indices, n = _hub_graph(seed=1)
    variant = Variant.parse("none-rem_cas-splice-coo")
    options = Options()

    def hubs(g: Graph, record: bool = False) -> np.ndarray | None:
        run = unionfind.UnionFindRun(g, variant, options, record=record)
        return run.hubs(run.coo()[0])

    assert hubs(Graph.from_csr(indptr, indices, n, symmetric=True)) is not None
    # not flagged symmetric: each stored entry may be the only one of its edge
    assert hubs(Graph.from_csr(indptr, indices, n)) is None
    # a forest's hooks are entry positions: the plain pass keeps them
    assert hubs(Graph.from_csr(indptr, indices, n, symmetric=True), record=True) is None
    # an edge list given as pairs is not laid out by rows
    src = np.repeat(np.arange(n), np.diff(indptr))
    pairs = Graph.from_edges(src, indices, n, symmetric=True)
    pairs.csr()
    assert hubs(pairs) is None
    # both layouts given, the pairs not in row order: the sampled entries show it
    shuffled = np.random.default_rng(0).permutation(src.shape[0])
    both = Graph(n, src=src[shuffled], dst=indices[shuffled], indptr=indptr, indices=indices,
                 symmetric=True)  # fmt: skip
    assert hubs(both) is None
