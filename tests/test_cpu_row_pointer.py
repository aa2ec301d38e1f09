"""The CPU union-find run's row pointer: int64 for the kernels, made once per graph."""

from __future__ import annotations

import numpy as np

import concomp
from concomp._cpu.unionfind import UnionFindRun, wide_indptr
from concomp.options import DEFAULTS
from concomp.variants import Variant


def test_a_32_bit_row_pointer_is_widened_once_per_graph() -> None:
    g = concomp.as_graph((np.array([0, 1, 2], np.int32), np.array([1, 2, 3], np.int32)))
    indptr = g.undirected_csr()[0]
    assert indptr.dtype == np.int32
    first = wide_indptr(g, indptr, True)
    assert first.dtype == np.int64 and first.flags.c_contiguous
    np.testing.assert_array_equal(first, indptr)
    assert wide_indptr(g, indptr, True) is first  # kept on the graph
    run = UnionFindRun(g, Variant.parse("kout-rem_cas-splice-csr"), DEFAULTS)
    assert run.csr()[0] is first


def test_a_64_bit_row_pointer_is_used_as_it_is() -> None:
    indptr = np.array([0, 1, 3, 4], np.int64)
    g = concomp.as_graph((np.array([0, 1]), np.array([1, 2])))
    assert wide_indptr(g, indptr, True) is indptr
    assert not any(k[0] == "cpu_indptr64" for k in g._device_cache if isinstance(k, tuple))


def test_the_kept_row_pointer_answers_like_a_new_one() -> None:
    rng = np.random.default_rng(3)
    src = rng.integers(0, 500, 800).astype(np.int32)
    dst = rng.integers(0, 500, 800).astype(np.int32)
    g = concomp.as_graph((src, dst), num_nodes=500)
    alg = "kout-rem_cas-splice-csr"
    first = concomp.connected_components(g, device="cpu", algorithm=alg)
    assert ("cpu_indptr64", True) in g._device_cache
    again = concomp.connected_components(g, device="cpu", algorithm=alg)
    fresh = concomp.connected_components((src, dst), num_nodes=500, device="cpu", algorithm=alg)
    np.testing.assert_array_equal(first.labels, again.labels)
    np.testing.assert_array_equal(first.labels, fresh.labels)
