"""Host edge ids onto the device in one staged copy (concomp._gpu.upload)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def _upload(pieces):
    from concomp._gpu._compat import staged_edges_to_device

    return staged_edges_to_device(pieces)


@pytest.mark.parametrize(
    ("dtype", "scale", "want"),
    [
        (np.int64, 1, np.int32),  # narrowed: every id fits
        (np.int32, 1, np.int32),
        (np.uint32, 1, np.int32),
        (np.int64, 2**33, np.int64),  # kept wide
        (np.uint32, 2**22, np.int64),  # up to 4e9: beyond int32
    ],
)
def test_pieces_concatenate_with_their_range(dtype, scale, want):
    rng = np.random.default_rng(4)
    pieces = [
        (
            (rng.integers(0, 900, k) * scale).astype(dtype),
            (rng.integers(0, 900, k) * scale).astype(dtype),
        )
        for k in (5, 0, 1000, 37)
    ]
    src, dst, lo, hi = _upload(pieces)
    assert src.dtype == dst.dtype == want
    all_s = np.concatenate([s for s, _ in pieces]).astype(np.int64)
    all_d = np.concatenate([d for _, d in pieces]).astype(np.int64)
    np.testing.assert_array_equal(src.get(), all_s)
    np.testing.assert_array_equal(dst.get(), all_d)
    both = np.concatenate([all_s, all_d])
    assert (lo, hi) == (int(both.min()), int(both.max()))


def test_negative_ids_keep_their_values_and_empty_input():
    src, dst, lo, hi = _upload([(np.array([3, -7, 2]), np.array([-(2**40), 0, 1]))])
    assert src.dtype == np.int64 and (lo, hi) == (-(2**40), 3)
    np.testing.assert_array_equal(dst.get(), [-(2**40), 0, 1])
    src, dst, lo, hi = _upload([(np.array([3, -7]), np.array([0, 1]))])
    assert src.dtype == np.int32 and src.get().tolist() == [3, -7] and (lo, hi) == (-7, 3)
    src, dst, lo, hi = _upload([(np.zeros(0, np.int64), np.zeros(0, np.int64))])
    assert src.shape == (0,) and (lo, hi) == (0, -1)


def test_pieces_cross_in_slots_and_widen_when_a_late_id_needs_it(monkeypatch):
    """Many slots per piece (a tiny slot size), the two slots reused in turn; an id
    beyond int32 in the last slot restarts the upload in int64."""
    from concomp._gpu import upload

    monkeypatch.setattr(upload, "SLOT_EDGES", 64)
    rng = np.random.default_rng(9)
    pieces = [(rng.integers(0, 10**6, k), rng.integers(0, 10**6, k)) for k in (1000, 63, 64, 65, 1)]
    src, dst, lo, hi = _upload(pieces)
    assert src.dtype == np.int32 and lo >= 0 and hi < 10**6
    np.testing.assert_array_equal(src.get(), np.concatenate([s for s, _ in pieces]))
    np.testing.assert_array_equal(dst.get(), np.concatenate([d for _, d in pieces]))
    pieces[-2][1][-1] = 2**40  # in the last slot of the fourth piece
    src, dst, lo, hi = _upload(pieces)
    assert src.dtype == np.int64 and lo >= 0 and hi == 2**40
    np.testing.assert_array_equal(dst.get(), np.concatenate([d for _, d in pieces]))


def test_uploads_from_several_threads_at_once():
    """Each thread stages through its own slots (a Dask worker's task threads)."""
    from concurrent.futures import ThreadPoolExecutor

    rng = np.random.default_rng(3)
    jobs = [
        (rng.integers(0, 2**31 - 1, 300_000), rng.integers(0, 2**31 - 1, 300_000)) for _ in range(8)
    ]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda p: _upload([p]), jobs))
    for (s, d), (gs, gd, lo, hi) in zip(jobs, got, strict=True):
        np.testing.assert_array_equal(gs.get(), s)
        np.testing.assert_array_equal(gd.get(), d)
        assert (lo, hi) == (min(s.min(), d.min()), max(s.max(), d.max()))


@pytest.mark.parametrize("m", [0, 1, 2, 7, 1000, 1001])
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint32])
def test_one_id_array_crosses_in_halves(m, dtype, monkeypatch):
    """A CSR's columns or row pointer: the halves fill the two halves of each slot, an
    odd last id goes alone; many slots per half with a tiny slot size."""
    from concomp._gpu import upload
    from concomp._gpu._compat import staged_ids_to_device

    monkeypatch.setattr(upload, "SLOT_EDGES", 64)
    ids = np.random.default_rng(m).integers(0, 10**6, m).astype(dtype)
    out, lo, hi = staged_ids_to_device(ids)
    assert out.dtype == np.int32 and out.shape == (m,)
    np.testing.assert_array_equal(out.get(), ids)
    assert (lo, hi) == ((int(ids.min()), int(ids.max())) if m else (0, -1))


@pytest.mark.parametrize("where", [0, 500, 1000])
def test_one_id_array_widens_wherever_the_wide_id_sits(where):
    from concomp._gpu._compat import staged_ids_to_device

    ids = np.arange(1001, dtype=np.int64)
    ids[where] = 2**40
    out, lo, hi = staged_ids_to_device(ids)
    assert out.dtype == np.int64 and (lo, hi) == (0 if where else 1, 2**40)
    np.testing.assert_array_equal(out.get(), ids)


def test_pieces_read_anew_with_a_declared_count():
    """An iterable that reads its pieces again on each pass (a file's row groups), its
    total given: no counting pass, and a restart in int64 reads them once more."""
    reads = []

    class Pieces:
        def __iter__(self):
            reads.append(1)
            yield np.array([0, 1]), np.array([1, 2])
            yield np.array([3]), np.array([2**35])

    from concomp._gpu._compat import staged_edges_to_device

    src, dst, lo, hi = staged_edges_to_device(Pieces(), 3)
    assert len(reads) == 2 and src.dtype == np.int64 and (lo, hi) == (0, 2**35)
    np.testing.assert_array_equal(dst.get(), [1, 2, 2**35])
