"""The CPU engine's NumPy answer to ``algorithm="auto"`` before numba is loaded.

The roots must be the compiled kernels' (smallest vertex id per component), the
forests spanning forests and the minimum spanning forests Kruskal's edge sets, on
every zoo graph and high-diameter shape, for edge lists and CSR graphs, int32 and int64
ids; the gates (kernels loaded, size, seconds spent,
rounds) must hand the graph to the compiled kernels; and a fresh process must answer
its first small calls without numba.
"""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import concomp
from concomp._cpu import numpy_start as nr
from concomp.options import DEFAULTS, Options
from concomp.testing import assert_spanning_forest, graph_zoo
from concomp.testing.adversarial import high_diameter_graphs
from concomp.testing.oracles import reference_components

SRC = str(Path(__file__).resolve().parents[1] / "src")


def _smallest_ids(src, dst, n):
    _, labels = reference_components(src, dst, n)
    first = np.full(labels.max() + 1 if n else 0, n, np.int64)
    np.minimum.at(first, labels, np.arange(n))
    return first[labels]


def _shapes():
    shapes = dict(graph_zoo(seed=5))
    shapes.update({f"hd4k_{k}": g for k, g in high_diameter_graphs(1 << 12, seed=2).items()})
    return shapes


SHAPES = _shapes()


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_roots_are_the_smallest_ids_on_every_shape(name, dtype):
    src, dst, n = SHAPES[name]
    got = nr._roots(src.astype(dtype), dst.astype(dtype), n)
    assert got is not None
    np.testing.assert_array_equal(got, _smallest_ids(src, dst, n))


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("layout", ["pairs", "csr"])
def test_scipys_roots_are_the_smallest_ids_on_every_shape(name, dtype, layout):
    src, dst, n = SHAPES[name]
    g = concomp.Graph.from_edges(src.astype(dtype), dst.astype(dtype), num_nodes=n)
    if layout == "csr":
        indptr, indices, _ = g.csr()
        g = concomp.Graph.from_csr(indptr, indices)
        assert not g.has_coo
    got = nr._scipy_roots(g)
    np.testing.assert_array_equal(got, _smallest_ids(src, dst, n))
    assert got.dtype == np.int32
    if layout == "csr":
        assert not g.has_coo  # the rows were read as held, never expanded


def test_scipy_answers_once_its_import_is_paid(monkeypatch):
    """SciPy's csgraph answers from the first call where the process has it (as here),
    and after NumPy runs that cost what its import would where it has not."""
    src, dst, n = SHAPES["gnm_2000_2000"]
    g = concomp.Graph.from_edges(src, dst, num_nodes=n)
    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", 0.0)
    calls = []
    real = nr._scipy_roots
    monkeypatch.setattr(nr, "_scipy_roots", lambda graph: calls.append(1) or real(graph))
    np.testing.assert_array_equal(nr.numpy_roots(g, DEFAULTS), _smallest_ids(src, dst, n))
    assert calls == [1]  # csgraph is loaded in this process: no rent to pay
    rents = {"scipy.sparse.csgraph": 1.0, "scipy.sparse": 1.0}
    monkeypatch.setattr(nr, "SCIPY_RENT_SECONDS", rents)  # as if the import cost a second
    monkeypatch.setattr(nr, "_spent", 0.0)
    np.testing.assert_array_equal(nr.numpy_roots(g, DEFAULTS), _smallest_ids(src, dst, n))
    assert calls == [1]  # NumPy's rounds answered
    monkeypatch.setattr(nr, "_spent", 0.4)
    nr.numpy_roots(g, DEFAULTS)
    assert calls == [1]
    rents["scipy.sparse.csgraph"] = 0.3
    nr.numpy_roots(g, DEFAULTS)
    assert calls == [1, 1]  # spent 0.4 >= 0.3
    monkeypatch.setattr(nr, "SCIPY_RENT_SECONDS", {"concomp._not_a_module": 0.0})
    nr.numpy_roots(g, DEFAULTS)
    assert calls == [1, 1]  # no module of the table loaded: the NumPy rounds


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_forests_span_every_shape(name, dtype):
    src, dst, n = SHAPES[name]
    ids, count = nr._forest(src.astype(dtype), dst.astype(dtype), n)
    assert ids.dtype == np.int64 and np.all(np.diff(ids) > 0)
    forest = concomp.SpanningForest(
        src=src[ids], dst=dst[ids], edge_ids=ids, num_nodes=n, num_components=count
    )
    assert_spanning_forest(concomp.Graph.from_edges(src, dst, num_nodes=n), forest)


def _weights(kind, m, rng):
    if kind == "none":
        return None
    if kind == "ties":
        return rng.integers(0, 3, m)
    if kind == "int":
        return rng.integers(-(2**40), 2**40, m)
    w = rng.standard_normal(m)
    w[::7] = -0.0
    w[::11] = np.inf
    return w


@pytest.mark.parametrize("name", list(SHAPES))
@pytest.mark.parametrize("maximum", [False, True])
def test_minimum_spanning_forests_are_kruskals_edge_sets(name, maximum):
    from concomp._cpu.msf import weight_keys
    from concomp._cpu.msf_kruskal import kruskal

    src, dst, n = SHAPES[name]
    rng = np.random.default_rng(len(name))
    for kind in ("none", "ties", "int", "float"):
        key = weight_keys(_weights(kind, src.shape[0], rng), src.shape[0], maximum)
        for dtype in (np.int32, np.int64):
            got = nr._msf(src.astype(dtype), dst.astype(dtype), key, n)
            np.testing.assert_array_equal(got, kruskal(src, dst, key, n))


def test_float_keys_of_numpy_and_the_kernel_agree(monkeypatch):
    from concomp._cpu import msf

    w = np.random.default_rng(1).standard_normal(5000)
    w[::3] = -w[::3]
    w[::13] = -0.0
    w[::17] = np.inf
    w[::19] = -np.inf
    small = msf.weight_keys(w, w.shape[0])
    monkeypatch.setattr(msf, "_NUMPY_KEYS_UP_TO", 0)
    np.testing.assert_array_equal(small, msf.weight_keys(w, w.shape[0]))


def test_small_csr_rows_expand_as_the_compiled_kernel_does(monkeypatch):
    from concomp import graph as graph_module
    from concomp._shared.csr import expand_rows

    src, dst, n = SHAPES["gnm_3000_12000"]
    indptr, indices, _ = concomp.Graph.from_edges(src, dst, num_nodes=n).csr()
    for limit in (1 << 62, 0):  # numpy.repeat, then the kernel
        monkeypatch.setattr(graph_module, "_REPEAT_ROWS_UP_TO", limit)
        rows, cols = concomp.Graph.from_csr(indptr, indices).coo()
        np.testing.assert_array_equal(rows, expand_rows(indptr, indices.dtype))
        assert rows.dtype == indices.dtype
        np.testing.assert_array_equal(cols, indices)


@pytest.mark.parametrize("name", ["grid_20x20", "reversed_path", "two_cliques", "isolated"])
def test_csr_graphs_expand_their_rows_without_compiled_code(name, monkeypatch):
    src, dst, n = SHAPES[name]
    g = concomp.Graph.from_edges(src, dst, num_nodes=n)
    indptr, indices, _ = g.csr()
    csr = concomp.Graph.from_csr(indptr, indices)
    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", 0.0)
    np.testing.assert_array_equal(nr.numpy_roots(csr, DEFAULTS), _smallest_ids(src, dst, n))
    ids, count = nr.numpy_forest(csr, DEFAULTS)
    rows, cols = csr.coo()  # edge ids number the CSR's entries
    forest = concomp.SpanningForest(
        src=rows[ids], dst=cols[ids], edge_ids=ids, num_nodes=n, num_components=count
    )
    assert_spanning_forest(csr, forest)


def test_graphs_the_start_takes_are_numbered_without_the_parallel_kernel():
    from concomp._cpu.components import PARALLEL_LABELS_FROM

    assert nr.MAX_NODES < PARALLEL_LABELS_FROM  # else the labels would load numba anyway


def test_gates_hand_the_graph_to_the_compiled_kernels(monkeypatch):
    src, dst, n = SHAPES["gnm_2000_2000"]
    g = concomp.Graph.from_edges(src, dst, num_nodes=n)
    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", 0.0)
    assert nr.numpy_roots(g, DEFAULTS) is not None
    assert nr._spent > 0.0  # the run's seconds are counted
    monkeypatch.setattr(nr, "_spent", nr.RENT_SECONDS)
    assert nr.numpy_roots(g, DEFAULTS) is None  # the seconds are spent
    monkeypatch.setattr(nr, "_spent", 0.0)
    monkeypatch.setattr(nr, "MAX_EDGES", g.num_edges - 1)
    assert nr.numpy_roots(g, DEFAULTS) is None  # too many edges
    monkeypatch.setattr(nr, "MAX_EDGES", 1 << 20)
    monkeypatch.setattr(nr, "_KERNELS", "numpy")
    assert nr.numpy_roots(g, DEFAULTS) is None  # "the kernels are loaded"
    assert nr.numpy_forest(g, DEFAULTS) is None
    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", nr.RENT_SECONDS)
    assert nr.numpy_forest(g, DEFAULTS) is None
    assert nr.numpy_msf(g, np.zeros(g.num_edges, np.uint64), DEFAULTS) is None
    monkeypatch.setattr(nr, "_spent", 0.0)
    assert nr.numpy_msf(g, np.zeros(g.num_edges, np.uint64), DEFAULTS) is not None
    monkeypatch.setattr(nr, "MSF_MAX_EDGES", g.num_edges - 1)  # MSFs stop earlier
    assert nr.numpy_msf(g, np.zeros(g.num_edges, np.uint64), DEFAULTS) is None
    assert nr.numpy_roots(g, DEFAULTS) is not None
    off = Options(numpy_start=False)  # the option turns it off (warmup compiles this way)
    assert nr.numpy_roots(g, off) is None and nr.numpy_forest(g, off) is None
    assert nr.numpy_msf(g, np.zeros(g.num_edges, np.uint64), off) is None


def _stream(src, dst, n, cuts, options=DEFAULTS):
    """A CPU Streamer fed the edges in chunks ending at ``cuts``; the engine and roots."""
    from concomp._cpu.streaming import Streamer, default_variant

    eng = Streamer(n, default_variant(), options)
    for a, b in itertools.pairwise([0, *cuts, src.shape[0]]):
        eng.add(src[a:b], dst[a:b], lambda lo, hi: None)
    return eng, eng.roots()


@pytest.mark.parametrize("name", ["gnm_3000_12000", "hd_path_descending", "star_tail", "empty"])
@pytest.mark.parametrize("given_n", [True, False])
def test_a_stream_starts_with_numpy_and_switches_to_the_kernels(name, given_n, monkeypatch):
    """Chunks go through NumPy while the gates are open; a chunk they close on (here:
    too many edges) switches the stream to the kernels, which take the parents as
    they are; the roots are the smallest ids either way."""
    src, dst, n = SHAPES[name]
    want = _smallest_ids(src, dst, n)
    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", 0.0)
    quarters = [src.shape[0] * k // 4 for k in (1, 2, 3)]
    eng, roots = _stream(src, dst, n if given_n else None, quarters)
    assert eng.numpy
    top = int(max(src.max(), dst.max())) + 1 if src.size else 0
    assert roots.shape[0] == (n if given_n else top)
    np.testing.assert_array_equal(roots, want[: roots.shape[0]])
    # a first chunk of 8 edges through NumPy, then one the gates refuse: the kernels
    monkeypatch.setattr(nr, "MAX_EDGES", 8)
    eng, roots = _stream(src, dst, n, [min(8, src.shape[0])])
    assert eng.numpy == (src.shape[0] <= 8)
    np.testing.assert_array_equal(roots, want)
    monkeypatch.setattr(nr, "MAX_EDGES", 1 << 20)
    eng, roots = _stream(src, dst, n, quarters, Options(numpy_start=False))
    assert not eng.numpy
    np.testing.assert_array_equal(roots, want)


def test_a_stream_chunk_past_the_round_limit_goes_to_the_kernels(monkeypatch):
    rng = np.random.default_rng(3)
    order = rng.permutation(1 << 12)
    src, dst, n = order[:-1], order[1:], 1 << 12
    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", 0.0)
    monkeypatch.setattr(nr, "round_limit", lambda n: 1)
    eng, roots = _stream(src, dst, n, [src.shape[0] // 2])
    assert not eng.numpy
    np.testing.assert_array_equal(roots, _smallest_ids(src, dst, n))


def test_a_run_past_its_round_limit_gives_up():
    rng = np.random.default_rng(0)
    order = rng.permutation(1 << 12)  # a path with shuffled ids needs several rounds
    src, dst = order[:-1], order[1:]
    assert nr._roots(src, dst, 1 << 12) is not None
    limit = nr.round_limit
    try:
        nr.round_limit = lambda n: 1
        assert nr._roots(src, dst, 1 << 12) is None
        assert nr._forest(src, dst, 1 << 12) is None
        assert nr._msf(src, dst, np.zeros(src.shape[0], np.uint64), 1 << 12) is None
    finally:
        nr.round_limit = limit


_CHILD = r"""
import json, sys
import numpy as np
import concomp
rng = np.random.default_rng(1)
n, m = 20000, 60000
src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
mode = sys.argv[1]
out = {}
if mode == "auto":
    count, labels = concomp.connected_components((src, dst), num_nodes=n, device="cpu")
    out["first"] = [int(count), labels.tolist(), "numba" in sys.modules]
    f = concomp.spanning_forest((src, dst), num_nodes=n, device="cpu")
    out["forest"] = [f.edge_ids.tolist(), f.num_components, "numba" in sys.modules]
    w = rng.integers(0, 5, m)
    msf = concomp.minimum_spanning_forest((src, dst), w, device="cpu")
    out["msf"] = [msf.edge_ids.tolist(), "numba" in sys.modules]
    pieces = [(src[:30000], dst[:30000]), (src[30000:], dst[30000:])]
    count, labels = concomp.stream_components(pieces, device="cpu")
    out["stream"] = [int(count), labels.tolist(), "numba" in sys.modules]
    ic = concomp.IncrementalConnectivity(n, device="cpu")
    joined = ic.insert(src, dst)
    out["insert"] = [np.flatnonzero(joined).tolist(), "numba" in sys.modules]
    from concomp._cpu import numpy_start as nr
    calls = 1
    while "numba" not in sys.modules and calls < 10000:
        concomp.connected_components((src, dst), num_nodes=n, device="cpu")
        calls += 1
    out["loaded_after"] = [calls, nr._spent >= nr.RENT_SECONDS]
    count, labels = concomp.connected_components((src, dst), num_nodes=n, device="cpu")
    out["compiled"] = [int(count), labels.tolist()]
elif mode.startswith("warmup"):
    concomp.warmup(device="cpu", what=[mode.split(":")[1]])
    out["loaded"] = sorted(k for k in sys.modules if k.startswith("concomp._cpu."))
elif mode == "insert-explicit":
    ic = concomp.IncrementalConnectivity(n, device="cpu", algorithm="none-rem_cas-halve-coo")
    ic.insert(src, dst)
    out["explicit_loads_numba"] = "numba" in sys.modules
elif mode == "stream-explicit":
    concomp.stream_components([(src, dst)], n, device="cpu", algorithm="none-rem_cas-splice-coo")
    out["explicit_loads_numba"] = "numba" in sys.modules
else:
    concomp.connected_components((src, dst), num_nodes=n, device="cpu", algorithm=mode)
    out["explicit_loads_numba"] = "numba" in sys.modules
print(json.dumps(out))
"""


def _child(mode: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", _CHILD, mode],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": SRC},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_fresh_process_answers_small_calls_without_numba_until_the_rent_is_spent():
    out = _child("auto")
    rng = np.random.default_rng(1)
    src, dst = rng.integers(0, 20000, 60000), rng.integers(0, 20000, 60000)
    want = reference_components(src, dst, 20000)
    count, labels, numba_loaded = out["first"]
    assert not numba_loaded
    assert count == want[0] and labels == want[1].tolist()
    ids, components, numba_loaded = out["forest"]
    assert not numba_loaded and components == want[0]
    ids = np.asarray(ids, np.int64)
    forest = concomp.SpanningForest(
        src=src[ids], dst=dst[ids], edge_ids=ids, num_nodes=20000, num_components=components
    )
    assert_spanning_forest(concomp.Graph.from_edges(src, dst, num_nodes=20000), forest)
    msf_ids, numba_loaded = out["msf"]
    assert not numba_loaded
    w = rng.integers(0, 5, 60000)
    want_msf = concomp.minimum_spanning_forest((src, dst), w, device="cpu", algorithm="kruskal")
    assert msf_ids == want_msf.edge_ids.tolist()
    count, labels, numba_loaded = out["stream"]
    assert not numba_loaded and count == want[0] and labels == want[1].tolist()
    joined, numba_loaded = out["insert"]
    assert not numba_loaded
    kruskal = concomp.minimum_spanning_forest(  # by position: the inserts that join
        (src, dst), np.arange(60000), device="cpu", algorithm="kruskal"
    )
    assert joined == kruskal.edge_ids.tolist()
    calls, spent = out["loaded_after"]
    assert calls > 1 and spent  # numba came in once the NumPy runs had cost RENT_SECONDS
    assert out["compiled"] == [want[0], want[1].tolist()]


@pytest.mark.parametrize("mode", ["none-rem_cas-splice-coo", "stream-explicit", "insert-explicit"])
def test_an_explicit_algorithm_runs_its_compiled_kernels_at_once(mode):
    assert _child(mode)["explicit_loads_numba"]


@pytest.mark.parametrize(
    "what, kernels",
    [
        ("components", "unionfind"),
        ("forest", "unionfind"),
        ("msf", "msf_kruskal"),
        ("streaming", "unionfind"),
        ("incremental", "incremental_kernels"),
    ],
)
def test_warmup_compiles_the_kernels_rather_than_answering_with_numpy(what, kernels):
    assert f"concomp._cpu.{kernels}" in _child(f"warmup:{what}")["loaded"]


def _incremental_session(ic) -> dict:
    """Every kind of batch on ``ic``, and everything it reports after them."""
    rng = np.random.default_rng(7)
    n = 3000
    src, dst = rng.integers(0, n, 2500), rng.integers(0, n, 2500)
    src[:40] = dst[:40]  # self loops join nothing
    out = {"insert": ic.insert(src[:1000], dst[:1000]).tolist()}
    out["connected"] = ic.connected(src[1000:1400], dst[1000:1400]).tolist()
    ops = rng.integers(0, 2, 600)
    out["process"] = ic.process(ops, src[1000:1600], dst[1000:1600]).tolist()
    out["batches"] = ic.insert_batches(src[1600:2300], dst[1600:2300], 64).tolist()
    out["mixed_batches"] = ic.process_batches(
        rng.integers(0, 2, 200), src[2300:], dst[2300:], 16
    ).tolist()
    out["find"] = ic.find(np.arange(n)).tolist()
    out["labels"] = ic.labels().tolist()
    out["components"] = ic.num_components
    f = ic.spanning_forest()
    out["forest"] = [f.src.tolist(), f.dst.tolist(), f.batch_ids.tolist(), f.edge_ids.tolist()]
    out["num_batches"] = ic.num_batches
    return out


def test_incremental_batches_with_numpy_equal_the_compiled_rule(monkeypatch):
    """Every batch kind answered with NumPy (and the switch to the kernels that mixed
    batches of batches make) gives what the compiled rule gives, the forest included."""
    from concomp.incremental import IncrementalConnectivity

    want = _incremental_session(
        IncrementalConnectivity(device="cpu", options=Options(numpy_start=False))
    )
    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", 0.0)
    ic = IncrementalConnectivity(device="cpu")
    assert ic._engine.numpy
    assert _incremental_session(ic) == want
    assert not ic._engine.numpy  # the mixed batches of batches loaded the kernels


@pytest.mark.parametrize("stop", ["rent", "rounds"])
def test_incremental_switches_to_the_kernels_midway_with_the_same_answers(monkeypatch, stop):
    from concomp.incremental import IncrementalConnectivity

    rng = np.random.default_rng(3)
    order = rng.permutation(4096)  # a shuffled path: several rounds
    src, dst = order[:-1], order[1:]
    want = IncrementalConnectivity(device="cpu", options=Options(numpy_start=False))
    want_joined = [want.insert(src[:2000], dst[:2000]), want.insert(src[2000:], dst[2000:])]
    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", 0.0)
    ic = IncrementalConnectivity(device="cpu")
    first = ic.insert(src[:2000], dst[:2000])
    assert ic._engine.numpy
    if stop == "rent":
        monkeypatch.setattr(nr, "_spent", nr.RENT_SECONDS)
    else:
        monkeypatch.setattr(nr, "round_limit", lambda n: 1)
    second = ic.insert(src[2000:], dst[2000:])
    assert not ic._engine.numpy
    np.testing.assert_array_equal(first, want_joined[0])
    np.testing.assert_array_equal(second, want_joined[1])
    np.testing.assert_array_equal(ic.labels(), want.labels())
    got, exp = ic.spanning_forest(), want.spanning_forest()
    for a in ("src", "dst", "batch_ids", "edge_ids"):
        np.testing.assert_array_equal(getattr(got, a), getattr(exp, a))


def test_incremental_state_saved_from_numpy_loads_into_the_kernels(monkeypatch, tmp_path):
    from concomp.incremental import IncrementalConnectivity

    monkeypatch.setattr(nr, "_KERNELS", "concomp._not_a_module")
    monkeypatch.setattr(nr, "_spent", 0.0)
    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 500, 700), rng.integers(0, 500, 700)
    ic = IncrementalConnectivity(device="cpu")
    ic.insert(src[:400], dst[:400])
    ic.save(tmp_path / "state")
    back = IncrementalConnectivity.load(tmp_path / "state")
    later = back.insert(src[400:], dst[400:])
    np.testing.assert_array_equal(later, ic.insert(src[400:], dst[400:]))
    np.testing.assert_array_equal(back.labels(), ic.labels())
