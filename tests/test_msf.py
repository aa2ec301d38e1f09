"""Minimum spanning forests: every algorithm x device against the Kruskal oracle and SciPy."""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

from concomp.errors import (
    DeviceUnavailableError,
    InvalidGraphError,
    InvalidVariantError,
)
from concomp.graph import Graph
from concomp.msf import MinimumSpanningForest, minimum_spanning_forest
from concomp.testing.msf import assert_minimum_spanning_forest, kruskal_reference

CPU_ALGORITHMS = ("kruskal", "boruvka", "prim")
REAL = Path(
    os.environ.get(
        "CONCOMP_REAL_DATA", Path(__file__).resolve().parents[2] / "shared" / "data" / "real"
    )
)


# --------------------------------------------------------------------------- the zoo
def _grid(k: int, rng) -> tuple:
    idx = np.arange(k * k).reshape(k, k)
    s = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    d = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    return s, d, rng.integers(0, 10, s.size), k * k


def _cliques(k: int, rng) -> tuple:
    u, v = np.triu_indices(k, 1)
    s, d = np.concatenate([u, u + k]), np.concatenate([v, v + k])
    return s, d, rng.random(s.size), 2 * k


def _small_components(rng) -> tuple:
    base = np.arange(0, 300, 3)
    s = np.concatenate([base, base + 1, base])
    d = np.concatenate([base + 1, base + 2, base + 2])
    return s, d, rng.integers(-3, 3, s.size), 300


def _random(n: int, m: int, rng, weights) -> tuple:
    return rng.integers(0, n, m), rng.integers(0, n, m), weights(m), n


def _zoo() -> dict[str, tuple]:
    rng = np.random.default_rng(7)
    e = np.array([], dtype=np.int64)
    path = np.arange(9)
    star = np.zeros(8, dtype=np.int64)
    return {
        "n0": (e, e, np.array([]), 0),
        "single_vertex": (e, e, np.array([]), 1),
        "isolated": (np.array([0]), np.array([1]), np.array([5.0]), 6),
        "self_loops": (
            np.array([0, 1, 1, 2]),
            np.array([0, 1, 2, 2]),
            np.array([-9, -9, 4, -9]),
            3,
        ),
        "parallel": (
            np.array([0, 1, 0, 1, 1]),
            np.array([1, 0, 1, 2, 2]),
            np.array([3.0, 2.0, 2.0, 1.0, 1.0]),
            3,
        ),
        "path": (path[:-1], path[1:], np.arange(8)[::-1].astype(float), 9),
        "star": (star, np.arange(1, 9), np.full(8, 2), 9),
        "cycle": (np.arange(10), (np.arange(10) + 1) % 10, np.ones(10), 10),
        "grid": _grid(12, rng),
        "two_cliques": _cliques(9, rng),
        "many_components": _small_components(rng),
        "ties_012": _random(200, 900, rng, lambda m: rng.integers(0, 3, m)),
        "negative": _random(150, 600, rng, lambda m: rng.normal(size=m)),
        "inf": _random(80, 200, rng, lambda m: np.where(rng.random(m) < 0.3, np.inf, 1.0)),
        "signed_zero": _random(40, 120, rng, lambda m: rng.choice([-0.0, 0.0, -1.0], m)),
        "uint": _random(60, 300, rng, lambda m: rng.integers(0, 4, m).astype(np.uint16)),
        "float32": _random(70, 300, rng, lambda m: rng.random(m).astype(np.float32)),
        "int64_extremes": _random(
            30,
            90,
            rng,
            lambda m: rng.choice([np.iinfo(np.int64).min, -1, 0, np.iinfo(np.int64).max], m),
        ),
    }


ZOO = _zoo()


def _graph(name: str) -> Graph:
    s, d, w, n = ZOO[name]
    return Graph.from_edges(s, d, n, weights=w)


# --------------------------------------------------------------------------- CPU engine
@pytest.mark.parametrize("algorithm", CPU_ALGORITHMS)
@pytest.mark.parametrize("name", list(ZOO))
def test_cpu_matches_oracle(name: str, algorithm: str) -> None:
    g = _graph(name)
    result = minimum_spanning_forest(g, algorithm=algorithm, device="cpu")
    assert isinstance(result, MinimumSpanningForest) and isinstance(result.edge_ids, np.ndarray)
    assert_minimum_spanning_forest(g, result)


@pytest.mark.parametrize("algorithm", CPU_ALGORITHMS)
@pytest.mark.parametrize("name", ["ties_012", "negative", "inf", "grid", "int64_extremes"])
def test_maximum_spanning_forest(name: str, algorithm: str) -> None:
    g = _graph(name)
    result = minimum_spanning_forest(g, algorithm=algorithm, maximum=True, device="cpu")
    assert_minimum_spanning_forest(g, result, maximum=True)


@pytest.mark.parametrize("name", ["grid", "two_cliques", "negative", "many_components"])
def test_total_weight_matches_scipy(name: str) -> None:
    s, d, w, n = ZOO[name]
    w = np.asarray(w, dtype=float)
    # SciPy reads stored zeros as "no edge" and sums COO duplicates: build its CSR entry by
    # entry instead, shifted so that no weight is zero (the shift moves every forest equally).
    shift = 1.0 - w.min() if w.size and w.min() <= 0 else 0.0
    order = np.argsort(s, kind="stable")
    indptr = np.concatenate([[0], np.cumsum(np.bincount(s, minlength=n))])
    tree = minimum_spanning_tree(sp.csr_array(((w + shift)[order], d[order], indptr), shape=(n, n)))
    got = minimum_spanning_forest(Graph.from_edges(s, d, n, weights=w))
    assert got.num_edges == tree.nnz
    assert got.total_weight == pytest.approx(tree.sum() - shift * tree.nnz)


@pytest.mark.parametrize("algorithm", CPU_ALGORITHMS)
def test_int64_index_arrays(algorithm: str) -> None:
    s, d, w, n = ZOO["ties_012"]
    g32 = Graph.from_edges(s, d, n, weights=w)
    assert g32.index_dtype == np.int32
    g64 = Graph(n, src=s.astype(np.int64), dst=d.astype(np.int64), weights=w)
    a = minimum_spanning_forest(g32, algorithm=algorithm, device="cpu")
    b = minimum_spanning_forest(g64, algorithm=algorithm, device="cpu")
    assert np.array_equal(a.edge_ids, b.edge_ids) and b.src.dtype == np.int64


def test_every_algorithm_same_edges_on_random_graphs() -> None:
    rng = np.random.default_rng(3)
    for trial in range(30):
        n, m = int(rng.integers(2, 60)), int(rng.integers(0, 200))
        w = rng.integers(0, 4, m) if trial % 2 else rng.random(m).round(1)
        g = Graph.from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n, weights=w)
        ids = [
            minimum_spanning_forest(g, algorithm=a, device="cpu").edge_ids for a in CPU_ALGORITHMS
        ]
        expect = kruskal_reference(*g.coo(), w, n)
        for got in ids:
            assert np.array_equal(got, expect)


@pytest.mark.parametrize("extra_bits", [1, 9, 16, 17])
def test_wide_integer_keys(extra_bits: int) -> None:
    # 3000 vertices leave 64 - 2*12 = 40 key bits beside the endpoint pair: wider keys are
    # split into bands (up to 16 more bits) or take the general argsort path
    rng = np.random.default_rng(extra_bits)
    n, m = 3000, 9000
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    w = rng.integers(-(2 ** (39 + extra_bits)), 2 ** (39 + extra_bits), m)
    w[::7] = w[3]  # and ties
    expect = kruskal_reference(s, d, w, n)
    for algorithm in CPU_ALGORITHMS:
        f = minimum_spanning_forest(Graph.from_edges(s, d, n, weights=w), algorithm=algorithm)
        assert np.array_equal(f.edge_ids, expect), algorithm


def test_unweighted_counts_edges_as_one() -> None:
    g = Graph.from_edges(np.array([0, 1, 2, 0]), np.array([1, 2, 0, 3]), 6)
    f = minimum_spanning_forest(g)
    assert f.edge_ids.tolist() == [0, 2, 3] and f.total_weight == 3  # (0, 2) ties before (1, 2)
    assert f.weights.dtype == np.int64
    assert_minimum_spanning_forest(g, f)


def test_weights_argument_and_input_kinds() -> None:
    s, d, w, n = ZOO["negative"]
    expect = kruskal_reference(s, d, w, n)
    for graph, weights in [((s, d), w), ((s, d, w), None), (np.stack([s, d]), w)]:
        f = minimum_spanning_forest(graph, weights)
        assert np.array_equal(f.edge_ids, expect)
    # a sparse matrix's edge ids are its CSR entry positions (duplicates summed by tocsr)
    A = sp.coo_array((w, (s, d)), shape=(n, n)).tocsr()
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    f = minimum_spanning_forest(sp.csc_matrix(A))
    assert np.array_equal(f.edge_ids, kruskal_reference(rows, A.indices, A.data, n))


def test_nan_weight_raises() -> None:
    with pytest.raises(InvalidGraphError, match="NaN at position 1"):
        minimum_spanning_forest((np.array([0, 1]), np.array([1, 2])), np.array([1.0, np.nan]))


def test_bad_algorithm_and_device(gpu_available: bool) -> None:
    g = _graph("path")
    with pytest.raises(InvalidVariantError, match="not valid"):
        minimum_spanning_forest(g, algorithm="dijkstra")
    if not gpu_available:
        with pytest.raises(DeviceUnavailableError):
            minimum_spanning_forest(g, device="gpu")


def test_environment_device(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONCOMP_DEVICE", "cpu")
    f = minimum_spanning_forest(_graph("grid"))
    assert isinstance(f.edge_ids, np.ndarray)


def test_to_scipy_keeps_zero_weight_edges() -> None:
    f = minimum_spanning_forest((np.array([0, 1, 0]), np.array([1, 2, 2])), [0.0, 1.0, 2.0])
    A = f.to_scipy()
    assert A.shape == (3, 3) and A.nnz == 2 and A[0, 1] == 0.0 and A[1, 2] == 1.0


# --------------------------------------------------------------------------- real graphs
def _read_dimacs(path: Path) -> tuple:
    with gzip.open(path, "rt") as fh:
        rows = [line.split()[1:4] for line in fh if line.startswith("a ")]
        fh.seek(0)
        n = next(int(line.split()[2]) for line in fh if line.startswith("p "))
    a = np.array(rows, dtype=np.int64)
    return a[:, 0] - 1, a[:, 1] - 1, a[:, 2], n


def _read_bitcoin(path: Path) -> tuple:
    a = np.loadtxt(path, delimiter=",", usecols=(0, 1, 2), dtype=np.int64)
    return a[:, 0], a[:, 1], a[:, 2], int(a[:, :2].max()) + 1


REAL_GRAPHS = {
    "road_rome99": ("road_rome99_dimacs.gr.gz", _read_dimacs),
    "road_tiger-DE": ("road_tiger-DE_dimacs.gr.gz", _read_dimacs),
    "road_tiger-VT": ("road_tiger-VT_dimacs.gr.gz", _read_dimacs),
    "bitcoinotc": ("weighted_soc-sign-bitcoinotc.csv.gz", _read_bitcoin),
}


@pytest.fixture(scope="module", params=list(REAL_GRAPHS))
def real_graph(request) -> tuple:
    filename, reader = REAL_GRAPHS[request.param]
    if not (REAL / filename).exists():
        pytest.skip(f"real graph {filename} not found under {REAL}")
    s, d, w, n = reader(REAL / filename)
    return Graph.from_edges(s, d, n, weights=w), kruskal_reference(s, d, w, n)


def test_real_graphs_every_cpu_algorithm(real_graph) -> None:
    g, expect = real_graph
    for algorithm in CPU_ALGORITHMS:
        f = minimum_spanning_forest(g, algorithm=algorithm, device="cpu")
        assert np.array_equal(f.edge_ids, expect), algorithm
    f = minimum_spanning_forest(g, device="cpu", maximum=True)
    assert np.array_equal(
        f.edge_ids, kruskal_reference(*g.coo(), g.weights, g.num_nodes, maximum=True)
    )


# --------------------------------------------------------------------------- GPU engine
def test_kernels_compile_with_nvcc(tmp_path: Path) -> None:
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("nvcc is not on PATH")
    from concomp._gpu._compile import NVRTC_OPTIONS, source_text
    from concomp._gpu.msf_rank import INSTANTIATIONS

    refs = "\n".join(
        f"void* concomp_kernel_{i} = (void*)&{name};" for i, name in enumerate(INSTANTIATIONS)
    )
    (tmp_path / "msf_all.cu").write_text(source_text("msf.cu") + "\n" + refs + "\n")
    out = subprocess.run(
        [nvcc, "-arch=sm_90", *NVRTC_OPTIONS, "-c", "msf_all.cu", "-o", "msf_all.o"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", ["boruvka", "prim"])
@pytest.mark.parametrize("name", list(ZOO))
def test_gpu_matches_oracle(name: str, algorithm: str) -> None:
    import cupy as cp

    s, d, w, n = ZOO[name]
    g = Graph.from_edges(cp.asarray(s), cp.asarray(d), n, weights=cp.asarray(w))
    f = minimum_spanning_forest(g, algorithm=algorithm)
    assert isinstance(f.edge_ids, cp.ndarray) and isinstance(f.src, cp.ndarray)
    assert_minimum_spanning_forest(g, f)
    host = minimum_spanning_forest(
        Graph.from_edges(s, d, n, weights=w), algorithm=algorithm, device="gpu"
    )
    assert isinstance(host.edge_ids, np.ndarray)
    assert np.array_equal(host.edge_ids, cp.asnumpy(f.edge_ids))


@pytest.mark.gpu
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("algorithm", ["boruvka", "prim"])
def test_gpu_driver_index_types(index_dtype, algorithm: str) -> None:
    import cupy as cp

    from concomp._gpu.msf import minimum_spanning_forest_ids
    from concomp.options import Options

    options = Options(index_dtype=np.dtype(index_dtype).name)
    rng = np.random.default_rng(11)
    for maximum in (False, True):
        for n, m, weights in [
            (3000, 12000, rng.integers(0, 5, 12000)),
            (3000, 12000, rng.integers(0, 2**45, 12000)),  # banded sort
            (3000, 12000, rng.integers(0, 2**62, 12000)),  # three sorts
            (50, 400, rng.integers(0, 3, 400)),  # many loops, parallel edges
            (5000, 9000, rng.normal(size=9000)),
            (40, 5, rng.random(5)),
        ]:
            s, d = rng.integers(0, n, m), rng.integers(0, n, m)
            g = Graph.from_edges(cp.asarray(s), cp.asarray(d), n, weights=cp.asarray(weights))
            got = minimum_spanning_forest_ids(g, algorithm, maximum, options)
            assert np.array_equal(
                cp.asnumpy(got), kruskal_reference(s, d, weights, n, maximum=maximum)
            )


@pytest.mark.gpu
def test_gpu_real_graphs(real_graph) -> None:
    g, expect = real_graph
    for algorithm in ("boruvka", "prim"):
        f = minimum_spanning_forest(g, algorithm=algorithm, device="gpu")
        assert np.array_equal(f.edge_ids, expect), algorithm


@pytest.mark.gpu
def test_gpu_prim_lists_and_kruskal_refusal() -> None:
    import cupy as cp

    from concomp._gpu.msf import prim
    from concomp._gpu.msf_rank import rank_edges, weight_keys

    s, d, w, n = ZOO["grid"]
    eu, ev, _ = rank_edges(
        cp.asarray(s),
        cp.asarray(d),
        weight_keys(cp.asarray(w), s.size, False),
        n,
        np.dtype(np.int32),
    )
    lists = prim(eu, ev, n, graph_steps=8)
    R1, R2, rank = (cp.asnumpy(a) for a in lists)
    assert sorted(R2.tolist()) == list(range(n)) and R1[0] == -1
    tree = rank != np.iinfo(np.int32).max
    ends = np.sort(np.stack([R1[tree], R2[tree]]), axis=0)
    assert np.array_equal(ends, np.stack([cp.asnumpy(eu)[rank[tree]], cp.asnumpy(ev)[rank[tree]]]))
    with pytest.raises(InvalidVariantError, match="CPU only"):
        minimum_spanning_forest(_graph("grid"), algorithm="kruskal", device="gpu")


@pytest.mark.gpu
@pytest.mark.parametrize("key_path", [True, False])
def test_gpu_boruvka_key_and_ranking_paths(key_path: bool) -> None:
    """Packed-key Borůvka (weights fit 32 bits) and the ranking path give the oracle's edges
    (``Options.msf_packed_keys`` picks the path)."""
    import cupy as cp

    from concomp._gpu.msf import msf_edge_ids

    rng = np.random.default_rng(5)
    n, m = 4000, 20000
    cases = [
        rng.integers(0, 3, m),  # heavy ties: the order after the weight decides
        rng.integers(-(2**31), 2**31 - 2, m),  # the widest range that still packs
        rng.random(m).astype(np.float32),
        np.where(rng.random(m) < 0.2, -np.inf, rng.integers(0, 9, m).astype(np.float64)),
        rng.normal(size=m),
    ]  # float64: always the ranking path
    for weights in cases:
        s, d = rng.integers(0, n, m), rng.integers(0, n, m)
        s[:50] = d[:50]  # self loops never enter the forest
        for maximum in (False, True):
            for dt in (np.int32, np.int64):
                got = msf_edge_ids(
                    cp.asarray(s),
                    cp.asarray(d),
                    cp.asarray(weights),
                    n,
                    maximum=maximum,
                    index_dtype=dt,
                    packed_keys=key_path,
                )
                assert np.array_equal(
                    cp.asnumpy(got), kruskal_reference(s, d, weights, n, maximum=maximum)
                )


@pytest.mark.gpu
def test_gpu_key_boruvka_light_split_and_rounds() -> None:
    """Any light/heavy split gives the same forest, on packed keys and on ranks; the
    trace covers every round; keys too wide to pack fall back to the ranking path."""
    import cupy as cp

    from concomp._gpu import msf_keys
    from concomp._gpu import msf_rank as engine

    rng = np.random.default_rng(8)
    s, d, w, n = _grid(60, rng)
    ds, dd = cp.asarray(s), cp.asarray(d)
    code = engine.weight_keys(cp.asarray(w), s.size, False)
    kmin = msf_keys.key_stats(ds, dd, code)[0]
    eu, ev, eid = engine.rank_edges(ds, dd, code, n, np.dtype(np.int32))
    expect = kruskal_reference(s, d, w, n)
    for light in (0, 1, n // 3, n, 10 * n):
        for ranked in (False, True):
            trace: list = []
            if ranked:
                ids = msf_keys.boruvka(
                    eu, ev, n, s.size, np.dtype(np.int32), eid=eid, light=light, trace=trace
                )
            else:
                ids = msf_keys.boruvka(
                    ds,
                    dd,
                    n,
                    s.size,
                    np.dtype(np.int32),
                    code=code,
                    kmin=kmin,
                    light=light,
                    trace=trace,
                )
            assert np.array_equal(cp.asnumpy(ids), expect), (light, ranked)
            assert trace and trace[-1][1] >= 2  # at least one round beyond the first
    wide = engine.weight_keys(cp.asarray(rng.integers(0, 2**40, s.size)), s.size, False)
    assert msf_keys.spanning_forest_ids_by_keys(ds, dd, wide, n, np.dtype(np.int32)) is None


@pytest.mark.gpu
@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_gpu_key_boruvka_equal_keys(index_dtype) -> None:
    """Edges whose packed keys are equal (same weight, same smaller endpoint, larger
    endpoints equal in their leading bits) are told apart by the second word."""
    import cupy as cp

    from concomp._gpu import msf_keys
    from concomp._gpu.msf import msf_edge_ids

    rng = np.random.default_rng(11)
    n = 1 << 20  # 20-bit ids: the key keeps only the top 12 bits of the larger endpoint
    assert msf_keys._tie_bits(n) == (20, 8)
    hubs = rng.integers(0, 64, 3000)
    # larger endpoints within one 256-id block of a hub: equal keys at equal weight
    far = 500_000 + (hubs * 4096) + rng.integers(0, 256, hubs.size)
    s = np.concatenate([hubs, far, rng.integers(0, n, 4000), hubs[:200]])
    d = np.concatenate([far, hubs, rng.integers(0, n, 4000), far[:200]])  # reversed, parallel
    for weights in (rng.integers(0, 2, s.size), np.zeros(s.size, np.int64)):
        for maximum in (False, True):
            got = msf_edge_ids(
                cp.asarray(s),
                cp.asarray(d),
                cp.asarray(weights),
                n,
                maximum=maximum,
                index_dtype=index_dtype,
            )
            assert np.array_equal(
                cp.asnumpy(got), kruskal_reference(s, d, weights, n, maximum=maximum)
            )


@pytest.mark.parametrize("id_high", [50, 2**30])  # one packed word; the lexsort fallback
@pytest.mark.parametrize("distinct", [1, 7, 10**9])  # all tied, heavy ties, few ties
def test_cpu_kruskal_orders_tied_keys_by_pair_then_id(id_high: int, distinct: int) -> None:
    from concomp._cpu.msf_kruskal import _order_ties

    rng = np.random.default_rng(distinct + id_high)
    m = 3000
    key = rng.integers(0, distinct, m).astype(np.uint64)
    src, dst = rng.integers(0, id_high, m), rng.integers(0, id_high, m)
    src[:40] = dst[:40]  # self loops and repeated pairs tie on the pair too
    src[40:80], dst[40:80] = dst[80:120], src[80:120]
    order = np.argsort(key)
    _order_ties(order, key, src, dst)
    expect = np.lexsort((np.arange(m), np.maximum(src, dst), np.minimum(src, dst), key))
    assert np.array_equal(order, expect)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64]
    + [np.float16, np.float32, np.float64],
)
@pytest.mark.parametrize("maximum", [False, True])
def test_gpu_weight_keys_order_weights_as_the_cpu_keys_do(dtype, maximum) -> None:
    """The key kernels of ``cuda/msf.cu`` give the CPU engine's keys (float32: 32-bit keys
    of the same order), with -0.0 tied to 0.0, infinities at the ends, and float64
    weights that are all integers keyed as those integers."""
    import cupy as cp

    from concomp._cpu.msf import weight_keys as cpu_keys
    from concomp._gpu.msf_rank import weight_keys as gpu_keys

    rng = np.random.default_rng(11)
    m = 5000
    if np.dtype(dtype).kind == "f":
        cases = [
            np.concatenate([rng.normal(size=m - 4) * 1e3, [-0.0, 0.0, np.inf, -np.inf]]),
            rng.integers(-(2**40), 2**40, m).astype(np.float64),  # integers below 2**53
            np.array([2.0**53, -(2.0**53), 1.0, 3.0]),
        ]
        cases = [c.astype(dtype) for c in cases]
    elif dtype is np.bool_:
        cases = [rng.random(m) < 0.5]
    else:
        info = np.iinfo(dtype)
        cases = [
            rng.integers(info.min, info.max, m, dtype=dtype, endpoint=True),
            np.array([info.min, info.max, 0, 1], dtype=dtype),
        ]
    for w in cases:
        got = cp.asnumpy(gpu_keys(cp.asarray(w), w.shape[0], maximum))
        want = cpu_keys(w, w.shape[0], maximum)
        if dtype is np.float32:  # same order and ties, other values
            np.testing.assert_array_equal(
                np.unique(got, return_inverse=True)[1], np.unique(want, return_inverse=True)[1]
            )
        else:
            np.testing.assert_array_equal(got, want)
