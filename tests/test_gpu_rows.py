"""The device CSR kernels (``concomp._gpu.rows``) against NumPy and the host CSR."""

from __future__ import annotations

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("key_dtype", [np.int32, np.int64, np.uint16])
@pytest.mark.parametrize("ptr_dtype", [np.int32, np.int64])
@pytest.mark.parametrize(("m", "n"), [(0, 0), (0, 5), (1, 1), (1000, 7), (300_000, 50_000)])
def test_row_pointer_is_the_prefix_sum_of_the_key_counts(key_dtype, ptr_dtype, m, n):
    cp = pytest.importorskip("cupy")
    from concomp._gpu.rows import row_pointer

    rng = np.random.default_rng(m + n)
    keys = rng.integers(0, max(n, 1), m).astype(key_dtype)
    got = row_pointer(cp, cp.asarray(keys), n, ptr_dtype)
    want = np.zeros(n + 1, dtype=ptr_dtype)
    want[1:] = np.cumsum(np.bincount(keys, minlength=n))
    assert got.dtype == np.dtype(ptr_dtype)
    np.testing.assert_array_equal(cp.asnumpy(got), want)


def _host_symmetric_csr(src, dst, n):
    """The CPU's symmetric CSR of the same edges (``Graph.undirected_csr`` on the host)."""
    from concomp import Graph

    return Graph.from_edges(src, dst, num_nodes=n).undirected_csr()


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize(
    ("n", "m", "loops"), [(1, 0, 0.0), (5, 1, 1.0), (50, 400, 0.1), (20_000, 150_000, 0.01)]
)
def test_device_symmetric_csr_equals_the_host_one_entry_for_entry(dtype, n, m, loops):
    """Same row pointer, neighbours and edge ids in the same order (duplicates and self
    loops included), so a forest read from either CSR is the same."""
    cp = pytest.importorskip("cupy")
    from concomp import Graph

    rng = np.random.default_rng(n + m)
    src = rng.integers(0, n, m).astype(dtype)
    dst = rng.integers(0, n, m).astype(dtype)
    self_loops = rng.random(m) < loops
    dst[self_loops] = src[self_loops]
    want = _host_symmetric_csr(src, dst, n)
    got = Graph.from_edges(cp.asarray(src), cp.asarray(dst), num_nodes=n).undirected_csr()
    for g, w in zip(got, want):
        np.testing.assert_array_equal(cp.asnumpy(g), w)
    assert got[1].dtype == want[1].dtype and got[2].dtype == want[2].dtype


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_device_counting_sort_is_a_stable_sort_with_its_row_pointer(dtype):
    cp = pytest.importorskip("cupy")
    from concomp import Graph

    rng = np.random.default_rng(3)
    n, m = 1000, 20_000
    src, dst = rng.integers(0, n, m).astype(dtype), rng.integers(0, n, m).astype(dtype)
    indptr, indices, order = Graph.from_edges(cp.asarray(src), cp.asarray(dst), num_nodes=n).csr()
    want_order = np.argsort(src, kind="stable")
    np.testing.assert_array_equal(cp.asnumpy(order), want_order)
    np.testing.assert_array_equal(cp.asnumpy(indices), dst[want_order])
    np.testing.assert_array_equal(
        cp.asnumpy(indptr), np.concatenate([[0], np.cumsum(np.bincount(src, minlength=n))])
    )
