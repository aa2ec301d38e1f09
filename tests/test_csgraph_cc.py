"""concomp.csgraph.connected_components against scipy.sparse.csgraph.connected_components:
same signature, same output (count, labels, dtypes) for every input type, same errors.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

from concomp import csgraph
from concomp.testing import (
    assert_same_partition,
    real_graph_paths,
    reference_strong_components,
)

MODES = [
    pytest.param(d, c, id=f"directed={d}-{c}") for d in (True, False) for c in ("weak", "strong")
]

# a directed graph with two nontrivial strong components, a bridge, a self loop,
# and an isolated vertex
SRC = np.array([0, 1, 2, 2, 3, 4, 5, 5, 6, 7, 8])
DST = np.array([1, 2, 0, 3, 4, 5, 3, 6, 6, 6, 7])
N = 10


def _same(got, want):
    assert type(got[0]) is int and got[0] == want[0]
    assert got[1].dtype == np.int32 == want[1].dtype
    np.testing.assert_array_equal(got[1], want[1])


def _both(A, directed, connection):
    got = csgraph.connected_components(A, directed=directed, connection=connection)
    want = scipy_csgraph.connected_components(A, directed=directed, connection=connection)
    _same(got, want)


def test_signature_matches_scipy():
    assert (
        inspect.signature(csgraph.connected_components).parameters.keys()
        == inspect.signature(scipy_csgraph.connected_components).parameters.keys()
    )
    ours = inspect.signature(csgraph.connected_components).parameters
    theirs = inspect.signature(scipy_csgraph.connected_components).parameters
    assert {k: p.default for k, p in ours.items()} == {k: p.default for k, p in theirs.items()}


def test_scipy_docstring_example():
    graph = [[0, 1, 1, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 0, 0]]
    n, labels = csgraph.connected_components(sp.csr_array(graph), directed=False)
    assert n == 2 and labels.tolist() == [0, 0, 0, 1, 1] and labels.dtype == np.int32


@pytest.mark.parametrize("kind", ["matrix", "array"])
@pytest.mark.parametrize("fmt", ["coo", "csr", "csc", "lil", "dok", "bsr", "dia"])
@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_every_sparse_format(fmt, kind, directed, connection):
    make = sp.coo_matrix if kind == "matrix" else sp.coo_array
    _both(
        make((np.arange(1.0, len(SRC) + 1), (SRC, DST)), shape=(N, N)).asformat(fmt),
        directed,
        connection,
    )


@pytest.mark.parametrize("make", [sp.coo_array, sp.coo_matrix])
@pytest.mark.parametrize("m", [40, 1 << 18])
def test_weak_components_of_coo_read_its_pairs_without_a_csr(monkeypatch, make, m):
    """Duplicates, explicit zeros and entries that sum to zero are stored entries like
    any other: weak components read the coordinates, and no CSR is built on the way."""
    import concomp._shared.csr

    def no_csr(*args, **kwargs):
        raise AssertionError("a CSR was built for a COO matrix")

    monkeypatch.setattr(concomp._shared.csr, "coo_to_csr", no_csr)
    monkeypatch.setattr(csgraph, "csr_structure", no_csr)
    rng = np.random.default_rng(m)
    n = max(8, m // 3)
    row, col = rng.integers(0, n, m), rng.integers(0, n, m)
    row[: m // 4], col[: m // 4] = row[m // 4 : m // 2], col[m // 4 : m // 2]  # duplicates
    data = rng.choice([-1.0, 0.0, 1.0], m)
    A = make((data, (row, col)), shape=(n, n))
    for directed, connection in ((False, "weak"), (True, "weak")):
        _same(
            csgraph.connected_components(A, directed=directed, connection=connection),
            scipy_csgraph.connected_components(A, directed=directed, connection=connection),
        )


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_dense_inputs(directed, connection):
    dense = np.zeros((N, N))
    dense[SRC, DST] = 1
    for A in (dense, dense.astype(np.int64), dense.astype(bool), np.asmatrix(dense)):
        _both(A, directed, connection)


@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_dense_nan_and_inf_are_not_edges(directed, connection):
    dense = np.zeros((N, N))
    dense[SRC, DST] = [1, np.nan, 2, np.inf, -np.inf, 3, 4, np.nan, 5, 6, 7]
    _both(dense, directed, connection)


@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_sparse_explicit_zero_nan_inf_are_edges(directed, connection):
    data = np.array([0, np.nan, 0, np.inf, 1, 0, 2, -np.inf, 0, 0, 3])
    A = sp.csr_array((data, (SRC, DST)), shape=(N, N))
    assert A.nnz == len(SRC)
    _both(A, directed, connection)


@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_masked_arrays(directed, connection):
    dense = np.zeros((N, N))
    dense[SRC, DST] = 1
    mask = dense == 0
    mask[0, 5] = False  # an unmasked zero is an edge
    mask[2, 3] = True  # a masked one is not
    _both(np.ma.masked_array(dense, mask=mask), directed, connection)


@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_nested_lists_like_a_dense_array(directed, connection):
    dense = np.zeros((N, N), dtype=int)
    dense[SRC, DST] = 1
    got = csgraph.connected_components(dense.tolist(), directed=directed, connection=connection)
    _same(got, scipy_csgraph.connected_components(dense, directed=directed, connection=connection))


@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_unsorted_indices_are_iterated_as_stored(directed, connection):
    rng = np.random.default_rng(5)
    A = sp.random_array((40, 40), density=0.06, format="csr", rng=rng)
    for row in range(40):  # shuffle the stored order inside each row
        lo, hi = A.indptr[row], A.indptr[row + 1]
        perm = lo + rng.permutation(hi - lo)
        A.indices[lo:hi], A.data[lo:hi] = A.indices[perm], A.data[perm]
    A.has_sorted_indices = False
    _both(A, directed, connection)


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_graphs_without_edges(n, directed, connection):
    _both(sp.csr_array((n, n)), directed, connection)
    _both(np.zeros((n, n)), directed, connection)


def test_return_labels_false_and_case_insensitive_connection():
    A = sp.csr_array((np.ones(len(SRC)), (SRC, DST)), shape=(N, N))
    for connection in ("weak", "strong", "Strong", "WEAK"):
        got = csgraph.connected_components(A, connection=connection, return_labels=False)
        want = scipy_csgraph.connected_components(A, connection=connection, return_labels=False)
        assert type(got) is int and got == want


def _error(fn, *args, **kwargs):
    with pytest.raises(Exception) as info:
        fn(*args, **kwargs)
    return type(info.value), str(info.value)


@pytest.mark.parametrize(
    "bad",
    [
        np.zeros((2, 3)),
        sp.csr_array((2, 3)),
        sp.coo_matrix((3, 1)),
        np.zeros(3),
        np.zeros((2, 2, 2)),
    ],
    ids=["dense-2x3", "csr-2x3", "coo-3x1", "1-D", "3-D"],
)
def test_bad_shapes_raise_like_scipy(bad):
    assert _error(csgraph.connected_components, bad) == _error(
        scipy_csgraph.connected_components, bad
    )


@pytest.mark.parametrize("connection", ["bogus", "", None, 3])
def test_bad_connection_raises_like_scipy(connection):
    A = np.eye(3)
    got = _error(csgraph.connected_components, A, connection=connection)
    assert got == _error(scipy_csgraph.connected_components, A, connection=connection)
    if isinstance(connection, str):
        assert got == (ValueError, "connection must be 'weak' or 'strong'")


def test_long_path_and_cycle_need_no_recursion():
    n = 300_000
    v = np.arange(n)
    path = sp.csr_array((np.ones(n - 1), (v[:-1], v[1:])), shape=(n, n))
    cycle = sp.csr_array((np.ones(n), (v, np.roll(v, -1))), shape=(n, n))
    for A in (path, cycle):
        _both(A, True, "strong")
        _both(A, True, "weak")


def test_duplicate_entries_in_a_row():
    """SciPy 1.17 never returns on these rows (see concomp.csgraph); check against the
    plain-Python reference instead, and the partition against SciPy on the summed CSR."""
    indptr = np.array([0, 3, 5, 6, 6])
    indices = np.array([1, 1, 2, 0, 0, 3])
    A = sp.csr_array((np.ones(6), indices, indptr), shape=(4, 4))
    count, labels = csgraph.connected_components(A, connection="strong")
    ref_count, ref_labels = reference_strong_components(indptr, indices)
    assert count == ref_count
    np.testing.assert_array_equal(labels, ref_labels)
    summed = A.copy()
    summed.sum_duplicates()
    want = scipy_csgraph.connected_components(summed, connection="strong")
    assert count == want[0]
    assert_same_partition(labels, want[1])


DIRECTED_REAL = (
    "road_rome99_dimacs.gr.gz",
    "soc_wiki-vote_snap.txt.gz",
    "weighted_soc-sign-bitcoinotc.csv.gz",
    "cit_arxiv-hep-th_snap.txt.gz",
)


@pytest.mark.parametrize("name", DIRECTED_REAL)
def test_strong_components_of_real_directed_graphs(name, real_data_dir):
    io = pytest.importorskip("concomp.io")
    if not (real_data_dir / name).is_file():
        pytest.skip(f"{name} not in {real_data_dir}")
    assert (real_data_dir / name) in real_graph_paths()
    g = io.read_graph(real_data_dir / name)
    src, dst = g.coo()
    A = sp.csr_array((np.ones(src.shape[0]), (src, dst)), shape=(g.num_nodes,) * 2)
    _both(A, True, "strong")
    _both(A, True, "weak")


def test_minimum_spanning_tree_is_exported_lazily():
    assert "minimum_spanning_tree" in csgraph.__all__
    mst = csgraph.minimum_spanning_tree
    A = sp.csr_array(np.array([[0, 8, 0, 3], [0, 0, 2, 5], [0, 0, 0, 6], [0, 0, 0, 0]]))
    got, want = mst(A), scipy_csgraph.minimum_spanning_tree(A)
    assert type(got) is type(want)
    np.testing.assert_array_equal(got.toarray(), want.toarray())
    with pytest.raises(AttributeError, match="no_such_function"):
        csgraph.no_such_function  # noqa: B018


@pytest.mark.gpu
@pytest.mark.parametrize(("directed", "connection"), MODES)
def test_cupy_inputs_give_cupy_labels(directed, connection):
    import cupy as cp
    import cupyx.scipy.sparse as csp

    A = sp.csr_matrix((np.ones(len(SRC)), (SRC, DST)), shape=(N, N))
    want = scipy_csgraph.connected_components(A, directed=directed, connection=connection)
    for device_input in (csp.csr_matrix(A), cp.asarray(A.toarray())):
        count, labels = csgraph.connected_components(
            device_input, directed=directed, connection=connection
        )
        assert isinstance(labels, cp.ndarray) and labels.dtype == np.int32
        _same((count, cp.asnumpy(labels)), want)
