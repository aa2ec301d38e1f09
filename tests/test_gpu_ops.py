"""The GPU drivers' array steps (``concomp._gpu.ops``) against NumPy, and the module
builder's ahead-of-use compiles (``concomp._gpu._build``)."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu

#: Around the scans' tile (2048 entries) and their carry pass (2048 tiles a step).
SIZES = [0, 1, 2, 2047, 2048, 2049, 5000, 2048 * 2048 - 1, 2048 * 2048 * 2 + 5]


@pytest.fixture(scope="module")
def cp():
    return pytest.importorskip("cupy")


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64])
@pytest.mark.parametrize("n", [0, 1, 5000])
def test_arange_full_fill_and_copy(cp, dtype, n):
    from concomp._gpu import ops

    np.testing.assert_array_equal(cp.asnumpy(ops.arange(cp, n, dtype)), np.arange(n, dtype=dtype))
    info = np.iinfo(dtype)
    for value in (0, 1, 7, info.max, info.min, -1 if info.min < 0 else info.max - 1):
        got = ops.full(cp, n, value, dtype)
        assert got.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(cp.asnumpy(got), np.full(n, value, dtype=dtype))
    a = cp.asarray(np.arange(n, dtype=dtype)[::-1].copy())
    b = ops.copy(cp, a)
    a[:] = 0
    np.testing.assert_array_equal(cp.asnumpy(b), np.arange(n, dtype=dtype)[::-1])


@pytest.mark.parametrize("src_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dst_dtype", [np.int32, np.int64])
def test_astype(cp, src_dtype, dst_dtype):
    from concomp._gpu import ops

    rng = np.random.default_rng(1)
    x = rng.integers(-(2**31), 2**31 - 1, 10_001).astype(src_dtype)
    got = ops.astype(cp, cp.asarray(x), dst_dtype)
    assert got.dtype == np.dtype(dst_dtype)
    np.testing.assert_array_equal(cp.asnumpy(got), x.astype(dst_dtype))
    a = cp.asarray(x)
    if src_dtype == dst_dtype:
        assert ops.astype(cp, a, dst_dtype) is a


@pytest.mark.parametrize(
    "dtype",
    [np.bool_, np.int8, np.uint16, np.float16, np.int32, np.float32, np.int64, np.float64],
)
@pytest.mark.parametrize("idx_dtype", [np.int32, np.int64])
def test_take(cp, dtype, idx_dtype):
    from concomp._gpu import ops

    rng = np.random.default_rng(2)
    values = (rng.random(3000) * 100).astype(dtype)
    for k in (0, 1, 10_000):
        idx = rng.integers(0, 3000, k).astype(idx_dtype)
        got = ops.take(cp, cp.asarray(values), cp.asarray(idx))
        assert got.dtype == values.dtype
        np.testing.assert_array_equal(cp.asnumpy(got), values[idx])


def test_take_falls_back_for_wide_values_and_views(cp):
    from concomp._gpu import ops

    values = cp.arange(20, dtype=cp.complex128)
    idx = cp.asarray([3, 1, 19])
    np.testing.assert_array_equal(cp.asnumpy(ops.take(cp, values, idx)), [3, 1, 19])
    view = cp.arange(40, dtype=cp.int64)[::2]
    np.testing.assert_array_equal(cp.asnumpy(ops.take(cp, view, idx)), [6, 2, 38])


@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint64])
@pytest.mark.parametrize("n", SIZES)
def test_cumsum(cp, dtype, n):
    from concomp._gpu import ops

    rng = np.random.default_rng(n)
    x = rng.integers(0, 4, n).astype(dtype)
    want = np.cumsum(x, dtype=dtype)
    got = ops.cumsum(cp, cp.asarray(x))
    assert got.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(cp.asnumpy(got), want)
    a = cp.asarray(x)  # in place, and into a view (a row pointer's tail)
    assert ops.cumsum(cp, a, out=a) is a
    np.testing.assert_array_equal(cp.asnumpy(a), want)
    ptr = cp.zeros(n + 1, dtype=dtype)
    ops.cumsum(cp, cp.asarray(x), out=ptr[1:])
    np.testing.assert_array_equal(cp.asnumpy(ptr), np.concatenate([[0], want]).astype(dtype))


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int32, np.int64])
@pytest.mark.parametrize("n", SIZES)
def test_flatnonzero(cp, dtype, n):
    from concomp._gpu import ops

    rng = np.random.default_rng(n + 1)
    for density in (0.0, 0.01, 0.5, 1.0):
        flags = (rng.random(n) < density).astype(dtype)
        if dtype != np.bool_ and n:
            flags[flags != 0] = rng.integers(1, 100, int(np.count_nonzero(flags)))
        got = ops.flatnonzero(cp, cp.asarray(flags))
        assert got.dtype == np.int64
        np.testing.assert_array_equal(cp.asnumpy(got), np.flatnonzero(flags))


def test_prefetched_modules_are_the_ones_later_calls_load(cp):
    from concomp._gpu import _build

    names = [("iota<long long>",), ("fill<long long>",)]
    _build.prefetch(cp, "ops.cu", names)
    _build.wait()
    built = _build.built()
    a = _build.module(cp, "ops.cu", names[0])
    assert _build.module(cp, "ops.cu", names[0]) is a
    assert _build.built() == built  # both were built (or under way) already
    assert _build.function(cp, "ops.cu", "fill<long long>") is _build.function(
        cp, "ops.cu", "fill<long long>"
    )


def test_a_failed_prefetch_raises_where_the_kernel_is_used_and_again_later(cp):
    from concomp._gpu import _build

    bad = ("iota<not_a_type>",)
    _build.prefetch(cp, "ops.cu", [bad])
    for _ in range(2):
        with pytest.raises(Exception, match=r"not_a_type|identifier|NVRTC"):
            _build.module(cp, "ops.cu", bad)


def test_prefetch_argsort_leaves_argsort_correct(cp):
    from concomp._gpu import ops

    ops.prefetch_argsort(cp, np.int32)
    keys = cp.asarray(np.array([3, 1, 2, 1, 0], dtype=np.int32))
    np.testing.assert_array_equal(cp.asnumpy(cp.argsort(keys, kind="stable")), [4, 1, 3, 2, 0])


@pytest.mark.parametrize("roots_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("n", [1, 2048, 2049, 2048 * 2048 * 2 + 5])
def test_root_numbers_count_the_roots_up_to_each_vertex(cp, roots_dtype, dtype, n):
    from concomp._gpu import ops

    rng = np.random.default_rng(n)
    roots = np.arange(n)
    joined = rng.random(n) < 0.7  # most vertices point at a smaller one
    joined[0] = False
    roots[joined] = (rng.random(int(joined.sum())) * np.flatnonzero(joined)).astype(np.int64)
    roots = roots.astype(roots_dtype)
    got = ops.root_numbers(cp, cp.asarray(roots), dtype)
    assert got.dtype == np.dtype(dtype)
    want = np.cumsum(roots == np.arange(n), dtype=dtype)
    np.testing.assert_array_equal(cp.asnumpy(got), want)
