"""Connected components: engine x variant x graph zoo against the SciPy oracle, the
public helpers, every input kind, device selection and the real graphs.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import concomp
from concomp import all_variants
from concomp._cpu.unionfind import one_thread
from concomp.errors import DeviceUnavailableError, InvalidGraphError
from concomp.options import Options
from concomp.testing import (
    assert_components_equal,
    graph_zoo,
    real_graph_facts,
    real_graph_paths,
    reference_components,
)

ZOO = graph_zoo()
#: The matrix: every variant of each engine (the completeness guard imports these).
CPU_VARIANTS = all_variants("cpu")
GPU_VARIANTS = all_variants("gpu")


def _min_vertex_roots(labels: np.ndarray, count: int) -> np.ndarray:
    """For canonical labels: the smallest vertex of each vertex's component."""
    n = labels.shape[0]
    mins = np.full(count, n, dtype=np.int64)
    np.minimum.at(mins, labels, np.arange(n))
    return mins[labels]


def check_zoo_graph(device: str, variant, name: str) -> None:
    """The one body of the matrix: int32 ids (canonical labels), int64 ids (raw roots)."""
    from concomp._arrays import to_numpy
    from concomp.components import canonical_labels

    src, dst, n = ZOO[name]
    ref_count, ref_labels = reference_components(src, dst, n)
    edges32 = (src.astype(np.int32), dst.astype(np.int32))
    result = concomp.connected_components(edges32, num_nodes=n, device=device, algorithm=variant)
    assert_components_equal(result, src, dst, n)
    assert result[1].dtype == np.int32, name
    count, roots = concomp.connected_components(
        (src, dst), num_nodes=n, device=device, algorithm=str(variant), canonical=False
    )
    assert count == ref_count, name
    roots = to_numpy(roots)
    np.testing.assert_array_equal(roots, _min_vertex_roots(ref_labels, ref_count), err_msg=name)
    np.testing.assert_array_equal(canonical_labels(roots)[1], ref_labels, err_msg=name)


#: Graphs every CPU variant also runs with int64 kernels, on one thread and forced
#: onto all of numba's threads (the zoo's graphs are below Options.parallel_min_edges,
#: so the default runs them on one thread).
SMALL_ZOO = (
    "isolated",
    "duplicates",
    "two_cliques",
    "many_small",
    "gnm_2000_2000",
    "hd_grid_snake",
)


def _check_roots(variant, name: str, options: Options) -> None:
    src, dst, n = ZOO[name]
    count, roots = concomp.connected_components(
        (src, dst), num_nodes=n, device="cpu", algorithm=variant, canonical=False, options=options
    )
    assert roots.dtype == np.dtype(options.index_dtype or np.int32), name
    ref_count, ref_labels = reference_components(src, dst, n)
    assert count == ref_count, name
    np.testing.assert_array_equal(roots, _min_vertex_roots(ref_labels, ref_count), name)
    # the count alone: union-find runs count their roots without pointing vertices at them
    alone = concomp.connected_components(
        (src, dst), num_nodes=n, device="cpu", algorithm=variant, return_labels=False,
        options=options,
    )  # fmt: skip
    assert alone == ref_count, name


@pytest.mark.parametrize("variant", CPU_VARIANTS, ids=str)
def test_zoo_cpu(variant):
    # one item per variant (419 of them): the zoo loops inside to keep collection cheap
    for name in ZOO:
        check_zoo_graph("cpu", variant, name)
    with one_thread():
        for name in SMALL_ZOO:
            _check_roots(variant, name, Options(index_dtype="int64"))
    for dtype in ("int32", "int64"):
        for name in SMALL_ZOO:
            _check_roots(variant, name, Options(index_dtype=dtype, parallel_min_edges=0))


@pytest.mark.gpu
@pytest.mark.parametrize("variant", GPU_VARIANTS, ids=str)
def test_zoo_gpu(variant):
    # one item per variant (419 of them): the zoo loops inside to keep collection cheap
    for name in ZOO:
        check_zoo_graph("gpu", variant, name)


# --------------------------------------------------------------------------- helpers
def test_public_helpers_on_a_small_graph():
    src, dst = np.array([0, 1, 3, 5, 6]), np.array([1, 2, 4, 6, 7])
    g = (src, dst)
    assert concomp.number_connected_components(g, num_nodes=10) == 5
    assert concomp.component_sizes(g, num_nodes=10).tolist() == [3, 2, 3, 1, 1]
    assert concomp.largest_component(g, num_nodes=10).tolist() == [0, 1, 2]  # tie: lowest label
    count, labels = concomp.connected_components(g, num_nodes=10)
    assert type(count) is int and labels.dtype == np.int32
    assert labels.tolist() == [0, 0, 0, 1, 1, 2, 2, 2, 3, 4]
    assert concomp.connected_components(g, num_nodes=10, return_labels=False) == 5
    count, roots = concomp.connected_components(g, num_nodes=10, canonical=False)
    assert count == 5 and roots.tolist() == [0, 0, 0, 3, 3, 5, 5, 5, 8, 9]


@pytest.mark.parametrize(
    "name", ["empty", "single_vertex", "isolated", "many_small", "gnm_1000_500", "star_tail"]
)
def test_sizes_and_largest_against_oracle(name):
    src, dst, n = ZOO[name]
    count, labels = reference_components(src, dst, n)
    sizes = concomp.component_sizes((src, dst), num_nodes=n, device="cpu")
    np.testing.assert_array_equal(sizes, np.bincount(labels, minlength=count))
    largest = concomp.largest_component((src, dst), num_nodes=n, device="cpu")
    want = np.flatnonzero(labels == np.argmax(sizes)) if count else np.zeros(0, np.int64)
    np.testing.assert_array_equal(largest, want)
    assert concomp.number_connected_components((src, dst), num_nodes=n) == count


def test_empty_graph_results_have_the_right_types():
    none = np.zeros(0, np.int64)
    count, labels = concomp.connected_components((none, none), num_nodes=0)
    assert count == 0 and type(count) is int and labels.shape == (0,)
    assert concomp.component_sizes((none, none), num_nodes=0).shape == (0,)
    assert concomp.largest_component((none, none), num_nodes=0).shape == (0,)


# --------------------------------------------------------------------------- input kinds
EDGES = (np.array([0, 1, 4, 6, 6]), np.array([1, 2, 5, 7, 6]))
N = 9
REF = reference_components(*EDGES, N)


def _check(graph, device="cpu", **kwargs):
    count, labels = concomp.connected_components(graph, device=device, **kwargs)
    assert count == REF[0]
    np.testing.assert_array_equal(labels, REF[1])


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_input_edge_arrays(dtype):
    src, dst = (a.astype(dtype) for a in EDGES)
    _check((src, dst), num_nodes=N)
    _check((src.tolist(), dst.tolist()), num_nodes=N)
    _check(np.stack([src, dst]), num_nodes=N)  # (2, m)
    _check(np.stack([src, dst], axis=1), num_nodes=N)  # (m, 2)
    _check((src, dst, np.ones(src.shape[0])), num_nodes=N)


def test_python_list_of_three_pairs_reads_as_m_by_2():
    count, labels = concomp.connected_components([[0, 1], [1, 2], [5, 6]])
    assert count == 4 and labels.tolist() == [0, 0, 0, 1, 2, 3, 3]


def test_two_by_two_array_reads_as_two_rows():
    count, labels = concomp.connected_components(np.array([[0, 1], [2, 3]]))
    assert count == 2 and labels.tolist() == [0, 1, 0, 1]


@pytest.mark.parametrize("edges", [[(0, 1), (2, 3)], [[0, 1], [2, 3]], [("a", "b"), ("c", "d")]])
def test_python_list_of_two_pairs_is_two_edges(edges):
    """A list of pairs is a list of edges however many it holds: two pairs are not read
    as the rows (src, dst) the way a (2, 2) array is."""
    count, labels = concomp.connected_components(edges, device="cpu")
    assert count == 2 and labels.tolist() == [0, 0, 1, 1]
    forest = concomp.spanning_forest(edges, device="cpu")
    assert sorted(zip(forest.src.tolist(), forest.dst.tolist())) == sorted(map(tuple, edges))
    if not isinstance(edges[0][0], str):  # a stream's chunk reads the list alike
        count, labels = concomp.stream_components([edges], 4, device="cpu")
        assert count == 2 and labels.tolist() == [0, 0, 1, 1]


def test_an_empty_list_is_refused_with_the_argument_named():
    with pytest.raises(concomp.InvalidGraphError, match="argument `graph`"):
        concomp.connected_components([], device="cpu")
    with pytest.raises(concomp.InvalidGraphError, match="chunk 0: cannot read edges"):
        concomp.stream_components([[]], 4, device="cpu")


def test_lists_of_two_arrays_and_tuples_of_pairs_stay_src_dst():
    src, dst = np.array([0, 1]), np.array([2, 3])
    for graph in ([src, dst], (src, dst), ((0, 1), (2, 3))):
        count, labels = concomp.connected_components(graph, device="cpu")
        assert count == 2 and labels.tolist() == [0, 1, 0, 1]  # edges 0-2 and 1-3
        count, labels = concomp.stream_components([graph], 4, device="cpu")
        assert count == 2 and labels.tolist() == [0, 1, 0, 1]


SPARSE_FORMATS = ["coo", "csr", "csc", "lil", "dok", "bsr", "dia"]


@pytest.mark.parametrize("kind", ["matrix", "array"])
@pytest.mark.parametrize("fmt", SPARSE_FORMATS)
def test_input_scipy_sparse(fmt, kind):
    make = sp.coo_matrix if kind == "matrix" else sp.coo_array
    A = make((np.ones(len(EDGES[0])), EDGES), shape=(N, N)).asformat(fmt)
    _check(A)


def test_input_sparse_explicit_zeros_are_edges():
    A = sp.csr_array(
        (
            np.zeros(len(EDGES[0])),
            EDGES[1],
            np.r_[0, np.cumsum(np.bincount(EDGES[0], minlength=N))],
        ),
        shape=(N, N),
    )
    _check(A)


def test_input_pandas():
    pd = pytest.importorskip("pandas")
    _check(pd.DataFrame({"source": EDGES[0], "target": EDGES[1]}), num_nodes=N)
    _check(pd.DataFrame({"a": EDGES[0], "b": EDGES[1]}), num_nodes=N)


def test_input_polars():
    pl = pytest.importorskip("polars")
    _check(pl.DataFrame({"src": EDGES[0], "dst": EDGES[1]}), num_nodes=N)


@pytest.mark.parametrize("directed", [False, True])
def test_input_networkx(directed):
    nx = pytest.importorskip("networkx")
    G = nx.DiGraph() if directed else nx.Graph()
    names = [f"v{i}" for i in range(N)]
    G.add_nodes_from(names)
    G.add_edges_from((names[u], names[v]) for u, v in zip(*EDGES, strict=True))
    _check(G)


def test_input_torch_edge_index():
    torch = pytest.importorskip("torch")
    _check(torch.tensor(np.stack(EDGES)), num_nodes=N)


def test_input_graph_object():
    g = concomp.Graph.from_edges(*EDGES, num_nodes=N)
    _check(g)
    _check(concomp.as_graph(g))


def test_input_file_path(tmp_path):
    pytest.importorskip("concomp.io")
    path = tmp_path / "tiny.txt"
    lines = ["# Undirected graph", f"# Nodes: {N} Edges: {len(EDGES[0])}"]
    lines += [f"{u}\t{v}" for u, v in zip(*EDGES, strict=True)]
    path.write_text("\n".join(lines) + "\n")
    _check(path)
    _check(str(path))


# --------------------------------------------------------------------------- devices
def test_device_gpu_without_gpu_raises_with_reason(gpu_available):
    if gpu_available:
        pytest.skip("a GPU is usable here")
    with pytest.raises(DeviceUnavailableError, match=r"device='gpu' cannot run here: .+"):
        concomp.connected_components(EDGES, num_nodes=N, device="gpu")


def test_bad_device_string_raises():
    with pytest.raises(ValueError, match="device"):
        concomp.connected_components(EDGES, num_nodes=N, device="tpu")


def test_env_device_is_honoured(monkeypatch, gpu_available):
    monkeypatch.setenv("CONCOMP_DEVICE", "cpu")
    _check(EDGES, num_nodes=N, device="auto")
    monkeypatch.setenv("CONCOMP_DEVICE", "bogus")
    with pytest.raises(InvalidGraphError, match="CONCOMP_DEVICE"):
        concomp.connected_components(EDGES, num_nodes=N, device="auto")
    if not gpu_available:
        monkeypatch.setenv("CONCOMP_DEVICE", "gpu")
        with pytest.raises(DeviceUnavailableError):
            concomp.connected_components(EDGES, num_nodes=N)
    _check(EDGES, num_nodes=N, device="cpu")  # an explicit device wins over the variable


def test_bad_algorithm_raises():
    with pytest.raises(concomp.InvalidVariantError, match="algorithm"):
        concomp.connected_components(EDGES, num_nodes=N, algorithm="no-such-thing")


@pytest.mark.gpu
def test_gpu_output_follows_input():
    import cupy as cp

    _, labels = concomp.connected_components(EDGES, num_nodes=N, device="gpu")
    assert isinstance(labels, np.ndarray)
    _, labels = concomp.connected_components(tuple(cp.asarray(a) for a in EDGES), num_nodes=N)
    assert isinstance(labels, cp.ndarray) and labels.dtype == np.int32
    np.testing.assert_array_equal(cp.asnumpy(labels), REF[1])


# --------------------------------------------------------------------------- real graphs
REAL = real_graph_paths()
NAMED_ON_REAL = ("rem", "afforest", "none-ecl-jump-csr")


@pytest.mark.parametrize(
    "path",
    REAL
    or [
        pytest.param(
            None,
            marks=pytest.mark.skip(
                reason="no real graphs found (../shared/data/real or $CONCOMP_REAL_DATA)"
            ),
        )
    ],
    ids=lambda p: p.name if p is not None else "none",
)
def test_real_graph_counts(path, real_data_dir):
    io = pytest.importorskip("concomp.io")
    facts = real_graph_facts().get(path.name)
    if facts is None:
        pytest.skip(f"{path.name} is not in the data README's table")
    g = io.read_graph(path)
    assert g.num_nodes == facts.num_nodes
    for algorithm in ("auto",) + NAMED_ON_REAL:
        count, labels = concomp.connected_components(g, device="cpu", algorithm=algorithm)
        assert count == facts.weak_components, algorithm
        assert int(np.bincount(labels).max()) == facts.largest_component, algorithm


# ------------------------------------------------------------ k-out over lower neighbours
def _late_lower_neighbours_csr():
    """A symmetric CSR whose vertex 100 lists 150 larger neighbours before its two
    smaller ones (3 and 7, on a path 0-1-...-99), and 49 isolated vertices after.

    k-out over lower neighbours scans only the first KOUT_LOWER_SCAN entries of a
    row, so it misses (100, 3) and (100, 7); the path is then outside the most
    frequent component, and the finish must unite those edges from the path's side.
    """
    n = 300
    rows: list[list[int]] = [[] for _ in range(n)]
    for v in range(99):
        rows[v].append(v + 1)
        rows[v + 1].append(v)
    rows[100] = list(range(101, 251)) + [3, 7]
    for w in range(101, 251):
        rows[w].append(100)
    rows[3].append(100)
    rows[7].append(100)
    indptr = np.cumsum([0] + [len(r) for r in rows])
    indices = np.concatenate([np.asarray(r, dtype=np.int64) for r in rows])
    return indptr, indices, n


@pytest.mark.parametrize(
    "algorithm",
    [
        "koutl-rem_cas-splice-csr",
        "koutl-async-halve-coo",
        "koutl3-rem_cas-splice-coo",
        "koutl-ecl-jump-csr",
    ],
)
def test_kout_lower_misses_late_rows_and_the_finish_unites_them(device, algorithm):
    indptr, indices, n = _late_lower_neighbours_csr()
    assert indptr[101] - indptr[100] - 2 >= Options().kout_lower_scan  # the premise
    g = concomp.Graph.from_csr(indptr, indices, num_nodes=n, symmetric=True)
    count, labels = concomp.connected_components(g.to(device), device=device, algorithm=algorithm)
    src = np.repeat(np.arange(n), np.diff(indptr))
    ref_count, ref_labels = reference_components(src, indices, n)
    assert count == ref_count == 50
    np.testing.assert_array_equal(np.asarray(concomp._arrays.to_numpy(labels)), ref_labels)


@pytest.mark.parametrize("n", [0, 1, 5, 70_000, 200_003])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("representative", ["smallest", "any"])
@pytest.mark.parametrize("components", ["many", "three"])
def test_parallel_canonical_labels_equal_the_numpy_passes(
    monkeypatch, n, dtype, representative, components
):
    """The parallel kernel (blocks of 2**16 vertices: several blocks here) numbers the
    roots exactly as the NumPy passes do, for roots that are the smallest vertex of
    their component (SciPy's numbering) and for any representative; with three
    components most blocks hold no root (the numbering pass skips them)."""
    from concomp._cpu import components as cpu

    rng = np.random.default_rng(n)
    k = max(1, n // 3) if components == "many" else min(3, max(1, n))
    comp = rng.integers(0, k, n)
    rep = np.full(k, -1, np.int64)
    order = np.arange(n) if representative == "smallest" else rng.permutation(n)
    rep[comp[order[::-1]]] = order[::-1]  # the first vertex of `order` in each component
    roots = rep[comp].astype(dtype)
    monkeypatch.setattr(cpu, "PARALLEL_LABELS_FROM", 1 << 62)
    want = cpu.canonical_labels(roots)
    monkeypatch.setattr(cpu, "PARALLEL_LABELS_FROM", 0)
    got = cpu.canonical_labels(roots)
    assert got[0] == want[0] == np.unique(roots).shape[0]
    assert got[1].dtype == want[1].dtype == np.int32
    np.testing.assert_array_equal(got[1], want[1])
    if representative == "smallest" and n:
        assert got[1][0] == 0 and np.all(np.diff(np.maximum.accumulate(got[1])) <= 1)


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("roots_share", [0.0, 0.0001, 0.3])
def test_numbering_walks_an_unflattened_forest(dtype, roots_share):
    """The parallel numbering takes a union-find forest as its unions left it (every
    root the smallest vertex of its tree, chains of any depth): labels equal those of
    the flattened roots, and the forest ends flattened; one tree (share 0: vertex 0
    is the only root) is numbered 0 throughout without a walk."""
    from concomp._cpu import components as cpu
    from concomp._cpu.numbering import number_components

    n = 3 * (1 << 16) + 17  # several blocks of the numbering, one of them partial
    rng = np.random.default_rng(n)
    parents = np.arange(n, dtype=dtype)
    child = np.flatnonzero(rng.random(n) >= roots_share)
    child = child[child > 0]
    # half the vertices hang under the vertex just before them: long chains to walk
    near = rng.random(child.shape[0]) < 0.5
    parents[child] = np.where(near, child - 1, rng.integers(0, child)).astype(dtype)
    roots = parents.copy()
    while True:  # flatten with NumPy: the expected roots
        up = roots[roots]
        if np.array_equal(up, roots):
            break
        roots = up
    want = cpu.canonical_labels(roots.copy())
    labels = np.empty(n, np.int32)
    before = parents.copy()
    count = number_components(parents, labels)
    assert count == want[0] == np.unique(roots).shape[0]
    np.testing.assert_array_equal(labels, want[1])
    np.testing.assert_array_equal(parents, before if count == 1 else roots)


def test_canonical_labels_of_read_only_roots():
    """Root labels a caller cannot write to are numbered too (the NumPy passes)."""
    from concomp._cpu import components as cpu

    roots = np.repeat(np.arange(0, 1 << 21, 4, dtype=np.int32), 4)
    roots.flags.writeable = False
    count, labels = cpu.canonical_labels(roots)
    assert count == 1 << 19
    np.testing.assert_array_equal(labels, np.arange(1 << 21) // 4)


UNION_FIND_CPU = [v for v in CPU_VARIANTS if v.family == "unionfind"]


@pytest.mark.parametrize("variant", UNION_FIND_CPU, ids=str)
def test_cpu_labels_numbered_from_the_unions_forest(monkeypatch, variant):
    """Labels of a union-find run come from its forest as the unions left it (no
    separate flattening pass) wherever its roots are their trees' minima; equal to
    SciPy's on one thread and all, int32 and int64 state; JTB (roots renamed to
    minima afterwards) and Stages number from the roots."""
    from concomp._cpu import components as cpu
    from concomp._cpu.unionfind import UnionFindRun
    from concomp._rules import union_rule
    from concomp.variants import Sampling

    monkeypatch.setattr(cpu, "PARALLEL_LABELS_FROM", 0)
    answered = []  # per call: whether the run handed over its forest unflattened
    real = UnionFindRun.execute

    def spy(self, roots=True):
        answered.append(not roots)
        return real(self, roots)

    monkeypatch.setattr(UnionFindRun, "execute", spy)
    forest_numbered = not (
        union_rule(variant.finish).reroots or variant.sampling == Sampling.STAGES
    )
    for dtype in ("int32", "int64"):
        for name in SMALL_ZOO:
            src, dst, n = ZOO[name]
            opts = Options(index_dtype=dtype, parallel_min_edges=0)
            got = concomp.connected_components(
                (src, dst), num_nodes=n, device="cpu", algorithm=variant, options=opts
            )
            assert_components_equal(got, src, dst, n)
            if variant.sampling != Sampling.STAGES:  # (Stages runs no UnionFindRun)
                assert answered.pop() is forest_numbered, name


def test_cpu_auto_reads_the_degree_of_the_undirected_graph():
    """A graph flagged symmetric stores each edge twice: its degree is entries / n. A
    2-D grid (degree 4) runs unsampled Rem on the edge list whether flagged or not;
    degree 6 samples k-out on the CSR (finished by Rem for components, by Async for
    forests)."""
    from concomp._cpu.components import SAMPLE_FROM_DEGREE, auto_variant
    from concomp.generators import grid
    from concomp.options import DEFAULTS

    both = grid(64, 64)  # flagged symmetric, each edge stored twice
    assert both.symmetric
    n = both.num_nodes
    src, dst = (np.asarray(a) for a in both.coo())
    keep = src < dst
    once = concomp.Graph.from_edges(src[keep], dst[keep], num_nodes=n)
    once.csr()
    assert 2 * once.num_edges / n < SAMPLE_FROM_DEGREE <= 6
    for g in (once, both):
        assert str(auto_variant(g, DEFAULTS)) == "none-rem_cas-splice-coo"
    rng = np.random.default_rng(0)
    s, d = rng.integers(0, 1000, 3000), rng.integers(0, 1000, 3000)  # degree 6
    dense = concomp.Graph.from_edges(
        np.concatenate([s, d]), np.concatenate([d, s]), num_nodes=1000, symmetric=True
    )
    dense.csr()
    assert str(auto_variant(dense, DEFAULTS)) == "kout-rem_cas-splice-csr"
    # forests finish with Async: Rem's splicing records a forest on one thread only
    assert str(auto_variant(dense, DEFAULTS, forest=True)) == "kout-async-halve-csr"
    # a one-way CSR of degree 6 (a SciPy matrix): no symmetric CSR at hand until built
    a = sp.csr_array((np.ones(3000), (s, d)), shape=(1000, 1000))
    one_way = concomp.as_graph(a)
    assert str(auto_variant(one_way, DEFAULTS, forest=True)) == "none-rem_cas-splice-coo"
    one_way = concomp.as_graph(a)
    assert not one_way.symmetric and one_way._indptr is not None
    assert str(auto_variant(one_way, DEFAULTS)) == "none-rem_cas-splice-coo"
    one_way.undirected_csr()
    assert str(auto_variant(one_way, DEFAULTS)) == "kout-rem_cas-splice-csr"


def test_cpu_auto_samples_forests_from_a_lower_degree_than_components():
    """A 2-D grid with permuted ids (degree 4) samples k-out for a spanning forest but
    not for components; a path with permuted ids (degree 2) samples for neither."""
    from scipy.sparse.csgraph import connected_components

    from concomp._cpu.components import (
        FOREST_SAMPLE_FROM_DEGREE,
        SAMPLE_FROM_DEGREE,
        auto_variant,
    )
    from concomp.generators import grid, path
    from concomp.options import DEFAULTS

    grid_p, path_p = grid(64, 64, permute=True), path(4096, permute=True)
    for g in (grid_p, path_p):
        g.csr()
        assert g.symmetric
    assert 2 < FOREST_SAMPLE_FROM_DEGREE <= grid_p.num_edges / grid_p.num_nodes + 0.1
    assert grid_p.num_edges / grid_p.num_nodes < SAMPLE_FROM_DEGREE
    assert str(auto_variant(grid_p, DEFAULTS)) == "none-rem_cas-splice-coo"
    assert str(auto_variant(grid_p, DEFAULTS, forest=True)) == "kout-async-halve-csr"
    for forest in (False, True):
        assert str(auto_variant(path_p, DEFAULTS, forest=forest)) == "none-rem_cas-splice-coo"
    # the forest auto picks spans the grid: n - 1 edges that join every vertex
    forest = concomp.spanning_forest(grid_p, device="cpu")
    n = grid_p.num_nodes
    assert forest.edge_ids.shape[0] == n - 1
    tree = sp.csr_array((np.ones(n - 1), (forest.src, forest.dst)), shape=(n, n))
    assert connected_components(tree, directed=False)[0] == 1


def test_cpu_auto_keeps_graphs_numbered_along_their_paths_on_the_edge_list():
    """Above the degree threshold, a graph whose ids follow its paths (a 3-D grid in
    x-y-z order: most edges join nearby ids) runs unsampled Rem on the edge list, for
    components and forests; the same grid with permuted ids samples k-out."""
    from concomp._cpu.components import SAMPLE_FROM_DEGREE, auto_variant
    from concomp._shared.locality import LOCAL_SHARE, host_local_share
    from concomp.generators import grid3d
    from concomp.options import DEFAULTS

    natural, permuted = grid3d(40, 40, 40), grid3d(40, 40, 40, permute=True)
    for g in (natural, permuted):
        g.csr()
        assert g.symmetric and g.num_edges / g.num_nodes >= SAMPLE_FROM_DEGREE
    assert host_local_share(natural) >= LOCAL_SHARE > host_local_share(permuted)
    for forest in (False, True):
        assert str(auto_variant(natural, DEFAULTS, forest=forest)) == "none-rem_cas-splice-coo"
    assert str(auto_variant(permuted, DEFAULTS)) == "kout-rem_cas-splice-csr"
    assert str(auto_variant(permuted, DEFAULTS, forest=True)) == "kout-async-halve-csr"


def test_cpu_ecl_on_all_threads_reads_no_edge_ids_without_a_forest():
    """Parallel ECL-CC took the edge id of every entry from a one-entry stand-in when it
    recorded no forest: reads far past it crashed the process on graphs of about ten
    million CSR entries (a 120³ grid with permuted ids)."""
    from concomp._cpu.ecl import ecl_roots
    from concomp.generators import grid3d

    g = grid3d(120, 120, 120, permute=True)
    indptr, indices, _ = (np.asarray(a) for a in g.csr())
    assert indices.shape[0] > 10_000_000
    roots = ecl_roots(indptr, indices, parallel=True)
    assert int((roots == np.arange(roots.shape[0])).sum()) == 1


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_cpu_root_count_and_identity_on_all_threads(dtype):
    """From 2**20 vertices the root count and the union-find's first fill run as
    parallel kernels; they equal NumPy's, and so does the count-only public call."""
    from concomp._cpu.components import PARALLEL_LABELS_FROM, count_roots
    from concomp._cpu.unionfind import PARALLEL_IDENTITY_FROM, identity

    n = max(PARALLEL_LABELS_FROM, PARALLEL_IDENTITY_FROM) + 12_345
    p = identity(n, dtype)
    assert p.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(p, np.arange(n, dtype=dtype))
    rng = np.random.default_rng(5)
    joined = rng.random(n) < 0.6
    joined[0] = False
    p[joined] = (rng.random(int(joined.sum())) * np.flatnonzero(joined)).astype(dtype)
    assert count_roots(p) == int(np.count_nonzero(p == np.arange(n)))
    src = np.arange(n - 1, dtype=dtype)
    src = src[rng.random(n - 1) < 0.5]
    want = n - src.shape[0]  # a path cut wherever an edge is missing
    got = concomp.connected_components((src, src + 1), num_nodes=n, return_labels=False)
    assert got == want
