"""Scratch arrays on huge pages (``concomp._shared.hugepages``) and the search that uses them."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

from concomp._cpu import scc
from concomp._shared import hugepages


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_large_scratch_is_zeroed_writable_and_backed_by_a_mapping(dtype):
    count = hugepages.MIN_BYTES // np.dtype(dtype).itemsize + 3
    a = hugepages.scratch_zeros(count, dtype)
    assert a.shape == (count,) and a.dtype == dtype and not a.any()
    if hugepages._ADVICE is not None:  # Linux: an anonymous mapping, not NumPy's memory
        assert not a.flags.owndata
    a[-1] = 7
    a[:5] = 1
    assert int(a.sum()) == 12


def test_small_scratch_and_systems_without_the_advice_get_numpy_arrays(monkeypatch):
    small = hugepages.scratch_zeros(10, np.int32)
    assert small.flags.owndata and small.tolist() == [0] * 10
    monkeypatch.setattr(hugepages, "_ADVICE", None)
    big = hugepages.scratch_zeros(hugepages.MIN_BYTES, np.int8)
    assert big.flags.owndata and not big.any()
    assert hugepages.scratch_zeros(0, np.int64).shape == (0,)


def _random_digraph(rng, n, m):
    s, d = rng.integers(0, n, m), rng.integers(0, n, m)
    a = sp.csr_array((np.ones(m, np.int8), (s, d)), shape=(n, n))
    return a.indptr.astype(np.int32), a.indices.astype(np.int32), a


@pytest.mark.parametrize("nearest", [False, True])
def test_the_search_on_mapped_scratch_matches_scipy(monkeypatch, nearest):
    """Every scratch array of the search from a mapping (``MIN_BYTES`` 0): the partition
    is SciPy's."""
    monkeypatch.setattr(hugepages, "MIN_BYTES", 0)
    rng = np.random.default_rng(3)
    for n, m in [(1, 0), (2, 2), (50, 40), (200, 600), (2000, 2500), (3000, 9000)]:
        indptr, indices, a = _random_digraph(rng, n, m)
        count, rindex, scratch = scc._search(indptr, indices, nearest=nearest)
        want, labels = scipy_cc(a, directed=True, connection="strong")
        assert count == want and scratch.shape == (n,)
        # the same partition: one final index per SciPy component and the reverse
        pairs = set(zip(rindex.tolist(), labels.tolist()))
        assert len(pairs) == want


def test_a_long_cycle_fills_the_frames_then_the_stack(monkeypatch):
    """A cycle whose search descends to depth n and then moves every vertex onto Pearce's
    stack: one component."""
    monkeypatch.setattr(hugepages, "MIN_BYTES", 0)
    n = 5000
    indptr = np.arange(n + 1, dtype=np.int32)
    indices = ((np.arange(n) + 1) % n).astype(np.int32)
    count, rindex, _ = scc._search(indptr, indices, nearest=True)
    assert count == 1 and np.unique(rindex).size == 1
