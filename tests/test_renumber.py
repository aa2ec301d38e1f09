"""Vertex ids of any kind: renumbering in the input layer and results in the input's ids.

Every input kind (NumPy object and str arrays, pandas object / categorical / string
columns, polars where installed, pyarrow arrays) with string ids and with sparse or
negative 64-bit ids, on each engine (the ``device`` fixture), round-trips to the
input's ids; compared with a union-find over the ids themselves.
"""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest

import concomp
from concomp import csgraph
from concomp._renumber import MIN_SPAN, SPAN_RATIO, renumber_edges
from concomp._validate import host_edges
from concomp.errors import InvalidGraphError
from concomp.results import ComponentLabels


def _partition(src, dst) -> set[frozenset]:
    """Components of the edge list over the ids as given (a dict union-find)."""
    parent: dict = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for u, v in zip(list(src), list(dst)):
        ru, rv = find(u), find(v)
        if ru != rv:
            parent[ru] = rv
    groups: dict = {}
    for x in list(parent):
        groups.setdefault(find(x), set()).add(x)
    return {frozenset(g) for g in groups.values()}


def _result_partition(res: ComponentLabels) -> set[frozenset]:
    return {frozenset(c.tolist()) for c in res.components("label")}


def _string_edges(seed: int = 0, m: int = 300, k: int = 120) -> tuple[list[str], list[str]]:
    rng = np.random.default_rng(seed)
    names = [f"user-{i:04d}@{'abc'[i % 3]}.org" for i in rng.permutation(10 * k)[:k]]
    src = [names[i] for i in rng.integers(0, k, m)]
    dst = [names[i] for i in rng.integers(0, k // 2, m)]
    return src, dst


def _sparse_edges(seed: int = 0, m: int = 300) -> tuple[np.ndarray, np.ndarray]:
    """Hashed-style ids: near 10**12, negatives, and the int64 extremes."""
    rng = np.random.default_rng(seed)
    pool = np.concatenate(
        [
            rng.integers(10**12, 10**12 + 10**9, 100),
            -rng.integers(1, 2**62, 20),
            np.array([np.iinfo(np.int64).max, np.iinfo(np.int64).min, 0, 1]),
        ]
    )
    return pool[rng.integers(0, pool.size, m)], pool[rng.integers(0, pool.size // 2, m)]


def _kinds() -> list[str]:
    return [
        "numpy-object",
        "numpy-str",
        "tuple-of-lists",
        "m-by-2",
        "pandas-object",
        "pandas-category",
        "pandas-string",
        "polars",
        "polars-category",
        "pyarrow",
        "pyarrow-chunked",
    ]


def _as_kind(kind: str, src: list, dst: list):
    """The edge list (src, dst) in the input kind ``kind``."""
    if kind == "numpy-object":
        return np.array(src, dtype=object), np.array(dst, dtype=object)
    if kind == "numpy-str":
        return np.array(src), np.array(dst)
    if kind == "numpy-int64":
        return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)
    if kind == "tuple-of-lists":
        return list(src), list(dst)
    if kind == "m-by-2":
        return np.stack([np.asarray(src), np.asarray(dst)], axis=1)
    if kind.startswith("pandas"):
        pd = pytest.importorskip("pandas")
        dtype = {"pandas-object": object, "pandas-category": "category"}.get(kind, "string")
        return pd.DataFrame(
            {"src": pd.Series(src, dtype=dtype), "dst": pd.Series(dst, dtype=dtype)}
        )
    if kind.startswith("polars"):
        pl = pytest.importorskip("polars")
        df = pl.DataFrame({"src": list(src), "dst": list(dst)})
        if kind == "polars-category" and df["src"].dtype == pl.String:
            df = df.with_columns(pl.col("src", "dst").cast(pl.Categorical))
        return df
    pa = pytest.importorskip("pyarrow")
    if kind == "pyarrow":
        return pa.array(list(src)), pa.array(list(dst))
    half = len(src) // 2
    return (
        pa.chunked_array([list(src[:half]), list(src[half:])]),
        pa.chunked_array([list(dst[:half]), list(dst[half:])]),
    )


# --------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("kind", _kinds())
def test_string_ids_round_trip(kind, device):
    src, dst = _string_edges()
    res = concomp.connected_components(_as_kind(kind, src, dst), device=device)
    assert res.node_ids is not None
    assert res.node_ids.tolist() == sorted(set(src) | set(dst))
    assert res.labels.shape[0] == len(res.node_ids)
    assert _result_partition(res) == _partition(src, dst)
    # canonical labels number the components by their smallest id
    firsts = [min(c.tolist()) for c in res.components("label")]
    assert firsts == sorted(firsts)


#: kinds that hold numbers as numbers (string and categorical columns are strings)
NUMERIC_KINDS = ["numpy-object", "tuple-of-lists", "m-by-2", "pandas-object", "polars", "pyarrow"]


@pytest.mark.parametrize("kind", [*NUMERIC_KINDS, "pyarrow-chunked", "numpy-int64"])
def test_sparse_int64_ids_round_trip(kind, device):
    src, dst = _sparse_edges()
    res = concomp.connected_components(_as_kind(kind, src.tolist(), dst.tolist()), device=device)
    assert res.node_ids is not None
    assert res.node_ids.dtype.kind in "iuO"
    assert [int(x) for x in res.node_ids.tolist()] == sorted(set(src.tolist()) | set(dst.tolist()))
    assert _result_partition(res) == _partition(src.tolist(), dst.tolist())


def test_uint64_ids_beyond_int64_are_renumbered(device):
    src = np.array([2**64 - 1, 2**63, 5], dtype=np.uint64)
    dst = np.array([2**63, 7, 6], dtype=np.uint64)
    res = concomp.connected_components((src, dst), device=device)
    assert res.node_ids.dtype == np.uint64
    assert res.to_dict() == {5: 0, 6: 0, 7: 1, 2**63: 1, 2**64 - 1: 1}


def test_mixed_int64_and_uint64_columns_keep_every_value():
    src = np.array([-1, 2**62], dtype=np.int64)
    dst = np.array([3, 2**62], dtype=np.uint64)
    res = concomp.connected_components((src, dst))
    assert res.node_ids.tolist() == [-1, 3, 2**62]
    src64 = np.array([2**63 + 1], dtype=np.uint64)
    with pytest.raises(InvalidGraphError, match="no integer type holds both"):
        concomp.connected_components((np.array([-1]), src64))


def test_float_ids_read_as_integers():
    res = concomp.connected_components((np.array([-1.0, 1e12]), np.array([1e12, 3.0])))
    assert res.node_ids.tolist() == [-1, 3, 10**12]
    with pytest.raises(InvalidGraphError, match=r"argument `src`: vertex id 0\.5"):
        concomp.connected_components((np.array([0.5, -1.0]), np.array([1.0, 2.0])))
    with pytest.raises(InvalidGraphError, match=r"argument `dst`: .*1e\+19 .*too large for int64"):
        concomp.connected_components((np.array([-1.0]), np.array([1e19])))
    with pytest.raises(
        InvalidGraphError, match=r"`dst`: vertex ids must be integers, got .*complex"
    ):
        concomp.connected_components((np.array([0, 1]), np.array([1j, 2])))


# --------------------------------------------------------------------------- the rule
def test_dense_ids_keep_the_old_contract():
    res = concomp.connected_components((np.array([0, 5]), np.array([1, 6])))
    assert res.node_ids is None and res.labels.shape[0] == 7
    assert concomp.as_graph((np.array([0, 5]), np.array([1, 6]))).node_ids is None
    # num_nodes declares the id space: integer ids are then never renumbered
    res = concomp.connected_components((np.array([0, 3]), np.array([1, 4])), num_nodes=9)
    assert res.node_ids is None and res.labels.shape[0] == 9


def test_auto_rule_span_against_distinct_ids():
    # a span just above MIN_SPAN with few distinct ids: renumbered
    src, dst = np.array([0, 1]), np.array([1, MIN_SPAN])
    s, d, ids = renumber_edges(src, dst, "auto", None)
    assert ids.tolist() == [0, 1, MIN_SPAN] and s.tolist() == [0, 1] and d.tolist() == [1, 2]
    # a span of MIN_SPAN exactly: kept
    assert renumber_edges(src, np.array([1, MIN_SPAN - 1]), "auto", None) is None


@pytest.mark.slow
def test_auto_rule_keeps_a_span_covered_by_the_distinct_ids():
    # MIN_SPAN + 1 slots, more than 1 / SPAN_RATIO of them used: not renumbered
    k = (MIN_SPAN + 1) // SPAN_RATIO + 2
    ids = np.linspace(0, MIN_SPAN, k).astype(np.int64)
    assert renumber_edges(ids[:-1], ids[1:], "auto", None) is None


def test_renumber_true_and_false():
    src, dst = np.array([3, 9]), np.array([4, 9])
    res = concomp.connected_components((src, dst), renumber=True)
    assert res.node_ids.tolist() == [3, 4, 9] and res.labels.tolist() == [0, 0, 1]
    res = concomp.connected_components((src, dst), renumber=False)
    assert res.node_ids is None and res.labels.shape[0] == 10
    with pytest.raises(InvalidGraphError, match=r"argument `src`: .*renumber=False, got dtype <U1"):
        concomp.connected_components((np.array(["a"]), np.array(["b"])), renumber=False)
    with pytest.raises(InvalidGraphError, match="negative"):
        concomp.connected_components((np.array([-1]), np.array([0])), renumber=False)


@pytest.mark.parametrize("bad", ["yes", 1, None, "AUTO"])
def test_bad_renumber_value_is_named(bad):
    with pytest.raises(InvalidGraphError, match=r"argument `renumber`: .*'auto', True, False"):
        concomp.connected_components((np.array([0]), np.array([1])), renumber=bad)


def test_num_nodes_with_renumbered_ids_is_refused():
    with pytest.raises(InvalidGraphError, match=r"argument `num_nodes`: 5 .*not integers"):
        concomp.connected_components((np.array(["a"]), np.array(["b"])), num_nodes=5)
    with pytest.raises(InvalidGraphError, match=r"argument `num_nodes`: 5 .*renumber=True"):
        concomp.connected_components((np.array([0]), np.array([1])), num_nodes=5, renumber=True)


def test_missing_ids_are_named():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"src": ["a", None, "c"], "dst": ["b", "c", "a"]})
    with pytest.raises(
        InvalidGraphError, match=r"argument `src`: vertex id .* at position 1 is missing"
    ):
        concomp.connected_components(df)
    df = pd.DataFrame({"src": ["a", "b"], "dst": ["b", np.nan]})
    with pytest.raises(InvalidGraphError, match=r"argument `dst`: .* at position 1 is missing"):
        concomp.connected_components(df)


def test_mismatched_lengths_are_named():
    with pytest.raises(InvalidGraphError, match="differ in length"):
        concomp.connected_components((np.array(["a", "b"]), np.array(["c"])))


def test_mixed_type_ids_keep_first_appearance_order():
    src = np.array(["a", 1, ("t", 2)], dtype=object)
    dst = np.array([1, "b", "a"], dtype=object)
    res = concomp.connected_components((src, dst))
    assert res.node_ids.tolist() == ["a", 1, ("t", 2), "b"]
    assert res.num_components == 1


# --------------------------------------------------------------------------- memory
def test_ids_near_1e12_with_1e6_edges_use_memory_of_the_edges():
    m = 1_000_000
    rng = np.random.default_rng(1)
    pool = rng.integers(0, 10**12, 400_000) + 10**12
    src, dst = pool[rng.integers(0, pool.size, m)], pool[rng.integers(0, pool.size, m)]
    tracemalloc.start()
    try:
        res = concomp.connected_components((src, dst), device="cpu")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    distinct = np.unique(np.concatenate([src, dst])).size
    assert res.labels.shape[0] == distinct == res.node_ids.shape[0]
    # the input holds 16 bytes per edge; a label array indexed by id would need 4 TB
    assert peak < 150 * m, f"peak {peak / 2**20:.0f} MiB for {m} edges"


def test_host_edges_leaves_renumbered_input_to_the_general_path():
    dense = (np.array([0, 1]), np.array([1, 2]))
    assert host_edges(dense) is not None
    assert host_edges(dense, renumber=True) is None
    assert host_edges((np.array([-1, 1]), np.array([1, 2]))) is None
    assert host_edges((np.array([10**12]), np.array([1]))) is None
    assert host_edges((np.array([10**12]), np.array([1])), renumber=False) is not None
    assert host_edges((np.array(["a"]), np.array(["b"]))) is None
    pd = pytest.importorskip("pandas")
    assert host_edges(pd.DataFrame({"src": ["a"], "dst": ["b"]})) is None
    assert host_edges(pd.DataFrame({"src": [0], "dst": [1]})) is not None


# --------------------------------------------------------------------------- user terms
def test_components_orders():
    src = np.array(["d", "a", "x", "y"])
    dst = np.array(["e", "b", "y", "z"])
    groups = concomp.components((src, dst))
    assert [g.tolist() for g in groups] == [["x", "y", "z"], ["a", "b"], ["d", "e"]]
    groups = concomp.components((src, dst), order="label")
    assert [g.tolist() for g in groups] == [["a", "b"], ["d", "e"], ["x", "y", "z"]]
    with pytest.raises(InvalidGraphError, match=r"argument `order`: 'big'"):
        concomp.components((src, dst), order="big")


def test_components_of_dense_ids_and_raw_roots(device):
    edges = (np.array([0, 3, 4]), np.array([1, 4, 5]))
    groups = concomp.components(edges, num_nodes=7, device=device)
    assert [g.tolist() for g in groups] == [[3, 4, 5], [0, 1], [2], [6]]
    raw = concomp.connected_components(edges, num_nodes=7, canonical=False, device=device)
    assert [g.tolist() for g in raw.components("label")] == [[0, 1], [2], [3, 4, 5], [6]]


def test_membership_matrix_rows_and_columns(device):
    res = concomp.connected_components(
        (np.array(["b", "c", "q"]), np.array(["a", "a", "r"])), device=device
    )
    M = concomp.membership_matrix(res)
    assert M.shape == (5, 2)
    dense = np.asarray(M.toarray() if hasattr(M, "toarray") else M)
    if hasattr(dense, "get"):
        dense = dense.get()
    assert dense.tolist() == [[1, 0], [1, 0], [1, 0], [0, 1], [0, 1]]
    assert concomp.membership_matrix(res, dtype=np.float64).dtype == np.float64
    x = np.array([1.0, 2.0, 3.0, 10.0, 20.0])
    assert (M.T @ x).tolist() == [6.0, 30.0]


def test_frame_in_frame_out_pandas(device):
    pd = pytest.importorskip("pandas")
    src, dst = _string_edges(3, m=50, k=40)
    df = pd.DataFrame({"source": src, "target": dst, "weight": 1.0})
    out = concomp.components_frame(df, device=device)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["vertex", "component"]
    assert out["vertex"].tolist() == sorted(set(src) | set(dst))
    got = {frozenset(g["vertex"]) for _, g in out.groupby("component")}
    assert got == _partition(src, dst)
    renamed = concomp.components_frame(df, columns=("user", "cluster"), device=device)
    assert list(renamed.columns) == ["user", "cluster"]


def test_frame_in_frame_out_polars(device):
    pl = pytest.importorskip("polars")
    df = pl.DataFrame({"src": [10**12, 7, 9], "dst": [7, -3, 11]})
    out = concomp.components_frame(df, device=device)
    assert isinstance(out, pl.DataFrame)
    assert out["vertex"].to_list() == [-3, 7, 9, 11, 10**12]
    assert out["component"].to_list() == [0, 0, 1, 1, 0]
    assert isinstance(concomp.components_frame(df, kind="pandas", device=device).shape, tuple)


def test_frame_of_dense_ids_and_bad_kind():
    res = concomp.connected_components((np.array([0]), np.array([2])))
    frame = res.to_frame()
    assert frame["vertex"].tolist() == [0, 1, 2] and frame["component"].tolist() == [0, 1, 0]
    with pytest.raises(InvalidGraphError, match=r"argument `kind`: 'excel'"):
        res.to_frame("excel")


def test_networkx_names_kept(device):
    nx = pytest.importorskip("networkx")
    G = nx.Graph([("paris", "lyon"), ("oslo", "bergen"), (("x", 1), "oslo")])
    G.add_node("alone")
    res = concomp.connected_components(G, device=device)
    assert res.node_ids.tolist() == list(G.nodes)
    mapping = res.to_dict()
    assert set(mapping) == set(G.nodes)
    got = {frozenset(n for n in mapping if mapping[n] == c) for c in set(mapping.values())}
    assert got == {frozenset(c) for c in nx.connected_components(G)}
    assert concomp.connected_components(G, renumber=False, device=device).node_ids is None
    # nodes 0 .. n-1 in order: names and positions agree
    assert concomp.connected_components(nx.path_graph(4), device=device).node_ids is None
    lc = concomp.largest_component(G, device=device)
    assert set(lc.tolist()) == {"oslo", "bergen", ("x", 1)}


def test_result_is_the_scipy_pair_and_pickles():
    res = concomp.connected_components((np.array(["a"]), np.array(["b"])))
    assert isinstance(res, tuple) and len(res) == 2
    n, labels = res
    assert (n, labels.tolist()) == (1, [0, 0])
    back = pickle.loads(pickle.dumps(res))
    assert isinstance(back, ComponentLabels)
    assert back.node_ids.tolist() == ["a", "b"] and back.num_components == 1
    assert concomp.number_connected_components((np.array(["a"]), np.array(["b"]))) == 1
    assert concomp.component_sizes((np.array(["a", "c"]), np.array(["b", "c"]))).tolist() == [
        2,
        1,
    ]


def test_spanning_forest_in_input_ids(device):
    src, dst = _string_edges(5, m=80, k=50)
    f = concomp.spanning_forest((np.array(src), np.array(dst)), device=device)
    assert f.num_nodes == len(set(src) | set(dst))
    assert f.num_edges == f.num_nodes - f.num_components
    for e, u, v in zip(f.edge_ids.tolist(), f.src.tolist(), f.dst.tolist()):
        assert (u, v) == (src[e], dst[e])
    assert _partition(f.src.tolist(), f.dst.tolist()) | {
        frozenset([x]) for x in set(src) | set(dst)
    } >= _partition(src, dst)


def test_minimum_spanning_forest_in_input_ids(device):
    src = np.array([10**12, 10**12, -4, 7])
    dst = np.array([-4, 7, 7, 8])
    f = concomp.minimum_spanning_forest((src, dst), np.array([1.0, 5.0, 2.0, 3.0]), device=device)
    assert sorted(zip(f.src.tolist(), f.dst.tolist())) == [(-4, 7), (7, 8), (10**12, -4)]
    assert f.node_ids.tolist() == [-4, 7, 8, 10**12]
    A = f.to_scipy()
    assert A.shape == (4, 4) and A[3, 0] == 1.0 and A[0, 1] == 2.0


def test_sparse_matrices_graphs_and_csgraph_are_never_renumbered():
    sp = pytest.importorskip("scipy.sparse")
    A = sp.csr_array(([1, 1], ([0, 5], [1, 6])), shape=(8, 8))
    assert concomp.connected_components(A, renumber=True).node_ids is None
    assert concomp.as_graph(A, renumber=True).node_ids is None
    count, labels = csgraph.connected_components(A, directed=False)
    assert type((count, labels)) is tuple and labels.shape[0] == 8 and count == 6
    g = concomp.as_graph((np.array(["a"]), np.array(["b"])))
    assert concomp.as_graph(g, renumber=False) is g
    assert concomp.as_graph(g, weights=np.array([2.0])).node_ids.tolist() == ["a", "b"]
    with pytest.raises(InvalidGraphError, match="renumbered graph"):
        concomp.as_graph(g, num_nodes=5)


@pytest.mark.gpu
def test_device_ids_renumber_on_the_device():
    cp = pytest.importorskip("cupy")
    src, dst = _sparse_edges(2)
    res = concomp.connected_components((cp.asarray(src), cp.asarray(dst)))
    assert isinstance(res.labels, cp.ndarray) and isinstance(res.node_ids, cp.ndarray)
    assert res.node_ids.get().tolist() == sorted(set(src.tolist()) | set(dst.tolist()))
    groups = res.components()
    assert all(isinstance(c, cp.ndarray) for c in groups)
    assert {frozenset(c.get().tolist()) for c in groups} == _partition(src.tolist(), dst.tolist())
    M = res.membership_matrix()
    assert M.shape == (res.node_ids.shape[0], res.num_components)
    g = concomp.as_graph((cp.asarray(src), cp.asarray(dst)))
    assert g.to("cpu").node_ids.tolist() == res.node_ids.get().tolist()
    host = concomp.connected_components((cp.asarray(src), cp.asarray(dst)), output_device="cpu")
    assert isinstance(host.node_ids, np.ndarray)
