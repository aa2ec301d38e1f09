"""concomp.dask's tasks on each engine (``device`` runs them on the CPU and, marked ``gpu``,
on the GPU, where a task moves its edges to the device once and returns host pieces);
end-to-end runs on a GPU: in-process (Dask's synchronous scheduler) and on a GPU worker
of :func:`concomp.dask.local_gpu_cluster`."""

from __future__ import annotations

import numpy as np
import pytest

import concomp
from concomp.errors import InvalidGraphError
from concomp.forest import SpanningForest
from concomp.testing import assert_spanning_forest, graph_zoo

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
cd = pytest.importorskip("concomp.dask")
from concomp.dask import _api, _pieces  # noqa: E402


def _parts(seed: int, n: int, m: int, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    rng = np.random.default_rng(seed)
    return [(rng.integers(0, n, m), rng.integers(0, n, m)) for _ in range(count)]


def _weights(m: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 4, m).astype(np.float64)  # many ties


@pytest.mark.parametrize("kind", ["forest", "msf"])
@pytest.mark.parametrize("scale", [1, 10**9])  # dense ids, and sparse ones (relabelled)
def test_leaves_and_merges_of_interleaved_pieces(device, kind, scale):
    """Leaves of partitions 0, 1, 2; merge(0, 2) then merge(1, that): the second merge
    sees keys out of order and sorts them. The root is a spanning forest (the minimum
    one for msf, equal to the single machine's) with host arrays."""
    n, m = 300, 500
    parts = [(s * scale, d * scale) for s, d in _parts(3, n, m, 3)]
    w = [_weights(m, i) for i in range(3)] if kind == "msf" else [None] * 3
    leaves = [
        _pieces.leaf(
            (s, d, w[i]),
            part=i,
            label=f"p{i}",
            key=f"l{i}",
            num_nodes=None,
            kind=kind,
            device=device,
        )
        for i, (s, d) in enumerate(parts)
    ]
    opts = {"kind": kind, "device": device, "maximum": False}
    left = _pieces.merge(leaves[0], leaves[2], key="m1", level=1, **opts)
    root = _pieces.merge(leaves[1], left, key="m2", level=2, **opts)
    for a in (root.src, root.dst, root.keys):
        assert isinstance(a, np.ndarray) and a.dtype == np.int64
    assert np.all(np.diff(root.keys) > 0)
    ids = _api._global_ids(root.keys, root.sizes)
    src = np.concatenate([s for s, _ in parts]) // scale
    dst = np.concatenate([d for _, d in parts]) // scale
    np.testing.assert_array_equal(root.src // scale, src[ids])
    np.testing.assert_array_equal(root.dst // scale, dst[ids])
    if kind == "msf":
        ref = concomp.minimum_spanning_forest((src, dst), np.concatenate(w), device="cpu")
        np.testing.assert_array_equal(ids, ref.edge_ids)
        np.testing.assert_array_equal(root.weights, np.concatenate(w)[ids])
    else:
        count = n - ids.shape[0]
        forest = SpanningForest(root.src // scale, root.dst // scale, ids, n, count)
        assert_spanning_forest(concomp.as_graph((src, dst), num_nodes=n), forest)


@pytest.mark.parametrize("dense", [True, False])
def test_labeling_on_each_engine(device, dense):
    rng = np.random.default_rng(5)
    step = 1 if dense else 100  # 100x: ids beyond 4x the forest endpoints
    src, dst = rng.integers(0, 400, 300) * step, rng.integers(0, 400, 300) * step
    piece = _pieces.leaf(
        (src, dst, None), part=0, label="p", key="k", num_nodes=None, kind="forest", device=device
    )
    lab = _pieces.labeling(piece, key="l", level=1, device=device)
    assert (lab.dense is not None) == dense
    n = piece.max_id + 1
    want = concomp.connected_components((src, dst), num_nodes=n, device="cpu", renumber=False)
    assert lab.num_components(n) == want[0]
    for a, b in [(0, min(n, 5000)), (max(0, n - 3000), n)]:
        np.testing.assert_array_equal(_pieces.label_block(lab, a, b, np.int64), want[1][a:b])


def test_a_bad_leaf_names_its_partition(device):
    bad = _pieces.leaf(
        (np.array([0, 1, 7]), np.array([1, 2, 2]), None),
        part=4,
        label="partition 4",
        key="k",
        num_nodes=5,
        kind="forest",
        device=device,
    )
    assert isinstance(bad.error, InvalidGraphError)
    assert str(bad.error).startswith("partition 4") and "7" in str(bad.error)
    w = np.array(["a", "b", "c"])
    bad = _pieces.leaf(
        (np.array([0, 1, 2]), np.array([1, 2, 0]), w),
        part=1,
        label="partition 1",
        key="k",
        num_nodes=None,
        kind="msf",
        device=device,
    )
    assert isinstance(bad.error, InvalidGraphError) and "not numbers" in str(bad.error)


def _blocks(a, parts):
    return da.from_array(a, chunks=max(1, -(-a.shape[0] // parts)))


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(graph_zoo()))
def test_gpu_in_process_equals_the_single_machine_engine(name):
    src, dst, n = graph_zoo()[name]
    src, dst = np.asarray(src, np.int64), np.asarray(dst, np.int64)
    w = _weights(src.shape[0], 1)
    with dask.config.set(scheduler="synchronous"):
        s, d = _blocks(src, 4), _blocks(dst, 4)
        count, labels = cd.connected_components((s, d), num_nodes=n, split_every=2, device="gpu")
        want = concomp.connected_components((src, dst), num_nodes=n, device="cpu")
        assert count == want[0]
        np.testing.assert_array_equal(labels, want[1])
        f = cd.spanning_forest((s, d), num_nodes=n, split_every=2, device="gpu")
        assert_spanning_forest(concomp.as_graph((src, dst), num_nodes=n), f)
        got = cd.minimum_spanning_forest((s, d), _blocks(w, 4), num_nodes=n, device="gpu")
        ref = concomp.minimum_spanning_forest(concomp.as_graph((src, dst), n), w, device="cpu")
        np.testing.assert_array_equal(got.edge_ids, ref.edge_ids)
        assert got.total_weight == ref.total_weight


@pytest.mark.gpu
def test_gpu_auto_on_large_partitions_and_cupy_blocks():
    """``device="auto"`` takes the GPU for partitions of >= 2e6 edges; CuPy blocks run on
    the GPU and, with ``device="cpu"``, on the host."""
    import cupy as cp

    rng = np.random.default_rng(11)
    n, m = 1 << 21, 5_000_000
    src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
    want = concomp.connected_components((src, dst), num_nodes=n, device="cpu")
    with dask.config.set(scheduler="synchronous"):
        count, labels = cd.connected_components((_blocks(src, 2), _blocks(dst, 2)), n)
        assert count == want[0]
        np.testing.assert_array_equal(labels, want[1])
        small = slice(0, 40_000)
        s = da.from_array(cp.asarray(src[small]), chunks=10_000, asarray=False)
        d = da.from_array(cp.asarray(dst[small]), chunks=10_000, asarray=False)
        ref = concomp.connected_components((src[small], dst[small]), num_nodes=n, device="cpu")
        for dev in ("gpu", "cpu"):
            count, labels = cd.connected_components((s, d), num_nodes=n, device=dev)
            assert count == ref[0]
            np.testing.assert_array_equal(labels, ref[1])


@pytest.mark.gpu
def test_gpu_worker_of_a_local_gpu_cluster():
    distributed = pytest.importorskip("distributed")
    rng = np.random.default_rng(2)
    n, m = 50_000, 400_000
    src, dst = rng.integers(0, n, m) * 7, rng.integers(0, n, m) * 7  # every 7th id used
    w = _weights(m, 3)
    with cd.local_gpu_cluster([0]) as cluster, distributed.Client(cluster) as client:
        s, d = _blocks(src, 6), _blocks(dst, 6)
        count, labels = cd.connected_components((s, d), device="gpu", client=client)
        want = concomp.connected_components((src, dst), device="cpu", renumber=False)
        assert count == want[0]
        np.testing.assert_array_equal(labels, want[1])
        got = cd.minimum_spanning_forest((s, d), _blocks(w, 6), device="gpu", client=client)
        ref = concomp.minimum_spanning_forest((src, dst), w, device="cpu", renumber=False)
        np.testing.assert_array_equal(got.edge_ids, ref.edge_ids)
        bad = da.from_array(np.where(np.arange(m) == 123_456, -1, src), chunks=m // 6 + 1)
        with pytest.raises(InvalidGraphError, match=r"^partition 1 .*-1"):
            cd.connected_components((bad, d), device="gpu", client=client, retries=0)
