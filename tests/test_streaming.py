"""Streaming connected components: chunk forms, growth, validation, budgets; CPU and GPU engines.

Every result is compared with SciPy on the whole graph. GPU tests force a tiny
``max_device_bytes`` so that a graph streams through the device in many chunks,
and compare with the in-memory GPU engine too.
"""

from __future__ import annotations

import sys

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import concomp
from concomp._cpu import streaming as cpu_streaming
from concomp._gpu.streaming import (
    MIN_CHUNK_EDGES,
    in_core_bytes,
    label_bytes_per_vertex,
    plan_chunk_edges,
    should_stream,
    streaming_variant_of,
)
from concomp._rules import union_rules_for
from concomp._shared import staging
from concomp.errors import (
    DeviceMemoryError,
    DeviceUnavailableError,
    InvalidGraphError,
    InvalidVariantError,
)
from concomp.options import DEFAULTS, Options
from concomp.streaming import iter_edge_chunks, stream_components
from concomp.variants import Variant


def scipy_labels(src, dst, n):
    a = sp.coo_matrix((np.ones(len(src)), (np.asarray(src), np.asarray(dst))), shape=(n, n))
    return scipy_cc(a.tocsr(), directed=True, connection="weak")


def random_graph(seed: int, n: int = 3000, m: int = 2600):
    """Near the giant-component threshold: components of every size."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m), n


def pieces(src, dst, k: int):
    return list(zip(np.array_split(src, k), np.array_split(dst, k)))


def assert_same(result, src, dst, n):
    count, labels = result
    ref_count, ref = scipy_labels(src, dst, n)
    assert count == ref_count
    assert isinstance(labels, np.ndarray) and labels.dtype == np.int32
    np.testing.assert_array_equal(labels, ref)


# ----------------------------------------------------------------------------- CPU engine
#: Every union rule the CPU streams with (its first find rule), and the presets.
CPU_STREAM_ALGORITHMS = ["auto", "rem", "union-find", "none-async-compress-coo"] + [
    str(Variant("none", row.name, row.compress[0], "coo"))
    for row in union_rules_for("cpu", "streaming")
]


@pytest.mark.parametrize("algorithm", CPU_STREAM_ALGORITHMS)
@pytest.mark.parametrize("seed", [0, 1])
def test_cpu_many_chunks_match_scipy(seed, algorithm):
    src, dst, n = random_graph(seed)
    got = stream_components(pieces(src, dst, 37), n, device="cpu", algorithm=algorithm)
    assert_same(got, src, dst, n)


def _forms():
    """name -> function turning (src, dst) into a chunk source of that form."""
    out = {
        "tuples": lambda s, d: pieces(s, d, 9),
        "m_by_2": lambda s, d: [np.stack([a, b], 1) for a, b in pieces(s, d, 9)],
        "2_by_m": lambda s, d: [np.stack([a, b]) for a, b in pieces(s, d, 9)],
        "lists": lambda s, d: [(a.tolist(), b.tolist()) for a, b in pieces(s, d, 5)],
        "generator": lambda s, d: (c for c in pieces(s, d, 11)),
        "with_weights": lambda s, d: [(a, b, np.ones(len(a))) for a, b in pieces(s, d, 4)],
        "mixed_dtypes": lambda s, d: [
            (a.astype(t), b.astype(t))
            for (a, b), t in zip(pieces(s, d, 4), (np.int64, np.uint32, np.int32, np.uint16))
        ],
        "float_ids": lambda s, d: [(a.astype(float), b.astype(float)) for a, b in pieces(s, d, 3)],
        "stacked_3d": lambda s, d: np.stack([s, d], 1)[: len(s) // 4 * 4].reshape(4, -1, 2),
        "graphs": lambda s, d: [concomp.Graph.from_edges(a, b, 3000) for a, b in pieces(s, d, 3)],
        "single_pair": lambda s, d: (s, d),
        "single_m_by_2": lambda s, d: np.stack([s, d], 1),
        "empty_chunks_between": lambda s, d: [
            c for p in pieces(s, d, 3) for c in (p, (np.zeros(0, int), np.zeros(0, int)))
        ],
    }
    return out


FORMS = _forms()


@pytest.mark.parametrize("form", sorted(FORMS))
def test_cpu_chunk_forms(form):
    src, dst, n = random_graph(3)
    if form == "stacked_3d":
        src, dst = src[: len(src) // 4 * 4], dst[: len(dst) // 4 * 4]
    assert_same(stream_components(FORMS[form](src, dst), n, device="cpu"), src, dst, n)


def test_cpu_frames_and_arrow_tables():
    pd = pytest.importorskip("pandas")
    src, dst, n = random_graph(4)
    frames = [pd.DataFrame({"target": b, "source": a}) for a, b in pieces(src, dst, 6)]
    assert_same(stream_components(frames, n, device="cpu"), src, dst, n)
    pa = pytest.importorskip("pyarrow")
    tables = [pa.table({"src": a, "dst": b}) for a, b in pieces(src, dst, 6)]
    assert_same(stream_components(tables, n, device="cpu"), src, dst, n)
    assert_same(
        stream_components(tables[0], n, device="cpu"),
        tables[0]["src"].to_numpy(),
        tables[0]["dst"].to_numpy(),
        n,
    )


def test_cpu_graph_input_is_cut_into_chunks():
    src, dst, n = random_graph(5)
    g = concomp.Graph.from_edges(src, dst, n)
    chunks = list(iter_edge_chunks(g, split=100))
    assert len(chunks) == -(-len(src) // 100) and "graph edges 100..199" in chunks[1].label
    assert_same(stream_components(g, device="cpu", chunk_edges=100), src, dst, n)
    a = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    csr_graph = concomp.as_graph(a)
    assert_same(stream_components(csr_graph, device="cpu"), src, dst, n)


def _write_snap(path, src, dst, nodes=None):
    with open(path, "w") as f:
        if nodes is not None:
            f.write(f"# Nodes: {nodes} Edges: {len(src)}\n")
        f.write("# FromNodeId\tToNodeId\n")
        np.savetxt(f, np.stack([src, dst], 1), fmt="%d", delimiter="\t")


def test_cpu_list_of_snap_files(tmp_path):
    src, dst, n = random_graph(6)
    paths = []
    for i, (a, b) in enumerate(pieces(src, dst, 5)):
        paths.append(tmp_path / f"part{i}.txt")
        _write_snap(paths[-1], a, b)
    assert_same(stream_components(paths, n, device="cpu"), src, dst, n)
    assert_same(stream_components([str(p) for p in paths], n, device="cpu"), src, dst, n)
    # no num_nodes: a header's "# Nodes:" keeps trailing isolated vertices
    _write_snap(tmp_path / "tail.txt", np.array([0]), np.array([1]), nodes=n + 5)
    count, labels = stream_components(paths + [tmp_path / "tail.txt"], device="cpu")
    ref_count, ref = scipy_labels(np.r_[src, 0], np.r_[dst, 1], n + 5)
    assert count == ref_count and labels.shape == (n + 5,)
    np.testing.assert_array_equal(labels, ref)
    # one path alone is one chunk source
    count, labels = stream_components(str(paths[0]), n, device="cpu")
    assert count == scipy_labels(*pieces(src, dst, 5)[0], n)[0]


def test_cpu_parquet_row_groups(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    src, dst, n = random_graph(7)
    path = tmp_path / "edges.parquet"
    pq.write_table(pa.table({"src": src, "dst": dst}), path, row_group_size=200)
    assert pq.ParquetFile(path).num_row_groups >= 10
    labels = [c.label for c in iter_edge_chunks(path)]
    assert labels[3].endswith("row group 3)")
    assert_same(stream_components(path, n, device="cpu"), src, dst, n)
    assert_same(stream_components(str(path), n, device="cpu"), src, dst, n)
    # a Parquet file among text files, found by its magic bytes despite the name
    odd = tmp_path / "edges.bin"
    odd.write_bytes(path.read_bytes())
    _write_snap(tmp_path / "extra.txt", np.array([1]), np.array([2]))
    got = stream_components([odd, tmp_path / "extra.txt"], n, device="cpu")
    assert_same(got, np.r_[src, 1], np.r_[dst, 2], n)
    # the vertex count concomp stores in the metadata survives without num_nodes
    meta = pa.table({"src": src, "dst": dst}).replace_schema_metadata(
        {b"concomp.num_nodes": str(n + 3).encode()}
    )
    pq.write_table(meta, tmp_path / "meta.parquet", row_group_size=500)
    count, labels = stream_components(tmp_path / "meta.parquet", device="cpu")
    assert labels.shape == (n + 3,) and count == scipy_labels(src, dst, n + 3)[0]


@pytest.mark.parametrize("ahead", [1, 450, 1 << 25])
def test_parquet_row_groups_read_ahead_in_file_order(tmp_path, monkeypatch, ahead):
    """Groups decode on several threads, at most `ahead` rows in flight (at least one
    group), and come out in file order; a bad id in a middle group stops the read."""
    import concomp.streaming as streaming

    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    monkeypatch.setattr(streaming, "PARQUET_READ_AHEAD_ROWS", ahead)
    src, dst, n = random_graph(8)
    path = tmp_path / "edges.parquet"
    pq.write_table(pa.table({"src": src, "dst": dst}), path, row_group_size=150)
    chunks = list(iter_edge_chunks(path))
    assert [c.label.rsplit(" ", 1)[1] for c in chunks] == [f"{g})" for g in range(len(chunks))]
    np.testing.assert_array_equal(np.concatenate([c.src for c in chunks]), src)
    np.testing.assert_array_equal(np.concatenate([c.dst for c in chunks]), dst)
    assert_same(stream_components(path, n, device="cpu"), src, dst, n)
    bad = dst.copy()
    bad[1000] = n + 7  # row group 6
    pq.write_table(pa.table({"src": src, "dst": bad}), path, row_group_size=150)
    with pytest.raises(InvalidGraphError, match=r"row group 6\).*>= num_nodes"):
        stream_components(path, n, device="cpu")


def test_parquet_without_pyarrow_names_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "edges.parquet"
    path.write_bytes(b"PAR1 not really")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(ImportError, match=r"concomp\[io\]"):
        stream_components(path, device="cpu")


def test_cpu_labels_grow_without_num_nodes():
    rng = np.random.default_rng(8)
    chunks, all_s, all_d = [], [], []
    for top in (10, 17, 40, 41, 900, 5000, 5001, 70000):  # capacity starts at 16
        s, d = rng.integers(0, top, 50), rng.integers(0, top, 50)
        d[0] = top - 1
        chunks.append((s, d))
        all_s.append(s)
        all_d.append(d)
    src, dst = np.concatenate(all_s), np.concatenate(all_d)
    assert_same(stream_components(chunks, device="cpu"), src, dst, 70000)
    # a Graph chunk declares more vertices than its ids reach
    g = concomp.Graph.from_edges(np.array([0]), np.array([1]), num_nodes=70010)
    count, labels = stream_components(chunks + [g], device="cpu")
    assert labels.shape == (70010,)
    assert count == scipy_labels(np.r_[src, 0], np.r_[dst, 1], 70010)[0]


def test_cpu_switches_to_int64_labels():
    src, dst, _ = random_graph(9, n=5000, m=4000)
    engine = cpu_streaming.Streamer(None, Variant.parse("rem"), Options(int32_ids=1000))
    for a, b in pieces(src, dst, 7):
        engine.add(a, b, lambda lo, hi: None)
    assert engine.p.dtype == np.int64
    count, labels = cpu_streaming.stream_labels(engine.roots(), None, True)
    ref_count, ref = scipy_labels(src, dst, engine.n)
    assert count == ref_count
    np.testing.assert_array_equal(labels, ref)


def test_cpu_int64_ids_labels_and_count_only():
    src, dst, n = random_graph(10)
    chunks = [(a.astype(np.int64), b.astype(np.int64)) for a, b in pieces(src, dst, 4)]
    assert (
        stream_components(chunks, n, device="cpu", return_labels=False)
        == scipy_labels(src, dst, n)[0]
    )
    engine = cpu_streaming.Streamer(n, Variant.parse("union-find"), Options(), index_dtype=np.int64)
    for a, b in chunks:
        engine.add(a, b, lambda lo, hi: None)
    roots = engine.roots()
    assert roots.dtype == np.int64
    count, labels = scipy_labels(src, dst, n)
    smallest = np.full(count, n)
    np.minimum.at(smallest, labels, np.arange(n))
    np.testing.assert_array_equal(roots, smallest[labels])  # raw roots: each component's min


@pytest.mark.parametrize(
    "chunks, where, what",
    [
        (
            [(np.arange(5), np.arange(5))] * 3 + [(np.r_[0, 1, 2, 3, 4, -7], np.arange(6))],
            "chunk 3",
            "vertex id -7 at position 5 is negative",
        ),
        (
            [(np.arange(3), np.arange(3)), (np.array([1, 50]), np.array([2, 3]))],
            "chunk 1",
            "vertex id 50 at position 1 is >= num_nodes=10",
        ),
        ([(np.array([0.0, np.nan]), np.array([1, 2]))], "chunk 0", "nan at position 1"),
        ([(np.array([0, 1]), np.array([1.0, 2.5]))], "chunk 0", "2.5 at position 1"),
        ([(np.array([True]), np.array([False]))], "chunk 0", "must be integers"),
        ([(np.array(["a"]), np.array([1]))], "chunk 0", "must be integers"),
        ([(np.arange(3), np.arange(2))], "chunk 0", "differ in length"),
        ([(np.arange(4), np.arange(4)), np.zeros((3, 5), int)], "chunk 1", "cannot read edges"),
        ([np.arange(4)], "chunk 0", "cannot read edges"),
        (
            [(np.array([2**63 + 1], np.uint64), np.array([0], np.uint64))],
            "chunk 0",
            "vertex id 9223372036854775809 at position 0 is too large",
        ),
        (7, "argument `chunks`", "neither a chunk nor an iterable"),
    ],
)
def test_cpu_validation_names_chunk_and_position(chunks, where, what):
    with pytest.raises(InvalidGraphError) as err:
        stream_components(chunks, 10, device="cpu")
    msg = str(err.value)
    assert where in msg and what.lower() in msg.lower(), msg


def test_cpu_empty_streams():
    for chunks in ([], iter([]), (c for c in []), [(np.zeros(0, int), np.zeros(0, int))]):
        count, labels = stream_components(chunks, device="cpu")
        assert count == 0 and labels.shape == (0,) and labels.dtype == np.int32
    count, labels = stream_components([], num_nodes=4, device="cpu")
    assert count == 4 and labels.tolist() == [0, 1, 2, 3]
    assert stream_components([], num_nodes=0, device="cpu", return_labels=False) == 0


def test_variants_and_arguments_that_cannot_stream():
    for bad in ("kout-async-halve-csr", "afforest", "none-async-halve-csr", "none-sv-compress-coo"):
        with pytest.raises(InvalidVariantError, match="cannot stream"):
            stream_components([], 3, device="cpu", algorithm=bad)
    # both engines stream with every union rule of the registry
    assert {r.name for r in union_rules_for("cpu", "streaming")} == {
        r.name for r in union_rules_for("gpu", "streaming")
    }
    for kw in ({"max_device_bytes": 0}, {"chunk_edges": -5}, {"chunk_edges": 1.5}):
        with pytest.raises(InvalidGraphError, match="positive int"):
            stream_components([], 3, device="cpu", **kw)
    with pytest.raises(InvalidGraphError, match="num_nodes"):
        stream_components([], -1, device="cpu")


def test_device_gpu_without_gpu_raises_and_auto_falls_back(gpu_available):
    if gpu_available:
        pytest.skip("a GPU is present")
    with pytest.raises(DeviceUnavailableError):
        stream_components([(np.array([0]), np.array([1]))], device="gpu")
    assert stream_components([(np.array([0]), np.array([1]))], device="auto")[0] == 1


def test_auto_keeps_small_in_memory_streams_on_the_cpu():
    from concomp.streaming import _choose_device, _size_hint

    src, dst, _ = random_graph(11)
    assert _size_hint(pieces(src, dst, 3)) == ("cpu", len(src))
    assert _size_hint(c for c in []) == ("cpu", None)
    assert _choose_device(pieces(src, dst, 3), "auto") == "cpu"


# ------------------------------------------------------------------- host pieces of the GPU path
@pytest.mark.parametrize("in_dtype, out_dtype", [(np.int64, np.int32), (np.uint32, np.int64)])
def test_stage_edges_copies_narrows_and_finds_the_range(in_dtype, out_dtype):
    rng = np.random.default_rng(12)
    pairs = rng.integers(3, 2**20, (300_000, 2)).astype(in_dtype)
    src, dst = pairs[:, 0], pairs[:, 1]  # strided views, as from an (m, 2) chunk
    out_s, out_d = np.full(400_000, -1, out_dtype), np.full(400_000, -1, out_dtype)
    lo, hi = staging.stage_edges(src, dst, out_s, out_d, offset=1000)
    assert (lo, hi) == (int(pairs.min()), int(pairs.max()))
    np.testing.assert_array_equal(out_s[1000:301_000], src)
    np.testing.assert_array_equal(out_d[1000:301_000], dst)
    assert (out_s[:1000] == -1).all() and (out_d[301_000:] == -1).all()
    assert staging.edge_id_range(src, dst) == (lo, hi)
    assert staging.stage_edges(src[:0], dst[:0], out_s, out_d) == (0, -1)


def test_stage_edges_reports_negative_and_wide_ids():
    pairs = np.array([[5, 2**40], [-3, 1]])  # strided int64 into int32: the first test's types
    out = np.zeros(4, np.int32), np.zeros(4, np.int32)
    assert staging.stage_edges(pairs[:, 0], pairs[:, 1], *out) == (-3, 2**40)


def test_plan_chunk_edges_fits_the_budget():
    v = Variant.parse("none-async-halve-coo")
    n, chunk = 10_000, 3000
    labels = n * label_bytes_per_vertex(v, np.int32)
    budget = labels + 4096 + 16 * chunk
    assert plan_chunk_edges(budget, n, np.int32, v) == chunk
    assert plan_chunk_edges(budget, n, np.int32, v, chunk_edges=100) == 100
    assert plan_chunk_edges(budget + 32 * chunk, None, np.int32, v) < plan_chunk_edges(
        budget + 32 * chunk, n, np.int32, v
    )  # growing labels keep half the budget
    assert label_bytes_per_vertex(Variant.parse("none-rem_lock-splice-coo"), np.int64) == 12
    assert label_bytes_per_vertex(Variant.parse("none-jtb-split-coo"), np.int32) == 12
    with pytest.raises(DeviceMemoryError, match=r"needs at least \d+ bytes") as err:
        plan_chunk_edges(labels, n, np.int32, v)
    need = int(str(err.value).split("needs at least ")[1].split()[0])
    assert plan_chunk_edges(need, n, np.int32, v) == MIN_CHUNK_EDGES


def test_should_stream_and_variant_mapping():
    src, dst, n = random_graph(13)
    g = concomp.Graph.from_edges(src, dst, n)
    assert should_stream(g, in_core_bytes(g) - 1) and not should_stream(g, in_core_bytes(g))
    assert (
        str(streaming_variant_of(Variant.parse("kout-rem_cas-split-csr")))
        == "none-rem_cas-split-coo"
    )
    assert str(streaming_variant_of(None)) == "none-async-halve-coo"
    assert (
        str(streaming_variant_of(Variant.parse("none-sv-compress-coo"))) == "none-async-halve-coo"
    )


# ----------------------------------------------------------------------------- GPU engine
GPU_VARIANTS = [
    "none-rem_cas-splice-coo",
    "none-async-halve-coo",
    "none-async-split-coo",
    "none-early-naive-coo",
    "none-hooks-compress-coo",
    "none-rem_lock-halve-coo",
    "none-jtb-split-coo",
]


def _budget_for(n, chunk, variant="none-rem_cas-splice-coo", dtype=np.int32):
    v = Variant.parse(variant)
    return n * label_bytes_per_vertex(v, dtype) + 4096 + 4 * np.dtype(dtype).itemsize * chunk


def _gpu_graph(seed=20, n=20_000, m=30_000):
    rng = np.random.default_rng(seed)
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    hub = rng.integers(0, n, 2000)  # a hub and duplicates: contention on one root
    return np.r_[src, np.zeros(2000, int), hub], np.r_[dst, hub, np.zeros(2000, int)], n


@pytest.mark.gpu
@pytest.mark.parametrize(
    "variant, dtype",
    [(v, np.int32) for v in GPU_VARIANTS]
    + [(GPU_VARIANTS[0], np.int64), (GPU_VARIANTS[1], np.int64)],
    ids=lambda x: str(np.dtype(x)) if not isinstance(x, str) else x,
)
def test_gpu_out_of_core_streams_many_chunks(variant, dtype):
    import cupy as cp

    from concomp._gpu.streaming import canonical_on_device, out_of_core_roots

    src, dst, n = _gpu_graph()
    g = concomp.Graph.from_edges(src, dst, n)
    budget = _budget_for(n, 2000, variant, dtype)
    info: dict = {}
    roots = out_of_core_roots(
        g, Variant.parse(variant), budget, Options(index_dtype=np.dtype(dtype).name), info=info
    )
    assert info["launches"] >= 10 and info["chunk_edges"] == 2000 and roots.dtype == dtype
    count, labels = canonical_on_device(roots)
    in_memory = concomp.connected_components(g, device="gpu")
    assert count == in_memory[0] == scipy_labels(src, dst, n)[0]
    np.testing.assert_array_equal(cp.asnumpy(labels), in_memory[1])


@pytest.mark.gpu
def test_gpu_stream_components_packs_and_splits_chunks(monkeypatch):
    from concomp._gpu import streaming as gpu_streaming

    launches = []
    unite = gpu_streaming.Streamer._unite
    monkeypatch.setattr(
        gpu_streaming.Streamer,
        "_unite",
        lambda self, s, d, k: (launches.append(k), unite(self, s, d, k)),
    )
    src, dst, n = _gpu_graph(21)
    cuts = np.sort(np.random.default_rng(0).choice(len(src), 60, replace=False))
    chunks = list(zip(np.split(src, cuts), np.split(dst, cuts)))  # sizes from 0 to thousands
    got = stream_components(chunks, n, device="gpu", max_device_bytes=_budget_for(n, 1500))
    assert_same(got, src, dst, n)
    assert len(launches) >= 10 and max(launches) == 1500  # packed to full slots
    assert sum(launches) == len(src)


def _gpu_stream(chunks, options, grow_to=None):
    """Feed ``chunks`` to the GPU ``Streamer`` (labels that grow), then declare ``grow_to``
    vertices; ``(count, labels, engine info)``."""
    from concomp._gpu.streaming import Streamer, default_variant, stream_labels

    eng = Streamer(None, default_variant(), options)
    for a, b in chunks:
        eng.add(a, b, lambda lo, hi: None)
    if grow_to is not None:
        eng.ensure_nodes(grow_to)
    count, labels = stream_labels(eng.roots(), None, True)
    return count, labels, eng.info()


@pytest.mark.gpu
def test_gpu_labels_grow_and_widen():
    options = Options(int32_ids=3000, chunk_edges=300)  # int64 labels once ids pass 3000
    rng = np.random.default_rng(22)
    chunks = [
        (rng.integers(0, top, 400), rng.integers(0, top, 400))
        for top in (100, 1000, 2500, 8000, 8000, 20_000)
    ]
    src = np.concatenate([c[0] for c in chunks])
    dst = np.concatenate([c[1] for c in chunks])
    n = int(max(src.max(), dst.max())) + 1
    count, labels, info = _gpu_stream(chunks, options)
    assert info["index_dtype"] == "int64" and info["chunk_edges"] == 300
    assert_same((count, labels), src, dst, n)
    count, labels, _ = _gpu_stream(chunks + [(np.array([0]), np.array([1]))], options, n + 7)
    assert labels.shape == (n + 7,)
    assert count == scipy_labels(np.r_[src, 0], np.r_[dst, 1], n + 7)[0]


@pytest.mark.gpu
def test_gpu_pinned_and_device_chunks():
    import cupy as cp
    import cupyx

    src, dst, n = _gpu_graph(23)
    pinned = []
    for a, b in pieces(src, dst, 4):
        ps, pd = cupyx.empty_pinned(len(a), np.int32), cupyx.empty_pinned(len(b), np.int32)
        ps[:], pd[:] = a, b
        pinned.append((ps, pd))
    assert_same(stream_components(pinned, n, device="gpu", chunk_edges=1000), src, dst, n)
    on_device = [(cp.asarray(a), cp.asarray(b)) for a, b in pieces(src, dst, 5)]
    count, labels = stream_components(on_device, n, device="gpu")
    assert isinstance(labels, cp.ndarray)
    assert_same((count, labels.get()), src, dst, n)


@pytest.mark.gpu
def test_gpu_validation_and_budget_errors():
    src, dst, n = _gpu_graph(24)
    chunks = pieces(src, dst, 8)
    chunks[5] = (chunks[5][0].copy(), chunks[5][1])
    chunks[5][0][17] = -2
    with pytest.raises(InvalidGraphError, match=r"chunk 5: .*-2 at position 17"):
        stream_components(chunks, n, device="gpu", chunk_edges=500)
    with pytest.raises(DeviceMemoryError, match="needs at least"):
        stream_components(pieces(src, dst, 2), n, device="gpu", max_device_bytes=n)


@pytest.mark.gpu
def test_gpu_symmetric_graph_unites_one_direction():
    from concomp._gpu.streaming import canonical_on_device, out_of_core_roots

    src, dst, n = _gpu_graph(25)
    a = sp.coo_matrix((np.ones(len(src)), (src, dst)), shape=(n, n)).tocsr()
    a = (a + a.T).tocsr()
    g = concomp.Graph.from_csr(a.indptr, a.indices, n, symmetric=True)
    info: dict = {}
    roots = out_of_core_roots(g, None, _budget_for(n, 4000), DEFAULTS, info=info)
    assert info["launches"] >= 10
    count, labels = canonical_on_device(roots)
    ref = scipy_labels(src, dst, n)
    assert count == ref[0]
    np.testing.assert_array_equal(labels.get(), ref[1])


@pytest.mark.gpu
def test_gpu_download_through_pinned_bounce_buffers():
    import cupy as cp

    from concomp._gpu.streaming import download

    a = cp.arange(20_000_001, dtype=cp.int32) * 3  # 80 MB: three pieces of 32 MiB
    np.testing.assert_array_equal(download(a), np.arange(20_000_001, dtype=np.int32) * 3)
    assert download(a[:10]).tolist() == [3 * i for i in range(10)]


def test_scipy_sparse_chunks_stream_as_their_entries():
    rng = np.random.default_rng(3)
    a = sp.random_array((300, 300), density=0.004, format="csr", random_state=rng)
    b = sp.random_array((300, 300), density=0.002, format="coo", random_state=rng)
    ref = scipy_cc(a + b, directed=False)
    for chunks in ([a, b], [a.tocsc(), b]):
        count, labels = concomp.stream_components(chunks, device="cpu")
        assert count == ref[0]
        np.testing.assert_array_equal(labels, ref[1])
    assert concomp.stream_components(a, device="cpu")[0] == scipy_cc(a, directed=False)[0]
    with pytest.raises(concomp.InvalidGraphError, match="must be square"):
        concomp.stream_components([sp.csr_array((3, 4))], device="cpu")
