"""concomp.dask.label: chunked images labelled like scipy.ndimage.label on the whole array."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage

import concomp
from concomp.errors import InvalidImageError
from concomp.testing.images import maze, random_mask, spiral

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
cd = pytest.importorskip("concomp.dask")


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"):
        yield


CHUNKINGS = [
    ((37, 41), (5, 7)),
    ((37, 41), (1, 41)),  # a boundary after every row
    ((37, 41), (37, 1)),  # ... after every column
    ((9, 10, 11), (2, 3, 4)),
    ((9, 10, 11), (4, 10, 1)),
    ((100,), (7,)),
]


@pytest.mark.parametrize("p", (0.3, 0.6, 0.85))
@pytest.mark.parametrize("shape, chunks", CHUNKINGS)
def test_labels_equal_scipy_for_every_connectivity(shape, chunks, p):
    image = random_mask(shape, p, seed=int(p * 100) + len(shape))
    for connectivity in range(1, len(shape) + 1):
        got, n = cd.label(da.from_array(image, chunks=chunks), connectivity, return_num=True)
        want, m = ndimage.label(image, ndimage.generate_binary_structure(len(shape), connectivity))
        assert isinstance(got, da.Array) and n == m
        np.testing.assert_array_equal(got.compute(), want)


@pytest.mark.parametrize("shape, chunks", CHUNKINGS)
def test_multilabel_and_background_equal_the_single_array_labeller(shape, chunks):
    values = np.random.default_rng(7).integers(0, 3, shape).astype(np.uint8)
    for connectivity in (1, len(shape)):
        got = cd.label(
            da.from_array(values, chunks=chunks), connectivity, multilabel=True, background=1
        )
        want = concomp.label(values, connectivity, multilabel=True, background=1, device="cpu")
        np.testing.assert_array_equal(got.compute(), want)


def test_regions_through_every_chunk_and_structures():
    for image in (spiral(64), maze((65, 97), seed=3)):
        got, n = cd.label(da.from_array(image, chunks=(9, 11)), return_num=True)
        assert n == 1
        np.testing.assert_array_equal(got.compute(), ndimage.label(image)[0])
    diagonal = np.array([[0, 0, 1], [0, 1, 0], [1, 0, 0]], bool)
    image = random_mask((30, 30), 0.5, seed=4)
    got = cd.label(da.from_array(image, chunks=(4, 6)), structure=diagonal)
    np.testing.assert_array_equal(got.compute(), ndimage.label(image, diagonal)[0])


def test_empty_masks_numpy_input_and_dtypes():
    got, n = cd.label(da.zeros((20, 20), dtype=bool, chunks=7), return_num=True)
    assert n == 0 and not got.compute().any()
    image = random_mask((50, 50), 0.5, seed=5)
    got, n = cd.label(image, return_num=True)  # a NumPy array: one chunk
    want, m = ndimage.label(image)
    assert n == m and got.dtype == np.uint8  # the smallest dtype holding every label (164)
    np.testing.assert_array_equal(got.compute(), want)


def test_big_endian_chunks_label_as_their_values_say():
    values = np.random.default_rng(3).integers(0, 3, (23, 31)).astype(">i2")
    got = cd.label(da.from_array(values, chunks=(6, 8)), multilabel=True, background=1)
    want = concomp.label(values.astype(np.int16), multilabel=True, background=1, device="cpu")
    np.testing.assert_array_equal(got.compute(), want)


def test_bad_input_is_refused_with_the_argument_named():
    with pytest.raises(InvalidImageError, match="argument `image`"):
        cd.label(da.ones((4, 4), dtype=np.float32, chunks=2))
    with pytest.raises(InvalidImageError, match="argument `connectivity`"):
        cd.label(da.ones((4, 4), dtype=bool, chunks=2), 3)
    with pytest.raises(InvalidImageError, match="both given"):
        cd.label(da.ones((4, 4), dtype=bool, chunks=2), 1, structure=np.ones((3, 3), bool))


@pytest.mark.gpu
def test_gpu_workers_label_their_chunks_like_scipy():
    """``device="gpu"``: each chunk goes through the GPU labeller; the result is the same."""
    for shape, chunks in ((300, 257), (64, 100)), ((40, 41, 42), (16, 20, 21)):
        image = random_mask(shape, 0.55, seed=9)
        for connectivity in (1, len(shape)):
            got = cd.label(da.from_array(image, chunks=chunks), connectivity, device="gpu")
            want, _ = ndimage.label(
                image, ndimage.generate_binary_structure(len(shape), connectivity)
            )
            np.testing.assert_array_equal(got.compute(), want)
