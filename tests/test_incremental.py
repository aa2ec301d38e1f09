"""Incremental connectivity: batches of inserts and queries against a SciPy oracle.

The CPU engine runs everywhere; the same bodies run on the GPU engine (marked ``gpu``).
"""

from __future__ import annotations

import numpy as np
import pytest

from concomp.errors import (
    DeviceMemoryError,
    DeviceUnavailableError,
    InvalidGraphError,
    InvalidVariantError,
)
from concomp.forest import SpanningForest
from concomp.incremental import IncrementalConnectivity, legal_algorithms, plan_capacity
from concomp.options import DEFAULTS, Options
from concomp.testing.forest import assert_spanning_forest, scipy_labels
from concomp.variants import resolve_variant

CPU_ALGS = legal_algorithms("cpu")
GPU_ALGS = legal_algorithms("gpu")
ENGINES = [pytest.param("cpu", a, id=f"cpu-{a}") for a in CPU_ALGS] + [
    pytest.param("gpu", a, id=f"gpu-{a}", marks=pytest.mark.gpu) for a in GPU_ALGS
]


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


def test_int64_ids_and_dtype_switch(device: str) -> None:
    ic = IncrementalConnectivity(device=device, options=Options(int32_capacity=3000))
    ic.insert(np.array([1, 2], np.int64), np.array([2, 2999], np.int64))
    assert ic.index_dtype == np.int32 and ic.capacity == 3000
    ic.insert(np.array([2999], np.int64), np.array([5000], np.int64))
    assert ic.index_dtype == np.int64
    assert _host(ic.find(np.array([5000, 3], np.uint32))).tolist() == [1, 3]
    _check_against_oracle(ic, [np.array([1, 2, 2999])], [np.array([2, 2999, 5000])], 5001)


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
        ic.num_nodes,
        ic.num_batches,
        ic.num_components,
        ic.algorithm,
    )
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


def _assert_unchanged(ic, call, errors=InvalidGraphError) -> Exception:
    """Run ``call`` (which must raise one of ``errors``); check that the state did not
    change at all."""
    before = (ic.num_nodes, ic.num_batches, ic.num_components, ic.capacity, ic.index_dtype)
    forest = _host(ic.spanning_forest().src).tolist()
    p = ic._engine.export(ic.num_nodes)
    with pytest.raises(errors) as err:
        call()
    assert "Fix:" in str(err.value)
    assert (ic.num_nodes, ic.num_batches, ic.num_components, ic.capacity, ic.index_dtype) == before
    assert _host(ic.spanning_forest().src).tolist() == forest
    after = ic._engine.export(ic.num_nodes)
    for name in p:
        np.testing.assert_array_equal(p[name], after[name])
    return err.value


@pytest.mark.parametrize("case", list(BAD_BATCHES))
@pytest.mark.parametrize("stream", [False, True], ids=["batch", "stream"])
def test_failed_batch_changes_nothing(device: str, case: str, stream: bool) -> None:
    ic = IncrementalConnectivity(device=device)
    ic.process([0, 0, 1], [0, 5, 0], [1, 6, 6])
    ops, u, v = BAD_BATCHES[case]
    # state for an id of 2**62 exceeds any memory: the GPU names its device memory
    errors = DeviceMemoryError if device == "gpu" and case == "huge_id" else InvalidGraphError
    if stream:  # the bad entry sits in the second batch: the first must not be applied
        _assert_unchanged(ic, lambda: ic.process_batches(ops, u, v, 1), errors)
    else:
        _assert_unchanged(ic, lambda: ic.process(ops, u, v), errors)


def test_error_messages_name_argument_and_position() -> None:
    ic = IncrementalConnectivity(device="cpu")
    with pytest.raises(InvalidGraphError, match=r"`dst`: vertex id -3 at position 1"):
        ic.insert([0, 1], [2, -3])
    with pytest.raises(InvalidGraphError, match=r"`ops`: code 7 at position 2"):
        ic.process([0, 1, 7], [0, 1, 2], [0, 1, 2])
    with pytest.raises(InvalidGraphError, match="num_nodes"):
        IncrementalConnectivity(-1)


def test_deterministic_labels_and_roots(device: str) -> None:
    rng = np.random.default_rng(11)
    batches = list(_random_batches(rng, 2000, 8, 1500))
    runs = []
    for _ in range(2):
        ic = IncrementalConnectivity(device=device)
        queries = [_host(ic.process(*b))[b[0] == 1] for b in batches]
        runs.append(
            (
                _host(ic.labels()),
                _host(ic.find(np.arange(ic.num_nodes))),
                queries,
                ic.num_components,
            )
        )
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


def test_bad_algorithm_and_device(gpu_available: bool) -> None:
    with pytest.raises(InvalidVariantError, match="Legal choices: none-async-naive-coo"):
        IncrementalConnectivity(device="cpu", algorithm="kout-async-halve-csr")
    with pytest.raises(InvalidVariantError, match="not an incremental rule"):
        IncrementalConnectivity(device="cpu", algorithm="none-jtb-split-coo")
    # the CPU runs every rule the GPU's incremental engine has, and Rem's splice besides
    # (its batches link on one thread)
    assert set(legal_algorithms("gpu")) < set(legal_algorithms("cpu"))
    assert "none-rem_cas-splice-coo" in legal_algorithms("cpu")
    assert "none-rem_cas-splice-coo" not in legal_algorithms("gpu")
    if not gpu_available:
        with pytest.raises(DeviceUnavailableError):
            IncrementalConnectivity(device="gpu")
        assert IncrementalConnectivity().device == "cpu"


@pytest.mark.gpu
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


# --------------------------------------------------------------------------- streams
STREAM_SIZES = (1, 7, 64, 10**9)  # one per batch, not dividing m, several, one batch
STREAM_N, STREAM_M = 300, 600


def _stream_arrays(rng, n: int, m: int):
    ops = (rng.random(m) < 0.3).astype(np.int8)
    return ops, rng.integers(0, n, m), rng.integers(0, n, m)


def _per_slice(ic, kind: str, ops, u, v, size: int) -> np.ndarray:
    """The reference: one ``insert`` / ``process`` call per slice."""
    out = [np.zeros(0, bool)]
    for lo in range(0, u.shape[0], size):
        s = slice(lo, lo + size)
        out.append(
            _host(ic.insert(u[s], v[s]) if kind == "insert" else ic.process(ops[s], u[s], v[s]))
        )
    return np.concatenate(out)


def _check_stream_forest(ic, first: int, size: int, u, v, ins, got) -> None:
    """Forest edges of the stream's batches point at inserts that reported True."""
    f = ic.spanning_forest()
    b, e = _host(f.batch_ids), _host(f.edge_ids)
    mine = b >= first
    assert np.all((e[mine] >= 0) & (e[mine] < size))
    pos = (b[mine] - first) * size + e[mine]
    assert np.all(pos < u.shape[0]) and np.all(ins[pos]) and np.all(got[pos])
    np.testing.assert_array_equal(_host(f.src)[mine], u[pos])
    np.testing.assert_array_equal(_host(f.dst)[mine], v[pos])
    assert int(mine.sum()) == int(got[ins].sum())


@pytest.mark.parametrize("device,algorithm", ENGINES)
@pytest.mark.parametrize("kind", ["insert", "mixed"])
def test_stream_equals_one_call_per_slice(device: str, algorithm: str, kind: str) -> None:
    rng = np.random.default_rng(21)
    for size in STREAM_SIZES:
        ops, u, v = _stream_arrays(rng, STREAM_N, STREAM_M)
        ins = ops == 0 if kind == "mixed" else np.ones(STREAM_M, bool)
        # a batch before the stream: the stream's batch ids start at 1
        pre = (np.array([0, 0]), np.array([0, 2]), np.array([1, 3]))
        ics = [
            IncrementalConnectivity(STREAM_N, device=device, algorithm=algorithm) for _ in range(2)
        ]
        for ic in ics:
            ic.process(*pre)
        ref = _per_slice(ics[0], kind, ops, u, v, size)
        got = (
            ics[1].insert_batches(u, v, size)
            if kind == "insert"
            else ics[1].process_batches(ops, u, v, size)
        )
        assert isinstance(got, np.ndarray) and got.dtype == bool and got.shape == (STREAM_M,)
        a, b = ics
        nb = -(-STREAM_M // size)
        assert b.num_batches == a.num_batches == 1 + nb
        assert (b.num_nodes, b.num_components) == (a.num_nodes, a.num_components)
        np.testing.assert_array_equal(_host(b.labels()), _host(a.labels()))
        np.testing.assert_array_equal(got[~ins], ref[~ins])  # queries
        _check_stream_forest(b, 1, min(size, STREAM_M), u, v, ins, got)
        src = [pre[1][:2], u[ins]]
        dst = [pre[2][:2], v[ins]]
        _check_against_oracle(b, src, dst, STREAM_N)
        if device == "cpu":  # sequential: the very same state
            np.testing.assert_array_equal(got, ref)
            ea, eb = a._engine.export(a.num_nodes), b._engine.export(b.num_nodes)
            for name in ea:
                np.testing.assert_array_equal(ea[name], eb[name])
        else:  # which insert wins may differ; how many win per batch may not
            for lo in range(0, STREAM_M, size):
                s = slice(lo, lo + size)
                assert int(got[s][ins[s]].sum()) == int(ref[s][ins[s]].sum())


def test_empty_streams(device: str) -> None:
    ic = IncrementalConnectivity(4, device=device)
    ic.insert([0], [1])
    assert _host(ic.insert_batches([], [], 3)).tolist() == []
    assert _host(ic.process_batches([], [], [], 1)).tolist() == []
    assert (ic.num_batches, ic.num_nodes, ic.num_components) == (1, 4, 3)


@pytest.mark.parametrize("size", [0, -3, 2.5, True, "4", None, np.int64(0)])
def test_bad_batch_size_changes_nothing(device: str, size) -> None:
    ic = IncrementalConnectivity(device=device)
    ic.insert([0, 2], [1, 3])
    err = _assert_unchanged(ic, lambda: ic.insert_batches([0, 1], [4, 5], size))
    assert "`batch_size`" in str(err) and repr(size) in str(err)
    err = _assert_unchanged(ic, lambda: ic.process_batches([0, 1], [4, 5], [6, 7], size))
    assert "`batch_size`" in str(err)


def test_stream_errors_name_argument_and_position() -> None:
    ic = IncrementalConnectivity(device="cpu")
    with pytest.raises(InvalidGraphError, match=r"`dst`: vertex id -3 at position 5"):
        ic.insert_batches([0, 1, 2, 3, 4, 5], [1, 2, 3, 4, 5, -3], 2)
    with pytest.raises(InvalidGraphError, match=r"`ops`: code 7 at position 4"):
        ic.process_batches([0, 1, 0, 0, 7], [0, 1, 2, 3, 4], [0, 1, 2, 3, 4], 2)
    with pytest.raises(InvalidGraphError, match=r"differ in length"):
        ic.insert_batches([0, 1], [1], 1)
    assert ic.num_batches == 0 and ic.num_nodes == 0


def test_stream_grows_once_for_the_largest_id(device: str) -> None:
    ic = IncrementalConnectivity(3, device=device)
    cap = ic.capacity
    u = np.array([0, 1, cap + 7, 4 * cap, 2])
    v = np.array([1, 2, 0, cap + 7, 4 * cap - 1])
    want_cap = plan_capacity(cap, ic.index_dtype, 4 * cap + 1)[0]
    grown = []
    resize = ic._engine.resize
    ic._engine.resize = lambda c, d: (grown.append(c), resize(c, d))
    got = _host(ic.insert_batches(u, v, 2))
    assert grown == [want_cap] and ic.capacity == want_cap
    assert got.tolist() == [True, True, True, True, True]
    assert ic.num_nodes == 4 * cap + 1 and ic.num_batches == 3
    _check_against_oracle(ic, [u], [v], ic.num_nodes)


def test_stream_int64_ids(device: str) -> None:
    ic = IncrementalConnectivity(device=device, options=Options(int32_capacity=3000))
    u = np.array([1, 2, 2999, 7, 4000], np.int64)
    v = np.array([2, 2999, 5000, 8, 1], np.int64)
    ops = np.array([0, 0, 0, 1, 1], np.int8)
    got = _host(ic.process_batches(ops, u, v, 2))
    assert ic.index_dtype == np.int64 and ic.num_batches == 3
    assert got.tolist() == [True, True, True, False, False]
    got = _host(ic.process_batches(np.array([1, 1]), np.array([5000, 3]), np.array([1, 3]), 5))
    assert got.tolist() == [True, True]
    _check_against_oracle(ic, [u[:3]], [v[:3]], 5001)


# --------------------------------------------------------------------------- GPU only
GPU_ONLY = [pytest.param(a, marks=pytest.mark.gpu) for a in GPU_ALGS]


class _Engine:
    """The GPU incremental engine driven directly with ``options``, as the public class
    drives it (ids in the state's type, int8 op codes, a batch id per call or slice);
    a fixed vertex count, so the state never grows."""

    def __init__(self, n: int, algorithm: str, options: Options, dtype=np.int32) -> None:
        from concomp._gpu.incremental import IncrementalEngine

        self.n, self.num_batches = n, 0
        self.eng = IncrementalEngine(resolve_variant(algorithm), n, dtype, options)
        self.index_dtype = self.eng.dtype

    def _ids(self, ops, u, v):
        import cupy as cp

        dt = self.eng.dtype
        return (
            None if ops is None else cp.asarray(ops, np.int8),
            cp.asarray(u, dt),
            cp.asarray(v, dt),
        )

    def insert(self, u, v):
        return self.process(None, u, v)

    def process(self, ops, u, v):
        ops, u, v = self._ids(ops, u, v)
        out = self.eng.run("insert" if ops is None else "mixed", ops, u, v, self.num_batches)
        self.num_batches += 1
        return out

    def insert_batches(self, u, v, size: int):
        return self.process_batches(None, u, v, size)

    def process_batches(self, ops, u, v, size: int):
        ops, u, v = self._ids(ops, u, v)
        m = int(u.shape[0])
        size = min(size, max(m, 1))
        out = self.eng.run_stream(
            "insert" if ops is None else "mixed", ops, u, v, self.num_batches, size
        )
        self.num_batches += -(-m // size)
        return out

    @property
    def num_components(self) -> int:
        return self.n - self.eng.num_links()

    def labels(self):
        from concomp._gpu.components import canonical_labels

        return canonical_labels(self.eng.roots(self.n))[1]

    def component_sizes(self):
        return self.eng.xp.bincount(self.labels(), minlength=self.num_components)

    def spanning_forest(self) -> SpanningForest:
        src, dst, batch, pos = self.eng.forest(self.n)
        return SpanningForest(
            src=src,
            dst=dst,
            edge_ids=pos,
            num_nodes=self.n,
            num_components=self.num_components,
            batch_ids=batch,
        )


def _passes(passes: str) -> Options:
    """Options making every GPU insert batch run in one pass or in two."""
    return Options(two_pass="always" if passes == "two" else "never")


@pytest.mark.parametrize("passes", ["one", "two"])
@pytest.mark.parametrize("algorithm", GPU_ONLY)
def test_gpu_batches_match_cpu(algorithm: str, passes: str) -> None:
    rng = np.random.default_rng(13)
    # about one edge per vertex: many components, so a skipped insert shows in the labels
    n, m = 20_000, 20_000
    g = _Engine(n, algorithm, _passes(passes))
    c = IncrementalConnectivity(n, device="cpu")
    src, dst = [], []
    for k in range(4):
        u, v = rng.integers(0, n // 2 + k * n // 8, m), rng.integers(0, n, m)
        if k % 2:  # mixed batches: the insert kernel skips queries, the query kernel follows
            ops = (rng.random(m) < 0.3).astype(np.int8)
            got, want = _host(g.process(ops, u, v)), c.process(ops, u, v)
        else:
            ops = np.zeros(m, np.int8)
            got, want = _host(g.insert(u, v)), c.insert(u, v)
        q = ops == 1
        np.testing.assert_array_equal(got[q], want[q])
        assert int(got[~q].sum()) == int(want[~q].sum())
        src.append(u[~q])
        dst.append(v[~q])
        _check_against_oracle(g, src, dst, n)
        f = g.spanning_forest()
        mine = _host(f.batch_ids) == k  # hook positions are positions in the batch
        pos = _host(f.edge_ids)[mine]
        assert np.all(got[pos]) and np.all(~q[pos])
        np.testing.assert_array_equal(_host(f.src)[mine], u[pos])


def _grid_batch(rng, side: int):
    """Both directions of every edge of a side x side grid with permuted ids, sorted by
    source (CSR order, as the incremental benchmark inserts the suite graphs)."""
    ids = rng.permutation(side * side).reshape(side, side)
    a = np.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    b = np.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    keep = rng.random(a.shape[0]) < 0.6  # holes: many components
    u, v = np.concatenate([a[keep], b[keep]]), np.concatenate([b[keep], a[keep]])
    order = np.lexsort((v, u))
    return u[order], v[order]


@pytest.mark.parametrize("passes", ["one", "two"])
@pytest.mark.parametrize("index", ["int32", "int64"])
@pytest.mark.parametrize("algorithm", GPU_ONLY)
def test_gpu_symmetric_batch_in_csr_order(algorithm: str, index: str, passes: str) -> None:
    """A whole symmetric graph as one batch (the two-pass case), then a second batch
    into the same state, checked against SciPy and the CPU engine; 32- and 64-bit state."""
    rng = np.random.default_rng(41)
    side = 150
    n = side * side
    g = _Engine(n, algorithm, _passes(passes), np.dtype(index))
    assert g.index_dtype == np.dtype(index)
    c = IncrementalConnectivity(n, device="cpu")
    src, dst = [], []
    for k in range(2):
        u, v = _grid_batch(rng, side)
        got, want = _host(g.insert(u, v)), c.insert(u, v)
        assert int(got.sum()) == int(want.sum())
        src.append(u)
        dst.append(v)
        _check_against_oracle(g, src, dst, n)
        f = g.spanning_forest()
        mine = _host(f.batch_ids) == k
        pos = _host(f.edge_ids)[mine]
        assert np.all(got[pos]) and int(mine.sum()) == int(got.sum())
        np.testing.assert_array_equal(_host(f.src)[mine], u[pos])
        np.testing.assert_array_equal(_host(f.dst)[mine], v[pos])
    np.testing.assert_array_equal(_host(g.labels()), c.labels())


def test_link_slots_match_the_kernels() -> None:
    """The host sums as many link counters as the kernels spread their atomics over."""
    import re

    import concomp._gpu.incremental as gi
    from concomp._gpu._compile import source_text

    for name in ("LINK_SLOTS", "LINK_STRIDE"):
        found = re.search(rf"#define {name} (\d+)", source_text("incremental.cu"))
        assert found is not None and int(found.group(1)) == getattr(gi, name)


@pytest.mark.parametrize("mode", ["persistent", "graph", "launches"])
@pytest.mark.parametrize("algorithm", GPU_ONLY)
def test_gpu_streams_stay_on_the_device_and_match_cpu(algorithm: str, mode: str) -> None:
    import cupy as cp

    # batches this small run persistent unless told otherwise
    options = Options(
        stream_graphs=mode == "graph",
        stream_persistent_max=DEFAULTS.stream_persistent_max if mode == "persistent" else 0,
    )
    rng = np.random.default_rng(17)
    # 71 batches (the last of one entry): three replays of 32 steps, 25 of them idle
    n, m = 5000, 70_001
    g = _Engine(n, algorithm, options)
    c = IncrementalConnectivity(n, device="cpu")
    for kind in ("insert", "mixed", "insert"):
        ops, u, v = _stream_arrays(rng, n, m)
        if kind == "insert":
            got = g.insert_batches(cp.asarray(u), cp.asarray(v), 1000)
            want = c.insert_batches(u, v, 1000)
            ins = np.ones(m, bool)
        else:
            got = g.process_batches(cp.asarray(ops), cp.asarray(u), cp.asarray(v), 1000)
            want = c.process_batches(ops, u, v, 1000)
            ins = ops == 0
        assert isinstance(got, cp.ndarray)
        got = got.get()
        np.testing.assert_array_equal(got[~ins], want[~ins])
        for lo in range(0, m, 1000):
            s = slice(lo, lo + 1000)
            assert int(got[s][ins[s]].sum()) == int(want[s][ins[s]].sum())
        first = g.num_batches - 71
        assert g.num_batches == c.num_batches
        _check_stream_forest(g, first, 1000, u, v, ins, got)
        np.testing.assert_array_equal(g.labels().get(), c.labels())
        assert g.num_components == c.num_components


@pytest.mark.parametrize("algorithm", GPU_ONLY)
def test_gpu_persistent_stream_with_several_entries_per_thread(algorithm: str) -> None:
    """Batches larger than the resident grid: threads loop within a batch between barriers."""
    rng = np.random.default_rng(29)
    n, size = 200_000, 400_000  # more entries per batch than an H100 keeps resident threads
    assert size <= DEFAULTS.stream_persistent_max
    g = IncrementalConnectivity(n, device="gpu", algorithm=algorithm)
    c = IncrementalConnectivity(n, device="cpu")
    for kind in ("insert", "mixed"):
        ops, u, v = _stream_arrays(rng, n, 2 * size + 12_345)  # a short last batch
        if kind == "insert":
            got, want, ins = (
                _host(g.insert_batches(u, v, size)),
                c.insert_batches(u, v, size),
                np.ones(u.shape[0], bool),
            )
        else:
            got, want = (
                _host(g.process_batches(ops, u, v, size)),
                c.process_batches(ops, u, v, size),
            )
            ins = ops == 0
        np.testing.assert_array_equal(got[~ins], want[~ins])
        for lo in range(0, u.shape[0], size):
            s = slice(lo, lo + size)
            assert int(got[s][ins[s]].sum()) == int(want[s][ins[s]].sum())
        _check_stream_forest(g, g.num_batches - 3, size, u, v, ins, got)
        np.testing.assert_array_equal(_host(g.labels()), c.labels())
