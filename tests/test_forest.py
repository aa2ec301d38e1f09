"""Spanning forests: every CPU and GPU variant that records one (union-find and the
root-based families) over the graph zoo, checked by
``concomp.testing.forest.assert_spanning_forest`` (SciPy components + a plain union-find)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from concomp._gpu.forest import records_forest
from concomp._rules import UNION_RULES
from concomp.errors import InvalidVariantError
from concomp.forest import (
    SpanningForest,
    assemble,
    is_forest_variant,
    spanning_forest,
)
from concomp.graph import Graph
from concomp.options import Options
from concomp.testing.forest import assert_spanning_forest
from concomp.variants import all_variants

CPU_VARIANTS = [v for v in all_variants("cpu") if is_forest_variant(v, "cpu")]
GPU_FOREST_VARIANTS = [v for v in all_variants("gpu") if records_forest(v)]


def _grid(rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray, int]:
    """A k x k grid in random ids."""
    ids = rng.permutation(k * k).reshape(k, k)
    return (
        np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()]),
        np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()]),
        k * k,
    )


def _zoo() -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
    rng = np.random.default_rng(7)
    e = np.zeros(0, np.int64)
    z = {"empty": (e, e, 0), "single": (e, e, 1), "isolated": (e, e, 6)}
    z["self_loops"] = (np.array([0, 1, 1, 3]), np.array([0, 1, 2, 3]), 5)
    z["duplicates"] = (np.array([0, 1, 0, 1, 2, 2]), np.array([1, 0, 1, 2, 1, 1]), 4)
    path = rng.permutation(300)
    z["path"] = (path[:-1], path[1:], 300)
    z["star"] = (np.zeros(199, np.int64), np.arange(1, 200), 200)
    z["cycle"] = (np.arange(100), (np.arange(100) + 1) % 100, 100)
    z["grid"] = _grid(rng, 20)
    u, v = np.triu_indices(15, 1)
    z["two_cliques"] = (np.concatenate([u, u + 15]), np.concatenate([v, v + 15]), 31)
    for name, n, m in (
        ("random_sparse", 500, 250),
        ("random_critical", 500, 500),
        ("random_dense", 300, 3000),
    ):
        z[name] = (rng.integers(0, n, m), rng.integers(0, n, m), n)
    return z


ZOO = _zoo()


def _graph(name: str) -> Graph:
    s, d, n = ZOO[name]
    return Graph.from_edges(s, d, n)


#: The zoo's graphs are below Options.parallel_min_edges (the default runs them on one
#: thread); the other two settings force all of numba's threads, with int32 and int64 state.
CPU_FOREST_OPTIONS = {
    "default": Options(),
    "parallel": Options(parallel_min_edges=0),
    "parallel-int64": Options(parallel_min_edges=0, index_dtype="int64"),
}


@pytest.mark.parametrize("setting", list(CPU_FOREST_OPTIONS))
@pytest.mark.parametrize("variant", CPU_VARIANTS, ids=str)
def test_every_cpu_variant_on_the_zoo(variant, setting) -> None:
    for name in ZOO:
        g = _graph(name)
        f = spanning_forest(g, device="cpu", algorithm=variant, options=CPU_FOREST_OPTIONS[setting])
        assert isinstance(f.edge_ids, np.ndarray) and f.edge_ids.dtype == np.int64
        assert np.all(np.diff(f.edge_ids) > 0), name
        try:
            assert_spanning_forest(g, f)
        except AssertionError as exc:
            raise AssertionError(f"{name} {variant} {setting}: {exc}") from exc


@pytest.mark.parametrize("algorithm", ["auto", "afforest", "rem", "union-find"])
def test_presets_and_auto(algorithm: str) -> None:
    g = _graph("random_dense")
    assert_spanning_forest(g, spanning_forest(g, device="cpu", algorithm=algorithm))


def test_csr_input_ids_are_stored_entries() -> None:
    s, d, n = ZOO["random_critical"]
    a = sp.coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)).tocsr()
    a.sum_duplicates()
    f = spanning_forest(a, device="cpu", algorithm="kout-async-halve-csr")
    coo = a.tocoo()  # stored-entry order of a canonical CSR
    np.testing.assert_array_equal(f.src, coo.row[f.edge_ids])
    np.testing.assert_array_equal(f.dst, coo.col[f.edge_ids])
    assert_spanning_forest(a, f)


def test_symmetric_csr_graph() -> None:
    s, d, n = ZOO["grid"]
    a = sp.coo_matrix((np.ones(s.size), (s, d)), shape=(n, n)).tocsr()
    a = (a + a.T).tocsr()
    g = Graph.from_csr(a.indptr, a.indices, n, symmetric=True)
    for alg in ("kout-rem_cas-splice-csr", "none-async-split-coo", "none-rem_cas-halve-csr"):
        assert_spanning_forest(g, spanning_forest(g, device="cpu", algorithm=alg))


def test_directed_input_gives_the_weak_forest() -> None:
    f = spanning_forest((np.array([2, 1]), np.array([0, 0])), device="cpu")
    assert f.num_components == 1 and f.edge_ids.tolist() == [0, 1]


def test_the_forest_variant_lists() -> None:
    root_based = {"sv", "lt", "ecl", "afforest", "graft", "graft_updt", "soman", "bfs_cc"}
    assert {str(v.finish) for v in CPU_VARIANTS} == set(UNION_RULES) | root_based
    assert {str(v.compress)[1] for v in CPU_VARIANTS if str(v.finish) == "lt"} == {"r"}
    gpu_finishes = {str(v.finish) for v in all_variants("gpu") if is_forest_variant(v, "gpu")}
    assert gpu_finishes == set(UNION_RULES) | root_based
    assert {str(v.compress)[1] for v in GPU_FOREST_VARIANTS if str(v.finish) == "lt"} == {"r"}
    assert not any(str(v.sampling) == "stages" for v in GPU_FOREST_VARIANTS)
    assert not any(str(v.compress) == "splice" for v in GPU_FOREST_VARIANTS)
    assert any(str(v.compress) == "splice" for v in CPU_VARIANTS)
    # the engines differ only where concurrency forbids it: Rem's splicing on the GPU
    cpu_only = {str(v) for v in CPU_VARIANTS} - {str(v) for v in GPU_FOREST_VARIANTS}
    assert cpu_only and all("-splice-" in name for name in cpu_only)
    assert {str(v) for v in GPU_FOREST_VARIANTS} <= {str(v) for v in CPU_VARIANTS}


@pytest.mark.parametrize(
    "algorithm",
    [
        "none-lp-min-csr",
        "kout-stergiou-min-coo",
        "none-ecl_af-jump-csr",
        "stages-async-halve-coo",
        "stages-graft-shortcut-coo",
    ],
)
def test_min_based_families_are_refused(algorithm: str) -> None:
    with pytest.raises(InvalidVariantError, match=r"not root-based.*'async'.*'rem_cas'.*'sv'"):
        spanning_forest(_graph("path"), device="cpu", algorithm=algorithm)


def test_liu_tarjan_update_rule_is_refused_with_the_root_update_one_named() -> None:
    with pytest.raises(InvalidVariantError, match=r"update rule 'u'.*'hb-lt-prfa-coo'"):
        spanning_forest(_graph("path"), device="cpu", algorithm="hb-lt-pufa-coo")


# --------------------------------------------------------------------------- the checker
def _forest(src, dst, ids, n, c) -> SpanningForest:
    return SpanningForest(np.array(src), np.array(dst), np.array(ids, np.int64), n, c)


def test_checker_rejects_wrong_forests() -> None:
    g = (np.array([0, 1, 2, 0]), np.array([1, 2, 0, 3]))  # triangle + pendant, n = 4
    assert_spanning_forest(g, _forest([0, 1, 0], [1, 2, 3], [0, 1, 3], 4, 1))
    assert_spanning_forest(g, _forest([1, 2, 3], [0, 1, 0], [0, 1, 3], 4, 1))  # reversed
    with pytest.raises(AssertionError, match="n - c"):
        assert_spanning_forest(g, _forest([0, 1], [1, 2], [0, 1], 4, 1))
    with pytest.raises(AssertionError, match="cycle"):
        assert_spanning_forest(g, _forest([0, 1, 2], [1, 2, 0], [0, 1, 2], 4, 1))
    with pytest.raises(AssertionError, match="does not match"):
        assert_spanning_forest(g, _forest([0, 1, 1], [1, 2, 3], [0, 1, 3], 4, 1))
    with pytest.raises(AssertionError, match="num_components"):
        assert_spanning_forest(g, _forest([0, 1, 0], [1, 2, 3], [0, 1, 3], 4, 2))


# --------------------------------------------------------------------------- GPU
@pytest.fixture(scope="module")
def device_zoo() -> dict[str, Graph]:
    # one Graph per zoo entry, so its device CSR is built once for all variants
    return {name: _graph(name).to("gpu") for name in ZOO}


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("variant", GPU_FOREST_VARIANTS, ids=str)
def test_every_gpu_forest_variant(variant, dtype, device_zoo) -> None:
    from concomp._gpu.forest import spanning_forest_ids

    options = Options(index_dtype=np.dtype(dtype).name)
    for name, g in device_zoo.items():
        ids, count = spanning_forest_ids(g, variant, options)
        f = assemble(g, ids, count)
        try:
            assert_spanning_forest(g, f)
        except AssertionError as exc:
            raise AssertionError(f"{name} {variant} {np.dtype(dtype)}: {exc}") from exc


@pytest.mark.gpu
def test_gpu_public_api_keeps_data_where_it_is() -> None:
    import cupy as cp

    s, d, n = ZOO["random_critical"]
    f = spanning_forest((cp.asarray(s), cp.asarray(d)), num_nodes=n)
    assert isinstance(f.edge_ids, cp.ndarray) and isinstance(f.src, cp.ndarray)
    assert_spanning_forest((s, d), f)
    h = spanning_forest((s, d), num_nodes=n, device="gpu", algorithm="hb-jtb-split-csr")
    assert isinstance(h.edge_ids, np.ndarray)
    assert_spanning_forest((s, d), h)
    with pytest.raises(InvalidVariantError, match="not root-based"):
        spanning_forest((s, d), device="gpu", algorithm="none-lp-min-csr")
    with pytest.raises(InvalidVariantError, match="update rule 'u'"):
        spanning_forest((s, d), device="gpu", algorithm="kout-lt-cusa-coo")
    with pytest.raises(InvalidVariantError, match="splicing"):
        spanning_forest((s, d), device="gpu", algorithm="kout-rem_cas-splice-csr")


@pytest.mark.gpu
@pytest.mark.parametrize(
    "variant", [v for v in GPU_FOREST_VARIANTS if str(v.layout) == "csr"], ids=str
)
def test_gpu_forest_through_hubs_split_over_blocks(variant) -> None:
    """Rows longer than a heavy piece (4096 entries) are united a piece per block; a
    piece left out or taken twice shows as a missing or a cycle-closing tree edge."""
    from concomp._gpu.forest import spanning_forest_ids

    rng = np.random.default_rng(7)
    leaves = rng.permutation(20000) + 1  # hub 0 below every leaf, hub 20001 above
    src = np.concatenate([np.zeros(9000, np.int64), np.full(9000, 20001)])
    dst = np.concatenate([leaves[:9000], leaves[9000:18000]])
    src = np.concatenate([src, leaves[:100]])  # a few links across the two stars
    dst = np.concatenate([dst, leaves[9000:9100]])
    g = Graph.from_edges(src, dst, 20002).to("gpu")
    ids, count = spanning_forest_ids(g, variant, Options())
    assert_spanning_forest(g, assemble(g, ids, count))


def _larger_graphs() -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
    """Graphs large enough that many threads hook the same roots at once, over several
    rounds: random ids near the giant component's threshold, and a grid in random ids."""
    rng = np.random.default_rng(11)
    n = 100_000
    graphs = {"random": (rng.integers(0, n, n // 2 * 2), rng.integers(0, n, n // 2 * 2), n)}
    graphs["grid"] = _grid(rng, 250)
    return graphs


@pytest.mark.gpu
@pytest.mark.parametrize(
    "variant", [v for v in GPU_FOREST_VARIANTS if v.family != "unionfind"], ids=str
)
def test_gpu_family_forests_on_larger_graphs(variant) -> None:
    from concomp._gpu.forest import spanning_forest_ids

    for name, (s, d, n) in _larger_graphs().items():
        g = Graph.from_edges(s, d, n).to("gpu")
        ids, count = spanning_forest_ids(g, variant, Options())
        try:
            assert_spanning_forest(g, assemble(g, ids, count))
        except AssertionError as exc:
            raise AssertionError(f"{name} {variant}: {exc}") from exc
