"""concomp.generators: reproducibility, sizes, clean symmetric CSR, weights, specs, errors.

The array-module generic kernels (``concomp.generators._xp``, the GPU branch) are run with
NumPy and compared bit for bit with the numba CPU kernels; the ``gpu`` tests compare
the CuPy run itself with the CPU where a device is present.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from concomp import Graph
from concomp import generators as G
from concomp.errors import DeviceUnavailableError, InvalidGraphError
from concomp.generators import _host as _gen_cpu
from concomp.generators import _xp as _gen_xp
from concomp.generators._common import derive_keys, permutation


def csr_of(g):
    indptr, indices, eid = g.csr()
    assert eid is None, "generated CSR graphs keep edge ids in CSR order"
    return np.asarray(indptr, dtype=np.int64), np.asarray(indices, dtype=np.int64)


def degrees(g):
    indptr, _ = csr_of(g)
    return np.diff(indptr)


def assert_clean_symmetric(g):
    """Rows strictly increasing (sorted, no duplicates), no self loops, A == A^T."""
    assert g.symmetric
    indptr, indices = csr_of(g)
    n = g.num_nodes
    rows = np.repeat(np.arange(n), np.diff(indptr))
    assert not np.any(rows == indices), "self loop"
    same_row = rows[1:] == rows[:-1]
    assert np.all(indices[1:][same_row] > indices[:-1][same_row]), "unsorted or duplicate"
    a = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))
    assert (a != a.T).nnz == 0, "not symmetric"


def undirected(g):
    return g.num_edges // 2


# --------------------------------------------------------------------------- R-MAT
def test_rmat_reproducible_and_seed_sensitive():
    a, b, c = G.rmat(10, seed=3), G.rmat(10, seed=3), G.rmat(10, seed=4)
    for x, y in zip(csr_of(a), csr_of(b)):
        np.testing.assert_array_equal(x, y)
    assert not np.array_equal(csr_of(a)[1][:100], csr_of(c)[1][:100])


def test_seed_accepts_generator_and_numpy_int():
    g1 = G.rmat(8, seed=np.random.default_rng(5), clean=False)
    g2 = G.rmat(8, seed=np.random.default_rng(5), clean=False)
    np.testing.assert_array_equal(g1.coo()[0], g2.coo()[0])
    rng = np.random.default_rng(5)
    first, second = G.gnm(50, 80, seed=rng), G.gnm(50, 80, seed=rng)
    assert not np.array_equal(csr_of(first)[1], csr_of(second)[1])
    np.testing.assert_array_equal(G.rmat(6, seed=np.int64(2)).csr()[1], G.rmat(6, seed=2).csr()[1])
    with pytest.raises(InvalidGraphError, match="seed"):
        G.rmat(6, seed="x")


def test_rmat_sizes_and_clean_form():
    raw = G.rmat(12, edge_factor=8, seed=1, clean=False)
    assert raw.num_nodes == 4096 and raw.num_edges == 8 * 4096 and not raw.symmetric
    g = G.rmat(12, edge_factor=8, seed=1)
    assert g.num_nodes == 4096
    assert 0.7 * raw.num_edges < undirected(g) <= raw.num_edges
    assert_clean_symmetric(g)
    # the cleaned graph is exactly the raw edge set, symmetrised and deduplicated
    s, d = (np.asarray(x, np.int64) for x in raw.coo())
    keep = s != d
    keys = np.unique(np.concatenate([s[keep] * 4096 + d[keep], d[keep] * 4096 + s[keep]]))
    indptr, indices = csr_of(g)
    np.testing.assert_array_equal(
        np.repeat(np.arange(4096), np.diff(indptr)) * 4096 + indices, keys
    )


def test_rmat_degree_skew_and_permutation_invariance():
    g = G.rmat(13, seed=2)
    deg = degrees(g)
    assert deg.max() > 20 * deg.mean()
    # the permutation only relabels: same raw edges, same degree multiset
    flat = G.rmat(13, seed=2, permute=False)
    np.testing.assert_array_equal(np.sort(deg), np.sort(degrees(flat)))
    assert np.argmax(degrees(flat)) == 0  # unpermuted R-MAT: vertex 0 is the hub


def test_rmat_uniform_variants_and_cong():
    er = G.erdos_renyi_rmat(11, seed=1)
    deg = degrees(er)
    assert deg.max() < 3 * deg.mean()  # no hubs
    assert undirected(er) > 0.99 * 16 * 2048
    cg = G.cong(11, seed=1)
    assert cg.num_nodes == 2048
    assert_clean_symmetric(cg)


def test_rmat_tiny_scales():
    g0 = G.rmat(0, seed=1)
    assert g0.num_nodes == 1 and g0.num_edges == 0
    assert G.rmat(0, seed=1, clean=False).num_edges == 16
    g1 = G.rmat(1, edge_factor=4, seed=1)
    assert_clean_symmetric(g1)
    assert undirected(g1) <= 1


@pytest.mark.parametrize(
    "kwargs, bad",
    [
        (dict(a=0.7, b=0.2, c=0.2), "-0.1"),
        (dict(a=0.5, b=0.2, c=0.2, d=0.2), "sum to 1"),
        (dict(a=-0.1, b=0.5, c=0.3), "-0.1"),
        (dict(a=float("nan"), b=0.2, c=0.2), "nan"),
        (dict(a="x", b=0.2, c=0.2), "numbers"),
    ],
)
def test_rmat_bad_probabilities(kwargs, bad):
    with pytest.raises(InvalidGraphError, match="R-MAT probabilities") as info:
        G.rmat(5, **kwargs)
    assert bad in str(info.value)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "kwargs", [dict(scale=-1), dict(scale=41), dict(scale=2.5), dict(scale=4, edge_factor=-1)]
)
def test_rmat_bad_sizes(kwargs):
    with pytest.raises(InvalidGraphError):
        G.rmat(**kwargs)


def test_bad_device_is_reported():
    with pytest.raises(InvalidGraphError, match="device"):
        G.grid(2, 2, device="tpu")


def test_gpu_request_without_gpu_raises(gpu_available):
    if gpu_available:
        pytest.skip("a GPU is present")
    with pytest.raises(DeviceUnavailableError):
        G.rmat(4, device="gpu")


# --------------------------------------------------------------------------- gnm, grid
def test_gnm_counts():
    raw = G.gnm(1000, 5000, seed=1, clean=False)
    assert raw.num_nodes == 1000 and raw.num_edges == 5000
    s, d = raw.coo()
    assert 0 <= s.min() and max(s.max(), d.max()) < 1000
    g = G.gnm(1000, 5000, seed=1)
    assert 4900 < undirected(g) <= 5000
    assert_clean_symmetric(g)
    assert G.gnm(0, 0).num_nodes == 0
    with pytest.raises(InvalidGraphError):
        G.gnm(0, 5)


@pytest.mark.parametrize("rows, cols", [(1, 1), (1, 5), (4, 1), (3, 4), (17, 9)])
def test_grid_edge_count(rows, cols):
    g = G.grid(rows, cols)
    assert g.num_nodes == rows * cols
    assert undirected(g) == 2 * rows * cols - rows - cols
    assert_clean_symmetric(g)
    assert degrees(g).max() <= 4


@pytest.mark.parametrize("rows, cols", [(3, 3), (5, 7), (10, 4)])
def test_torus_edge_count(rows, cols):
    g = G.grid(rows, cols, torus=True)
    assert undirected(g) == 2 * rows * cols
    assert np.all(degrees(g) == 4)
    assert_clean_symmetric(g)


def test_small_torus_drops_loops_and_repeats():
    g = G.grid(1, 2, torus=True)
    assert undirected(g) == 1
    assert_clean_symmetric(G.grid(2, 5, torus=True))


def test_grid_permuted_is_relabelled_grid():
    plain, perm = G.grid(30, 40), G.grid(30, 40, permute=True, seed=9)
    assert undirected(plain) == undirected(perm)
    np.testing.assert_array_equal(np.sort(degrees(plain)), np.sort(degrees(perm)))
    assert not np.array_equal(csr_of(plain)[1], csr_of(perm)[1])
    assert_clean_symmetric(perm)
    again = G.grid(30, 40, permute=True, seed=9)
    np.testing.assert_array_equal(csr_of(perm)[1], csr_of(again)[1])


@pytest.mark.parametrize("n", [1, 2, 3, 5, 64, 1000, 4097])
def test_permutation_is_bijection(n):
    p = permutation(np, 12345, n, np.int64)
    np.testing.assert_array_equal(np.sort(p), np.arange(n))


# --------------------------------------------------------------------------- geometric, BA
def test_knn_geometric_min_degree():
    for dim in (2, 3):
        g = G.knn_geometric(500, k=5, dim=dim, seed=1)
        assert degrees(g).min() >= 5
        assert_clean_symmetric(g)
    with pytest.raises(InvalidGraphError, match="k"):
        G.knn_geometric(5, k=5)


def test_delaunay_about_three_n():
    n = 2000
    g = G.delaunay(n, seed=3)
    assert 2.9 * n < undirected(g) <= 3 * n - 6
    assert_clean_symmetric(g)
    np.testing.assert_array_equal(csr_of(g)[1], csr_of(G.delaunay(n, seed=3))[1])


@pytest.mark.parametrize("n, d", [(2, 1), (10, 1), (300, 3), (2000, 5)])
def test_barabasi_albert_exact_edges(n, d):
    g = G.barabasi_albert(n, d, seed=4)
    assert g.num_nodes == n
    assert undirected(g) == d * (n - d)
    assert_clean_symmetric(g)
    assert degrees(g).min() >= 1


def test_barabasi_albert_is_scale_free_ish():
    deg = degrees(G.barabasi_albert(20000, 2, seed=1))
    assert deg.max() > 15 * deg.mean()
    with pytest.raises(InvalidGraphError):
        G.barabasi_albert(3, 3)


# --------------------------------------------------------------------------- weights
def test_weights_symmetric_per_undirected_edge():
    g = G.rmat(9, seed=1, weights="int")
    indptr, indices = csr_of(g)
    rows = np.repeat(np.arange(g.num_nodes), np.diff(indptr))
    w = np.asarray(g.weights)
    fwd = dict(zip(zip(rows.tolist(), indices.tolist()), w.tolist()))
    assert all(fwd[(v, u)] == x for (u, v), x in fwd.items())
    assert w.dtype == np.int32 and 0 <= w.min() and w.max() <= 1_000_000
    assert len(np.unique(w)) > 0.9 * w.size / 2


def test_weights_on_edge_lists_and_ranges():
    g = G.gnm(200, 1000, seed=2, clean=False)
    s, d = g.coo()
    flipped = G.with_weights(g, G.random_weights(g, seed=1))
    w_rev = G.random_weights(Graph.from_edges(d, s, 200), seed=1)
    np.testing.assert_array_equal(flipped.weights, w_rev)
    f = G.random_weights(g, low=-1.5, high=2.0, dtype="float", seed=3)
    assert f.dtype == np.float64 and -1.5 <= f.min() and f.max() < 2.0
    small = G.random_weights(g, low=3, high=5, seed=3)
    assert set(np.unique(small).tolist()) == {3, 4, 5}
    big = G.random_weights(10, high=2**40, seed=3)
    assert big.dtype == np.int64
    np.testing.assert_array_equal(big, G.random_weights(10, high=2**40, seed=3))


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(low=5, high=1), "low, high"),
        (dict(high=1.5), "whole"),
        (dict(dtype="half"), "dtype"),
        (dict(high=float("inf")), "low, high"),
    ],
)
def test_weights_bad_arguments(kwargs, match):
    with pytest.raises(InvalidGraphError, match=match):
        G.random_weights(10, **kwargs)


def test_with_weights_validates_and_shares_structure():
    g = G.grid(3, 3)
    wg = G.with_weights(g, np.arange(g.num_edges, dtype=float))
    assert wg.is_weighted and wg.csr()[1] is g.csr()[1]
    with pytest.raises(InvalidGraphError, match="weights"):
        G.with_weights(g, np.ones(3))
    with pytest.raises(InvalidGraphError, match="Graph"):
        G.with_weights("g", np.ones(3))


# --------------------------------------------------------------------------- suite, specs
@pytest.mark.parametrize("name", ["rmat22", "er22", "cong22", "gridp4k"])
def test_suite_quick(name):
    g = G.suite(name, quick=True)
    assert g.num_nodes == 65536
    assert g.symmetric and g.num_edges > 0


def test_suite_unknown_name():
    with pytest.raises(InvalidGraphError, match="rmat22, er22, gridp4k, cong22"):
        G.suite("rmat23")


@pytest.mark.parametrize(
    "spec, n, und",
    [
        ("rmat:scale=8,ef=4,seed=1", 256, None),
        ("er:scale=8", 256, None),
        ("cong:scale=8,ef=2,permute=0", 256, None),
        ("gnm:n=1000,m=5000,clean=0", 1000, None),
        ("grid:rows=10,cols=10,permute=1", 100, 180),
        ("grid:rows=10,cols=10,torus=true", 100, 200),
        ("knn:n=1000,k=6", 1000, None),
        ("delaunay:n=1000", 1000, None),
        ("ba:n=1000,m=3", 1000, 3 * 997),
        ("suite:rmat22,quick=1", 65536, None),
        ("suite:name=gridp4k,quick=1,seed=2", 65536, 2 * 65536 - 512),
    ],
)
def test_from_spec(spec, n, und):
    g = G.from_spec(spec)
    assert g.num_nodes == n
    if und is not None:
        assert undirected(g) == und


def test_from_spec_matches_direct_call():
    a = G.from_spec("rmat:scale=9,ef=8,seed=5,a=0.5,b=0.2,c=0.2")
    b = G.rmat(9, 8, 0.5, 0.2, 0.2, seed=5)
    np.testing.assert_array_equal(csr_of(a)[1], csr_of(b)[1])
    w = G.from_spec("grid:rows=4,cols=4,weights=float")
    assert w.weights.dtype == np.float64


@pytest.mark.parametrize(
    "spec, match",
    [
        ("ring:n=5", "valid generators: rmat, er, cong, gnm, grid, knn, delaunay, ba, suite"),
        ("rmat:scale=8,foo=1", "valid keys for rmat: scale, ef"),
        ("grid:rows=ten,cols=3", "bad value for 'rows'"),
        ("grid:rows=3,cols=3,permute=maybe", "boolean"),
        ("gnm:1000", "not key=value"),
        ("rmat:scale=2.5", "bad value"),
        ("suite:bogus", "unknown benchmark graph"),
        ("grid:rows=3", "needs cols"),
        ("ba:n=10", "needs m"),
    ],
)
def test_from_spec_errors(spec, match):
    with pytest.raises(InvalidGraphError, match=match):
        G.from_spec(spec)


# --------------------------------------------------------------------------- GPU code on NumPy
def _rmat_args(seed, scale, probs=(0.57, 0.19, 0.19)):
    k_edges, k_perm = derive_keys(seed, "rmat", "perm")
    cum = np.cumsum(probs)
    return k_edges, k_perm, tuple(min(1 << 32, int(round(x * 2**32))) for x in cum)


@pytest.mark.parametrize("scale, permute", [(1, False), (5, True), (11, False), (11, True)])
def test_generic_rmat_matches_numba(scale, permute):
    raw = G.rmat(scale, seed=7, clean=False, permute=permute)
    k_edges, k_perm, th = _rmat_args(7, scale)
    n = 1 << scale
    perm = permutation(np, k_perm, n, np.int32) if permute else None
    s, d = _gen_xp.rmat_edges(np, k_edges, scale, 16 * n, th, perm, np.int32)
    np.testing.assert_array_equal(raw.coo()[0], s)
    np.testing.assert_array_equal(raw.coo()[1], d)


def test_generic_kernels_match_numba():
    n, m = 3001, 20000
    (key,) = derive_keys(11, "gnm")
    raw = G.gnm(n, m, seed=11, clean=False)
    s, d = _gen_xp.uniform_edges(np, key, n, m, np.int32)
    np.testing.assert_array_equal(raw.coo()[0], s)
    np.testing.assert_array_equal(raw.coo()[1], d)
    out = np.empty(n, np.int64)
    _gen_cpu.feistel_permutation(np.uint64(key), n, 6, out)
    np.testing.assert_array_equal(out, _gen_xp.feistel_permutation(np, key, n, 6, np.int64))
    ip1, ix1 = _gen_cpu.symmetric_csr(s, d, n, np.int32)
    ip2, ix2 = _gen_xp.symmetric_csr(np, s, d, n, np.int32)
    np.testing.assert_array_equal(ip1, ip2)
    np.testing.assert_array_equal(ix1, ix2)
    g = G.grid(20, 30)
    src, dst = (np.asarray(x) for x in g.coo())
    for low, span, as_int, dt in ((0, 1001, True, np.int32), (-2.0, 3.5, False, np.float64)):
        out = np.empty(src.size, dt)
        _gen_cpu.pair_weights_csr(np.uint64(key), *g.csr()[:2], low, span, as_int, out)
        ref = _gen_xp.pair_weights(np, key, src, dst, low, span, as_int, dt)
        np.testing.assert_array_equal(out, ref)


# --------------------------------------------------------------------------- on the GPU
@pytest.mark.gpu
@pytest.mark.parametrize(
    "make",
    [
        lambda dev: G.rmat(12, seed=3, device=dev),
        lambda dev: G.rmat(11, seed=3, clean=False, device=dev, weights="int"),
        lambda dev: G.cong(10, seed=1, device=dev, weights="float"),
        lambda dev: G.gnm(5000, 30000, seed=2, device=dev),
        lambda dev: G.grid(50, 70, torus=True, permute=True, seed=4, device=dev),
        lambda dev: G.barabasi_albert(3000, 3, seed=5, device=dev),
        lambda dev: G.delaunay(500, seed=5, device=dev),
        lambda dev: G.knn_geometric(2000, k=5, seed=6, device=dev),
    ],
)
def test_gpu_matches_cpu(make):
    cpu, gpu = make("cpu"), make("gpu")
    assert gpu.device == "gpu"
    g = gpu.to("cpu")
    assert g.num_nodes == cpu.num_nodes and g.num_edges == cpu.num_edges
    for name in ("csr", "coo"):
        for a, b in zip(getattr(cpu, name)(), getattr(g, name)()):
            if a is not None:
                np.testing.assert_array_equal(a, b)
    if cpu.weights is not None:
        np.testing.assert_array_equal(cpu.weights, g.weights)


# --------------------------------------------------------------------------- shapes
@pytest.mark.parametrize(
    ("make", "n", "m", "components"),
    [
        (lambda **k: G.path(50, **k), 50, 49, 1),
        (lambda **k: G.grid3d(3, 4, 5, **k), 60, 133, 1),
        (lambda **k: G.stars(6, 9, **k), 60, 54, 6),
        (lambda **k: G.tree_forest(7, 10, **k), 70, 63, 7),
    ],
)
@pytest.mark.parametrize("permute", [False, True])
def test_shapes_sizes_components_and_cleanliness(make, n, m, components, permute):
    from scipy.sparse.csgraph import connected_components

    g = make(permute=permute, seed=3)
    assert_clean_symmetric(g)
    assert (g.num_nodes, undirected(g)) == (n, m)
    indptr, indices = csr_of(g)
    a = sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))
    assert connected_components(a, directed=False)[0] == components


def test_shapes_keep_ids_in_order_unless_permuted():
    assert csr_of(G.path(4))[1].tolist() == [1, 0, 2, 1, 3, 2]
    assert csr_of(G.grid3d(1, 1, 3))[1].tolist() == [1, 0, 2, 1]
    assert not np.array_equal(csr_of(G.path(64, permute=True))[1], csr_of(G.path(64))[1])
    hub_degrees = sorted(degrees(G.stars(3, 5, permute=False)))[-3:]
    assert hub_degrees == [5, 5, 5]


def test_tree_forest_is_reproducible_and_seeded():
    a, b, c = (G.tree_forest(20, 8, seed=s) for s in (1, 1, 2))
    np.testing.assert_array_equal(csr_of(a)[1], csr_of(b)[1])
    assert not np.array_equal(csr_of(a)[1], csr_of(c)[1])


@pytest.mark.parametrize(
    ("call", "arg"),
    [
        (lambda: G.path(0), "n"),
        (lambda: G.grid3d(0, 2, 2), "nx"),
        (lambda: G.stars(0, 3), "num_stars"),
        (lambda: G.tree_forest(3, 0), "size"),
    ],
)
def test_shapes_reject_bad_sizes(call, arg):
    with pytest.raises(InvalidGraphError, match=f"argument `{arg}`"):
        call()
