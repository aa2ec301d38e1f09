"""The device row-pointer kernel (``concomp._gpu.rows``) against NumPy."""

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
    got = row_pointer(cp.asarray(keys), n, ptr_dtype)
    want = np.zeros(n + 1, dtype=ptr_dtype)
    want[1:] = np.cumsum(np.bincount(keys, minlength=n))
    assert got.dtype == np.dtype(ptr_dtype)
    np.testing.assert_array_equal(cp.asnumpy(got), want)
