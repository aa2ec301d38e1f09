"""concomp.nx, the NetworkX backend: conversions, cache, every function against NetworkX.

The functions are called directly (``concomp.nx.f(G)``) and through NetworkX's
dispatcher with ``backend="concomp"`` where the entry points are installed
(``pip install -e .``); CI also runs NetworkX's own tests with the backend.
"""

from __future__ import annotations

import math
import random
from importlib.metadata import entry_points

import pytest

nx = pytest.importorskip("networkx")
cnx = pytest.importorskip("concomp.nx")

INSTALLED = any(ep.name == "concomp" for ep in entry_points(group="networkx.backends"))
needs_entry_point = pytest.mark.skipif(
    not INSTALLED, reason="the networkx.backends entry point is not installed (pip install -e .)"
)

SEEDS = range(6)


def _labels(kind: str, n: int) -> list:
    if kind == "int":
        return list(range(n))
    if kind == "shuffled":
        labels = list(range(10, 10 + n))
        random.Random(n).shuffle(labels)
        return labels
    if kind == "str":
        return [f"v{i}" for i in range(n)]
    return [(i % 3, f"x{i}") for i in range(n)]


def _random_graph(seed: int, *, directed=False, multi=False, labels="int", weights=True):
    rng = random.Random(seed)
    n = rng.randint(1, 40)
    m = rng.randint(0, 2 * n)
    cls = {
        (False, False): nx.Graph,
        (True, False): nx.DiGraph,
        (False, True): nx.MultiGraph,
        (True, True): nx.MultiDiGraph,
    }[(directed, multi)]
    G = cls()
    names = _labels(labels, n)
    G.add_nodes_from(names)
    for _ in range(m):
        u, v = rng.choice(names), rng.choice(names)
        attrs = {"weight": rng.choice([1, 2, 2.5, 3, -1])} if weights and rng.random() < 0.9 else {}
        G.add_edge(u, v, **attrs)
    return G


LABELS = ["int", "shuffled", "str", "tuple"]


# ------------------------------------------------------------------ conversion


@pytest.mark.parametrize("labels", LABELS)
@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("multi", [False, True])
def test_round_trip_keeps_labels_weights_and_attributes(labels, directed, multi):
    G = _random_graph(3, directed=directed, multi=multi, labels=labels)
    G.graph["name"] = "g"
    nx.set_node_attributes(G, {v: i for i, v in enumerate(G)}, "order")
    g = cnx.from_networkx(G, preserve_all_attrs=True)
    assert g.nodes == list(G)
    H = cnx.to_networkx(g)
    assert type(H) is type(G)
    assert H.graph == G.graph and dict(H.nodes(data=True)) == dict(G.nodes(data=True))
    if multi:
        assert sorted(map(repr, H.edges(keys=True, data=True))) == sorted(
            map(repr, G.edges(keys=True, data=True))
        )
    else:
        assert H.adj == G.adj


@pytest.mark.parametrize("labels", LABELS)
def test_weights_read_like_networkx(labels):
    G = _random_graph(5, labels=labels)
    g = cnx.from_networkx(G, weight="weight")
    assert g.edge_values("weight").tolist() == [d.get("weight", 1) for *_, d in G.edges(data=True)]
    assert [(g.nodes[u], g.nodes[v]) for u, v in zip(g.edge_src, g.edge_dst)] == list(G.edges)


def test_non_numeric_weights_decline():
    G = nx.Graph([(0, 1, {"weight": "heavy"})])
    with pytest.raises(NotImplementedError, match="not numbers"):
        list(cnx.minimum_spanning_edges(G))


def test_the_conversion_is_cached_and_dropped_when_the_graph_changes():
    G = nx.path_graph(5)
    g = cnx.from_networkx(G)
    assert cnx.from_networkx(G) is g
    assert G.__networkx_cache__["backends"]["concomp"]
    G.add_edge(10, 11)  # NetworkX clears its cache on changes made through its methods
    h = cnx.from_networkx(G)
    assert h is not g and len(h) == 7
    assert cnx.number_connected_components(G) == 2
    # a conversion with the weights serves a later call that needs less
    W = nx.path_graph(4)
    full = cnx.from_networkx(W, preserve_all_attrs=True)
    assert cnx.from_networkx(W, weight="weight") is full
    assert cnx.from_networkx(W, use_cache=False) is not full


@needs_entry_point
def test_dispatch_uses_the_cache():
    G = nx.gnm_random_graph(300, 400, seed=1)
    assert nx.number_connected_components(G, backend="concomp") == nx.number_connected_components(G)
    cached = list(G.__networkx_cache__["backends"]["concomp"].values())
    assert len(cached) == 1 and isinstance(cached[0], cnx.ConcompGraph)
    with pytest.warns(UserWarning, match="cached graph is being used"):
        nx.number_connected_components(G, backend="concomp")
    G.add_edge(0, 299)
    assert not G.__networkx_cache__


# ------------------------------------------------------------------ functions vs NetworkX


def _same_sequence_of_sets(a, b):
    assert [set(c) for c in a] == [set(c) for c in b]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("labels", LABELS)
@pytest.mark.parametrize("multi", [False, True])
def test_undirected_components_match_networkx(seed, labels, multi):
    G = _random_graph(seed, multi=multi, labels=labels)
    result = cnx.connected_components(G)
    assert iter(result) is result  # a generator, like NetworkX's
    _same_sequence_of_sets(result, nx.connected_components(G))
    assert cnx.number_connected_components(G) == nx.number_connected_components(G)
    assert type(cnx.number_connected_components(G)) is int
    assert cnx.is_connected(G) is nx.is_connected(G)
    for v in list(G)[:5]:
        assert cnx.node_connected_component(G, v) == nx.node_connected_component(G, v)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("labels", LABELS)
@pytest.mark.parametrize("multi", [False, True])
def test_directed_components_match_networkx(seed, labels, multi):
    G = _random_graph(seed, directed=True, multi=multi, labels=labels)
    _same_sequence_of_sets(cnx.weakly_connected_components(G), nx.weakly_connected_components(G))
    assert cnx.number_weakly_connected_components(G) == nx.number_weakly_connected_components(G)
    assert cnx.is_weakly_connected(G) is nx.is_weakly_connected(G)
    # NetworkX's yield order, not only the same sets
    _same_sequence_of_sets(
        cnx.strongly_connected_components(G), nx.strongly_connected_components(G)
    )
    assert cnx.number_strongly_connected_components(G) == (
        nx.number_strongly_connected_components(G)
    )
    assert cnx.is_strongly_connected(G) is nx.is_strongly_connected(G)
    C, D = cnx.condensation(G), nx.condensation(G)
    assert C.graph == D.graph and dict(C.nodes(data=True)) == dict(D.nodes(data=True))
    assert C.adj == D.adj


@pytest.mark.parametrize("seed", range(40))
def test_strong_component_order_on_denser_graphs(seed):
    G = nx.gnp_random_graph(60, 0.04, seed=seed, directed=True)
    _same_sequence_of_sets(
        cnx.strongly_connected_components(G), nx.strongly_connected_components(G)
    )


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("labels", ["int", "str", "tuple"])
@pytest.mark.parametrize("multi", [False, True])
@pytest.mark.parametrize("maximum", [False, True])
def test_spanning_edges_and_trees_match_networkx_kruskal(seed, labels, multi, maximum):
    G = _random_graph(seed, multi=multi, labels=labels)
    ours = cnx.maximum_spanning_edges if maximum else cnx.minimum_spanning_edges
    theirs = nx.maximum_spanning_edges if maximum else nx.minimum_spanning_edges
    for keys in (True, False):
        for data in (True, False):
            assert list(ours(G, keys=keys, data=data)) == list(theirs(G, keys=keys, data=data))
    tree = cnx.maximum_spanning_tree if maximum else cnx.minimum_spanning_tree
    nx_tree = nx.maximum_spanning_tree if maximum else nx.minimum_spanning_tree
    T, U = tree(G), nx_tree(G)
    assert type(T) is type(U) and T.adj == U.adj and dict(T.nodes) == dict(U.nodes)


@pytest.mark.parametrize("algorithm", ["prim", "boruvka", "borůvka"])
def test_other_algorithms_give_the_same_weight(algorithm):
    G = nx.gnm_random_graph(50, 120, seed=3)
    for u, v in G.edges:
        G[u][v]["weight"] = random.Random(u * 100 + v).random()  # distinct: one MST
    ours = cnx.minimum_spanning_tree(G, algorithm=algorithm)
    assert ours.adj == nx.minimum_spanning_tree(G, algorithm=algorithm).adj


def test_nan_weights():
    G = nx.Graph([(0, 1, {"weight": math.nan}), (1, 2, {"weight": 1.0}), (0, 2, {"weight": 2})])
    with pytest.raises(ValueError, match="NaN found as an edge weight"):
        list(cnx.minimum_spanning_edges(G))
    assert list(cnx.minimum_spanning_edges(G, ignore_nan=True)) == list(
        nx.minimum_spanning_edges(G, ignore_nan=True)
    )
    with pytest.raises(ValueError, match="NaN found"):
        cnx.maximum_spanning_tree(G)


def test_large_integer_weights_rank_exactly():
    big = 2**62
    G = nx.Graph([(0, 1, {"w": big + 1}), (1, 2, {"w": big}), (0, 2, {"w": big + 2})])
    assert list(cnx.minimum_spanning_edges(G, weight="w", data=False)) == [(1, 2), (0, 1)]
    assert list(cnx.maximum_spanning_edges(G, weight="w", data=False)) == list(
        nx.maximum_spanning_edges(G, weight="w", data=False)
    )


# ------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    "name",
    ["connected_components", "number_connected_components", "is_connected"],
)
def test_undirected_functions_refuse_directed_graphs(name):
    with pytest.raises(nx.NetworkXNotImplemented):
        result = getattr(cnx, name)(nx.DiGraph([(0, 1)]))
        list(result) if name == "connected_components" else None


@pytest.mark.parametrize(
    "name",
    [
        "weakly_connected_components",
        "number_weakly_connected_components",
        "is_weakly_connected",
        "strongly_connected_components",
        "number_strongly_connected_components",
        "is_strongly_connected",
        "condensation",
    ],
)
def test_directed_functions_refuse_undirected_graphs(name):
    with pytest.raises(nx.NetworkXNotImplemented):
        getattr(cnx, name)(nx.Graph([(0, 1)]))


def test_spanning_functions_refuse_directed_graphs_and_bad_algorithms():
    with pytest.raises(nx.NetworkXNotImplemented):
        cnx.minimum_spanning_edges(nx.DiGraph([(0, 1)]))
    with pytest.raises(ValueError, match="not a valid choice"):
        cnx.minimum_spanning_tree(nx.Graph([(0, 1)]), algorithm="bogus")
    with pytest.raises(nx.NetworkXNotImplemented):
        cnx.minimum_spanning_edges(nx.MultiGraph([(0, 1)]), algorithm="boruvka")


@pytest.mark.parametrize(
    ("name", "graph"),
    [
        ("is_connected", nx.Graph),
        ("is_weakly_connected", nx.DiGraph),
        ("is_strongly_connected", nx.DiGraph),
    ],
)
def test_null_graph_is_a_pointless_concept(name, graph):
    with pytest.raises(nx.NetworkXPointlessConcept, match="null graph"):
        getattr(cnx, name)(graph())


def test_missing_node_is_a_key_error():
    with pytest.raises(KeyError):
        cnx.node_connected_component(nx.path_graph(3), 7)


def test_null_graphs_have_no_components():
    assert list(cnx.connected_components(nx.Graph())) == []
    assert cnx.number_strongly_connected_components(nx.DiGraph()) == 0
    assert cnx.condensation(nx.DiGraph()).graph == {"mapping": {}}
    assert nx.utils.graphs_equal(cnx.minimum_spanning_tree(nx.Graph()), nx.Graph())


# ------------------------------------------------------------------ the interface


def test_can_run_and_should_run_give_reasons():
    B = cnx.BackendInterface
    assert B.can_run("connected_components", (nx.Graph(),), {}) is True
    assert "scc" in B.can_run("condensation", (nx.DiGraph(), [{0}]), {})
    assert "does not implement" in B.can_run("pagerank", (nx.Graph(),), {})
    assert "nodes" in B.should_run("connected_components", (nx.path_graph(3),), {})
    assert B.should_run("connected_components", (nx.path_graph(1000),), {}) is True
    assert "component of n" in B.should_run(
        "node_connected_component", (nx.path_graph(1000), 0), {}
    )
    assert B.should_run("connected_components", (cnx.from_networkx(nx.path_graph(3)),), {}) is True


def test_backend_info_lists_every_function():
    info = cnx.get_info()
    assert info["backend_name"] == "concomp"
    assert set(info["functions"]) == set(cnx._interface.FUNCTIONS)
    for name in info["functions"]:
        assert callable(getattr(cnx.BackendInterface, name))
        assert callable(getattr(nx, name)), name  # each is a NetworkX function name


@needs_entry_point
def test_networkx_finds_the_backend_and_counts_calls():
    assert "concomp" in nx.utils.backends.backends
    before = cnx.CALLS["connected_components"]
    G = nx.Graph([("a", "b"), ("c", "d")])
    assert list(nx.connected_components(G, backend="concomp")) == [{"a", "b"}, {"c", "d"}]
    assert cnx.CALLS["connected_components"] == before + 1
    T = nx.minimum_spanning_tree(nx.Graph([(0, 1, {"weight": 2})]), backend="concomp")
    assert list(T.edges(data=True)) == [(0, 1, {"weight": 2})]


@needs_entry_point
@pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs:UserWarning")
def test_backend_priority_dispatches_automatically(monkeypatch):
    monkeypatch.setattr(nx.config.backend_priority, "algos", ["concomp"])
    before = cnx.CALLS["number_connected_components"]
    G = nx.gnm_random_graph(1000, 1500, seed=2)
    assert nx.number_connected_components(G) == sum(1 for _ in nx.connected_components(G))
    assert cnx.CALLS["number_connected_components"] == before + 1
    small = nx.path_graph(4)  # should_run declines: NetworkX runs it
    assert nx.number_connected_components(small) == 1
    assert cnx.CALLS["number_connected_components"] == before + 1


def test_device_is_passed_through():
    G = nx.path_graph(10)
    assert cnx.number_connected_components(G, device="cpu") == 1
    with pytest.raises(Exception, match="device"):
        cnx.number_connected_components(G, device="tpu")


def test_backend_info_loads_when_concomp_nx_is_imported_before_networkx():
    """NetworkX calls the ``networkx.backend_info`` entry point while it is imported. With
    ``concomp.nx`` imported first, its import of NetworkX asks for the backend's
    information while ``concomp.nx`` is partly initialised: the entry point lives in a
    module that needs nothing of NetworkX, so the information (and the backend's
    configuration, ``nx.config.backends.concomp``) loads in that order too."""
    import importlib.metadata
    import subprocess
    import sys

    found = [e for e in importlib.metadata.entry_points(group="networkx.backend_info")]
    ours = [e for e in found if e.name == "concomp"]
    if not ours:
        pytest.skip("concomp is not installed (no entry points): pip install -e .")
    if ours[0].value != "concomp.nx._info:get_info":
        pytest.skip(f"an older install's entry point ({ours[0].value}): pip install -e . again")
    code = (
        "import concomp.nx, networkx as nx; "
        "print(nx.utils.backends.backend_info['concomp']['backend_name'], "
        "nx.config.backends.concomp.device)"
    )
    out = subprocess.run(
        [sys.executable, "-W", "error::RuntimeWarning", "-c", code],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["concomp", "auto"], out.stderr
