"""Incremental connectivity: batches of inserts and queries against a SciPy oracle.

The CPU engine runs everywhere; the same bodies run on the GPU engine (marked ``gpu``).
"""

from __future__ import annotations

import numpy as np
import pytest

import concomp.incremental as inc
from concomp._gpu._compat import gpu_status
from concomp.errors import (
    DeviceUnavailableError,
    InvalidGraphError,
    InvalidVariantError,
)
from concomp.incremental import IncrementalConnectivity, legal_algorithms, plan_capacity
from concomp.testing.forest import assert_spanning_forest, scipy_labels

HAS_GPU = gpu_status()[0]
gpu = pytest.mark.skipif(not HAS_GPU, reason=f"no usable GPU: {gpu_status()[1]}")
CPU_ALGS = legal_algorithms("cpu")
GPU_ALGS = legal_algorithms("gpu") if HAS_GPU else []
ENGINES = [pytest.param("cpu", a, id=f"cpu-{a}") for a in CPU_ALGS] + [
    pytest.param("gpu", a, id=f"gpu-{a}", marks=[pytest.mark.gpu, gpu]) for a in GPU_ALGS]
DEVICES = ["cpu", pytest.param("gpu", marks=[pytest.mark.gpu, gpu])]


def _host(a) -> np.ndarray:
    return a.get() if hasattr(a, "get") else np.asarray(a)


def _random_batches(rng, n: int, batches: int, size: int):
    for _ in range(batches):
        k = int(rng.integers(1, size))
        ops = (rng.random(k) < 0.3).astype(np.int8)
        yield ops, rng.integers(0, n, k), rng.integers(0, n, k)


def _check_against_oracle(ic, src: list, dst: list, n: int) -> None:
    s = np.concatenate(src) if src else np.zeros(0, np.int64)
    d = np.concatenate(dst) if dst else np.zeros(0, np.int64)
    count, labels = scipy_labels(s, d, n)
    assert ic.num_components == count
    np.testing.assert_array_equal(_host(ic.labels()), labels)
    np.testing.assert_array_equal(_host(ic.component_sizes()), np.bincount(labels))
    assert_spanning_forest((s, d), ic.spanning_forest())


@pytest.mark.parametrize("device,algorithm", ENGINES)
def test_random_batches_match_scipy_after_every_batch(device: str, algorithm: str) -> None:
    rng = np.random.default_rng(3)
    n = 400
    ic = IncrementalConnectivity(n, device=device, algorithm=algorithm)
    src, dst = [], []
    for ops, u, v in _random_batches(rng, n, 25, 120):
        got = _host(ic.process(ops, u, v))
        ins = ops == 0
        src.append(u[ins])
        dst.append(v[ins])
        _, labels = scipy_labels(np.concatenate(src), np.concatenate(dst), n)
        q = ~ins
        np.testing.assert_array_equal(got[q], labels[u[q]] == labels[v[q]])
        _check_against_oracle(ic, src, dst, n)
    assert ic.num_batches == 25


@pytest.mark.parametrize("device", DEVICES)
def test_queries_see_the_inserts_of_their_own_batch(device: str) -> None:
    ic = IncrementalConnectivity(device=device)
    # the query comes first in the batch, yet sees the insert after it
    got = ic.process([1, 0, 1, 1], [0, 0, 1, 2], [1, 1, 0, 3])
    assert _host(got).tolist() == [True, True, True, False]
    assert _host(ic.connected([0, 2], [1, 2])).tolist() == [True, True]


def test_cpu_insert_results_follow_batch_order() -> None:
    ic = IncrementalConnectivity(device="cpu")
    got = ic.insert([0, 1, 0, 2, 1, 3], [1, 0, 2, 1, 1, 3])
    assert got.tolist() == [True, False, True, False, False, False]
    f = ic.spanning_forest()
    assert f.edge_ids.tolist() == [0, 2] and f.batch_ids.tolist() == [0, 0]
    assert f.src.tolist() == [0, 0] and f.dst.tolist() == [1, 2]


@pytest.mark.parametrize("device", DEVICES)
def test_growth_beyond_capacity(device: str) -> None:
    ic = IncrementalConnectivity(3, device=device)
    assert ic.num_nodes == 3 and ic.num_components == 3
    cap = ic.capacity
    ic.insert([0], [cap + 5])
    assert ic.num_nodes == cap + 6 and ic.capacity >= 2 * cap
    assert ic.num_components == cap + 5
    assert _host(ic.connected([cap + 5, cap + 4], [0, cap + 4])).tolist() == [True, True]
    assert _host(ic.find([cap + 5, 2])).tolist() == [0, 2]
    # a query names a new vertex: it becomes a singleton
    assert _host(ic.connected([3 * cap], [0])).tolist() == [False]
    assert ic.num_nodes == 3 * cap + 1
    labels = _host(ic.labels())
    assert labels.shape == (3 * cap + 1,) and labels[cap + 5] == 0


def test_plan_capacity_switches_to_int64_without_allocating() -> None:
    assert plan_capacity(0, np.int32, 0) == (0, np.dtype(np.int32))
    assert plan_capacity(1024, np.int32, 1000) == (1024, np.dtype(np.int32))
    assert plan_capacity(1024, np.int32, 1025) == (2048, np.dtype(np.int32))
    assert plan_capacity(2**30 + 1, np.int32, 2**30 + 2) == (2**31 - 1, np.dtype(np.int32))
    assert plan_capacity(2**31 - 1, np.int32, 2**31) == (2**32 - 2, np.dtype(np.int64))
    assert plan_capacity(10, np.int64, 2**40) == (2**40, np.dtype(np.int64))


@pytest.mark.parametrize("device", DEVICES)
def test_int64_ids_and_dtype_switch(device: str, monkeypatch) -> None:
    monkeypatch.setattr(inc, "INT32_CAPACITY", 3000)
    ic = IncrementalConnectivity(device=device)
    ic.insert(np.array([1, 2], np.int64), np.array([2, 2999], np.int64))
    assert ic.index_dtype == np.int32 and ic.capacity == 3000
    ic.insert(np.array([2999], np.int64), np.array([5000], np.int64))
    assert ic.index_dtype == np.int64
    assert _host(ic.find(np.array([5000, 3], np.uint32))).tolist() == [1, 3]
    _check_against_oracle(ic, [np.array([1, 2, 2999])], [np.array([2, 2999, 5000])], 5001)


@pytest.mark.parametrize("device", DEVICES)
def test_save_load_round_trip(device: str, tmp_path) -> None:
    rng = np.random.default_rng(5)
    alg = "none-rem_cas-splice-coo" if device == "cpu" else "none-rem_cas-halve-coo"
    ic = IncrementalConnectivity(device=device, algorithm=alg)
    for ops, u, v in _random_batches(rng, 300, 6, 200):
        ic.process(ops, u, v)
    path = tmp_path / "state.npz"
    ic.save(path)
    back = IncrementalConnectivity.load(path)
    assert (back.num_nodes, back.num_batches, back.num_components, back.algorithm) == (
        ic.num_nodes, ic.num_batches, ic.num_components, ic.algorithm)
    assert back.device == ic.device
    a, b = ic.spanning_forest(), back.spanning_forest()
    for name in ("src", "dst", "edge_ids", "batch_ids"):
        np.testing.assert_array_equal(_host(getattr(a, name)), _host(getattr(b, name)))
    np.testing.assert_array_equal(_host(ic.labels()), _host(back.labels()))
    ops, u, v = next(_random_batches(rng, 400, 1, 300))
    got, want = _host(back.process(ops, u, v)), _host(ic.process(ops, u, v))
    q = ops == 1  # on the GPU, which of two competing inserts wins may differ
    np.testing.assert_array_equal(got[q], want[q])
    assert got[~q].sum() == want[~q].sum()
    moved = IncrementalConnectivity.load(path, device="cpu")
    assert moved.device == "cpu" and moved.num_batches == 6


BAD_BATCHES = {
    "negative": ([0, 0], [1, -4], [2, 3]),
    "nan": ([0, 0], [1.0, np.nan], [2, 3]),
    "fraction": ([0, 0], [1.5, 2.0], [2, 3]),
    "lengths": ([0, 0], [1, 2, 3], [2, 3]),
    "ops_lengths": ([0], [1, 2], [2, 3]),
    "ops_code": ([0, 2], [1, 2], [2, 3]),
    "ops_dtype": ([0.0, 1.0], [1, 2], [2, 3]),
    "bool_ids": ([0, 0], [True, False], [2, 3]),
    "two_d": ([0, 0], [[1, 2]], [2, 3]),
    "huge_id": ([0, 0], [1, 2**62], [2, 3]),
}


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("case", list(BAD_BATCHES))
def test_failed_batch_changes_nothing(device: str, case: str) -> None:
    ic = IncrementalConnectivity(device=device)
    ic.process([0, 0, 1], [0, 5, 0], [1, 6, 6])
    before = (ic.num_nodes, ic.num_batches, ic.num_components, ic.capacity, ic.index_dtype)
    forest = _host(ic.spanning_forest().src).tolist()
    p = ic._engine.export(ic.num_nodes)
    ops, u, v = BAD_BATCHES[case]
    with pytest.raises(InvalidGraphError) as err:
        ic.process(ops, u, v)
    assert "Fix:" in str(err.value)
    assert (ic.num_nodes, ic.num_batches, ic.num_components, ic.capacity,
            ic.index_dtype) == before
    assert _host(ic.spanning_forest().src).tolist() == forest
    after = ic._engine.export(ic.num_nodes)
    for name in p:
        np.testing.assert_array_equal(p[name], after[name])


def test_error_messages_name_argument_and_position() -> None:
    ic = IncrementalConnectivity(device="cpu")
    with pytest.raises(InvalidGraphError, match=r"`dst`: vertex id -3 at position 1"):
        ic.insert([0, 1], [2, -3])
    with pytest.raises(InvalidGraphError, match=r"`ops`: code 7 at position 2"):
        ic.process([0, 1, 7], [0, 1, 2], [0, 1, 2])
    with pytest.raises(InvalidGraphError, match="num_nodes"):
        IncrementalConnectivity(-1)


@pytest.mark.parametrize("device", DEVICES)
def test_deterministic_labels_and_roots(device: str) -> None:
    rng = np.random.default_rng(11)
    batches = list(_random_batches(rng, 2000, 8, 1500))
    runs = []
    for _ in range(2):
        ic = IncrementalConnectivity(device=device)
        queries = [_host(ic.process(*b))[b[0] == 1] for b in batches]
        runs.append((_host(ic.labels()), _host(ic.find(np.arange(ic.num_nodes))), queries,
                     ic.num_components))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    for a, b in zip(runs[0][2], runs[1][2]):
        np.testing.assert_array_equal(a, b)
    assert runs[0][3] == runs[1][3]
    roots, labels = runs[0][1], runs[0][0]
    # roots are the smallest vertex of each component: canonical numbering follows them
    assert np.all(roots <= np.arange(roots.size))
    np.testing.assert_array_equal(np.unique(roots, return_inverse=True)[1], labels)


def test_empty_batches_and_scalars() -> None:
    ic = IncrementalConnectivity(device="cpu")
    assert ic.insert([], []).tolist() == [] and ic.num_batches == 1
    assert ic.num_nodes == 0 and ic.labels().tolist() == [] and ic.num_components == 0
    assert ic.connected(4, 4).tolist() == [True] and ic.num_nodes == 5
    assert ic.find(np.uint8(3)).tolist() == [3]
    assert ic.process([], [], []).tolist() == [] and ic.num_batches == 2
    assert ic.process(np.array([False, True]), [0, 0], [1, 1]).tolist() == [True, True]


def test_bad_algorithm_and_device() -> None:
    with pytest.raises(InvalidVariantError, match="Legal choices: none-async-naive-coo"):
        IncrementalConnectivity(device="cpu", algorithm="kout-async-halve-csr")
    with pytest.raises(InvalidVariantError):
        IncrementalConnectivity(device="cpu", algorithm="none-hooks-split-coo")
    assert "none-rem_cas-splice-coo" in legal_algorithms("cpu")
    assert "none-rem_cas-splice-coo" not in legal_algorithms("gpu")
    if not HAS_GPU:
        with pytest.raises(DeviceUnavailableError):
            IncrementalConnectivity(device="gpu")
        assert IncrementalConnectivity().device == "cpu"


@pytest.mark.gpu
@gpu
def test_gpu_batches_stay_on_the_device_and_match_cpu() -> None:
    import cupy as cp

    rng = np.random.default_rng(9)
    g = IncrementalConnectivity(device="gpu")
    c = IncrementalConnectivity(device="cpu")
    for ops, u, v in _random_batches(rng, 50_000, 5, 40_000):
        got = g.process(cp.asarray(ops), cp.asarray(u), cp.asarray(v))
        assert isinstance(got, cp.ndarray)
        want = c.process(ops, u, v)
        q = ops == 1
        np.testing.assert_array_equal(got.get()[q], want[q])
        # how many inserts joined components is fixed, which ones may differ
        assert int(got.get()[~q].sum()) == int(want[~q].sum())
    assert isinstance(g.labels(), cp.ndarray)
    np.testing.assert_array_equal(g.labels().get(), c.labels())
