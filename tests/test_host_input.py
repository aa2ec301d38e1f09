"""Host data on the GPU: every host input kind goes through the streaming feed.

``connected_components`` reads host edges as the caller holds them
(:func:`concomp._validate.host_edges`), stages them into pinned slots in one
parallel pass that also checks their range (a CSR crosses as its columns and
its rows' offsets, :func:`concomp._shared.staging.stage_csr_columns`, and the
device expands the rows), and unites them on the device. The CPU tests check the
pieces; the GPU tests check every input kind against SciPy and the errors against
the general input path's.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import concomp
from concomp._cpu.streaming import Streamer as CpuStreamer
from concomp._shared.staging import stage_csr
from concomp._validate import host_edges
from concomp.components import canonical_labels
from concomp.errors import InvalidGraphError
from concomp.options import DEFAULTS
from concomp.streaming import host_chunks
from concomp.variants import Variant


def _random_csr(seed: int, n: int = 4000, max_deg: int = 12) -> sp.csr_array:
    rng = np.random.default_rng(seed)
    deg = rng.integers(0, max_deg, n)
    deg[rng.random(n) < 0.2] = 0  # runs of empty rows
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(deg, out=indptr[1:])
    indices = rng.integers(0, n, int(indptr[-1]))
    return sp.csr_array((np.ones(indices.size), indices, indptr), shape=(n, n))


def _reference(src, dst, n):
    a = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n))
    return scipy_cc(a, directed=False)


# ----------------------------------------------------------------------- the pieces (CPU)
@pytest.mark.parametrize("out_dtype", [np.int32, np.int64])
def test_stage_csr_expands_rows_over_many_blocks(out_dtype):
    a = _random_csr(1, n=60_000, max_deg=9)  # ~240k entries: several parallel blocks
    indptr, indices = a.indptr, a.indices
    rows = np.repeat(np.arange(a.shape[0]), np.diff(indptr))
    m = indices.size
    for start, stop, offset in ((0, m, 0), (70_001, m - 5, 3), (5, 6, 0), (m, m, 0)):
        out_s = np.full(m + 3, -1, out_dtype)
        out_d = np.full(m + 3, -1, out_dtype)
        lo, hi = stage_csr(indptr, indices, start, stop, out_s, out_d, offset)
        k = stop - start
        np.testing.assert_array_equal(out_s[offset : offset + k], rows[start:stop])
        np.testing.assert_array_equal(out_d[offset : offset + k], indices[start:stop])
        if k:
            assert (lo, hi) == (indices[start:stop].min(), indices[start:stop].max())
        else:
            assert (lo, hi) == (0, -1)


def test_stage_csr_reports_bad_columns():
    indptr, indices = np.array([0, 2, 3]), np.array([1, -4, 9])
    out = np.zeros(3, np.int64), np.zeros(3, np.int64)
    assert stage_csr(indptr, indices, 0, 3, *out) == (-4, 9)


@pytest.mark.parametrize("seed", range(40))
def test_stage_csr_columns_gives_the_rows_the_device_expands(seed):
    from concomp._shared.staging import stage_csr_columns

    rng = np.random.default_rng(seed)
    a = _random_csr(seed, n=int(rng.integers(1, 400)), max_deg=7)
    indptr, indices, m = a.indptr, a.indices, a.indices.size
    if m == 0:
        return
    rows = np.repeat(np.arange(a.shape[0]), np.diff(indptr))
    start = int(rng.integers(0, m))
    stop = int(rng.integers(start + 1, m + 1))
    cols = np.full(m, -9, np.int32)
    seg = np.full(int(rng.integers(2, 40)), -9, np.int32)
    end, r0, nseg, lo, hi = stage_csr_columns(indptr, indices, start, stop, cols, seg)
    k = end - start
    assert start < end <= stop and 2 <= nseg <= seg.size
    np.testing.assert_array_equal(cols[:k], indices[start:end])
    assert (lo, hi) == (indices[start:end].min(), indices[start:end].max())
    assert seg[0] == 0 and seg[nseg - 1] == k
    # the device's rule: entry j lies in row r0 + (the last i with seg[i] <= j)
    last = np.searchsorted(seg[:nseg], np.arange(k), side="right") - 1
    np.testing.assert_array_equal(r0 + last, rows[start:end])


def test_cpu_streamer_expands_a_csr_in_pieces(monkeypatch):
    import concomp._cpu.streaming as cpu_streaming

    monkeypatch.setattr(cpu_streaming, "_CSR_PIECE", 97)
    a = _random_csr(4, n=2000)
    eng = CpuStreamer(a.shape[0], Variant.parse("none-rem_cas-splice-coo"), DEFAULTS)
    seen = []
    eng.add_csr(a.indptr, a.indices, lambda lo, hi: seen.append((lo, hi)))
    count, labels = canonical_labels(eng.roots())
    ref = scipy_cc(a, directed=False)
    assert count == ref[0] and len(seen) == -(-a.indices.size // 97)
    np.testing.assert_array_equal(labels, ref[1])


@pytest.mark.parametrize("at", [None, 0, (1 << 16) - 1, (1 << 16), (1 << 21) - 3])
def test_check_indptr_on_long_row_pointers(at):
    # longer than the parallel threshold: a drop anywhere, also across a block boundary
    from concomp._checks import _PARALLEL_INDPTR, check_indptr

    indptr = np.arange(max(_PARALLEL_INDPTR + 2, 1 << 21), dtype=np.int64)
    if at is not None:
        indptr[at + 1] = indptr[at] - 1
        indptr[-1] = indptr.shape[0] - 1
        with pytest.raises(InvalidGraphError, match="never decrease"):
            check_indptr(indptr, int(indptr[-1]))
    else:
        check_indptr(indptr, int(indptr[-1]))


def test_host_edges_reads_inputs_as_coerce_graph_does():
    src, dst = np.array([0, 2, 4]), np.array([1, 3, 5])
    pairs = np.stack([src, dst])
    for graph in ((src, dst), (src, dst, np.ones(3)), pairs, pairs.T.copy()):
        e = host_edges(graph)
        assert e is not None and e.indptr is None
        assert e.src.tolist() == [0, 2, 4] and e.dst.tolist() == [1, 3, 5]
    a = sp.csr_array((np.ones(3), (src, dst)), shape=(6, 6))
    e = host_edges(a)
    assert e is not None and e.src is None and e.num_nodes == 6 and e.num_edges == 3
    e = host_edges(a.tocoo())
    assert e is not None and e.indptr is None and e.num_nodes == 6
    assert host_edges(a.tocsc()) is None  # the general path converts it, once
    pd = pytest.importorskip("pandas")
    e = host_edges(pd.DataFrame({"w": [1.0, 2.0, 3.0], "target": dst, "source": src}))
    assert e.src.tolist() == [0, 2, 4] and e.dst.tolist() == [1, 3, 5]


@pytest.mark.parametrize(
    "graph",
    [
        (np.array([0.0, 1.0]), np.array([1.0, 2.0])),  # float ids: the general path checks them
        (np.array([0, 1], np.uint64), np.array([1, 2], np.uint64)),
        (np.array([0, 1]), np.array([1, 2, 3])),  # lengths differ: the general path says so
        np.array([[0, 1, 2]]),
        sp.csr_array((3, 4)),  # not square
        [[0, 1], [1, 2]],  # a list of pairs is an (m, 2) array there
        "graph.txt",
    ],
)
def test_host_edges_leaves_other_inputs_to_the_general_path(graph):
    assert host_edges(graph) is None


def _batched_table(src, dst, pieces=3):
    pa = pytest.importorskip("pyarrow")
    cuts = np.linspace(0, len(src), pieces + 1).astype(int)
    batches = [
        pa.record_batch({"w": np.ones(b - a), "target": dst[a:b], "source": src[a:b]})
        for a, b in itertools.pairwise(cuts)
    ]
    return pa.Table.from_batches(batches)


def test_host_chunks_reads_a_table_batch_by_batch_without_copies():
    src, dst = np.arange(0, 20, 2), np.arange(1, 21, 2)
    table = _batched_table(src, dst)
    e = host_chunks(table, None, "auto")
    assert e is not None and e.num_edges == 10 and e.num_nodes is None
    pieces = list(e.chunks())
    assert len(pieces) == 3 and all(p.label.startswith("table (record batch") for p in pieces)
    np.testing.assert_array_equal(np.concatenate([p.src for p in pieces]), src)
    np.testing.assert_array_equal(np.concatenate([p.dst for p in pieces]), dst)
    assert not pieces[0].src.flags.owndata  # views of the Arrow buffers
    assert host_chunks(table, 50, "auto").num_nodes == 50


def test_host_chunks_leaves_tables_it_cannot_take_as_they_are():
    pa = pytest.importorskip("pyarrow")
    src, dst = np.arange(5), np.arange(1, 6)
    assert host_chunks(_batched_table(src, dst), None, True) is None  # renumber=True
    assert host_chunks(_batched_table(src - 3, dst), None, "auto") is None  # negative: renumbered
    assert (
        host_chunks(_batched_table(src - 3, dst), 9, "auto") is not None
    )  # the range check names it
    floats = pa.table({"src": src.astype(float), "dst": dst})
    nulls = pa.table({"src": pa.array([0, None, 2]), "dst": pa.array([1, 2, 3])})
    wide = pa.table({"src": pa.array(src, pa.uint64()), "dst": dst})
    strings = pa.table({"src": ["a", "b"], "dst": ["b", "c"]})
    for t in (floats, nulls, wide, strings, pa.table({"src": src})):
        assert host_chunks(t, None, "auto") is None


def test_host_chunks_reads_a_parquet_path_as_row_groups(tmp_path):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    src, dst = np.arange(0, 20, 2), np.arange(1, 21, 2)
    path = tmp_path / "e.parquet"
    pq.write_table(_batched_table(src, dst), path, row_group_size=4)
    e = host_chunks(str(path), None, "auto")  # the range from the row groups' statistics
    assert e is not None and e.num_edges == 10 and e.num_nodes is None
    pieces = list(e.chunks())
    assert len(pieces) == 3 and "row group 2" in pieces[2].label
    np.testing.assert_array_equal(np.concatenate([p.src for p in pieces]), src)
    assert host_chunks(path, 30, "auto").num_nodes == 30
    concomp.write_graph(concomp.Graph.from_edges(src, dst, 40), tmp_path / "g.parquet")
    assert host_chunks(tmp_path / "g.parquet", None, "auto").num_nodes == 40  # its metadata
    pq.write_table(_batched_table(src, dst), tmp_path / "bare.parquet", write_statistics=False)
    assert host_chunks(tmp_path / "bare.parquet", None, "auto") is None  # no range known
    assert host_chunks(tmp_path / "bare.parquet", 21, "auto") is not None
    pq.write_table(_batched_table(src - 5, dst), tmp_path / "neg.parquet")
    assert host_chunks(tmp_path / "neg.parquet", None, "auto") is None
    (tmp_path / "e.txt").write_text("0 1\n")
    for other in (tmp_path / "e.txt", tmp_path / "missing.parquet", tmp_path, 3):
        assert host_chunks(other, None, "auto") is None


def test_host_edges_declared_size_must_match_a_matrix():
    assert host_edges(sp.csr_array((4, 4)), num_nodes=5) is None
    assert host_edges(sp.csr_array((4, 4)), num_nodes=4).num_nodes == 4


def test_cpu_streamer_unites_a_csr():
    a = _random_csr(2, n=3000)
    eng = CpuStreamer(a.shape[0], Variant.parse("none-async-halve-coo"), DEFAULTS)
    eng.add_csr(a.indptr, a.indices, lambda lo, hi: None)
    roots = eng.roots()
    count, labels = canonical_labels(roots)
    ref = scipy_cc(a, directed=False)
    assert count == ref[0]
    np.testing.assert_array_equal(labels, ref[1])


# ----------------------------------------------------------------------- the GPU feed
def _kinds(seed: int):
    a = _random_csr(seed)
    n = a.shape[0]
    coo = a.tocoo()
    src, dst = coo.row.astype(np.int64), coo.col.astype(np.int64)
    kinds = {
        "numpy pair int64": (src, dst),
        "numpy pair uint32": (src.astype(np.uint32), dst.astype(np.uint32)),
        "(2, m) int32": np.stack([src, dst]).astype(np.int32),
        "(m, 2) strided": np.stack([src, dst], axis=1),
        "scipy csr": a,
        "scipy csr symmetric": (a + a.T).tocsr(),
        "scipy coo": coo,
        "scipy csc": a.tocsc(),
    }
    try:
        import pandas as pd

        kinds["pandas"] = pd.DataFrame({"src": src, "dst": dst})
    except ImportError:
        pass
    try:
        import torch

        kinds["torch cpu edge_index"] = torch.from_numpy(np.stack([src, dst]))
    except ImportError:
        pass
    return kinds, src, dst, n


@pytest.mark.gpu
@pytest.mark.parametrize("chunk_edges", [None, 256])
def test_gpu_every_host_kind_matches_scipy(chunk_edges):
    import cupy as cp

    kinds, src, dst, n = _kinds(3)
    ref = _reference(src, dst, n)
    opts = None if chunk_edges is None else DEFAULTS.with_(chunk_edges=chunk_edges)
    for name, graph in kinds.items():
        count, labels = concomp.connected_components(graph, num_nodes=n, device="gpu", options=opts)
        assert isinstance(labels, np.ndarray), name
        assert count == ref[0], name
        np.testing.assert_array_equal(labels, ref[1], err_msg=name)
        roots = concomp.connected_components(graph, num_nodes=n, device="gpu", canonical=False)[1]
        assert (roots <= np.arange(n)).all(), name  # roots are the smallest id of a component
        assert (
            concomp.connected_components(graph, num_nodes=n, device="gpu", return_labels=False)
            == ref[0]
        ), name
        on_gpu = concomp.connected_components(graph, num_nodes=n, device="gpu", output_device="gpu")
        assert isinstance(on_gpu[1], cp.ndarray), name
        np.testing.assert_array_equal(on_gpu[1].get(), ref[1], err_msg=name)


@pytest.mark.gpu
def test_gpu_host_sizes_follow_the_ids_or_num_nodes():
    src, dst = np.array([0, 5]), np.array([1, 6])
    count, labels = concomp.connected_components((src, dst), device="gpu")
    assert (count, labels.tolist()) == (5, [0, 0, 1, 2, 3, 4, 4])
    count, labels = concomp.connected_components((src, dst), num_nodes=9, device="gpu")
    assert count == 7 and labels.shape == (9,)
    empty = np.zeros(0, np.int64)
    assert concomp.connected_components((empty, empty), num_nodes=3, device="gpu")[0] == 3
    assert concomp.connected_components((empty, empty), device="gpu")[0] == 0


@pytest.mark.gpu
@pytest.mark.parametrize(
    "graph, num_nodes",
    [
        ((np.array([0, 1, 2]), np.array([1, -3, 0])), None),
        ((np.array([0, 1, 2]), np.array([1, 7, 0])), 5),
        (np.array([[0, 1], [2, 9]]).T.copy(), 4),
    ],
)
def test_gpu_bad_ids_raise_what_the_cpu_path_raises(graph, num_nodes):
    # renumber=False: negative ids are an error only where ids must be dense positions
    calls = [
        lambda dev: concomp.connected_components(
            graph, num_nodes=num_nodes, device=dev, renumber=False
        ),
        lambda dev: concomp.spanning_forest(graph, num_nodes=num_nodes, device=dev, renumber=False),
    ]
    if num_nodes is None:  # the MSF takes no vertex count
        calls.append(lambda dev: concomp.minimum_spanning_forest(graph, device=dev, renumber=False))
    for call in calls:
        with pytest.raises(InvalidGraphError) as on_cpu:
            call("cpu")
        with pytest.raises(InvalidGraphError) as on_gpu:
            call("gpu")
        assert str(on_gpu.value) == str(on_cpu.value)


@pytest.mark.gpu
def test_gpu_host_graph_objects_stream_too():
    a = _random_csr(4)
    n = a.shape[0]
    ref = scipy_cc(a, directed=False)
    for g in (
        concomp.Graph.from_csr(a.indptr, a.indices, n),
        concomp.Graph.from_edges(*a.nonzero(), n),
    ):
        count, labels = concomp.connected_components(g, device="gpu")
        assert count == ref[0]
        np.testing.assert_array_equal(labels, ref[1])
    # a variant that cannot stream runs in memory on the device, and agrees
    count, labels = concomp.connected_components(
        a, device="gpu", algorithm="kout-rem_cas-splice-csr"
    )
    assert count == ref[0]
    np.testing.assert_array_equal(labels, ref[1])


@pytest.mark.gpu
@pytest.mark.parametrize("index_dtype", [None, np.int64])
@pytest.mark.parametrize("max_deg", [12, 2])
def test_gpu_streamer_csr_rows_expanded_on_the_device(index_dtype, max_deg):
    # slots of 300 edges share their device column buffer between columns and row
    # offsets in the CSR's proportion (about 4.4 entries a row, or 0.4 with rows of at
    # most one entry): slots end at a row boundary when either runs out, and empty
    # rows fall inside and between slots
    from concomp._gpu.streaming import Streamer

    a = _random_csr(5, n=5000, max_deg=max_deg)
    eng = Streamer(
        a.shape[0],
        Variant.parse("none-rem_cas-splice-coo"),
        DEFAULTS.with_(chunk_edges=300),
        index_dtype=index_dtype,
    )
    eng.add(np.array([4999]), np.array([0]), lambda lo, hi: None)  # a partly filled slot first
    eng.add_csr(a.indptr, a.indices, lambda lo, hi: None)
    count, labels = canonical_labels(eng.roots())
    fed = int(a.indptr[-1])  # before SciPy sums the duplicate entries in place
    b = a.copy().tolil()
    b[4999, 0] = 1
    ref = scipy_cc(b.tocsr(), directed=False)
    assert count == ref[0]
    np.testing.assert_array_equal(labels.get(), ref[1])
    assert eng.info()["edges"] == fed + 1


@pytest.mark.gpu
def test_gpu_tables_and_parquet_paths_stream_their_pieces(tmp_path):
    pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    _, src, dst, n = _kinds(5)
    ref = _reference(src, dst, n)
    table = _batched_table(src, dst, pieces=7)
    path = tmp_path / "e.parquet"
    pq.write_table(table, path, row_group_size=3001)
    for graph in (table, str(path), path):
        for num_nodes in (n, None):
            count, labels = concomp.connected_components(graph, num_nodes=num_nodes, device="gpu")
            k = int(max(src.max(), dst.max())) + 1 if num_nodes is None else n
            assert count == ref[0] - (n - k)
            np.testing.assert_array_equal(labels, ref[1][:k])
    bad = _batched_table(src, np.where(dst == dst.max(), n + 5, dst), pieces=4)
    with pytest.raises(InvalidGraphError, match=r"record batch \d+.*>= num_nodes"):
        concomp.connected_components(bad, num_nodes=n, device="gpu")


def test_cpu_components_of_a_scipy_coo_read_its_pairs(monkeypatch):
    """Components of a SciPy COO matrix on the CPU take its pairs as edges (duplicates,
    explicit zeros and all): no CSR with summed duplicates is built on the way."""
    import importlib

    components = importlib.import_module("concomp.components")  # the module, not the function
    rng = np.random.default_rng(31)
    n = 500
    row, col = rng.integers(0, n, 800), rng.integers(0, n, 800)
    row[:5], col[:5] = 7, 9  # repeated pairs
    data = rng.integers(0, 2, 800).astype(np.float64)  # explicit zeros among them
    a = sp.coo_array((data, (row, col)), shape=(n, n))
    want = scipy_cc(a.tocsr(), directed=False)

    def general_path(*args, **kwargs):
        raise AssertionError("a COO matrix went through as_graph")

    monkeypatch.setattr(components, "as_graph", general_path)
    count, labels = concomp.connected_components(a, device="cpu")
    assert count == want[0]
    np.testing.assert_array_equal(labels, want[1])
