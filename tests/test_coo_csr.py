"""COO to CSR without SciPy's per-row sort: ``concomp._shared.csr.coo_to_csr`` and
``concomp._sparse.tocsr`` give exactly SciPy's ``tocsr()`` (class, index and value
types, order, summed duplicates, explicit zeros), and the public calls that number
edges by that CSR (forests, minimum spanning forests, csgraph) give the same answer
on a COO matrix as on its CSR."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import concomp
import concomp._sparse
from concomp import csgraph
from concomp._shared.csr import coo_to_csr
from concomp._sparse import csr_structure, merge_coo, tocsr

given = pytest.importorskip("hypothesis").given
st = pytest.importorskip("hypothesis.strategies")


@pytest.fixture(autouse=True)
def _convert_small_coo(monkeypatch):
    """concomp converts COO of every size here (by default small ones go to SciPy)."""
    monkeypatch.setattr(concomp._sparse, "MIN_ENTRIES", 1)


DATA_DTYPES = [np.float64, np.float32, np.int8, np.int32, np.int64, np.uint8, np.uint64, np.bool_]
COO_CLASSES = [sp.coo_array, sp.coo_matrix]


def _values(rng: np.random.Generator, m: int, dtype) -> np.ndarray:
    if dtype is np.bool_:
        return rng.integers(0, 2, m).astype(bool)
    if np.dtype(dtype).kind == "f":
        return rng.standard_normal(m).astype(dtype)
    info = np.iinfo(dtype)  # the whole range, so that sums of duplicates wrap
    return rng.integers(info.min, info.max, m, dtype=dtype, endpoint=True)


def _assert_same_csr(A) -> None:
    """``tocsr(A)`` is SciPy's ``A.tocsr()`` in every respect concomp reads."""
    want, got = A.tocsr(), tocsr(A)
    assert type(got) is type(want)
    assert got.shape == want.shape
    for name in ("indptr", "indices", "data"):
        a, b = getattr(want, name), getattr(got, name)
        assert b.dtype == a.dtype, name
        np.testing.assert_array_equal(b, a, err_msg=name)
    assert got.has_canonical_format


def _coo(cls, data, row, col, n):
    return cls((data, (row, col)), shape=(n, n))


@st.composite
def coo_inputs(draw, max_nodes: int = 30, max_entries: int = 150):
    """``(row, col, n, seed, duplicates)``: entries on ``n`` vertices, in any order."""
    n = draw(st.integers(1, max_nodes))
    m = draw(st.integers(0, max_entries))
    duplicates = draw(st.booleans())
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if duplicates:
        row, col = rng.integers(0, n, m), rng.integers(0, n, m)
    else:
        keys = rng.permutation(n * n)[: min(m, n * n)]
        row, col = keys // n, keys % n
    if draw(st.booleans()):  # sorted input, as a CSR's tocoo() gives
        order = np.lexsort((col, row))
        row, col = row[order], col[order]
    return row, col, n, seed, duplicates


@given(
    coo_inputs(),
    st.sampled_from(DATA_DTYPES),
    st.sampled_from([np.int32, np.int64]),
    st.sampled_from(COO_CLASSES),
)
def test_matches_scipy_tocsr(entries, dtype, id_dtype, cls):
    row, col, n, seed, _ = entries
    data = _values(np.random.default_rng(seed), row.shape[0], dtype)
    _assert_same_csr(_coo(cls, data, row.astype(id_dtype), col.astype(id_dtype), n))


@given(coo_inputs(), st.sampled_from(DATA_DTYPES), st.sampled_from([np.int32, np.int64]))
def test_coo_to_csr_fast_path(entries, dtype, id_dtype):
    """Only floating-point values with duplicate entries are left to SciPy."""
    row, col, n, seed, _ = entries
    row, col = row.astype(id_dtype), col.astype(id_dtype)
    data = _values(np.random.default_rng(seed), row.shape[0], dtype)
    want = sp.coo_array((data, (row, col)), shape=(n, n)).tocsr()
    got = coo_to_csr(row, col, data, n)
    has_dups = want.nnz < row.shape[0]
    if has_dups and np.dtype(dtype).kind == "f":
        assert got is None
        return
    assert got is not None
    for a, b in zip((want.indptr, want.indices, want.data), got, strict=True):
        assert b.dtype == a.dtype
        np.testing.assert_array_equal(b, a)


@given(coo_inputs(), st.sampled_from([*DATA_DTYPES, None]), st.sampled_from([np.int32, np.int64]))
def test_merge_coo_is_scipys_csr(entries, dtype, id_dtype):
    """The sort-based merge the GPU route runs (here on NumPy) gives SciPy's CSR, and
    declines where coo_to_csr does: floating-point values with duplicates."""
    row, col, n, seed, _ = entries
    row, col = row.astype(id_dtype), col.astype(id_dtype)
    data = None if dtype is None else _values(np.random.default_rng(seed), row.shape[0], dtype)
    ones = np.ones(row.shape[0]) if data is None else data
    want = sp.coo_array((ones, (row, col)), shape=(n, n)).tocsr()
    got = merge_coo(np, row, col, data, n, np.int64)
    if want.nnz < row.shape[0] and dtype is not None and np.dtype(dtype).kind == "f":
        assert got is None
        return
    assert got is not None
    np.testing.assert_array_equal(got[0], want.indptr)
    np.testing.assert_array_equal(got[1], want.indices)
    assert got[0].dtype == got[1].dtype == np.int64
    if data is None:
        assert got[2] is None
    else:
        assert got[2].dtype == want.data.dtype
        np.testing.assert_array_equal(got[2], want.data)


@given(coo_inputs())
def test_structure_alone(entries):
    row, col, n, _, _ = entries
    A = sp.coo_array((np.ones(row.shape[0]), (row, col)), shape=(n, n))
    want = A.tocsr()
    indptr, indices, data = coo_to_csr(row, col, None, n)
    assert data is None
    np.testing.assert_array_equal(indptr, want.indptr)
    np.testing.assert_array_equal(indices, want.indices)
    got = csr_structure(A)
    np.testing.assert_array_equal(got[0], want.indptr)
    np.testing.assert_array_equal(got[1], want.indices)


@pytest.mark.parametrize("n", [3, 200, 5000, 1 << 20])
@pytest.mark.parametrize("dtype", [np.int64, np.bool_, np.float64])
def test_large_inputs_on_all_threads(n, dtype):
    """Enough entries for several input chunks and tasks of buckets, with rows that
    hold thousands of entries (n = 3) down to rows that hold none."""
    rng = np.random.default_rng(n)
    m = 200_000
    row, col = rng.integers(0, n, m).astype(np.int32), rng.integers(0, n, m).astype(np.int32)
    data = _values(rng, m, dtype)
    if dtype is np.float64:  # distinct entries, so the fast path runs
        keys = np.unique(row.astype(np.int64) * n + col)
        row, col = (keys // n).astype(np.int32), (keys % n).astype(np.int32)
        perm = rng.permutation(keys.shape[0])
        row, col, data = row[perm], col[perm], data[: keys.shape[0]]
        assert coo_to_csr(row, col, data, n) is not None
    for cls in COO_CLASSES:
        _assert_same_csr(_coo(cls, data, row, col, n))


def test_duplicates_sum_as_scipy():
    row, col = np.array([0, 1, 0, 0, 1]), np.array([1, 1, 1, 1, 0])
    ints = np.array([100, 5, 100, 100, -5], dtype=np.int8)  # 300 wraps in int8
    indptr, indices, data = coo_to_csr(row, col, ints, 2)
    assert (indptr.tolist(), indices.tolist(), data.tolist()) == ([0, 1, 3], [1, 0, 1], [44, -5, 5])
    flags = np.array([False, True, False, False, False])  # logical or, as SciPy's bool
    assert coo_to_csr(row, col, flags, 2)[2].tolist() == [False, False, True]
    for data in (ints, flags):
        _assert_same_csr(sp.coo_array((data, (row, col)), shape=(2, 2)))


def test_explicit_zeros_stay():
    row, col = np.array([1, 0, 1, 2]), np.array([0, 2, 2, 1])
    A = sp.coo_array((np.array([0.0, 1.0, 0.0, -0.0]), (row, col)), shape=(3, 3))
    _assert_same_csr(A)
    assert tocsr(A).nnz == 4
    cancelling = sp.coo_array((np.array([3, -3]), ([0, 0], [1, 1])), shape=(2, 2))
    _assert_same_csr(cancelling)  # the sum 0 is stored, as SciPy stores it
    assert tocsr(cancelling).nnz == 1


def test_float_duplicates_fall_back_to_scipy():
    rng = np.random.default_rng(3)
    row, col = rng.integers(0, 4, 500), rng.integers(0, 4, 500)
    data = rng.standard_normal(500)
    assert coo_to_csr(row, col, data, 4) is None
    assert coo_to_csr(row, col, data.astype(np.float32), 4) is None
    for cls in COO_CLASSES:
        _assert_same_csr(_coo(cls, data, row, col, 4))


@pytest.mark.parametrize("cls", COO_CLASSES)
def test_small_and_empty(cls):
    e = np.zeros(0, np.int64)
    for n in (1, 5):
        _assert_same_csr(_coo(cls, np.zeros(0), e, e, n))
    _assert_same_csr(_coo(cls, np.array([2.5]), np.array([0]), np.array([0]), 1))
    _assert_same_csr(_coo(cls, np.array([1, 2]), np.array([0, 0]), np.array([0, 0]), 1))
    rows_apart = _coo(cls, np.array([7, 8]), np.array([4, 0]), np.array([0, 4]), 6)
    _assert_same_csr(rows_apart)  # rows 1 to 3 and 5 are empty
    indptr, indices, data = coo_to_csr(e, e, np.zeros(0), 0)
    assert (indptr.tolist(), indices.size, data.size) == ([0], 0, 0)


def test_what_coo_to_csr_declines():
    row, col = np.array([0, 1]), np.array([1, 0])
    assert coo_to_csr(row, col, np.array([1 + 1j, 2j]), 2) is None  # not bool/int/float
    assert coo_to_csr(row, col, np.array([1, 2], dtype=">i4"), 2) is None  # byte order
    assert coo_to_csr(np.array([0, 2]), col, np.array([1, 2]), 2) is None  # id >= n
    assert coo_to_csr(np.array([0, -1]), col, np.array([1, 2]), 2) is None  # id < 0


def test_small_coo_goes_to_scipy(monkeypatch):
    calls = []
    monkeypatch.setattr(concomp._sparse, "MIN_ENTRIES", 3)
    monkeypatch.setattr("concomp._shared.csr.coo_to_csr", lambda *a: calls.append(a))
    tocsr(sp.coo_array(([1, 2], ([0, 1], [1, 0])), shape=(2, 2)))
    assert not calls


def test_index_dtype_default_and_given():
    row, col, data = np.array([1, 0]), np.array([0, 1]), np.array([1.0, 2.0])
    assert coo_to_csr(row.astype(np.int32), col.astype(np.int32), data, 2)[0].dtype == np.int32
    assert coo_to_csr(row, col, data, 2)[0].dtype == np.int64  # as a coo_array keeps them
    got = coo_to_csr(row, col, data, 2, np.dtype(np.int32))
    assert got[0].dtype == got[1].dtype == np.int32


def test_other_formats_and_canonical_coo_go_to_scipy():
    A = sp.random_array((30, 30), density=0.2, format="csr", rng=1)
    for fmt in ("csr", "csc", "lil", "dok", "bsr"):
        B = A.asformat(fmt)
        np.testing.assert_array_equal(tocsr(B).indices, B.tocsr().indices)
    C = A.tocoo()
    C.has_canonical_format = True
    _assert_same_csr(C)
    assert tocsr(A) is A.tocsr()  # a CSR is returned as it is, as SciPy returns it


# ----------------------------------------------------------------- public calls
def _weighted_coo(cls, seed: int, n: int = 300, m: int = 1500):
    """Weighted entries in shuffled order, with duplicates (integer weights) or
    without (float weights), and self loops."""
    rng = np.random.default_rng(seed)
    row, col = rng.integers(0, n, m), rng.integers(0, n, m)
    if seed % 2:
        return cls((rng.integers(1, 20, m), (row, col)), shape=(n, n))
    keys = np.unique(row * n + col)
    rng.shuffle(keys)
    return cls((rng.random(keys.shape[0]) + 0.5, (keys // n, keys % n)), shape=(n, n))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("cls", COO_CLASSES)
@pytest.mark.parametrize(
    ("entry", "fields"),
    [
        ("spanning_forest", ("edge_ids", "src", "dst")),
        ("minimum_spanning_forest", ("edge_ids", "src", "dst", "weights", "total_weight")),
    ],
)
def test_forests_same_as_on_csr(entry, fields, cls, seed):
    A = _weighted_coo(cls, seed)
    call = getattr(concomp, entry)
    got, want = call(A, device="cpu"), call(A.tocsr(), device="cpu")
    for name in fields:
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
@pytest.mark.parametrize("cls", COO_CLASSES)
def test_csgraph_same_as_on_csr(cls, seed):
    A = _weighted_coo(cls, seed)
    got, want = csgraph.minimum_spanning_tree(A), csgraph.minimum_spanning_tree(A.tocsr())
    assert type(got) is type(want)
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name))
    for connection in ("weak", "strong"):
        count, labels = csgraph.connected_components(A, connection=connection)
        want_count, want_labels = csgraph.connected_components(A.tocsr(), connection=connection)
        assert count == want_count
        np.testing.assert_array_equal(labels, want_labels)


@given(st.lists(st.integers(0, 40), min_size=1, max_size=60), st.integers(0, 5))
def test_expand_rows_on_every_thread_split(degrees, hub):
    """The row of every CSR entry, whatever the rows' lengths: empty rows, one long row
    (a hub) spread over several tasks, and more tasks than entries."""
    from concomp._shared.csr import expand_rows

    degrees[hub % len(degrees)] += 500
    indptr = np.concatenate(([0], np.cumsum(degrees))).astype(np.int64)
    want = np.repeat(np.arange(len(degrees)), degrees)
    for dtype in (np.int32, np.int64):
        got = expand_rows(indptr, np.dtype(dtype))
        assert got.dtype == dtype
        np.testing.assert_array_equal(got, want)


def test_expand_rows_of_no_entries():
    from concomp._shared.csr import expand_rows

    for indptr in (np.zeros(1, np.int64), np.zeros(4, np.int64)):
        assert expand_rows(indptr, np.dtype(np.int32)).shape == (0,)
