"""The host staging primitives on both of their paths, NumPy and the numba kernels,
forced here by moving the bounds (``staging.PARALLEL_MIN``, ``staging.NUMBA_LOADED_MIN``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from concomp._shared import staging

SRC = str(Path(__file__).resolve().parents[1] / "src")


@pytest.fixture(params=["numpy", "numba"])
def path(request, monkeypatch):
    bound = 1 << 62 if request.param == "numpy" else 0
    monkeypatch.setattr(staging, "PARALLEL_MIN", bound)
    monkeypatch.setattr(staging, "NUMBA_LOADED_MIN", bound)
    return request.param


def _csr(seed: int, n: int, max_deg: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    deg = rng.integers(0, max_deg + 1, n)
    deg[rng.random(n) < 0.3] = 0  # runs of empty rows
    indptr = np.concatenate([[0], np.cumsum(deg)]).astype(np.int64)
    return indptr, rng.integers(-2, n + 2, int(indptr[-1])).astype(np.int64)


@pytest.mark.parametrize(
    "in_dtype, out_dtype", [(np.int64, np.int32), (np.uint32, np.int64), (np.int32, np.int32)]
)
@pytest.mark.parametrize("m", [1, 7, 70_000, 200_003])
def test_stage_edges_and_range(path, in_dtype, out_dtype, m):
    rng = np.random.default_rng(m)
    pairs = rng.integers(0, 2**30, (m, 2)).astype(in_dtype)
    src, dst = pairs[:, 0], pairs[:, 1]
    out_s, out_d = np.full(m + 9, -1, out_dtype), np.full(m + 9, -1, out_dtype)
    lo, hi = staging.stage_edges(src, dst, out_s, out_d, offset=5)
    assert (lo, hi) == (int(pairs.min()), int(pairs.max()))
    assert isinstance(lo, int) and isinstance(hi, int)
    np.testing.assert_array_equal(out_s[5 : 5 + m], src.astype(out_dtype))
    np.testing.assert_array_equal(out_d[5 : 5 + m], dst.astype(out_dtype))
    assert (out_s[:5] == -1).all() and (out_d[5 + m :] == -1).all()
    assert staging.edge_id_range(src, dst) == (lo, hi)


def test_stage_edges_of_mixed_types_and_wrapping_ids(path):
    src = np.array([5, -3, 2**40], np.int64)
    dst = np.array([1, 2, 3], np.uint32)
    out = np.zeros(3, np.int32), np.zeros(3, np.int32)
    assert staging.stage_edges(src, dst, *out) == (-3, 2**40)  # the caller checks the range
    assert staging.edge_id_range(src, dst) == (-3, 2**40)
    assert staging.stage_edges(src[:0], dst[:0], *out) == (0, -1)
    assert staging.edge_id_range(src[:0], dst[:0]) == (0, -1)


@pytest.mark.parametrize("out_dtype", [np.int32, np.int64])
def test_stage_csr(path, out_dtype):
    indptr, indices = _csr(3, 50_000, 11)
    m = indices.shape[0]
    rows = np.repeat(np.arange(indptr.shape[0] - 1), np.diff(indptr))
    for start, stop, offset in ((0, m, 0), (70_001, m - 5, 3), (5, 6, 0), (m - 1, m, 2), (m, m, 0)):
        out_s, out_d = np.full(m + 3, -1, out_dtype), np.full(m + 3, -1, out_dtype)
        lo, hi = staging.stage_csr(indptr, indices, start, stop, out_s, out_d, offset)
        k = stop - start
        np.testing.assert_array_equal(out_s[offset : offset + k], rows[start:stop])
        np.testing.assert_array_equal(out_d[offset : offset + k], indices[start:stop])
        expect = (int(indices[start:stop].min()), int(indices[start:stop].max())) if k else (0, -1)
        assert (lo, hi) == expect


@pytest.mark.parametrize("cap", [2, 3, 1000, 200_000])
def test_stage_csr_columns(path, cap):
    indptr, indices = _csr(4, 40_000, 9)
    m = indices.shape[0]
    for start, stop in ((0, m), (1234, m - 77), (m - 1, m)):
        cols, seg = np.full(m, -1, np.int32), np.full(cap, -1, np.int32)
        end, r0, nseg, lo, hi = staging.stage_csr_columns(indptr, indices, start, stop, cols, seg)
        k = end - start
        assert 0 < k <= stop - start and nseg <= cap
        np.testing.assert_array_equal(cols[:k], indices[start:end])
        expect_seg = np.clip(indptr[r0 : r0 + nseg] - start, 0, k)
        np.testing.assert_array_equal(seg[:nseg], expect_seg)
        assert seg[nseg - 1] == k and indptr[r0] <= start < indptr[r0 + 1]
        assert (lo, hi) == (int(indices[start:end].min()), int(indices[start:end].max()))


def test_first_decrease_and_copy(path):
    a = np.arange(300_000, dtype=np.int64)
    assert staging.first_decrease(a) == -1
    for i in (0, 65_535, 65_536, 299_998):
        b = a.copy()
        b[i + 1] = b[i] - 1
        assert staging.first_decrease(b) == i
    assert staging.first_decrease(a[:1]) == -1
    out = np.zeros(300_000, np.int32)
    staging.copy_parallel(a, out)
    np.testing.assert_array_equal(out, a)
    staging.copy_parallel(a[:0], out[:0])


def test_host_inputs_below_the_kernels_bound_are_staged_without_numba():
    """A process that stages a host edge list of fewer than ``PARALLEL_MIN`` ids (what a
    first GPU call on host data does) never imports numba, whose start-up costs about
    a second."""
    code = """
        import json, sys
        import numpy as np
        from concomp._shared import staging
        m = staging.PARALLEL_MIN - 1
        src, dst = np.arange(m), np.arange(1, m + 1)
        out = np.zeros(m, np.int32), np.zeros(m, np.int32)
        staging.stage_edges(src, dst, *out)
        staging.edge_id_range(src, dst)
        staging.stage_csr(np.array([0, 2, 3]), np.array([1, 2, 0]), 0, 3, *out)
        staging.first_decrease(np.arange(10))
        from concomp import _host_input  # the routing of host data, imported as the GPU path does
        print(json.dumps({"numba": "numba" in sys.modules}))
    """
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.strip().splitlines()[-1]) == {"numba": False}


def test_the_kernels_run_where_numba_is_loaded_or_the_input_is_large(monkeypatch):
    monkeypatch.setattr(staging, "_numba_loaded", lambda: False)
    assert staging._kernels(staging.PARALLEL_MIN - 1) is None
    assert staging._kernels(staging.PARALLEL_MIN) is not None
    monkeypatch.setattr(staging, "_numba_loaded", lambda: True)
    assert staging._kernels(staging.NUMBA_LOADED_MIN - 1) is None
    assert staging._kernels(staging.NUMBA_LOADED_MIN) is not None


def test_kernels_only_forces_the_kernels_and_restores_the_bound():
    """What :func:`concomp.warmup` stages goes through the kernels, so that it compiles
    what large inputs load later."""
    with staging.kernels_only():
        assert staging._kernels(1) is not None
        out = np.zeros(3, np.int32), np.zeros(3, np.int32)
        assert staging.stage_edges(np.array([2, 0, 1]), np.array([1, 1, 5]), *out) == (0, 5)
    assert staging.PARALLEL_MIN == 1 << 19
    assert staging._kernels(1) is None
