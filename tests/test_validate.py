"""Input validation: every bad input raises InvalidGraphError (a ValueError) whose message
names the argument, the offending value and its position; valid corner cases pass.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import concomp
from concomp import InvalidGraphError, as_graph

a = np.array

#: name -> (call, regex that the message must match)
BAD_INPUTS = {
    "negative_src": (
        lambda: as_graph((a([0, 1, -1]), a([1, 2, 0])), renumber=False),
        r"`src`: vertex id -1 at position 2 is negative",
    ),
    "negative_dst": (
        lambda: as_graph((a([0, 1]), a([-7, 2])), renumber=False),
        r"`dst`: vertex id -7 at position 0 is negative",
    ),
    "id_at_num_nodes": (
        lambda: as_graph((a([0, 1]), a([1, 3])), num_nodes=3),
        r"`dst`: vertex id 3 at position 1 is >= num_nodes=3",
    ),
    "id_above_num_nodes": (
        lambda: as_graph((a([9, 1]), a([1, 2])), num_nodes=3),
        r"`src`: vertex id 9 at position 0 is >= num_nodes=3",
    ),
    "fractional_id": (
        lambda: as_graph((a([0.0, 1.5]), a([1, 2]))),
        r"`src`: vertex id 1.5 at position 1 is not an integer",
    ),
    "nan_id": (
        lambda: as_graph((a([0, 1]), a([1.0, np.nan]))),
        r"`dst`: vertex id nan at position 1 is not an integer",
    ),
    "inf_id": (
        lambda: as_graph((a([np.inf, 1]), a([1, 2]))),
        r"`src`: vertex id inf at position 0 is not an integer",
    ),
    "bool_ids": (
        lambda: as_graph((a([True, False]), a([1, 0]))),
        r"`src`: vertex ids must be integers, got dtype bool",
    ),
    "string_ids": (
        lambda: as_graph((a(["a", "b"]), a([1, 2])), renumber=False),
        r"`src`: vertex ids must be integers with renumber=False, got dtype <U1",
    ),
    "complex_ids": (
        lambda: as_graph((a([0, 1]), a([1j, 2]))),
        r"`dst`: vertex ids must be integers, got dtype complex128",
    ),
    "mismatched_lengths": (
        lambda: as_graph((a([0, 1, 2]), a([1, 2]))),
        r"`src` and `dst` differ in length \(3 vs 2\)",
    ),
    "non_square_sparse": (
        lambda: as_graph(sp.csr_array((2, 3))),
        r"`graph`: adjacency matrix must be square, got shape \(2, 3\)",
    ),
    "non_square_sparse_matrix": (
        lambda: as_graph(sp.coo_matrix((4, 1))),
        r"`graph`: .*square, got shape \(4, 1\)",
    ),
    "nan_weight": (
        lambda: as_graph((a([0, 1]), a([1, 2]), a([1.0, np.nan]))),
        r"`weights`: weight NaN at position 1",
    ),
    "nan_weight_kwarg": (
        lambda: as_graph((a([0, 1, 2]), a([1, 2, 0])), weights=a([np.nan, 1.0, np.nan])),
        r"`weights`: weight NaN at position 0 \(2 NaN in all\)",
    ),
    "nan_weight_sparse": (
        lambda: as_graph(sp.csr_array(a([[0, 1.0], [np.nan, 0]]))),
        r"`weights`: weight NaN at position 1",
    ),
    "weight_length": (
        lambda: as_graph((a([0, 1]), a([1, 2])), weights=a([1.0, 2, 3])),
        r"`weights`: expected 2 weights \(one per edge\), got shape \(3,\)",
    ),
    "string_weights": (
        lambda: as_graph((a([0, 1]), a([1, 2])), weights=a(["x", "y"])),
        r"`weights`: weights must be numbers, got dtype <U1",
    ),
    "array_3d": (
        lambda: as_graph(np.zeros((2, 2, 2), dtype=np.int64)),
        r"`graph`: cannot read a graph from ndarray of shape \(2, 2, 2\)",
    ),
    "array_3_by_m": (
        lambda: as_graph(np.zeros((3, 5), dtype=np.int64)),
        r"`graph`: cannot read a graph from ndarray of shape \(3, 5\)",
    ),
    "array_1d": (
        lambda: as_graph(np.zeros(4, dtype=np.int64)),
        r"`graph`: cannot read a graph from ndarray of shape \(4,\)",
    ),
    "ids_2d": (
        lambda: as_graph((a([[0, 1]]), a([[1, 2]]))),
        r"`src`: expected a 1-D array of vertex ids, got shape \(1, 2\)",
    ),
    "num_nodes_negative": (
        lambda: as_graph((a([0]), a([1])), num_nodes=-1),
        r"`num_nodes`: -1 is negative",
    ),
    "num_nodes_float": (
        lambda: as_graph((a([0]), a([1])), num_nodes=2.5),
        r"`num_nodes`: expected a non-negative int, got 2.5",
    ),
    "num_nodes_whole_float": (
        lambda: as_graph((a([0]), a([1])), num_nodes=3.0),
        r"`num_nodes`: expected a non-negative int, got 3.0",
    ),
    "num_nodes_bool": (
        lambda: as_graph((a([0]), a([1])), num_nodes=True),
        r"`num_nodes`: expected a non-negative int, got True",
    ),
    "sparse_negative_index": (
        lambda: as_graph(sp.csr_array((np.ones(1), a([-1]), a([0, 1, 1])), shape=(2, 2))),
        r"`indices`: vertex id -1 at position 0 is negative",
    ),
    "uint64_overflow": (
        lambda: as_graph(
            (a([0, 2**64 - 1], dtype=np.uint64), a([1, 2], dtype=np.uint64)), renumber=False
        ),
        r"`src`: vertex id 18446744073709551615 at position 1 is too large",
    ),
}


@pytest.mark.parametrize("name", list(BAD_INPUTS))
def test_bad_input_raises_with_a_precise_message(name):
    call, pattern = BAD_INPUTS[name]
    with pytest.raises(InvalidGraphError, match=pattern) as info:
        call()
    assert isinstance(info.value, ValueError)
    assert "Fix:" in str(info.value)


PUBLIC_BAD = {
    "negative_src": (
        (a([0, -1]), a([1, 0])),
        {"renumber": False},
        r"`src`: vertex id -1 at position 1",
    ),
    "id_above_num_nodes": ((a([9]), a([1])), {"num_nodes": 3}, r"`src`: vertex id 9"),
    "nan_id": ((a([0.0]), a([np.nan])), {}, r"`dst`: vertex id nan at position 0"),
    "mismatched_lengths": ((a([0, 1]), a([1])), {}, r"differ in length \(2 vs 1\)"),
    "array_3_by_m": (np.zeros((3, 5), dtype=np.int64), {}, r"shape \(3, 5\)"),
}


@pytest.mark.parametrize("name", list(PUBLIC_BAD))
@pytest.mark.parametrize(
    "function",
    [
        concomp.connected_components,
        concomp.number_connected_components,
        concomp.component_sizes,
        concomp.largest_component,
    ],
    ids=lambda f: f.__name__,
)
def test_public_functions_validate_too(function, name):
    graph, kwargs, pattern = PUBLIC_BAD[name]
    with pytest.raises(InvalidGraphError, match=pattern):
        function(graph, device="cpu", **kwargs)


# --------------------------------------------------------------------------- valid corner cases
def test_empty_edge_list_with_and_without_num_nodes():
    none = np.zeros(0, dtype=np.int64)
    g = as_graph((none, none))
    assert g.num_nodes == 0 and g.num_edges == 0
    g = as_graph((none, none), num_nodes=5)
    assert g.num_nodes == 5
    assert concomp.connected_components(g, device="cpu")[1].tolist() == [0, 1, 2, 3, 4]


@pytest.mark.parametrize("n", [0, 1])
def test_tiny_graphs(n):
    none = np.zeros(0, dtype=np.int64)
    count, labels = concomp.connected_components((none, none), num_nodes=n, device="cpu")
    assert count == n and labels.tolist() == list(range(n))
    assert concomp.number_connected_components(sp.csr_array((n, n)), device="cpu") == n


def test_empty_lists_and_empty_sparse():
    assert as_graph(([], [])).num_nodes == 0
    assert as_graph(sp.coo_array((0, 0))).num_nodes == 0
    assert as_graph(np.zeros((0, 2), dtype=np.int64)).num_edges == 0


def test_isolated_vertices_and_self_loops_only():
    v = np.arange(6)
    count, labels = concomp.connected_components((v, v), num_nodes=8, device="cpu")
    assert count == 8 and labels.tolist() == list(range(8))


def test_whole_float_ids_are_accepted():
    g = as_graph((a([0.0, 2.0]), a([1.0, 3.0])))
    assert g.num_nodes == 4 and g.coo()[0].dtype.kind == "i"


def test_numpy_integer_num_nodes_is_accepted():
    assert as_graph((a([0]), a([1])), num_nodes=np.int64(4)).num_nodes == 4


def test_infinite_weights_are_accepted():
    g = as_graph((a([0, 1]), a([1, 2])), weights=a([-np.inf, np.inf]))
    assert g.is_weighted


def test_ids_near_two_to_the_31_choose_int64_without_running_the_engine():
    big = 2**31
    src = a([big - 5, big - 3], dtype=np.int64)
    dst = a([big - 4, big - 1], dtype=np.int64)
    g = as_graph((src, dst), num_nodes=big)  # n = 2^31 does not fit int32
    assert g.num_nodes == big and g.index_dtype == np.int64
    assert g.coo()[0].dtype == np.int64
    g = as_graph((src, dst - 1), num_nodes=big - 1)  # n = 2^31 - 1 still fits
    assert g.index_dtype == np.int32
    assert as_graph((src, dst), renumber=False).num_nodes == big  # max id + 1
    assert as_graph((src, dst)).num_nodes == 4  # renumber="auto": the distinct ids
    with pytest.raises(InvalidGraphError, match=f"vertex id {big - 1} at position 1"):
        as_graph((src, dst), num_nodes=big - 1)


@pytest.mark.gpu
def test_device_arrays_take_the_fused_checks_with_the_same_results_and_messages():
    """Valid CuPy input passes the fused device checks (concomp._gpu.checks) and builds
    the graph the NumPy input builds; invalid input gets the general checks' message."""
    cp = pytest.importorskip("cupy")
    import re

    import concomp
    from concomp.errors import InvalidGraphError

    src, dst = np.array([0, 2, 5], np.int32), np.array([1, 3, 4], np.int32)
    for n in (None, 9):
        host = concomp.Graph.from_edges(src, dst, n)
        dev = concomp.Graph.from_edges(cp.asarray(src), cp.asarray(dst), n)
        assert dev.num_nodes == host.num_nodes
    indptr, indices = np.array([0, 1, 1, 3], np.int64), np.array([2, 0, 1], np.uint16)
    assert concomp.Graph.from_csr(cp.asarray(indptr), cp.asarray(indices)).num_nodes == 3
    bad_edges = [
        ([0, -1], [1, 2], None),
        ([0, 1], [1, 7], 5),
    ]
    for s, d, n in bad_edges:
        with pytest.raises(InvalidGraphError) as host_err:
            concomp.Graph.from_edges(np.array(s), np.array(d), n)
        with pytest.raises(InvalidGraphError, match=re.escape(str(host_err.value))):
            concomp.Graph.from_edges(cp.array(s), cp.array(d), n)
    bad_csr = [
        ([0, 2, 1, 3], [0, 1, 2]),  # decreasing
        ([1, 2, 3, 3], [0, 1, 2]),  # does not start at 0
        ([0, 1, 2, 2], [0, 1, 2]),  # does not end at len(indices)
        ([0, 1, 2, 3], [0, 1, 3]),  # id >= n
        ([0, 1, 2, 3], [0, -1, 2]),  # negative id
    ]
    for p, i in bad_csr:
        with pytest.raises(InvalidGraphError) as host_err:
            concomp.Graph.from_csr(np.array(p), np.array(i))
        with pytest.raises(InvalidGraphError, match=re.escape(str(host_err.value))):
            concomp.Graph.from_csr(cp.array(p), cp.array(i))


@pytest.mark.gpu
def test_fused_checks_report_exact_ranges_of_every_sign_and_dtype():
    """The fused kernels keep the range in encodings whose zero is the identity
    (``checks.cu``): the decoded minimum and maximum equal NumPy's for every dtype they
    read, negative and extreme values included, and no ids give ``lo > hi``."""
    cp = pytest.importorskip("cupy")
    from concomp._gpu import checks

    rng = np.random.default_rng(5)
    i64 = np.iinfo(np.int64)
    cases = [
        np.array([i64.min, -1, 0, i64.max], np.int64),
        np.array([-5, -7, -6], np.int64),
        rng.integers(-(2**40), 2**40, 300_000),
        rng.integers(0, 2**32, 100_000).astype(np.uint32),
        rng.integers(-128, 128, 5000).astype(np.int8),
        rng.integers(0, 2**16, 7).astype(np.uint16),
    ]
    for a in cases:
        assert checks.id_range(cp, cp.asarray(a)) == (int(a.min()), int(a.max()))
        b = cp.asarray(a[::-1].copy())
        assert checks.id_range(cp, cp.asarray(a), b) == (int(a.min()), int(a.max()))
    indptr = np.array([0, 3, 3, 9], np.int64)
    facts = checks.csr_facts(cp, cp.asarray(indptr), cp.asarray(np.arange(-4, 5)))
    assert facts == {"lo": -4, "hi": 4, "decreases": 0, "first": 0, "last": 9}
    empty = checks.csr_facts(cp, cp.asarray(np.zeros(3, np.int64)), cp.zeros(0, np.int32))
    assert empty["lo"] > empty["hi"] and empty["decreases"] == 0


@pytest.mark.parametrize("batch", [False, True], ids=["table", "record batch"])
def test_pyarrow_tables_are_read_by_column_name_like_frames(batch):
    """A pyarrow Table or RecordBatch on the general path reads its id and weight
    columns by name, as a pandas frame does (it was read as a matrix: columns in the
    wrong order swapped the endpoints, and a weight column became a third row of ids)."""
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 60, 200), rng.integers(0, 60, 200)
    w = rng.random(200)
    cols = {"weight": w, "dst": dst, "src": src}  # ids not first, not in order
    table = pa.record_batch(cols) if batch else pa.table(cols)
    frame = pd.DataFrame(cols)
    for call in (
        lambda g: concomp.connected_components(g, device="cpu"),
        lambda g: concomp.spanning_forest(g, device="cpu").src,
        lambda g: concomp.minimum_spanning_forest(g, device="cpu").total_weight,
        lambda g: concomp.strongly_connected_components(g, device="cpu"),
    ):
        got, want = call(table), call(frame)
        np.testing.assert_equal(got, want)
    g = as_graph(table)
    np.testing.assert_array_equal(g.coo()[0], src)
    np.testing.assert_array_equal(g.weights, w)


def test_pyarrow_table_errors_name_the_column():
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(InvalidGraphError, match=r"`src`: vertex id nan at position 1"):
        concomp.connected_components(pa.table({"src": [0, None], "dst": [1, 2]}), device="cpu")
    with pytest.raises(InvalidGraphError, match=r"needs two id columns, got \['a'\]"):
        concomp.connected_components(pa.table({"a": [0, 1]}), device="cpu")
    n, labels = concomp.connected_components(pa.table({"a": ["x", "y"], "b": ["y", "z"]}))
    assert n == 1 and labels.tolist() == [0, 0, 0]


@pytest.mark.gpu
def test_fused_nan_count_counts_every_nan_and_device_weights_name_the_first():
    cp = pytest.importorskip("cupy")
    from concomp._gpu import checks

    rng = np.random.default_rng(9)
    for dt in (np.float32, np.float64):
        w = rng.random(200_000).astype(dt)
        assert checks.nan_count(cp, cp.asarray(w)) == 0
        w[[5, 77, 199_999]] = np.nan
        w[10] = np.inf
        assert checks.nan_count(cp, cp.asarray(w)) == 3
        assert checks.nan_count(cp, cp.zeros(0, dt)) == 0
        with pytest.raises(InvalidGraphError, match=r"weight NaN at position 5 \(3 NaN in all\)"):
            as_graph((cp.arange(w.size), cp.arange(w.size)), weights=cp.asarray(w))
    assert checks.nan_count(cp, cp.zeros(3, np.float16)) is None  # the general check counts


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.int16, np.uint32])
@pytest.mark.parametrize("strided", [False, True])
def test_large_id_arrays_are_checked_whatever_path_finds_their_range(dtype, strided):
    """Ids past ``FUSED_HOST_EDGES``: C-contiguous int32/int64 arrays find their range in
    one parallel pass, others with NumPy; both name the first bad position and the fix,
    and a good array passes through unchanged."""
    from concomp._checks import FUSED_HOST_EDGES, check_ids

    m = FUSED_HOST_EDGES + 1000
    base = np.arange(2 * m, dtype=dtype) % 1000
    ids = base[::2] if strided else base[:m].copy()
    assert check_ids(ids, "src", 1000) is ids
    bad = ids.copy() if not strided else base.copy()[::2]
    bad[m - 7] = 1000  # the first id >= num_nodes
    with pytest.raises(
        InvalidGraphError, match=rf"src`: vertex id 1000 at position {m - 7} is >= num_nodes=1000"
    ):
        check_ids(bad, "src", 1000)
    if np.dtype(dtype).kind == "i":
        bad[m - 7] = 5
        bad[40_000] = -3
        with pytest.raises(InvalidGraphError, match="position 40000 is negative"):
            check_ids(bad, "src", 1000)
    g = concomp.Graph.from_edges(ids, np.roll(ids, 1), num_nodes=1000)
    assert g.num_nodes == 1000 and g.num_edges == m
