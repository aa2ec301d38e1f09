"""The families beyond union-find: every CPU min-based / Stages variant (int32 and int64
kernels, one thread and all threads), ECL-CC's kernels and the atomic intrinsics in
CI, and every GPU min-based / Stages variant against SciPy.

GPU tests are marked ``gpu`` one by one (the CPU tests here must run in CI) and
skip with the reason where CuPy or a device is missing.
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import concomp
from concomp.errors import InvalidVariantError
from concomp.options import DEFAULTS, Options
from concomp.variants import PRESETS, Variant, all_variants


# ------------------------------------------------------------------ graph zoo
def _zoo(scale: int = 1) -> dict[str, tuple[np.ndarray, np.ndarray, int]]:
    rng = np.random.default_rng(42)
    out = {}
    out["empty_edges"] = (np.zeros(0, np.int64), np.zeros(0, np.int64), 7)
    out["single"] = (np.zeros(0, np.int64), np.zeros(0, np.int64), 1)
    out["self_loops"] = (np.arange(5), np.arange(5), 5)
    path = rng.permutation(3000 // scale)
    out["shuffled_path"] = (path[:-1], path[1:], path.shape[0])
    out["star"] = (
        np.zeros(2000 // scale, np.int64),
        np.arange(1, 2000 // scale + 1),
        2000 // scale + 1,
    )
    r, c = 60 // scale, 70 // scale
    ids = rng.permutation(r * c).reshape(r, c)
    out["grid_permuted"] = (
        np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()]),
        np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()]),
        r * c,
    )
    for name, n, m in (("sparse", 5000, 2500), ("critical", 5000, 5000), ("dense", 3000, 60000)):
        n, m = n // scale, m // scale
        out[name] = (rng.integers(0, n, m), rng.integers(0, n, m), n)
    hub = 4000 // scale
    s = np.concatenate([np.zeros(500 // scale, np.int64), rng.integers(1, hub, 3000 // scale)])
    d = np.concatenate([rng.integers(1, hub, 500 // scale), rng.integers(1, hub, 3000 // scale)])
    out["hub_dups"] = (np.concatenate([s, s]), np.concatenate([d, d]), hub)
    return out


GRAPHS = _zoo()
CPU_GRAPHS = _zoo(scale=2)


def _reference(src, dst, n):
    a = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    return scipy_cc(a, directed=True, connection="weak")


def _min_roots(src, dst, n) -> np.ndarray:
    """SciPy's components as minimum-vertex roots (the drivers' contract)."""
    count, labels = _reference(src, dst, n)
    first = np.full(count, n, dtype=np.int64)
    np.minimum.at(first, labels, np.arange(n))
    return first[labels]


def _random_graphs(seed: int = 7, count: int = 12):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n = int(rng.integers(1, 4000))
        m = int(rng.integers(0, 3 * n))
        yield rng.integers(0, n, m), rng.integers(0, n, m), n


# ------------------------------------------------------------------ CPU: CAS intrinsic
@pytest.fixture(scope="module")
def nb():
    return pytest.importorskip("numba")


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
def test_cas_intrinsic_semantics(nb, dtype):
    from concomp._cpu.atomics import atomic_load, cas

    @nb.njit
    def run(a):
        first = cas(a, 1, 5, 7)  # succeeds: returns the old value
        second = cas(a, 1, 5, 9)  # fails: returns the current value, stores nothing
        return first, second, atomic_load(a, 1)

    a = np.array([0, 5, 3], dtype=dtype)
    assert run(a) == (5, 7, 7)
    assert a.tolist() == [0, 7, 3]
    big = np.array([2**40 if dtype == np.int64 else 2**30], dtype=dtype)

    @nb.njit
    def swap_big(a, new):
        return cas(a, 0, a[0], new)

    assert swap_big(big, -1) == big.dtype.type(2**40 if dtype == np.int64 else 2**30)
    assert big[0] == -1


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
def test_cas_intrinsic_is_atomic_under_prange(nb, dtype):
    from concomp._cpu.atomics import atomic_load, cas

    @nb.njit(parallel=True)
    def count_up(counter, hits):
        for _ in nb.prange(hits.shape[0]):
            while True:
                old = atomic_load(counter, 0)
                if cas(counter, 0, old, old + 1) == old:
                    break

    @nb.njit(parallel=True)
    def cas_min(a, values):
        for i in nb.prange(values.shape[0]):
            v = values[i]
            while True:
                old = atomic_load(a, 0)
                if v >= old or cas(a, 0, old, v) == old:
                    break

    counter = np.zeros(1, dtype=dtype)
    count_up(counter, np.zeros(200_000, dtype=np.int8))
    assert counter[0] == 200_000
    values = np.random.default_rng(3).integers(0, 10**6, 100_000).astype(dtype)
    a = np.array([10**7], dtype=dtype)
    cas_min(a, values)
    assert a[0] == values.min()


# ------------------------------------------------------------------ CPU: ECL-CC and the families
def _csr(src, dst, n, dtype):
    g = concomp.Graph.from_edges(src, dst, n)
    indptr, indices, _ = g.undirected_csr()
    return indptr.astype(dtype), indices.astype(dtype)


def _cpu_cases():
    yield from CPU_GRAPHS.items()
    for i, graph in enumerate(_random_graphs()):
        yield f"random{i}", graph


@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
def test_cpu_ecl_serial_parallel_and_af_match_scipy(nb, dtype):
    from concomp._cpu.ecl import ecl_af_roots, ecl_roots

    for name, (s, d, n) in _cpu_cases():
        want = _min_roots(s, d, n)
        indptr, indices = _csr(s, d, n, dtype)
        for label, got in (
            ("serial", ecl_roots(indptr, indices, parallel=False)),
            ("parallel", ecl_roots(indptr, indices, parallel=True)),
            ("af", ecl_af_roots(indptr, indices)),
        ):
            assert got.dtype == dtype
            np.testing.assert_array_equal(got, want, err_msg=f"{name} {label}")


def _cpu_graph_cases():
    """The CPU zoo and the random graphs, as Graph objects (built once)."""
    return [
        (name, concomp.Graph.from_edges(s, d, n), _min_roots(s, d, n))
        for name, (s, d, n) in _cpu_cases()
    ]


CPU_FAMILY_VARIANTS = [
    v for v in all_variants("cpu") if v.family == "minbased" or v.sampling.value == "stages"
]


@pytest.fixture(scope="module")
def cpu_graphs():
    return _cpu_graph_cases()


@pytest.mark.parametrize("threads", ["one", "all"])
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("variant", CPU_FAMILY_VARIANTS, ids=str)
def test_cpu_family_variant_matches_scipy(variant, dtype, threads, cpu_graphs):
    """Every min-based family and Stages on the CPU, int32 and int64 kernels, on one
    thread and on all of numba's threads."""
    from concomp._cpu.families import run_family
    from concomp._cpu.unionfind import one_thread

    # parallel_min_edges=0: the small graphs run in parallel too
    options = Options(index_dtype=np.dtype(dtype).name, parallel_min_edges=0)
    with one_thread() if threads == "one" else contextlib.nullcontext():
        for name, g, want in cpu_graphs:
            roots, hook = run_family(g, variant, options)
            assert hook is None
            assert roots.dtype == dtype and roots.shape == (g.num_nodes,), (name, str(variant))
            np.testing.assert_array_equal(roots, want, err_msg=f"{name} {variant}")


def test_cpu_and_gpu_run_the_same_variants():
    assert all_variants("cpu") == all_variants("gpu")
    assert {v.finish for v in all_variants("cpu")} == set(concomp.variants.Finish)
    assert {v.sampling for v in all_variants("cpu")} == set(concomp.variants.Sampling)


def test_cpu_presets_through_public_api():
    s, d, n = CPU_GRAPHS["critical"]
    count, labels = _reference(s, d, n)
    for name in sorted(PRESETS):
        got_count, got = concomp.connected_components(
            (s, d), num_nodes=n, device="cpu", algorithm=name
        )
        assert got_count == count, name
        np.testing.assert_array_equal(got, labels, err_msg=name)


def test_cpu_symmetric_csr_input():
    """A symmetric CSR is used as it is (no symmetrised copy) by every kind of run."""
    s, d, n = CPU_GRAPHS["dense"]
    a = sp.coo_matrix((np.ones(len(s)), (s, d)), shape=(n, n)).tocsr()
    a = (a + a.T).tocsr()
    g = concomp.Graph.from_csr(a.indptr, a.indices, n, symmetric=True)
    want = _min_roots(s, d, n)
    for alg in (
        "soman",
        "stages-rem_cas-splice-coo",
        "stages-sv-compress-csr",
        "hb-lt-eusa-coo",
        "kout-ecl-jump-csr",
        "bfs-lp-min-csr",
        "koutr-jtb-split-csr",
        "hb-rem_lock-halve-csr",
    ):
        roots = concomp.connected_components(g, device="cpu", algorithm=alg, canonical=False)[1]
        np.testing.assert_array_equal(roots, want, err_msg=alg)


def test_cpu_directed_csr_input_is_not_symmetrised_for_union_find():
    """A CSR given by a caller (not symmetric) runs union-find over its stored entries."""
    s, d, n = CPU_GRAPHS["sparse"]
    a = sp.coo_matrix((np.ones(len(s)), (s, d)), shape=(n, n)).tocsr()
    g = concomp.Graph.from_csr(a.indptr, a.indices, n)
    want = _min_roots(s, d, n)
    for alg in ("none-hooks-split-csr", "hb-early-halve-csr", "bfs-async-halve-csr"):
        roots = concomp.connected_components(g, device="cpu", algorithm=alg, canonical=False)[1]
        np.testing.assert_array_equal(roots, want, err_msg=alg)
    assert g._ucsr is None


def test_cpu_family_forest_request_is_refused():
    from concomp._cpu.families import run_family

    g = concomp.Graph.from_edges(np.array([0]), np.array([1]), 2)
    for alg in ("none-lt-pufa-coo", "ecl_af", "lp", "stages-sv-compress-coo"):
        with pytest.raises(InvalidVariantError, match="spanning forest"):
            run_family(g, Variant.parse(alg), DEFAULTS, record=True)


# ------------------------------------------------------------------ registry and host logic
def test_liu_tarjan_rules_that_cannot_converge_are_not_registered():
    for rule in ("cus", "cuf", "crs", "crf"):
        with pytest.raises(InvalidVariantError):
            Variant("none", "lt", rule, "coo")
    for rule in ("cusa", "crfa", "prs", "euf", "erfa"):
        Variant("none", "lt", rule, "coo")


def test_presets_name_the_papers_algorithms():
    expect = {
        "soman": "none-soman-jump-coo",
        "stages": "stages-graft-shortcut-coo",
        "cc": "none-graft-shortcut-coo",
        "graft": "none-graft-shortcut-coo",
        "cc-updt": "none-graft_updt-shortcut-coo",
        "ecl": "none-ecl-jump-csr",
        "ecl_af": "none-ecl_af-jump-csr",
        "sv": "none-sv-compress-coo",
        "lt": "none-lt-prf-coo",
        "stergiou": "none-stergiou-min-coo",
        "lp": "none-lp-min-csr",
        "bfs-cc": "none-bfs_cc-diropt-csr",
    }
    for name, text in expect.items():
        assert str(PRESETS[name]) == text
        assert Variant.parse(name) == Variant.parse(text)
        assert PRESETS[name].supported_on("gpu")


def test_every_family_and_sampler_is_registered_on_the_gpu():
    gpu = all_variants("gpu")
    assert {v.finish for v in gpu} == set(concomp.variants.Finish)
    assert {v.sampling for v in gpu} == set(concomp.variants.Sampling)


def test_driver_kernel_names_exist():
    """Every kernel the drivers launch by name is one that families.cu instantiates."""
    from concomp._gpu.family_state import INSTANTIATIONS, kernel_names
    from concomp._gpu.kernels import cc_names

    names = kernel_names("int")
    assert sorted(set(names.values()) | set(kernel_names("long long").values())) == INSTANTIATIONS
    src = "".join(
        (Path(concomp.__file__).parent / "_gpu" / f).read_text()
        for f in ("families.py", "family_state.py", "families_edges.py", "families_csr.py")
    )
    launched = set(re.findall(r'launch\(\s*"(\w+)"', src))
    launched |= set(re.findall(r"ctx\.k\.(\w+)\(", src))
    launched |= {f"{side}_{op}" for side in ("light", "heavy") for op in ("SVHook", "AfforestLink")}
    launched |= {f"ecl_compute{i}_{f}" for i in (1, 2, 3) for f in ("true", "false")}
    cc = set(cc_names("UniteAsync<FindHalve>", False, "int", False, False))
    for name in launched:
        assert name in names or name in cc, name
    kernel_src = (Path(concomp.__file__).parent / "_gpu" / "cuda" / "families.cu").read_text()
    for expr in names.values():
        assert re.search(rf"__global__ void {expr.split('<')[0]}\(", kernel_src), expr


def test_gpu_family_forest_request_is_refused_before_any_gpu_work():
    from concomp._gpu.families import run_family

    g = concomp.Graph.from_edges(np.array([0]), np.array([1]), 2)
    for alg in ("none-lt-pufa-coo", "ecl_af", "none-lp-min-csr", "stages-async-halve-coo"):
        with pytest.raises(InvalidVariantError, match="spanning forest"):
            run_family(g, Variant.parse(alg), DEFAULTS, record=True)


# ------------------------------------------------------------------ GPU
GPU_FAMILY_VARIANTS = [
    v for v in all_variants("gpu") if v.family == "minbased" or v.sampling.value == "stages"
]


@pytest.fixture(scope="module")
def cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed")
    from concomp._gpu._compat import gpu_status

    ok, reason = gpu_status()
    if not ok:
        pytest.skip(reason)
    return cp


@pytest.fixture(scope="module")
def device_graphs(cupy):
    return {
        k: (concomp.Graph.from_edges(s, d, n).to("gpu"), _min_roots(s, d, n))
        for k, (s, d, n) in GRAPHS.items()
    }


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
@pytest.mark.parametrize("variant", GPU_FAMILY_VARIANTS, ids=str)
def test_gpu_family_variant_matches_scipy(variant, dtype, cupy, device_graphs):
    from concomp._gpu.components import run_variant

    for name, (g, want) in device_graphs.items():
        roots, hook = run_variant(g, variant, Options(index_dtype=np.dtype(dtype).name))
        assert hook is None
        assert roots.dtype == dtype and roots.shape == (g.num_nodes,), (name, str(variant))
        np.testing.assert_array_equal(cupy.asnumpy(roots), want, err_msg=f"{name} {variant}")


def _check_forest(edges: np.ndarray, src, dst, n, want_roots) -> None:
    """``edges`` (ids) form a spanning forest of the graph: acyclic, n - c of them."""
    parent = np.arange(n)

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for e in edges:
        a, b = find(src[e]), find(dst[e])
        assert a != b, f"edge {e} closes a cycle"
        parent[max(a, b)] = min(a, b)
    assert len(edges) == n - len(np.unique(want_roots))
    got = np.array([find(v) for v in range(n)])
    np.testing.assert_array_equal(got, want_roots)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int32, np.int64], ids=["int32", "int64"])
def test_gpu_soman_spanning_forest(dtype, cupy, device_graphs):
    from concomp._gpu.components import run_variant

    for name, (g, want) in device_graphs.items():
        s, d, n = GRAPHS[name]
        roots, hook = run_variant(
            g, PRESETS["soman"], Options(index_dtype=np.dtype(dtype).name), record=True
        )
        np.testing.assert_array_equal(cupy.asnumpy(roots), want, err_msg=name)
        hook = cupy.asnumpy(hook)
        assert hook.dtype == dtype
        _check_forest(hook[hook >= 0], s, d, n, want)


@pytest.mark.gpu
def test_gpu_presets_through_public_api(cupy):
    s, d, n = GRAPHS["critical"]
    count, labels = _reference(s, d, n)
    for name in (
        "soman",
        "stages",
        "cc",
        "cc-updt",
        "ecl",
        "ecl_af",
        "sv",
        "lt",
        "stergiou",
        "lp",
        "bfs-cc",
        "g-afforest",
    ):
        got_count, got = concomp.connected_components(
            (cupy.asarray(s), cupy.asarray(d)), num_nodes=n, algorithm=name
        )
        assert got_count == count, name
        np.testing.assert_array_equal(cupy.asnumpy(got), labels, err_msg=name)


@pytest.mark.gpu
def test_gpu_symmetric_csr_input(cupy):
    from concomp._gpu.components import run_variant

    s, d, n = GRAPHS["dense"]
    a = sp.coo_matrix((np.ones(len(s)), (s, d)), shape=(n, n)).tocsr()
    a = (a + a.T).tocsr()
    g = concomp.Graph.from_csr(cupy.asarray(a.indptr), cupy.asarray(a.indices), n, symmetric=True)
    want = _min_roots(s, d, n)
    for alg in (
        "soman",
        "stages-rem_cas-splice-coo",
        "hb-lt-eusa-coo",
        "kout-ecl-jump-csr",
        "bfs-lp-min-csr",
        "stages-sv-compress-coo",
    ):
        roots, _ = run_variant(g, Variant.parse(alg), DEFAULTS)
        np.testing.assert_array_equal(cupy.asnumpy(roots), want, err_msg=alg)


@pytest.mark.parametrize("m", [0, 1, 2, 3, 7, 64, 65, 1000, 4097])
def test_stages_order_is_a_permutation_of_the_edges(m):
    """Stages' edge order (a keyed bijection of the positions walked into range) keeps
    every edge once, with its two ends together, and is not the input order."""
    from concomp._cpu.families_edges import permuted

    src = np.arange(m, dtype=np.int32)
    dst = (src * 7 + 3).astype(np.int32)
    s, d = permuted(src, dst)
    assert s.dtype == src.dtype and d.dtype == dst.dtype
    assert sorted(s.tolist()) == list(range(m))
    np.testing.assert_array_equal(d, s * 7 + 3)
    if m >= 64:
        assert (s != src).mean() > 0.9
    np.testing.assert_array_equal(permuted(src, dst)[0], s)  # a fixed order


@pytest.mark.parametrize("update", [False, True])
@pytest.mark.parametrize("hub", [0, 777, 4095])
def test_cong_muzio_grafts_a_star_in_few_rounds(update, hub):
    """CC and CC-updt on a star whose leaves come in id order (both directions of each
    edge): a graft keeps the smallest label it is offered, so the rounds stay few
    whatever the hub's id, where the last of many plain stores winning moved the hub's
    pointer one leaf down per round (a round per leaf below the hub)."""
    from concomp._cpu.families_edges import cong_muzio

    n = 4096
    leaves = np.array([v for v in range(n) if v != hub], dtype=np.int64)
    src = np.r_[leaves, np.full(n - 1, hub)].astype(np.int64)
    dst = np.r_[np.full(n - 1, hub), leaves].astype(np.int64)
    P = np.arange(n, dtype=np.int64)
    rounds = cong_muzio(P, src.copy(), dst.copy(), update, np.zeros(1, np.int64), False)
    assert (P == 0).all()
    assert rounds <= 4
