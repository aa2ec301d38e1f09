"""concomp.dask on a LocalCluster (2 worker processes, 1 thread each): results equal the
single-machine engine; bad input, retries, a killed worker; bytes shipped vs the bound.

``CONCOMP_DASK_TEST_EDGES`` sets the size of the large generated graph (default 5e7).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import concomp
from concomp.errors import InvalidGraphError
from concomp.testing import assert_spanning_forest, graph_zoo

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
cd = pytest.importorskip("concomp.dask")

LARGE_EDGES = int(float(os.environ.get("CONCOMP_DASK_TEST_EDGES", "5e7")))


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            memory_limit="4GiB",
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def _blocks(a: np.ndarray, parts: int):
    return da.from_array(a, chunks=max(1, -(-a.shape[0] // parts)))


def _weights(m: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 4, m).astype(np.int64)  # many ties


def _check_all(client, src, dst, n, parts=4, split_every=2):
    """Components, forest and MSF of the partitioned edges equal the single machine's."""
    s, d, w = _blocks(src, parts), _blocks(dst, parts), _weights(src.shape[0])
    count, labels = cd.connected_components((s, d), num_nodes=n, split_every=split_every)
    want = concomp.connected_components((src, dst), num_nodes=n, device="cpu")
    assert count == want[0]
    np.testing.assert_array_equal(labels, want[1])
    f = cd.spanning_forest((s, d), num_nodes=n, split_every=split_every)
    assert_spanning_forest(concomp.as_graph((src, dst), num_nodes=n), f)
    g = cd.minimum_spanning_forest((s, d), _blocks(w, parts), num_nodes=n, split_every=3)
    ref = concomp.minimum_spanning_forest(concomp.as_graph((src, dst), n), w, device="cpu")
    np.testing.assert_array_equal(g.edge_ids, ref.edge_ids)
    assert g.total_weight == ref.total_weight


@pytest.mark.parametrize("name", sorted(graph_zoo()))
def test_zoo_equals_the_single_machine_engine(client, name):
    src, dst, n = graph_zoo()[name]
    _check_all(client, src, dst, n)


def test_real_graphs(client, real_data_dir: Path):
    for name in ("infra_us-power-grid.metis.graph.gz", "soc_wiki-vote_snap.txt.gz"):
        g = concomp.read_graph(real_data_dir / name)
        src, dst = g.coo()
        _check_all(client, np.asarray(src), np.asarray(dst), g.num_nodes, parts=7, split_every=3)


def test_data_frames_parquet_and_files(client, tmp_path):
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 500, 3000), rng.integers(0, 500, 3000)
    w = rng.random(3000)
    want = concomp.connected_components((src, dst), num_nodes=500, device="cpu")
    ref = concomp.minimum_spanning_forest((src, dst), w, device="cpu")
    frame = dd.from_pandas(pd.DataFrame({"u": src, "v": dst, "weight": w}), npartitions=5)
    assert cd.connected_components(frame, 500)[0] == want[0]
    got = cd.minimum_spanning_forest(frame)
    np.testing.assert_array_equal(got.edge_ids, ref.edge_ids)
    for i in range(3):  # three files of 1000 rows, row groups of 300
        a = slice(1000 * i, 1000 * (i + 1))
        table = pa.table({"src": src[a], "dst": dst[a], "weight": w[a]})
        pq.write_table(table, tmp_path / f"part-{i}.parquet", row_group_size=300)
    edges = cd.read_parquet_edges(tmp_path)
    assert edges.num_partitions == 12 and edges.num_edges == 3000
    _count, labels = cd.connected_components(edges, 500)
    np.testing.assert_array_equal(labels, want[1])
    got = cd.minimum_spanning_forest(sorted(map(str, tmp_path.glob("*.parquet"))))
    np.testing.assert_array_equal(got.edge_ids, ref.edge_ids)
    assert got.total_weight == pytest.approx(ref.total_weight)


def test_int64_ids_beyond_2_to_the_31(client):
    rng = np.random.default_rng(5)
    base = np.int64(3) << np.int64(32)
    src = base + rng.integers(0, 2000, 5000) * 1_000_003
    dst = base + rng.integers(0, 2000, 5000) * 1_000_003
    n = int(max(src.max(), dst.max())) + 10
    verts, inv = np.unique(np.concatenate([src, dst]), return_inverse=True)
    small = concomp.connected_components((inv[:5000], inv[5000:]), device="cpu")
    count = cd.connected_components((_blocks(src, 6), _blocks(dst, 6)), n, return_labels=False)
    assert count == small[0] + n - verts.shape[0]
    w = _weights(5000)
    got = cd.minimum_spanning_forest((_blocks(src, 6), _blocks(dst, 6)), _blocks(w, 6))
    ref = concomp.minimum_spanning_forest((inv[:5000], inv[5000:]), w, device="cpu")
    np.testing.assert_array_equal(got.edge_ids, ref.edge_ids)


def test_labels_as_a_dask_array(client):
    src, dst, n = (
        graph_zoo()["two_cliques"] if "two_cliques" in graph_zoo() else graph_zoo()["path"]
    )
    _count, labels = cd.connected_components((_blocks(src, 3), _blocks(dst, 3)), n, output="dask")
    assert isinstance(labels, da.Array)
    np.testing.assert_array_equal(
        labels.compute(), concomp.connected_components((src, dst), num_nodes=n, device="cpu")[1]
    )


def test_sparse_ids_get_their_labels(client):
    """Ids spread far beyond the edges take the sparse labelling; the labels still equal
    the single machine's, also past the largest id."""
    rng = np.random.default_rng(9)
    src, dst = rng.integers(0, 300, 400) * 7919, rng.integers(0, 300, 400) * 7919
    n = int(max(src.max(), dst.max())) + 50
    want = concomp.connected_components((src, dst), num_nodes=n, device="cpu")
    count, labels = cd.connected_components((_blocks(src, 5), _blocks(dst, 5)), n)
    assert count == want[0]
    np.testing.assert_array_equal(labels, want[1])


@pytest.mark.parametrize("extra", [0, 1, 37])
def test_dense_and_sparse_labellings_agree(monkeypatch, extra):
    """The two forms of the final labelling number every block of vertices alike."""
    from concomp.dask import _pieces

    rng = np.random.default_rng(extra)
    src, dst = rng.integers(0, 900, 700), rng.integers(0, 900, 700)
    piece = _pieces.leaf(
        (src, dst, None), part=0, label="p", key="k", num_nodes=None, kind="forest", device="cpu"
    )
    dense = _pieces.labeling(piece, key="l", level=1, device="cpu")
    monkeypatch.setattr(_pieces, "DENSE_FACTOR", -(10**9))
    sparse = _pieces.labeling(piece, key="l", level=1, device="cpu")
    assert dense.dense is not None and sparse.dense is None
    n = piece.max_id + 1 + extra
    want = concomp.connected_components((src, dst), num_nodes=n, device="cpu")
    assert dense.num_components(n) == sparse.num_components(n) == want[0]
    for a, b in [(0, n), (0, 1), (n - 1, n), (5, 777), (piece.max_id, n), (n, n)]:
        np.testing.assert_array_equal(
            _pieces.label_block(dense, a, b, np.int32), want[1][a:b].astype(np.int32)
        )
        np.testing.assert_array_equal(
            _pieces.label_block(sparse, a, b, np.int32), want[1][a:b].astype(np.int32)
        )


def test_labeling_of_several_pieces_equals_the_whole_graph():
    """The labelling reads the top round's forests (several pieces) directly."""
    from concomp.dask import _pieces

    rng = np.random.default_rng(4)
    src, dst = rng.integers(0, 3000, 2000), rng.integers(0, 3000, 2000)
    pieces = [
        _pieces.leaf(
            (src[a : a + 500], dst[a : a + 500], None),
            part=a // 500,
            label="p",
            key=f"k{a}",
            num_nodes=None,
            kind="forest",
            device="cpu",
        )
        for a in range(0, 2000, 500)
    ]
    lab = _pieces.labeling(*pieces, key="l", level=1, device="cpu")
    n = max(p.max_id for p in pieces) + 1
    want = concomp.connected_components((src, dst), num_nodes=n, device="cpu")
    assert lab.num_components(n) == want[0]
    np.testing.assert_array_equal(_pieces.label_block(lab, 0, n, np.int64), want[1])
    assert lab.sizes == {0: 500, 1: 500, 2: 500, 3: 500} and len(lab.records) == 5


def test_pieces_and_labelings_serialize_as_numpy_frames():
    """Pieces and labelings cross the wire with their arrays as Dask's NumPy frames,
    every field intact (weights or none, an error, dense labels or the sparse form)."""
    from distributed.protocol import deserialize, serialize

    from concomp.dask import _pieces

    a = np.arange(6, dtype=np.int64)
    piece = _pieces.Piece(a, a + 1, a * 3, np.linspace(0, 1, 6), 9, {2: 6}, [("k", 0, 1.0)])
    bad = _pieces.Piece(a[:0], a[:0], a[:0], None, -1, {0: 0})
    bad.error = InvalidGraphError("partition 0: bad id")
    lab = _pieces.Labeling(a, a, a[:2], 5, {0: 6}, [("l", 1, 2.0)])
    dense = _pieces.Labeling(a[:0], a[:0], a[:0], 5, {0: 6}, [])
    dense.dense, dense.dense_count = np.arange(6, dtype=np.int32), 4
    for obj in (piece, bad, lab, dense):
        header, frames = serialize(obj, serializers=("dask",))
        assert header["serializer"] == "dask"
        back = deserialize(header, frames)
        assert type(back) is type(obj)
        for name, value in vars(obj).items():
            got = getattr(back, name)
            if isinstance(value, np.ndarray):
                assert got.dtype == value.dtype
                np.testing.assert_array_equal(got, value)
            elif isinstance(value, Exception):
                assert type(got) is type(value) and str(got) == str(value)
            else:
                assert got == value
    assert deserialize(*serialize(dense, serializers=("dask",))).dense.flags.writeable


@pytest.mark.parametrize(
    ("values", "num_nodes", "needle"),
    [
        ([0.0, 1.0, 2.0, 3.0, np.nan, 5.0, 6.0, 7.0], None, "NaN"),
        ([0, 1, 2, 3, 4, 99, 6, 7], 10, "99"),
        ([0, 1, 2, 3, 4, -5, 6, 7], None, "-5"),
    ],
)
def test_a_bad_partition_is_named_in_a_short_error(client, values, num_nodes, needle):
    src = da.from_array(np.array(values), chunks=2)
    dst = da.from_array(np.arange(8), chunks=2)
    with pytest.raises(InvalidGraphError) as info:
        cd.connected_components((src, dst), num_nodes, retries=0)
    text = str(info.value)
    assert text.startswith("partition 2 (array block 2)") and needle in text
    assert info.value.__cause__ is None and info.value.__context__ is None
    assert len(info.traceback) < 12  # raised on the client, not a worker's traceback


def _flaky_block(block, marker: str):
    if not os.path.exists(marker):
        Path(marker).touch()
        raise OSError("transient read error")
    return block


def test_a_failed_task_is_retried(client, tmp_path):
    src, dst, n = graph_zoo()["path"]
    marker = str(tmp_path / "failed-once")
    s = _blocks(src, 4).map_blocks(_flaky_block, marker, dtype=src.dtype)
    count, _labels = cd.connected_components((s, _blocks(dst, 4)), n, retries=2)
    assert os.path.exists(marker) and count == 1


def _slow_edges(block, seed: int, n: int, pause: float):
    time.sleep(pause)
    rng = np.random.default_rng(seed + int(block[0]))
    return rng.integers(0, n, (block.shape[0], 2))


def test_a_worker_killed_mid_run_does_not_change_the_result(client):
    parts, per, n = 24, 20_000, 100_000
    ids = da.arange(parts * per, chunks=per)
    edges = ids.map_blocks(_slow_edges, 7, n, 0.25, chunks=(per, 2), new_axis=1, dtype=np.int64)
    want = concomp.connected_components(edges.compute(), num_nodes=n, device="cpu")
    result: dict = {}
    run = threading.Thread(
        target=lambda: result.update(out=cd.connected_components(edges, n, split_every=4))
    )
    run.start()
    pids = client.run(os.getpid)
    while not client.run_on_scheduler(_finished_leaves):
        time.sleep(0.05)
    os.kill(next(iter(pids.values())), signal.SIGKILL)
    run.join(timeout=120)
    assert result["out"][0] == want[0]
    np.testing.assert_array_equal(result["out"][1], want[1])
    client.wait_for_workers(2, timeout=60)


def _finished_leaves(dask_scheduler) -> bool:
    done = [
        k for k, t in dask_scheduler.tasks.items() if "-leaf-" in str(k) and t.state == "memory"
    ]
    return len(done) >= 4


def _gnm_block(block, n: int, seed: int):
    rng = np.random.default_rng([seed, int(block[0])])
    return rng.integers(0, n, (block.shape[0], 2), dtype=np.int32)


@pytest.mark.slow
def test_large_generated_graph_and_bytes_shipped(client):
    """LARGE_EDGES edges in 16 partitions, generated on the workers."""
    parts = 16
    per = -(-LARGE_EDGES // parts)
    n = max(1000, LARGE_EDGES // 40)
    ids = da.arange(LARGE_EDGES, chunks=per, dtype=np.int64)
    edges = ids.map_blocks(_gnm_block, n, 11, chunks=(per, 2), new_axis=1, dtype=np.int32)
    stats: dict = {}
    count, labels = cd.connected_components(edges, n, split_every=4, stats=stats)
    local = edges.compute(scheduler="threads")
    want = concomp.connected_components(local, num_nodes=n, device="cpu")
    assert count == want[0]
    np.testing.assert_array_equal(labels, want[1])
    assert stats["partitions"] == parts and stats["rounds"] == 3
    assert [p["tasks"] for p in stats["phases"]] == [16, 4, 1]  # the labels take the top 4
    shipped = stats["shipped"]
    assert shipped["edges"] <= stats["edge_bound"] == (parts - 1) * (n - 1)
    per_edge = stats["edge_bytes"]
    assert shipped["bytes"] <= stats["edge_bound"] * per_edge + shipped["pieces"] * 4096
    assert all(p["edges_out"] <= p["tasks"] * (n - 1) for p in stats["phases"])


def test_import_concomp_does_not_import_dask():
    code = "import sys, concomp; print('dask' in sys.modules, 'distributed' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_bad_arguments(client):
    s = da.from_array(np.array([0, 1]), chunks=1)
    with pytest.raises(InvalidGraphError, match="split_every"):
        cd.connected_components((s, s), split_every=1)
    with pytest.raises(InvalidGraphError, match="weights"):
        cd.minimum_spanning_forest((s, s))
    with pytest.raises(InvalidGraphError, match="edge collection"):
        cd.connected_components(42)


def test_string_ids_are_refused_naming_the_partition():
    """String ids need one numbering across partitions: the call says which partition
    holds them and how to fix it (the ids guide points to integer codes)."""
    import dask
    import pandas as pd

    frame = dd.from_pandas(
        pd.DataFrame({"src": ["a", "b", "c", "d"], "dst": ["b", "c", "a", "e"]}), npartitions=2
    )
    with dask.config.set(scheduler="synchronous"), pytest.raises(InvalidGraphError) as info:
        cd.connected_components(frame, device="cpu")
    assert str(info.value).startswith("partition 0") and "integers" in str(info.value)
