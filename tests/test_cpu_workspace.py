"""Scratch arrays kept between calls (concomp._cpu.workspace) and the labeller on them."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from scipy import ndimage

import concomp
from concomp._cpu import workspace
from concomp.testing.images import maze, random_mask


@pytest.fixture(autouse=True)
def _fresh():
    workspace.release()
    yield
    workspace.release()


def test_a_set_is_kept_and_reused_when_it_fits():
    with workspace.arrays("t", a=(100, np.int32), b=(50, np.uint16)) as first:
        first["a"][:] = 7
    assert workspace.kept_bytes("t") == 100 * 4 + 50 * 2
    with workspace.arrays("t", a=(60, np.int32), b=(80, np.uint16)) as again:
        assert again["a"].base is first["a"].base  # large enough: the same memory
        assert again["b"].base is not first["b"].base  # too small: a new array
        assert again["a"].shape == (60,) and again["b"].shape == (80,)
    with workspace.arrays("t", a=(10, np.int64)) as other:  # another dtype: new
        assert other["a"].dtype == np.int64
    assert workspace.kept_bytes("t") == 10 * 8
    workspace.release("t")
    assert workspace.kept_bytes() == 0


def test_sets_beyond_the_bound_are_not_kept(monkeypatch):
    monkeypatch.setattr(workspace, "KEEP_BYTES", 1000)
    with workspace.arrays("t", a=(251, np.int32)):
        pass
    assert workspace.kept_bytes("t") == 0
    with workspace.arrays("t", a=(250, np.int32)):
        pass
    assert workspace.kept_bytes("t") == 1000


def test_a_call_under_way_keeps_its_set_to_itself():
    with workspace.arrays("t", a=(10, np.int32)):
        pass
    with workspace.arrays("t", a=(10, np.int32)) as outer:
        with workspace.arrays("t", a=(10, np.int32)) as inner:  # the set is taken
            assert inner["a"].base is not outer["a"].base


def test_an_error_inside_still_gives_the_set_back():
    with pytest.raises(RuntimeError):
        with workspace.arrays("t", a=(10, np.int32)):
            raise RuntimeError("boom")
    assert workspace.kept_bytes("t") == 40


def test_labelling_one_image_after_another_on_kept_arrays():
    """Images of other sizes, dtypes, connectivities and region counts, one after
    another, each equal to SciPy's: nothing a call leaves in the kept arrays reaches
    the next."""
    images = [
        random_mask((300, 301), 0.6, seed=1),
        random_mask((20, 30), 0.3, seed=2),
        maze((65, 97), seed=3),
        random_mask((9, 10, 11), 0.4, seed=4).astype(np.uint8),
        random_mask((3, 70000), 0.5, seed=5),  # rows past 16-bit positions
        random_mask((300, 301), 0.2, seed=6),
    ]
    for image in images * 2:
        for c in (1, image.ndim):
            want, m = ndimage.label(image, ndimage.generate_binary_structure(image.ndim, c))
            got, n = concomp.label(image, c, return_num=True, device="cpu")
            assert n == m
            np.testing.assert_array_equal(got, want)
    assert 0 < workspace.kept_bytes("label") <= workspace.KEEP_BYTES


def test_threads_labelling_at_once_get_their_own_arrays():
    images = [random_mask((200, 210), p, seed=i) for i, p in enumerate((0.3, 0.5, 0.7, 0.9))]
    want = [ndimage.label(im)[0] for im in images]
    got: list = [None] * len(images)

    def work(i: int) -> None:
        for _ in range(5):
            got[i] = concomp.label(images[i], device="cpu")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(images))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
