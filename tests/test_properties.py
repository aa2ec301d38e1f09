"""Property-based tests (hypothesis): random edge lists with int32 and int64 ids against
SciPy, for every CPU variant and for the csgraph drop-in (weak and strong), plus ids
near 2^31.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse import csgraph as scipy_csgraph

import concomp
from concomp import all_variants, csgraph
from concomp.components import canonical_labels
from concomp.options import Options
from concomp.testing import (
    assert_same_partition,
    reference_components,
    reference_strong_components,
)

given = pytest.importorskip("hypothesis").given
st = pytest.importorskip("hypothesis.strategies")

ID_DTYPES = st.sampled_from([np.int32, np.int64])


@st.composite
def edge_lists(draw, max_nodes: int = 40, max_edges: int = 120):
    """``(src, dst, n)``: any multigraph on ``n`` vertices (loops and duplicates allowed)."""
    n = draw(st.integers(0, max_nodes))
    if n == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), 0
    pairs = draw(
        st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=max_edges)
    )
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return arr[:, 0].copy(), arr[:, 1].copy(), n


def _scipy_strong(A):
    return scipy_csgraph.connected_components(A, directed=True, connection="strong")


def _same(got, want):
    assert type(got[0]) is int and got[0] == int(want[0])
    assert got[1].dtype == np.int32
    np.testing.assert_array_equal(got[1], want[1])


# --------------------------------------------------------------------------- core API
@given(
    graph=edge_lists(),
    dtype=ID_DTYPES,
    variant=st.sampled_from(all_variants("cpu")),
    parallel=st.booleans(),
)
def test_every_cpu_variant_matches_scipy(graph, dtype, variant, parallel):
    src, dst, n = graph
    # parallel: these small graphs run on all of numba's threads (by default: on one)
    options = Options(parallel_min_edges=0) if parallel else None
    got = concomp.connected_components(
        (src.astype(dtype), dst.astype(dtype)),
        num_nodes=n,
        device="cpu",
        algorithm=variant,
        options=options,
    )
    _same(got, reference_components(src, dst, n))


@given(graph=edge_lists(max_nodes=300, max_edges=400), dtype=ID_DTYPES)
def test_auto_matches_scipy_on_larger_graphs(graph, dtype):
    src, dst, n = graph
    got = concomp.connected_components(
        (src.astype(dtype), dst.astype(dtype)), num_nodes=n, device="cpu"
    )
    _same(got, reference_components(src, dst, n))


# --------------------------------------------------------------------------- csgraph
FORMATS = st.sampled_from(["coo", "csr", "csc", "lil", "dok", "dense"])


def _matrix(src, dst, n, fmt, as_array, data):
    make = sp.coo_array if as_array else sp.coo_matrix
    A = make((data, (src, dst)), shape=(n, n))
    return A.toarray() if fmt == "dense" else A.asformat(fmt)


@given(
    graph=edge_lists(),
    fmt=FORMATS,
    as_array=st.booleans(),
    directed=st.booleans(),
    connection=st.sampled_from(["weak", "strong"]),
    data=st.data(),
)
def test_csgraph_matches_scipy(graph, fmt, as_array, directed, connection, data):
    src, dst, n = graph
    values = data.draw(
        st.lists(
            st.sampled_from([0.0, 1.0, 2.5, -1.0, np.inf, np.nan]),
            min_size=src.shape[0],
            max_size=src.shape[0],
        )
    )
    A = _matrix(src, dst, n, fmt, as_array, np.array(values, dtype=np.float64))
    got = csgraph.connected_components(A, directed=directed, connection=connection)
    _same(got, scipy_csgraph.connected_components(A, directed=directed, connection=connection))


@st.composite
def raw_csr(draw, duplicates: bool):
    """CSR arrays built by hand: rows in any stored order, with or without repeated columns."""
    n = draw(st.integers(1, 30))
    col = st.integers(0, n - 1)
    rows = []
    for _ in range(n):
        if duplicates:
            rows.append(draw(st.lists(col, max_size=6)))
        else:
            rows.append(draw(st.permutations(sorted(draw(st.sets(col, max_size=6))))))
    indptr = np.zeros(n + 1, dtype=np.int32)
    indptr[1:] = np.cumsum([len(r) for r in rows])
    indices = np.array([c for r in rows for c in r], dtype=np.int32)
    return indptr, indices, n


@given(csr=raw_csr(duplicates=False), index_dtype=ID_DTYPES)
def test_strong_numbering_equals_scipy_for_unsorted_rows(csr, index_dtype):
    indptr, indices, n = csr
    A = sp.csr_array(
        (np.ones(indices.shape[0]), indices.astype(index_dtype), indptr.astype(index_dtype)),
        shape=(n, n),
    )
    _same(csgraph.connected_components(A, connection="strong"), _scipy_strong(A))
    _same(
        csgraph.connected_components(A, connection="weak"),
        scipy_csgraph.connected_components(A, connection="weak"),
    )


@given(csr=raw_csr(duplicates=True))
def test_strong_with_repeated_columns(csr):
    """SciPy may never return on repeated columns (concomp.csgraph's notes); the plain
    Python reference gives the numbering, SciPy on the summed matrix the partition."""
    indptr, indices, n = csr
    A = sp.csr_array((np.ones(indices.shape[0]), indices, indptr), shape=(n, n))
    got = csgraph.connected_components(A, connection="strong")
    want_count, want_labels = reference_strong_components(indptr, indices)
    assert got[0] == want_count
    np.testing.assert_array_equal(got[1], want_labels)
    summed = A.copy()
    summed.sum_duplicates()
    count, labels = _scipy_strong(summed)
    assert got[0] == count
    assert_same_partition(got[1], labels)


# --------------------------------------------------------------------------- ids near 2^31
BIG = 2**31


@given(ids=st.lists(st.integers(BIG - 1000, BIG + 999), min_size=2, max_size=300), data=st.data())
def test_ids_near_two_to_the_31(ids, data):
    ids = np.array(ids, dtype=np.int64)
    m = ids.shape[0] // 2
    src, dst = ids[:m], ids[m : 2 * m]
    g = concomp.as_graph((src, dst), renumber=False)  # the dense-id path near 2**31
    top = int(max(src.max(), dst.max()))
    assert g.num_nodes == top + 1
    assert g.index_dtype == (np.int64 if top + 1 > BIG - 1 else np.int32)
    assert g.coo()[0].dtype == g.index_dtype
    # the engine on the same edges shifted down: n stays small
    base = BIG - 1000
    n = top + 1 - base
    variant = data.draw(st.sampled_from(all_variants("cpu")))
    got = concomp.connected_components(
        (src - base, dst - base), num_nodes=n, device="cpu", algorithm=variant
    )
    _same(got, reference_components(src - base, dst - base, n))


@given(graph=edge_lists(max_nodes=60), dtype=ID_DTYPES)
def test_canonical_labels_from_min_vertex_roots(graph, dtype):
    src, dst, n = graph
    count, labels = reference_components(src, dst, n)
    mins = np.full(count, n, dtype=np.int64)
    np.minimum.at(mins, labels, np.arange(n))
    got_count, got = canonical_labels(mins[labels].astype(dtype))
    assert got_count == count and got.dtype == np.int32
    np.testing.assert_array_equal(got, labels)


def test_engine_with_ids_at_the_top_of_a_few_million_vertices():
    n = 4_000_000
    rng = np.random.default_rng(7)
    src = rng.integers(n - 2000, n, 1500)
    dst = rng.integers(n - 2000, n, 1500)
    want = reference_components(src, dst, n)
    for algorithm in ("auto", "rem", "afforest"):
        got = concomp.connected_components(
            (src, dst), num_nodes=n, device="cpu", algorithm=algorithm
        )
        _same(got, want)
