"""Strongly connected components: every algorithm of both engines against SciPy.

CPU algorithms are compared with SciPy's partition (``scipy_strong_roots``: each
vertex's smallest strongly connected vertex, which is what the engines return);
GPU algorithms (marked ``gpu``) with the CPU Tarjan search.
"""

from __future__ import annotations

import textwrap

import numba
import numpy as np
import pytest
import scipy.sparse as sp

import concomp
from concomp import Graph
from concomp._dispatch import driver
from concomp._engine import SCC_ALGORITHMS
from concomp.errors import InvalidGraphError, InvalidVariantError
from concomp.options import DEFAULTS, Options
from concomp.testing import graph_zoo, scipy_strong_roots
from concomp.testing.adversarial import high_diameter_digraphs
from hang_guard import run_json_child

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

ZOO = graph_zoo()
#: The high-diameter shapes of the large-graph tests (the grid's side is not n's).
HD = ("ring_ascending", "ring_descending", "lanes_descending")
CPU = SCC_ALGORITHMS["cpu"]
GPU = SCC_ALGORITHMS["gpu"]
WIDE = Options(index_dtype="int64")
DIRECTED_REAL = (
    "road_rome99_dimacs.gr.gz",
    "cit_arxiv-hep-ph_snap.txt.gz",
    "cit_arxiv-hep-th_snap.txt.gz",
    "soc_wiki-vote_snap.txt.gz",
    "weighted_soc-sign-bitcoinotc.csv.gz",
)


def _with_back_arcs(src, dst):
    """Every other arc also reversed: the zoo's shapes then hold cycles of every size."""
    return np.r_[src, dst[::2]], np.r_[dst, src[::2]]


def _zoo_cases():
    for name, (src, dst, n) in ZOO.items():
        yield pytest.param(src, dst, n, id=f"{name}-arcs")
        yield pytest.param(*_with_back_arcs(src, dst), n, id=f"{name}-back")


def _roots(src, dst, n, device, algorithm, options=DEFAULTS):
    g = Graph.from_edges(src, dst, num_nodes=n, directed=True)
    if device == "gpu":
        g = g.to("gpu")
    out = driver(device, "scc", "scc_labels")(g, algorithm, options)
    return np.asarray(out.get() if hasattr(out, "get") else out)


def _check(src, dst, n, device, algorithm, options=DEFAULTS):
    want = scipy_strong_roots(src, dst, n)
    got = _roots(src, dst, n, device, algorithm, options)
    assert got.shape == (n,)
    mismatch = np.flatnonzero(got != want)
    assert mismatch.size == 0, f"vertex {mismatch[:1]}: {got[mismatch[:5]]} vs {want[mismatch[:5]]}"


# ----------------------------------------------------------------------------- CPU
@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("algorithm", CPU)
@pytest.mark.parametrize(("src", "dst", "n"), list(_zoo_cases()))
def test_cpu_algorithms_on_the_zoo(src, dst, n, algorithm, threads):
    before = numba.get_num_threads()
    numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    try:
        _check(src, dst, n, "cpu", algorithm)
    finally:
        numba.set_num_threads(before)


@st.composite
def directed_graphs(draw, max_n=60):
    n = draw(st.integers(1, max_n))
    m = draw(st.integers(0, 4 * n))
    ids = st.integers(0, n - 1)
    src = np.array(draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    dst = np.array(draw(st.lists(ids, min_size=m, max_size=m)), dtype=np.int64)
    return src, dst, n


@pytest.mark.parametrize("algorithm", CPU)
@given(graph=directed_graphs(), wide=st.booleans())
def test_cpu_algorithms_on_random_digraphs(algorithm, graph, wide):
    src, dst, n = graph
    _check(src, dst, n, "cpu", algorithm, WIDE if wide else DEFAULTS)


@given(graph=directed_graphs(max_n=200), wide=st.booleans())
def test_tarjan_finds_the_same_components_with_the_nearest_successor_first(graph, wide):
    """The search's two successor orders (SciPy's, and the nearest successor first that
    the root labels take on graphs numbered along their geometry) against SciPy."""
    from concomp._cpu.scc import _member_labels, _search

    src, dst, n = graph
    indptr, indices, _ = Graph.from_edges(src, dst, num_nodes=n, directed=True).csr()
    dt = np.int64 if wide else np.int32
    want = scipy_strong_roots(src, dst, n)
    for nearest in (False, True):
        count, rindex, scratch = _search(indptr.astype(dt), indices.astype(dt), nearest)
        roots = _member_labels(rindex, count, scratch, False, rindex.dtype)
        assert roots.dtype == rindex.dtype
        np.testing.assert_array_equal(roots, want, err_msg=f"nearest={nearest}")


@pytest.mark.parametrize("arcs_per_vertex", [0.5, 1.0, 3.0])
def test_labels_from_the_search_on_graphs_the_gather_splits_over_threads(arcs_per_vertex):
    """Graphs large enough for the labels' parallel gather (more than ``SERIAL_BELOW``
    vertices): few giant components, many small ones, and singletons, as roots and as
    canonical labels, against SciPy."""
    from concomp._cpu.components import canonical_labels
    from concomp._cpu.scc import _member_labels, _search

    rng = np.random.default_rng(int(arcs_per_vertex * 10))
    n = 70_000
    m = int(arcs_per_vertex * n)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    indptr, indices, _ = Graph.from_edges(src, dst, num_nodes=n, directed=True).csr()
    want = scipy_strong_roots(src, dst, n)
    count, rindex, scratch = _search(indptr, indices, nearest=False)
    roots = _member_labels(rindex, count, scratch, False, rindex.dtype)
    np.testing.assert_array_equal(roots, want)
    want_count, want_labels = canonical_labels(want)
    labels = _member_labels(rindex, count, scratch, True, np.int32)
    assert count == want_count
    np.testing.assert_array_equal(labels, want_labels)


def test_one_strong_component_is_labelled_without_a_pass():
    """A single component's labels are zeros, as roots and as canonical labels."""
    from concomp._cpu.scc import _member_labels, _search

    n = 50_000
    indptr = np.arange(n + 1, dtype=np.int32)
    indices = np.roll(np.arange(n, dtype=np.int32), -1)  # the cycle 0 -> 1 -> ... -> 0
    count, rindex, scratch = _search(indptr, indices, nearest=True)
    assert count == 1
    for numbered in (False, True):
        out = _member_labels(rindex, count, scratch, numbered, np.int64)
        assert out.dtype == np.int64 and out.shape == (n,) and not out.any()
    cycle = (np.arange(n), np.roll(np.arange(n), -1))
    c, labels = concomp.strongly_connected_components(cycle, num_nodes=n, device="cpu")
    assert c == 1 and labels.shape == (n,) and not labels.any()


@given(graph=directed_graphs(max_n=200), wide=st.booleans(), flip=st.booleans())
def test_arcs_one_way_in_id_order_are_found_exactly(graph, wide, flip):
    """The id-order check against a direct count of the arcs each way, on arbitrary
    digraphs and on their arcs all turned one way (self loops kept)."""
    from concomp._cpu.scc import acyclic_in_id_order

    src, dst, n = graph
    if flip:  # every arc to the larger id, or every one to the smaller
        lo, hi = np.minimum(src, dst), np.maximum(src, dst)
        src, dst = (lo, hi) if n % 2 else (hi, lo)
    indptr, indices, _ = Graph.from_edges(src, dst, num_nodes=n, directed=True).csr()
    dt = np.int64 if wide else np.int32
    want = not (np.any(dst < src) and np.any(dst > src))
    assert acyclic_in_id_order(indptr.astype(dt), indices.astype(dt)) == want


@pytest.mark.parametrize("descending", [False, True])
def test_dags_numbered_along_their_arcs_skip_the_search(descending, monkeypatch):
    """Arcs that all run one way in id order (a chain, a DAG numbered topologically, in
    either direction) leave every vertex a component of its own: the search is not run;
    one arc back across the whole graph closes a cycle and it is."""
    import concomp._cpu.scc as scc

    rng = np.random.default_rng(3)
    n = 200_000  # more rows than a block of the parallel check
    src = rng.integers(0, n - 1, 4 * n)
    dst = src + 1 + rng.integers(0, 50, src.size) % (n - 1 - src)
    src, dst = np.r_[src, np.arange(n - 1)], np.r_[dst, np.arange(1, n)]  # and the chain
    if descending:
        src, dst = n - 1 - src, n - 1 - dst
    g = Graph.from_edges(src, dst, num_nodes=n, directed=True)
    real_search = scc._search

    def no_search(*args, **kwargs):
        raise AssertionError("the search ran on a graph with every arc one way")

    monkeypatch.setattr(scc, "_search", no_search)
    count, labels = concomp.strongly_connected_components(g, device="cpu")
    assert count == n and (labels == np.arange(n)).all()
    monkeypatch.setattr(scc, "_search", real_search)
    a, b = (0, n - 1) if descending else (n - 1, 0)  # from the chain's end to its start
    g = Graph.from_edges(np.r_[src, a], np.r_[dst, b], num_nodes=n, directed=True)
    count, labels = concomp.strongly_connected_components(g, device="cpu")
    assert count == 1 and not labels.any()  # the chain and the arc back: one cycle


def test_one_way_grid_in_row_order_takes_the_nearest_successor_first():
    """The corpus's one-way street grid, ids row by row: numbered along its geometry (the
    locality probe says so), so the root labels' search takes the nearest successor
    first; the same components as SciPy."""
    from concomp._shared.locality import LOCAL_SHARE, host_local_share
    from concomp.generators.corpus import directed_arcs

    src, dst, n = directed_arcs("grid", {"rows": 96, "cols": 130}, 0)
    g = Graph.from_edges(src, dst, num_nodes=n, directed=True)
    assert host_local_share(g) >= LOCAL_SHARE
    _check(src, dst, n, "cpu", "tarjan")


def _shapes(n: int, rng: np.random.Generator) -> dict[str, tuple]:
    """Large directed shapes: chains both ways, a ring (one giant component), a DAG,
    dense cycles, many singletons around a cycle, a chain of 2-cycles."""
    v = np.arange(n)
    perm = rng.permutation(n)
    src = rng.integers(0, n, 4 * n)
    dst = rng.integers(0, n, 4 * n)
    low, high = np.minimum(src, dst), np.maximum(src, dst)
    keep = low != high
    pairs = v[: n - n % 2].reshape(-1, 2)
    cyc = np.arange(0, n, 7)
    return {
        "chain": (v[:-1], v[1:]),
        "chain_reversed": (v[1:], v[:-1]),
        "ring_shuffled": (perm, np.roll(perm, -1)),
        **{name: (g.src, g.dst) for name, g in high_diameter_digraphs(n).items() if name in HD},
        "dag": (low[keep], high[keep]),
        "dense_cycles": (np.r_[v, v], np.r_[(v + 1) % n, (v + 3) % n]),
        "singletons_and_cycle": (np.r_[cyc, v], np.r_[np.roll(cyc, -1), v]),
        "chain_of_2cycles": (
            np.r_[pairs[:, 0], pairs[:, 1], pairs[:-1, 1]],
            np.r_[pairs[:, 1], pairs[:, 0], pairs[1:, 0]],
        ),
    }


LARGE = _shapes(100_000, np.random.default_rng(7))


@pytest.mark.parametrize("algorithm", CPU)
@pytest.mark.parametrize("shape", sorted(LARGE))
def test_cpu_algorithms_on_large_shapes(shape, algorithm):
    src, dst = LARGE[shape]
    _check(src, dst, 100_000, "cpu", algorithm)


@pytest.mark.parametrize("algorithm", CPU)
@pytest.mark.parametrize("shape", sorted(high_diameter_digraphs(64)))
def test_cpu_algorithms_on_high_diameter_digraphs(shape, algorithm):
    src, dst, n = high_diameter_digraphs(1 << 14)[shape]
    _check(src, dst, n, "cpu", algorithm)


def test_high_diameter_digraphs_have_their_components():
    for name, (src, dst, n) in high_diameter_digraphs(256).items():
        roots = scipy_strong_roots(src, dst, n)
        largest = np.bincount(roots).max()
        if name.startswith("path"):
            assert largest == 1, name
        else:  # the one-way grid leaves corners that only enter or only leave
            assert largest >= n - 4, name
    with pytest.raises(ValueError, match="`n`"):
        high_diameter_digraphs(4)


@pytest.mark.parametrize("algorithm", CPU)
@pytest.mark.parametrize("name", DIRECTED_REAL)
def test_cpu_algorithms_on_real_directed_graphs(name, algorithm, real_data_dir):
    path = real_data_dir / name
    if not path.is_file():
        pytest.skip(f"{name} not in {real_data_dir}")
    g = concomp.read_graph(path, directed=True)
    src, dst = g.coo()
    count, labels = concomp.strongly_connected_components(g, device="cpu", algorithm=algorithm)
    want = scipy_strong_roots(src, dst, g.num_nodes)
    assert count == np.unique(want).size
    np.testing.assert_array_equal(np.unique(want, return_inverse=True)[1].ravel(), labels)


# ----------------------------------------------------------------------------- public API
def test_labels_are_numbered_by_smallest_vertex():
    # components {3, 4}, {0}, {1, 2}: numbered by smallest vertex 0, 1, 3
    arcs = np.array([[3, 4], [4, 3], [0, 1], [1, 2], [2, 1]])
    count, labels = concomp.strongly_connected_components(arcs)
    assert count == 3
    assert labels.dtype == np.int32
    assert labels.tolist() == [0, 1, 1, 2, 2]
    raw = concomp.strongly_connected_components(arcs, canonical=False)
    assert raw.labels.tolist() == [0, 1, 1, 3, 3]


def test_input_kinds_agree():
    src, dst = np.array([0, 1, 2, 2]), np.array([1, 2, 0, 3])
    A = sp.csr_array((np.ones(4), (src, dst)), shape=(5, 5))
    want = [0, 0, 0, 1, 2]
    assert concomp.strongly_connected_components((src, dst), num_nodes=5)[1].tolist() == want
    assert concomp.strongly_connected_components(A)[1].tolist() == want
    assert concomp.strongly_connected_components(A.tocsc())[1].tolist() == want
    assert concomp.strongly_connected_components(np.c_[src, dst], num_nodes=5)[1].tolist() == want


def test_undirected_inputs_have_both_directions():
    nx = pytest.importorskip("networkx")
    G = nx.path_graph(4)
    assert concomp.strongly_connected_components(G)[0] == 1
    D = nx.DiGraph(nx.path_graph(4, create_using=nx.DiGraph))
    assert concomp.strongly_connected_components(D)[0] == 4


def test_renumbered_ids_come_back():
    res = concomp.strongly_connected_components((np.array(["a", "b"]), np.array(["b", "a"])))
    assert res[0] == 1 and res.node_ids.tolist() == ["a", "b"]


def test_is_strongly_connected():
    assert concomp.is_strongly_connected(np.array([[0, 1], [1, 2], [2, 0], [0, 0]]))
    assert not concomp.is_strongly_connected(np.array([[0, 1], [1, 2]]))
    assert concomp.is_strongly_connected((np.zeros(0, int), np.zeros(0, int)), num_nodes=1)
    with pytest.raises(InvalidGraphError, match="null graph"):
        concomp.is_strongly_connected((np.zeros(0, int), np.zeros(0, int)), num_nodes=0)


@pytest.mark.parametrize("algorithm", CPU)
@pytest.mark.parametrize("name", ["gnm_3000_12000", "two_cliques", "duplicates", "cycle"])
def test_condensation_is_the_dag_of_the_components(name, algorithm):
    src, dst, n = ZOO[name]
    src, dst = _with_back_arcs(src, dst)
    dag, labels, node_ids = concomp.condensation((src, dst), num_nodes=n, algorithm=algorithm)
    count, want = concomp.strongly_connected_components((src, dst), num_nodes=n)
    assert node_ids is None
    np.testing.assert_array_equal(labels, want)
    assert dag.directed and dag.num_nodes == count
    a, b = dag.coo()
    pairs = {(int(x), int(y)) for x, y in zip(labels[src], labels[dst]) if x != y}
    assert sorted(pairs) == list(zip(a.tolist(), b.tolist()))  # deduplicated, ascending
    # acyclic: every vertex of the condensation is its own strong component
    assert concomp.strongly_connected_components(dag, return_labels=False) == count


def test_condensation_of_nothing():
    dag, labels, _ = concomp.condensation((np.zeros(0, int), np.zeros(0, int)), num_nodes=0)
    assert dag.num_nodes == 0 and dag.num_edges == 0 and labels.size == 0


def test_bad_algorithm_is_named():
    with pytest.raises(InvalidVariantError, match=r"'fwbw'.*device='gpu'"):
        concomp.strongly_connected_components(np.array([[0, 1]]), device="cpu", algorithm="fwbw")
    with pytest.raises(InvalidVariantError, match=r"'nope'.*Fix"):
        concomp.strongly_connected_components(np.array([[0, 1]]), device="cpu", algorithm="nope")
    with pytest.raises(InvalidVariantError, match="algorithm"):
        concomp.strongly_connected_components(np.array([[0, 1]]), algorithm=3)


def test_bad_input_is_named():
    with pytest.raises(InvalidGraphError, match="num_nodes"):
        concomp.strongly_connected_components((np.array([0]), np.array([5])), num_nodes=3)
    with pytest.raises(InvalidGraphError, match="device"):
        concomp.strongly_connected_components(np.array([[0, 1]]), device="tpu")
    with pytest.raises(InvalidGraphError, match="output_device"):
        concomp.strongly_connected_components(np.array([[0, 1]]), output_device="tpu")


def test_csgraph_strong_keeps_scipy_numbering():
    from scipy.sparse.csgraph import connected_components as scipy_cc

    from concomp import csgraph

    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 300, 900), rng.integers(0, 300, 900)
    A = sp.csr_array((np.ones(900), (src, dst)), shape=(300, 300))
    got = csgraph.connected_components(A, connection="strong")
    want = scipy_cc(A, connection="strong")
    assert got[0] == want[0]
    np.testing.assert_array_equal(got[1], want[1])


def test_trim_passes_option_is_checked():
    with pytest.raises(Exception, match="scc_trim_passes"):
        Options(scc_trim_passes=-1)


# ----------------------------------------------------------------------------- GPU
@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", GPU)
@pytest.mark.parametrize(("src", "dst", "n"), list(_zoo_cases()))
def test_gpu_algorithms_on_the_zoo(src, dst, n, algorithm):
    _check(src, dst, n, "gpu", algorithm)
    _check(src, dst, n, "gpu", algorithm, WIDE.with_(scc_trim_passes=0))


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", GPU)
@given(graph=directed_graphs(), wide=st.booleans(), trim=st.integers(0, 2))
def test_gpu_algorithms_on_random_digraphs(algorithm, graph, wide, trim):
    src, dst, n = graph
    options = (WIDE if wide else DEFAULTS).with_(scc_trim_passes=trim)
    _check(src, dst, n, "gpu", algorithm, options)


def _rmat_directed(scale: int) -> tuple:
    g = concomp.generators.rmat(scale, 16, seed=3)
    src, dst = g.coo()
    return np.asarray(src), np.asarray(dst), g.num_nodes


@pytest.mark.gpu
@pytest.mark.parametrize("algorithm", GPU)
@pytest.mark.parametrize("shape", [*sorted(LARGE), "rmat18", "dag_1e6", "giant_1e6"])
def test_gpu_algorithms_on_large_graphs(shape, algorithm):
    if algorithm == "fwbw" and shape in HD:
        pytest.skip("fwbw's searches read the device once per level: 10^5 levels here")
    rng = np.random.default_rng(11)
    if shape == "rmat18":
        src, dst, n = _rmat_directed(18)
    elif shape == "dag_1e6":
        n = 1_000_000
        a, b = rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n)
        src, dst = np.minimum(a, b), np.maximum(a, b)
    elif shape == "giant_1e6":
        n = 1_000_000
        src, dst = rng.integers(0, n, 4 * n), rng.integers(0, n, 4 * n)
    else:
        (src, dst), n = LARGE[shape], 100_000
    want = _roots(src, dst, n, "cpu", "tarjan")
    got = _roots(src, dst, n, "gpu", algorithm)
    np.testing.assert_array_equal(got, want)


#: Far above a run of a few hundred steps at 2^20 vertices, far below one step per
#: vertex (a stall).
HANG_GUARD_S = 120


@pytest.mark.gpu
def test_gpu_default_on_high_diameter_shapes_at_2_20_does_not_stall(tmp_path):
    """The default call on paths, rings and lanes numbered along and against their arcs
    and on a one-way grid, 2^20 vertices each, in a child process under a time limit
    only a stall can reach (no speed is asserted); the child saves its labels and the
    CPU's Tarjan search checks them here, outside the limit."""
    code = textwrap.dedent(f"""
        import json
        import cupy as cp
        import numpy as np
        import concomp
        from concomp.testing.adversarial import high_diameter_digraphs
        counts = {{}}
        for name, (src, dst, n) in high_diameter_digraphs(1 << 20).items():
            g = concomp.Graph.from_edges(cp.asarray(src), cp.asarray(dst), num_nodes=n,
                                         directed=True)
            count, labels = concomp.strongly_connected_components(g)
            np.save({str(tmp_path)!r} + "/" + name + ".npy", cp.asnumpy(labels))
            counts[name] = int(count)
        print(json.dumps(counts))
    """)
    got = run_json_child(code, HANG_GUARD_S)
    assert set(got) == set(high_diameter_digraphs(64))
    for name, (src, dst, n) in high_diameter_digraphs(1 << 20).items():
        want = concomp.strongly_connected_components(
            (src, dst), num_nodes=n, device="cpu", algorithm="tarjan"
        )
        assert got[name] == int(want[0]), name
        np.testing.assert_array_equal(np.load(tmp_path / f"{name}.npy"), want[1], err_msg=name)


@pytest.mark.gpu
@pytest.mark.parametrize("descending", [False, True])
def test_gpu_dags_numbered_along_their_arcs_skip_the_rounds(descending, monkeypatch):
    """As on the CPU: arcs all one way in id order (either way) settle every vertex
    alone with no propagation run built; one arc back closes a cycle and the rounds
    run."""
    cp = pytest.importorskip("cupy")
    import concomp._gpu.scc as gscc

    rng = np.random.default_rng(5)
    n = 300_000
    src = rng.integers(0, n - 1, 4 * n)
    dst = src + 1 + rng.integers(0, 50, src.size) % (n - 1 - src)
    src, dst = np.r_[src, np.arange(n - 1), 7], np.r_[dst, np.arange(1, n), 7]  # chain, loop
    if descending:
        src, dst = n - 1 - src, n - 1 - dst
    g = Graph.from_edges(cp.asarray(src), cp.asarray(dst), num_nodes=n, directed=True)
    real_run = gscc._Run

    def no_run(*args, **kwargs):
        raise AssertionError("propagation ran on a graph with every arc one way")

    monkeypatch.setattr(gscc, "_Run", no_run)
    count, labels = concomp.strongly_connected_components(g)
    assert count == n and (labels.get() == np.arange(n)).all()
    monkeypatch.setattr(gscc, "_Run", real_run)
    a, b = (0, n - 1) if descending else (n - 1, 0)
    g = Graph.from_edges(
        cp.asarray(np.r_[src, a]), cp.asarray(np.r_[dst, b]), num_nodes=n, directed=True
    )
    count, labels = concomp.strongly_connected_components(g)
    assert count == 1 and not labels.get().any()


@pytest.mark.gpu
@given(graph=directed_graphs(max_n=300), one_way=st.sampled_from([None, "up", "down"]))
def test_gpu_arc_order_check_agrees_with_the_cpus(graph, one_way):
    from concomp._cpu.scc import acyclic_in_id_order, directed_csr
    from concomp._gpu.scc import acyclic_in_id_order as on_gpu

    src, dst, n = graph
    if one_way:
        lo, hi = np.minimum(src, dst), np.maximum(src, dst)
        src, dst = (lo, hi) if one_way == "up" else (hi, lo)
    g = Graph.from_edges(src, dst, num_nodes=n, directed=True)
    want = acyclic_in_id_order(*directed_csr(g))
    for dt in (np.int32, np.int64):
        assert on_gpu(g.to("gpu"), np.dtype(dt)) == want


@pytest.mark.gpu
def test_gpu_public_call_keeps_data_on_the_device():
    cp = pytest.importorskip("cupy")
    src, dst = cp.asarray([0, 1, 2, 3]), cp.asarray([1, 0, 3, 2])
    count, labels = concomp.strongly_connected_components((src, dst))
    assert count == 2 and isinstance(labels, cp.ndarray)
    assert labels.get().tolist() == [0, 0, 1, 1]
    dag, comp, _ = concomp.condensation((src, dst), device="gpu")
    assert comp.get().tolist() == [0, 0, 1, 1]
    assert dag.num_nodes == 2 and dag.num_edges == 0


@given(graph=directed_graphs(max_n=200), wide=st.booleans(), one_way=st.booleans())
def test_tarjans_own_numbering_equals_the_roots_numbered(graph, wide, one_way):
    """The CPU engine's canonical labels straight from the search (the public call's
    path) equal SciPy's roots numbered afterwards, on arbitrary digraphs and on their
    arcs turned one way in id order (no search); the numbering pass also with the
    search's arrays in int64."""
    from concomp._cpu.components import canonical_labels
    from concomp._cpu.scc import _member_labels, _search, directed_csr, scc_component_labels

    src, dst, n = graph
    if one_way:
        src, dst = np.minimum(src, dst), np.maximum(src, dst)
    g = Graph.from_edges(src, dst, num_nodes=n, directed=True)
    want_count, want = canonical_labels(scipy_strong_roots(src, dst, n))
    count, labels = scc_component_labels(g, "auto", DEFAULTS)
    assert count == want_count and labels.dtype == want.dtype
    np.testing.assert_array_equal(labels, want)
    assert scc_component_labels(g, "propagation", DEFAULTS) is None
    assert scc_component_labels(g, "auto", DEFAULTS, count_only=True) == (want_count, None)
    dt = np.int64 if wide else np.int32
    indptr, indices = (a.astype(dt) for a in directed_csr(g))
    count, rindex, scratch = _search(indptr, indices, nearest=True)
    out = _member_labels(rindex, count, scratch, True, np.int32)
    assert count == want_count and out.dtype == np.int32
    np.testing.assert_array_equal(out, want)


def test_the_public_call_numbers_tarjans_components_without_roots(monkeypatch):
    """canonical labels and counts come from the search's own numbering on the CPU (no
    root labels made), roots only where asked for (canonical=False)."""
    from concomp import scc as public

    arcs = np.array([[0, 1], [1, 0], [2, 3], [3, 2], [1, 2], [4, 0]])
    asked = []
    monkeypatch.setattr(
        public, "driver", lambda dev, mod, name: asked.append(name) or driver(dev, mod, name)
    )
    got = concomp.strongly_connected_components(arcs, device="cpu")
    assert got[0] == 3 and got.labels.tolist() == [0, 0, 1, 1, 2]
    assert concomp.strongly_connected_components(arcs, device="cpu", return_labels=False) == 3
    assert asked == ["scc_component_labels"] * 2
    roots = concomp.strongly_connected_components(arcs, device="cpu", canonical=False)
    assert roots.labels.tolist() == [0, 0, 2, 2, 4] and "scc_labels" in asked
