"""The drop-ins: SciPy's own ``label`` tests run against ``concomp.ndimage.label``, and
``concomp.measure.label`` against scikit-image on the same inputs."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.ndimage

import concomp.measure
import concomp.ndimage
from concomp.testing.images import random_mask

scipy_tests = pytest.importorskip(
    "scipy.ndimage.tests.test_measurements", reason="SciPy's test files are not installed"
)

#: SciPy's tests of ``label`` (every ``test_label*`` function, and the label tests that
#: carry issue numbers), read from the installed SciPy.
SCIPY_LABEL_TESTS = sorted(
    name
    for name in dir(scipy_tests)
    if name.startswith("test_label") or name in ("test_ticket_742", "test_gh_issue_3025")
)


@pytest.fixture
def concomp_as_scipy(monkeypatch):
    """``scipy.ndimage.label`` replaced by concomp's drop-in; yields the call count."""
    calls = []

    def label(*args, **kwargs):
        calls.append(1)
        return concomp.ndimage.label(*args, **kwargs)

    monkeypatch.setattr(scipy.ndimage, "label", label)
    yield calls


def test_scipy_label_tests_were_found():
    assert len(SCIPY_LABEL_TESTS) >= 15, SCIPY_LABEL_TESTS


@pytest.mark.parametrize("name", SCIPY_LABEL_TESTS)
def test_scipy_label_suite(name, concomp_as_scipy):
    getattr(scipy_tests, name)(np)
    assert concomp_as_scipy, "the SciPy test never reached concomp's label"


def test_scipy_default_dtype_test(concomp_as_scipy):
    scipy_tests.TestFindObjects().test_label_default_dtype(np)
    assert concomp_as_scipy


def test_ndimage_label_matches_scipy_on_volumes_and_outputs():
    vol = random_mask((20, 21, 22), 0.35, seed=1)
    s = scipy.ndimage.generate_binary_structure(3, 2)
    got, n = concomp.ndimage.label(vol, s)
    want, m = scipy.ndimage.label(vol, s)
    assert (n, got.dtype) == (m, want.dtype) and isinstance(n, int)
    np.testing.assert_array_equal(got, want)
    out = np.zeros(vol.shape, dtype=np.float64)
    assert concomp.ndimage.label(vol, output=out) == scipy.ndimage.label(vol)[1]
    np.testing.assert_array_equal(out, scipy.ndimage.label(vol)[0])
    strided = np.zeros((20, 21, 44), dtype=np.int32)[:, :, ::2]
    concomp.ndimage.label(vol, output=strided)
    np.testing.assert_array_equal(strided, scipy.ndimage.label(vol)[0])


def test_ndimage_label_takes_big_endian_inputs_and_outputs():
    vol = random_mask((9, 10, 11), 0.4, seed=3)
    want, m = scipy.ndimage.label(vol)
    got, n = concomp.ndimage.label(vol.astype(">f8"))
    assert n == m
    np.testing.assert_array_equal(got, want)
    out = np.zeros(vol.shape, ">i4")  # SciPy refuses this one; the labels arrive swapped
    assert concomp.ndimage.label(vol, output=out) == m
    np.testing.assert_array_equal(out, want)
    labels, n = concomp.ndimage.label(vol, output=np.dtype(">i4"))
    assert n == m and labels.dtype == np.int32
    frozen = np.zeros(vol.shape, np.int32)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="argument `output`: the array is read-only"):
        concomp.ndimage.label(vol, output=frozen)


def test_ndimage_label_refuses_what_scipy_refuses():
    with pytest.raises(RuntimeError, match="bit-depth"):
        concomp.ndimage.label(np.indices((30, 30)).sum(axis=0) % 2, output=np.int8)
    with pytest.raises(RuntimeError, match="rank"):
        concomp.ndimage.label(np.ones((3, 3)), np.ones((3, 3, 3)))
    with pytest.raises(ValueError, match="equal to 3"):
        concomp.ndimage.label(np.ones((3, 3)), np.ones((3, 5)))
    with pytest.raises(TypeError, match="Complex"):
        concomp.ndimage.label(np.ones((3, 3), np.complex128))


def test_measure_label_matches_scikit_image():
    skm = pytest.importorskip("skimage.measure")
    rng = np.random.default_rng(3)
    images = [
        rng.integers(0, 4, (41, 43)),
        rng.integers(0, 3, (9, 10, 11)).astype(np.uint8),
        random_mask((50, 51), 0.5, seed=4),
        rng.random((30, 30)).round(1),
        rng.integers(0, 3, (77,)),
    ]
    for image in images:
        for connectivity in [None, *range(1, image.ndim + 1)]:
            for background in (None, 0, 1, 2):
                if image.dtype == bool and background == 2:
                    continue
                got, n = concomp.measure.label(image, background, True, connectivity)
                want, m = skm.label(image, background, True, connectivity)
                assert n == m
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(got, want)


def test_measure_label_refuses_a_bad_connectivity():
    with pytest.raises(ValueError, match="Connectivity"):
        concomp.measure.label(np.ones((3, 3), int), connectivity=3)
