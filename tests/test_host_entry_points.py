"""Host data on the GPU for every entry point, with no host Graph on the way.

``spanning_forest`` and ``minimum_spanning_forest`` take the host input kinds that
``connected_components`` streams (:func:`concomp._host_input.host_route`) into a device
graph built from ids staged through pinned slots (:func:`concomp._host_input.device_graph`);
``IncrementalConnectivity`` stages large host batches the same way; ``concomp.csgraph``
streams a host matrix's CSR where ``device="auto"`` picks the GPU.

The CPU tests run the GPU route on a stand-in device whose arrays are NumPy (the upload
a concatenation with the real one's int32 narrowing and range, the engine drivers the
CPU engine's): they check that the route is taken (``as_graph`` is never called), that
results equal the CPU engine's, and that errors are the general path's. The GPU tests
check each entry point on each input kind against the CPU engine and SciPy.
"""

from __future__ import annotations

import contextlib
import itertools
import logging

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc
from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst

import concomp
from concomp import _dispatch, csgraph, forest, msf, streaming
from concomp._host_input import device_graph, host_route, merged_device_graph
from concomp._shared.staging import INT32_IDS
from concomp.errors import InvalidGraphError
from concomp.testing.forest import assert_spanning_forest
from concomp.testing.msf import assert_minimum_spanning_forest


def _random_graph(seed: int, n: int = 3000, m: int = 9000):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    src[:5], dst[:5] = 7, 7  # self loops never enter a forest
    src[-1], dst[-1] = n - 1, n - 2  # the ids reach n - 1
    w = rng.integers(1, 50, m).astype(np.float64)
    return src, dst, w, n


def _kinds(seed: int, id_dtype=np.int64):
    """Every host input kind the GPU route takes, holding the same ``m`` edges (CSR kinds:
    the CSR of the pairs, whose entries are its edges)."""
    src, dst, w, n = _random_graph(seed)
    s, d = src.astype(id_dtype), dst.astype(id_dtype)
    csr = sp.csr_array((w, (src, dst)), shape=(n, n))
    csr.sum_duplicates()
    kinds = {
        "numpy pair": (s, d),
        "(2, m)": np.stack([s, d]),
        "(m, 2) strided": np.stack([s, d], axis=1),
        "scipy csr": csr,
        "scipy csr symmetric": (csr + csr.T).tocsr(),
        "scipy coo": sp.coo_array((w, (src, dst)), shape=(n, n)),  # duplicates: summed by tocsr
    }
    with contextlib.suppress(ImportError):
        import pandas as pd

        kinds["pandas"] = pd.DataFrame({"src": s, "dst": d})
    with contextlib.suppress(ImportError):
        import polars as pl

        kinds["polars"] = pl.DataFrame({"src": s, "dst": d})
    with contextlib.suppress(ImportError):
        import pyarrow as pa

        cuts = np.linspace(0, len(s), 4).astype(int)
        kinds["pyarrow table"] = pa.Table.from_batches(
            [pa.record_batch({"src": s[a:b], "dst": d[a:b]}) for a, b in itertools.pairwise(cuts)]
        )
    with contextlib.suppress(ImportError):
        import torch

        kinds["torch cpu edge_index"] = torch.from_numpy(np.stack([s, d]))
    return kinds, src, dst, w, n


def _parquet(tmp_path, src, dst, weights=None):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    cols = {"src": src, "dst": dst} if weights is None else {"src": src, "dst": dst, "w": weights}
    path = tmp_path / "edges.parquet"
    pq.write_table(pa.table(cols), path, row_group_size=2000)
    return str(path)


def _pairs_of(graph, src, dst):
    """The pairs whose edge ids the general path gives ``graph`` (CSR entry order for
    SciPy matrices, the pairs otherwise)."""
    if sp.issparse(graph):
        coo = graph.tocsr().tocoo()
        return coo.row.astype(np.int64), coo.col.astype(np.int64)
    return src, dst


# ----------------------------------------------------------------------- a stand-in device
@pytest.fixture
def fake_gpu(monkeypatch):
    """The GPU route on the CPU: "device" arrays are NumPy; the staged upload is a
    concatenation with the real upload's int32 narrowing and id range; every engine
    driver the forest and MSF calls ask for on "gpu" is the CPU engine's. Counts the
    uploads."""
    from concomp._gpu import _compat

    calls = {"edges": 0, "ids": 0}

    def narrow(lo, hi):
        return np.int32 if lo >= np.iinfo(np.int32).min and hi <= INT32_IDS else np.int64

    def edges_up(pieces, num_edges=None):
        pairs = [(np.asarray(s, np.int64), np.asarray(d, np.int64)) for s, d in pieces]
        s = np.concatenate([p[0] for p in pairs]) if pairs else np.zeros(0, np.int64)
        d = np.concatenate([p[1] for p in pairs]) if pairs else np.zeros(0, np.int64)
        assert num_edges is None or num_edges == s.shape[0]
        calls["edges"] += 1
        if s.size == 0:
            return s.astype(np.int32), d.astype(np.int32), 0, -1
        lo, hi = int(min(s.min(), d.min())), int(max(s.max(), d.max()))
        return s.astype(narrow(lo, hi)), d.astype(narrow(lo, hi)), lo, hi

    def ids_up(ids):
        calls["ids"] += 1
        if ids.shape[0] == 0:
            return np.zeros(0, np.int32), 0, -1
        lo, hi = int(ids.min()), int(ids.max())
        return np.asarray(ids).astype(narrow(lo, hi)), lo, hi

    monkeypatch.setattr(_compat, "gpu_status", lambda: (True, "a stand-in GPU of NumPy arrays"))
    monkeypatch.setattr(_compat, "cupy_or_raise", lambda: np)
    monkeypatch.setattr(_compat, "staged_edges_to_device", edges_up)
    monkeypatch.setattr(_compat, "staged_ids_to_device", ids_up)
    monkeypatch.setattr(_compat, "check_device_fits", lambda what, nbytes, **kw: int(nbytes))
    monkeypatch.setattr(
        _compat, "out_of_memory_guard", lambda what, need=None: contextlib.nullcontext()
    )
    cpu_driver = _dispatch.driver
    for module in (forest, msf):
        monkeypatch.setattr(module, "driver", lambda dev, mod, name: cpu_driver("cpu", mod, name))
    # the device decoder of Parquet files has no stand-in: files take the staged upload
    monkeypatch.setattr(
        streaming,
        "driver",
        lambda dev, mod, name: (
            (lambda *a: None) if name == "parquet_chunks" else cpu_driver(dev, mod, name)
        ),
    )
    return calls


@pytest.fixture
def no_host_graph(monkeypatch):
    """Fail any test in which the forest or MSF call builds a host Graph."""

    def refuse(*args, **kwargs):
        raise AssertionError("as_graph was called for host data routed to the GPU")

    for module in (forest, msf):
        monkeypatch.setattr(module, "as_graph", refuse)


# ----------------------------------------------------------------------- routing (CPU)
def test_routes_follow_resolve_device_with_the_edge_count(fake_gpu, caplog):
    src, dst, _, n = _random_graph(1)
    with caplog.at_level(logging.DEBUG, logger="concomp.dispatch"):
        route = host_route((src, dst), n, "auto", "auto", what="spanning_forest", min_edges=10**9)
        assert route is not None and route.device == "cpu"
        route = host_route((src, dst), n, "auto", "auto", what="spanning_forest", min_edges=100)
        assert route is not None and route.device == "gpu"
    text = caplog.text
    assert "spanning_forest: device=auto -> cpu (9000 edges < 1000000000" in text
    assert "spanning_forest: device=auto -> gpu (9000 edges, a stand-in GPU" in text
    assert host_route((src, dst), None, True, "gpu", what="x", min_edges=1) is None  # renumber
    assert host_route((src - 5, dst), None, "auto", "gpu", what="x", min_edges=1) is None


def test_a_coo_matrix_is_routed_as_pairs_merged_on_the_device(fake_gpu):
    coo = sp.coo_array((np.ones(3), ([2, 0, 2], [1, 1, 1])), shape=(3, 3))
    pairs = host_route(coo, None, "auto", "gpu", what="x", min_edges=1)
    numbered = host_route(coo, None, "auto", "gpu", what="x", min_edges=1, edge_ids=True)
    assert pairs.edges.src is not None and pairs.edges.num_edges == 3 and not pairs.merge
    assert numbered.edges.src is not None and numbered.merge and numbered.graph is coo
    g = merged_device_graph(numbered)
    assert g.num_edges == 2  # (0, 1) and (2, 1), the duplicate merged
    assert g._indptr.tolist() == [0, 1, 1, 2] and g._indices.tolist() == [1, 1]
    assert g.weights.tolist() == [1.0, 2.0]  # the duplicate's values summed
    assert merged_device_graph(numbered, summed=False).weights is None


COO_VALUES = ["int8 wrapping", "uint64", "bool", "float, no duplicates", "float, duplicates"]


def _coo_case(values: str, cls, seed: int = 11):
    """A COO matrix with duplicates, explicit zeros and entries that sum to zero (and,
    for "weights", float weights given per merged entry)."""
    rng = np.random.default_rng(seed)
    n, m = 300, 2000
    row, col = rng.integers(0, n, m), rng.integers(0, n, m)
    row[:300], col[:300] = row[300:600], col[300:600]
    if values == "int8 wrapping":
        data = rng.integers(-128, 127, m, dtype=np.int8, endpoint=True)
    elif values == "uint64":
        data = rng.integers(0, 2**64 - 1, m, dtype=np.uint64, endpoint=True)
    elif values == "bool":
        data = rng.integers(0, 2, m).astype(bool)
    elif values == "float, no duplicates":
        keys = np.unique(row * n + col)
        row, col = keys // n, keys % n
        data = rng.random(keys.shape[0]) - 0.2
    else:
        data = rng.random(m) - 0.2
    coo = cls((data, (row, col)), shape=(n, n))
    return coo, (rng.random(coo.tocsr().nnz) if values == "weights" else None)


def _same_coo_forests(coo, weights, before_gpu=lambda: None, forest_variant="rem") -> None:
    """The GPU route's forests of ``coo`` against the CPU engine's: the spanning forest
    one of the CSR SciPy makes of ``coo`` (its edge ids that CSR's entries), the same
    as the CPU's where the stand-in device runs the CPU's variant; the minimum spanning
    forest the same (``before_gpu`` runs between the engines)."""
    want_f = forest.spanning_forest(coo, device="cpu", algorithm="rem")
    want_m = msf.minimum_spanning_forest(coo, weights, device="cpu", algorithm="boruvka")
    pairs = _pairs_of(coo, None, None)
    before_gpu()
    got_f = forest.spanning_forest(coo, device="gpu", algorithm=forest_variant)
    got_m = msf.minimum_spanning_forest(coo, weights, device="gpu", algorithm="boruvka")
    checks = [(got_m, want_m, ("src", "dst", "edge_ids", "weights"))]
    if forest_variant == "rem":
        checks.append((got_f, want_f, ("src", "dst", "edge_ids")))
    for got, want, names in checks:
        for name in names:
            a, b = getattr(got, name), getattr(want, name)
            assert isinstance(a, np.ndarray) and a.dtype == b.dtype, name
            np.testing.assert_array_equal(a, b, err_msg=name)
    assert got_m.total_weight == want_m.total_weight
    assert_spanning_forest((*pairs, coo.shape[0]), got_f)
    assert got_f.num_components == want_f.num_components
    np.testing.assert_array_equal(got_f.src, pairs[0][got_f.edge_ids])
    np.testing.assert_array_equal(got_f.dst, pairs[1][got_f.edge_ids])


@pytest.mark.parametrize("values", [*COO_VALUES, "weights"])
@pytest.mark.parametrize("cls", [sp.coo_array, sp.coo_matrix])
def test_coo_forests_on_the_gpu_route_number_edges_by_scipys_csr(
    values, cls, fake_gpu, monkeypatch
):
    """The GPU route merges a COO matrix on the device into SciPy's CSR (edge ids,
    summed weights) and builds no host CSR; floating-point duplicates alone are summed
    by SciPy on the host. Neither builds a host Graph."""
    coo, weights = _coo_case(values, cls)

    def refuse_host_structures() -> None:
        monkeypatch.setattr(forest, "as_graph", _refuse)
        monkeypatch.setattr(msf, "as_graph", _refuse)
        if values != "float, duplicates":
            import concomp._shared.csr

            def refuse(*args, **kwargs):
                raise AssertionError("a host CSR was built for a COO matrix on the GPU route")

            monkeypatch.setattr(concomp._shared.csr, "coo_to_csr", refuse)
            monkeypatch.setattr(coo, "tocsr", refuse)

    _same_coo_forests(coo, weights, refuse_host_structures)


@pytest.mark.parametrize("values", ["int8 wrapping", "float, duplicates"])
def test_coo_too_wide_to_merge_is_converted_by_scipy(values, fake_gpu, monkeypatch):
    """A COO matrix of MERGE_MAX_NODES rows or more takes SciPy's CSR on the host (the
    merge's 64-bit key would overflow): the same forests, still no host Graph."""
    import concomp._host_input

    monkeypatch.setattr(concomp._host_input, "MERGE_MAX_NODES", 100)
    coo, weights = _coo_case(values, sp.coo_array)

    def refuse_host_graphs() -> None:
        monkeypatch.setattr(forest, "as_graph", _refuse)
        monkeypatch.setattr(msf, "as_graph", _refuse)
        monkeypatch.setattr(concomp._host_input, "merge_coo", _refuse)

    _same_coo_forests(coo, weights, refuse_host_graphs)


def test_weighted_pieces_take_the_general_path_when_weights_are_read(fake_gpu, tmp_path):
    src, dst, w, n = _random_graph(2)
    path = _parquet(tmp_path, src, dst, w)
    assert host_route(path, n, "auto", "gpu", what="x", min_edges=1) is not None
    assert host_route(path, n, "auto", "gpu", what="x", min_edges=1, reads_weights=True) is None


@pytest.mark.parametrize("kind", list(_kinds(3)[0]) + ["parquet"])
def test_forest_of_each_host_kind_builds_no_host_graph(kind, fake_gpu, tmp_path, monkeypatch):
    kinds, src, dst, _, n = _kinds(3)
    graph = _parquet(tmp_path, src, dst) if kind == "parquet" else kinds[kind]
    want = forest.spanning_forest(graph, num_nodes=n, device="cpu", algorithm="rem")
    monkeypatch.setattr(forest, "as_graph", _refuse)
    got = forest.spanning_forest(graph, num_nodes=n, device="gpu", algorithm="rem")
    assert fake_gpu["edges"] + fake_gpu["ids"] >= 1
    for name in ("src", "dst", "edge_ids"):
        a, b = getattr(got, name), getattr(want, name)
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert (got.num_nodes, got.num_components) == (want.num_nodes, want.num_components)
    pairs = _pairs_of(kinds.get(kind), src, dst)
    assert_spanning_forest(pairs, got)


def _refuse(*args, **kwargs):
    raise AssertionError("as_graph was called for host data routed to the GPU")


@pytest.mark.parametrize(
    "kind",
    [
        "weights argument",
        "scalar weight",
        "bool weights",
        "tuple of three",
        "pandas weight column",
        "scipy csr",
        "coo",
    ],
)
def test_msf_of_each_weighted_host_kind_builds_no_host_graph(kind, fake_gpu, monkeypatch):
    src, dst, w, n = _random_graph(4)
    csr = sp.csr_array((w, (src, dst)), shape=(n, n))
    weights = None
    if kind == "weights argument":
        graph, weights = np.stack([src, dst], axis=1), w
    elif kind == "scalar weight":
        graph, weights = (src, dst), 2.5
    elif kind == "bool weights":
        graph, weights = (src, dst), list(w > 20)
    elif kind == "tuple of three":
        graph = (src, dst, w)
    elif kind == "pandas weight column":
        pd = pytest.importorskip("pandas")
        graph = pd.DataFrame({"source": src, "target": dst, "weight": w})
    elif kind == "scipy csr":
        graph = csr
    else:
        graph = sp.coo_array((w, (src, dst)), shape=(n, n))
    want = msf.minimum_spanning_forest(graph, weights, device="cpu", algorithm="boruvka")
    monkeypatch.setattr(msf, "as_graph", _refuse)
    got = msf.minimum_spanning_forest(graph, weights, device="gpu")
    for name in ("src", "dst", "edge_ids", "weights"):
        a, b = getattr(got, name), getattr(want, name)
        assert isinstance(a, np.ndarray) and a.dtype == b.dtype, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert got.total_weight == want.total_weight and got.num_nodes == want.num_nodes


def test_auto_keeps_small_host_graphs_on_the_cpu(fake_gpu, caplog):
    src, dst, w, n = _random_graph(5)
    with caplog.at_level(logging.DEBUG, logger="concomp.dispatch"):
        forest.spanning_forest((src, dst), num_nodes=n)
        msf.minimum_spanning_forest((src, dst, w))
    assert fake_gpu["edges"] == 0
    assert "spanning_forest: device=auto -> cpu (9000 edges < 2000000" in caplog.text
    assert "minimum_spanning_forest: device=auto -> cpu (9000 edges < 100000" in caplog.text


def test_auto_takes_the_gpu_route_from_the_threshold_on(fake_gpu, no_host_graph, monkeypatch):
    src, dst, w, n = _random_graph(6)
    monkeypatch.setattr(forest, "GPU_MIN_EDGES", 9000)
    monkeypatch.setattr(msf, "GPU_MIN_EDGES", 9000)
    assert forest.spanning_forest((src, dst), num_nodes=n).num_nodes == n
    assert msf.minimum_spanning_forest((src, dst, w)).num_nodes == n
    assert fake_gpu["edges"] == 2


def test_kruskal_on_the_gpu_route_goes_to_the_cpu_or_raises(fake_gpu, monkeypatch):
    src, dst, w, _ = _random_graph(7)
    monkeypatch.setattr(msf, "GPU_MIN_EDGES", 1)
    f = msf.minimum_spanning_forest((src, dst, w), algorithm="kruskal")  # auto -> cpu
    assert fake_gpu["edges"] == 0 and f.num_edges > 0
    with pytest.raises(concomp.InvalidVariantError, match="'kruskal' runs on the CPU only"):
        msf.minimum_spanning_forest((src, dst, w), algorithm="kruskal", device="gpu")


# ----------------------------------------------------------------------- errors (CPU)
@pytest.mark.parametrize(
    "graph, num_nodes",
    [
        ((np.array([0, 1, 2]), np.array([1, -3, 0])), None),
        ((np.array([0, 1, 2]), np.array([1, 7, 0])), 5),
        (np.array([[0, 1], [2, 9]]).T.copy(), 4),
        ((np.array([0, 1], np.uint32), np.array([1, 6], np.uint32)), 3),
    ],
)
def test_bad_ids_raise_what_the_general_path_raises(graph, num_nodes, fake_gpu, no_host_graph):
    with pytest.raises(InvalidGraphError) as on_gpu:
        forest.spanning_forest(graph, num_nodes=num_nodes, device="gpu", renumber=False)
    with pytest.raises(InvalidGraphError) as on_cpu:
        concomp.as_graph(graph, num_nodes, renumber=False)
    assert str(on_gpu.value) == str(on_cpu.value)


def test_a_bad_csr_raises_what_the_general_path_raises(fake_gpu, no_host_graph):
    bad_col = sp.csr_array((np.ones(2), np.array([1, 5]), np.array([0, 1, 2, 2])), shape=(3, 3))
    with pytest.raises(InvalidGraphError) as on_gpu:
        forest.spanning_forest(bad_col, device="gpu")
    with pytest.raises(InvalidGraphError) as on_cpu:
        concomp.as_graph(bad_col)
    assert str(on_gpu.value) == str(on_cpu.value) and "indices" in str(on_gpu.value)


def test_a_bad_id_in_a_piece_names_the_piece(fake_gpu, no_host_graph):
    pa = pytest.importorskip("pyarrow")
    table = pa.Table.from_batches(
        [pa.record_batch({"src": [0, 1], "dst": [1, 2]}), pa.record_batch({"src": [2], "dst": [9]})]
    )
    with pytest.raises(InvalidGraphError, match=r"record batch 1\): argument `dst`: vertex id 9"):
        forest.spanning_forest(table, num_nodes=4, device="gpu")


@pytest.mark.parametrize(
    "weights, match",
    [
        (np.array([1.0, np.nan, 2.0]), "weight NaN at position 1"),
        (np.ones(2), "expected 3 weights"),
        (np.array(["a", "b", "c"]), "weights must be numbers"),
    ],
)
def test_bad_weights_raise_what_the_general_path_raises(weights, match, fake_gpu):
    graph = (np.array([0, 1, 2]), np.array([1, 2, 0]))
    with pytest.raises(InvalidGraphError, match=match) as on_gpu:
        msf.minimum_spanning_forest(graph, weights, device="gpu")
    with pytest.raises(InvalidGraphError) as on_cpu:
        msf.minimum_spanning_forest(graph, weights, device="cpu")
    assert str(on_gpu.value) == str(on_cpu.value)


def test_device_graph_matches_as_graph(fake_gpu):
    kinds, src, dst, _, n = _kinds(8, np.int32)
    for name in ("numpy pair", "scipy csr", "pyarrow table"):
        if name not in kinds:
            continue
        route = host_route(kinds[name], n, "auto", "gpu", what="x", min_edges=1)
        got = device_graph(route.edges)
        want = concomp.as_graph(kinds[name] if name != "pyarrow table" else (src, dst), n)
        assert (got.num_nodes, got.num_edges) == (want.num_nodes, want.num_edges), name
        for a, b in zip(got.coo(), want.coo(), strict=True):
            assert a.dtype == b.dtype, name
            np.testing.assert_array_equal(a, b, err_msg=name)
    route = host_route((src, dst), None, "auto", "gpu", what="x", min_edges=1)
    assert device_graph(route.edges).num_nodes == int(max(src.max(), dst.max())) + 1


# ----------------------------------------------------------------------- incremental (CPU)
def test_large_host_batches_are_staged_with_their_range(monkeypatch):
    from concomp._gpu import _compat
    from concomp.incremental import IncrementalConnectivity, _batches

    staged = []

    def up(pieces, num_edges=None):
        ((u, v),) = pieces
        staged.append(len(u))
        return (
            u.astype(np.int32),
            v.astype(np.int32),
            int(min(u.min(), v.min())),
            int(max(u.max(), v.max())),
        )

    monkeypatch.setattr(_compat, "staged_edges_to_device", up)
    monkeypatch.setattr(_compat, "cupy_module", lambda: np)
    monkeypatch.setattr(_batches, "STAGED_MIN_ENTRIES", 4)
    b = _batches.prepare("insert", None, [0, 1, 2, 9], [1, 2, 3, 4], ("src", "dst"), "gpu")
    assert staged == [4] and b.span == (0, 9) and b.u.dtype == np.int32
    small = _batches.prepare("insert", None, [0, 1], [1, 2], ("src", "dst"), "gpu")
    assert staged == [4] and small.span is None  # below the threshold: cupy.asarray
    ic = IncrementalConnectivity(device="cpu")
    monkeypatch.setattr(ic._engine, "bounds", _refuse)  # the staged range stands in for it
    assert ic._apply(b).tolist() == [True, True, True, True]
    assert ic.num_nodes == 10 and ic.num_components == 6
    bad = _batches.prepare("insert", None, [0, 1, 2, 3], [1, -2, 3, 4], ("src", "dst"), "gpu")
    with pytest.raises(InvalidGraphError, match="argument `dst`: vertex id -2 at position 1"):
        ic._apply(bad)


# ----------------------------------------------------------------------- csgraph (CPU)
def test_csgraph_streams_a_host_matrix_where_auto_picks_the_gpu(fake_gpu, monkeypatch):
    from concomp.components import component_roots

    seen = []

    def roots(edges, variant, budget, options):
        seen.append(edges.num_edges)
        if edges.indptr is None:  # a COO matrix streams its pairs
            g = concomp.Graph.from_edges(edges.src, edges.dst, edges.num_nodes)
        else:
            g = concomp.Graph.from_csr(edges.indptr, edges.indices, edges.num_nodes)
        return component_roots(g, device="cpu")

    cpu_driver = _dispatch.driver
    monkeypatch.setattr(csgraph, "host_roots", roots)
    monkeypatch.setattr(csgraph, "driver", lambda dev, mod, name: cpu_driver("cpu", mod, name))
    a = sp.random(500, 500, density=0.004, format="csr", random_state=3)
    want = scipy_cc(a, directed=False)
    got = csgraph.connected_components(a, directed=False)  # 1000 entries: below 3e5
    assert seen == [] and got[0] == want[0]
    monkeypatch.setattr(csgraph, "HOST_STREAM_MIN_EDGES", 10)
    for matrix in (a, a.tocsc(), a.tocoo(), a.toarray()):
        count, labels = csgraph.connected_components(matrix, directed=False)
        assert count == want[0] and labels.dtype == np.int32
        np.testing.assert_array_equal(labels, want[1])
    assert len(seen) == 4


# ----------------------------------------------------------------------- the GPU
def _assert_forest_of(graph, f, src, dst, n):
    pairs = _pairs_of(graph, src, dst)
    assert all(isinstance(a, np.ndarray) for a in (f.src, f.dst, f.edge_ids))
    assert np.all(np.diff(f.edge_ids) > 0), "edge ids ascending"
    assert_spanning_forest(pairs, f)
    assert (
        f.num_components
        == scipy_cc(sp.coo_matrix((np.ones(len(pairs[0])), pairs), shape=(n, n)), directed=False)[0]
    )


@pytest.mark.gpu
@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
def test_gpu_forest_of_every_host_kind(id_dtype, tmp_path):
    kinds, src, dst, _, n = _kinds(11, id_dtype)
    kinds["parquet"] = _parquet(tmp_path, src.astype(id_dtype), dst.astype(id_dtype))
    for name, graph in kinds.items():
        f = concomp.spanning_forest(graph, num_nodes=n, device="gpu")
        _assert_forest_of(kinds.get(name) if name != "parquet" else None, f, src, dst, n)
        cpu = concomp.spanning_forest(graph, num_nodes=n, device="cpu")
        assert f.src.dtype == cpu.src.dtype and f.num_components == cpu.num_components, name


@pytest.mark.gpu
def test_gpu_forest_ids_wider_than_int32_take_the_int64_upload(monkeypatch):
    from concomp._gpu import upload

    monkeypatch.setattr(upload, "INT32_IDS", 100)  # ids above 100 restart in int64
    kinds, src, dst, _, n = _kinds(12)
    for name in ("numpy pair", "scipy csr", "pyarrow table"):
        if name in kinds:
            f = concomp.spanning_forest(kinds[name], num_nodes=n, device="gpu")
            _assert_forest_of(kinds[name], f, src, dst, n)


def _simple_weighted(seed: int, n: int = 3000, m: int = 9000):
    """Edges without loops or repeated vertex pairs, so that SciPy's tree (one entry per
    pair) is a minimum spanning forest of the same edges."""
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    key = np.minimum(src, dst) * n + np.maximum(src, dst)
    _, first = np.unique(key, return_index=True)
    keep = np.sort(first[src[first] != dst[first]])
    return src[keep], dst[keep], rng.integers(1, 50, keep.size).astype(np.float64), n


@pytest.mark.gpu
@pytest.mark.parametrize("id_dtype", [np.int32, np.int64])
def test_gpu_msf_of_every_host_kind_matches_the_cpu_and_scipy(id_dtype):
    src, dst, w, n = _simple_weighted(13)
    s, d = src.astype(id_dtype), dst.astype(id_dtype)
    kinds = {
        "weights argument": ((s, d), w),
        "tuple of three": ((s, d, w), None),
        "(m, 2)": (np.stack([s, d], axis=1), w),
        "scipy csr": (sp.csr_array((w, (src, dst)), shape=(n, n)), None),
        "scipy coo": (sp.coo_array((w, (src, dst)), shape=(n, n)), None),
    }
    with contextlib.suppress(ImportError):
        import pandas as pd

        kinds["pandas"] = (pd.DataFrame({"src": s, "dst": d, "weight": w}), None)
    scipy_total = float(scipy_mst(sp.csr_array((w, (src, dst)), shape=(n, n))).sum())
    for name, (graph, weights) in kinds.items():
        got = concomp.minimum_spanning_forest(graph, weights, device="gpu")
        want = concomp.minimum_spanning_forest(graph, weights, device="cpu")
        assert isinstance(got.edge_ids, np.ndarray), name
        for field in ("src", "dst", "edge_ids", "weights"):
            a, b = getattr(got, field), getattr(want, field)
            assert a.dtype == b.dtype, (name, field)
            np.testing.assert_array_equal(a, b, err_msg=f"{name} {field}")
        assert got.total_weight == want.total_weight, name
        assert got.total_weight == pytest.approx(scipy_total), name
        assert_minimum_spanning_forest(graph, got, weights=weights)


@pytest.mark.gpu
def test_gpu_msf_weights_of_each_dtype_and_nan():
    src, dst, w, _ = _simple_weighted(15)
    for weights in (w, w.astype(np.float32), w.astype(np.int64), w > 20, 3):
        got = concomp.minimum_spanning_forest((src, dst), weights, device="gpu")
        want = concomp.minimum_spanning_forest((src, dst), weights, device="cpu")
        np.testing.assert_array_equal(got.edge_ids, want.edge_ids)
        assert got.weights.dtype == want.weights.dtype and got.total_weight == want.total_weight
    bad = w.copy()
    bad[17] = np.nan
    with pytest.raises(InvalidGraphError, match="weight NaN at position 17"):
        concomp.minimum_spanning_forest((src, dst), bad, device="gpu")


@pytest.mark.gpu
@pytest.mark.parametrize("values", [*COO_VALUES, "weights"])
def test_gpu_coo_forests_merge_the_matrix_on_the_device(values):
    coo, weights = _coo_case(values, sp.coo_array, seed=17)
    _same_coo_forests(coo, weights, forest_variant="auto")


@pytest.mark.gpu
def test_gpu_bad_csr_columns_are_named_by_the_forest():
    # pairs with bad ids: tests/test_host_input.py checks every entry point against the CPU
    bad = sp.csr_array((np.ones(2), np.array([1, 5]), np.array([0, 1, 2, 2])), shape=(3, 3))
    with pytest.raises(InvalidGraphError, match="argument `indices`: vertex id 5"):
        concomp.spanning_forest(bad, device="gpu")


@pytest.mark.gpu
def test_gpu_incremental_staged_batches_match_the_cpu_engine(monkeypatch):
    from concomp.incremental import IncrementalConnectivity, _batches

    monkeypatch.setattr(_batches, "STAGED_MIN_ENTRIES", 64)
    src, dst, _, _ = _random_graph(14)
    on_gpu, on_cpu = IncrementalConnectivity(device="gpu"), IncrementalConnectivity(device="cpu")
    for a in range(0, len(src), 3000):
        s, d = src[a : a + 3000], dst[a : a + 3000]
        assert int(on_gpu.insert(s, d).sum()) == int(on_cpu.insert(s, d).sum())
    np.testing.assert_array_equal(on_gpu.labels().get(), on_cpu.labels())
    assert on_gpu.num_components == on_cpu.num_components
    assert_spanning_forest((src, dst), _incremental_forest(on_gpu))
    with pytest.raises(InvalidGraphError) as gpu_err:
        on_gpu.insert(np.arange(100), np.r_[np.arange(99), -4])
    with pytest.raises(InvalidGraphError) as cpu_err:
        on_cpu.insert(np.arange(100), np.r_[np.arange(99), -4])
    assert str(gpu_err.value) == str(cpu_err.value)


def _incremental_forest(ic):
    f = ic.spanning_forest()
    return type(f)(
        src=f.src.get(),
        dst=f.dst.get(),
        edge_ids=f.edge_ids.get(),
        num_nodes=f.num_nodes,
        num_components=f.num_components,
        batch_ids=f.batch_ids.get(),
    )


@pytest.mark.gpu
def test_gpu_csgraph_host_matrices_match_scipy(monkeypatch):
    monkeypatch.setenv("CONCOMP_DEVICE", "gpu")  # every size on the GPU
    a = sp.random(4000, 4000, density=0.0005, format="csr", random_state=5)
    want = scipy_cc(a, directed=False)
    coo = a.tocoo()  # with duplicates and an explicit zero: stored entries all the same
    dup = sp.coo_matrix(
        (
            np.r_[coo.data, 0.0, -coo.data[:5]],
            (np.r_[coo.row, 7, coo.row[:5]], np.r_[coo.col, 9, coo.col[:5]]),
        ),
        shape=a.shape,
    )
    want_dup = scipy_cc(dup, directed=False)
    count, labels = csgraph.connected_components(dup, directed=False)
    assert count == want_dup[0] and labels.dtype == np.int32
    np.testing.assert_array_equal(labels, want_dup[1])
    for matrix in (a, (a + a.T).tocsr(), a.tocsc(), coo, a.toarray()):
        count, labels = csgraph.connected_components(matrix, directed=False)
        assert count == want[0] and isinstance(labels, np.ndarray) and labels.dtype == np.int32
        np.testing.assert_array_equal(labels, want[1])
        assert (
            csgraph.connected_components(matrix, connection="weak", return_labels=False)
            == (want[0])
        )
