"""Host edge arrays checked and narrowed to int32 in one parallel pass
(``concomp._checks._host_edges_staged``): the same graph, the same errors and the
same index dtype as the general checks, and no numba load for a small first call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import concomp
from concomp import _checks
from concomp.errors import InvalidGraphError

SRC = str(Path(__file__).resolve().parents[1] / "src")
M = 70_000  # past NUMBA_LOADED_MIN: this process has numba loaded


@pytest.fixture(autouse=True)
def _numba_loaded():
    import numba  # noqa: F401  (the pass runs from NUMBA_LOADED_MIN ids once it is)


def _general(src, dst, n, monkeypatch):
    """The graph the general checks build from the same arrays."""
    with monkeypatch.context() as m:
        m.setattr(_checks, "_host_edges_staged", lambda *a: None)
        return concomp.Graph.from_edges(src, dst, num_nodes=n)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint32, np.int16, np.uint8])
@pytest.mark.parametrize("given_n", [True, False])
def test_the_staged_graph_is_the_general_one(dtype, given_n, monkeypatch):
    rng = np.random.default_rng(1)
    top = min(5000, np.iinfo(dtype).max)
    src = rng.integers(0, top, M).astype(dtype)
    dst = rng.integers(0, top, M).astype(dtype)
    n = top + 3 if given_n else None
    calls = []
    real = _checks._host_edges_staged
    monkeypatch.setattr(_checks, "_host_edges_staged", lambda *a: calls.append(1) or real(*a))
    g = concomp.Graph.from_edges(src, dst, num_nodes=n)
    assert calls and real(src, dst, n) is not None  # the pass took it
    want = _general(src, dst, n, monkeypatch)
    assert g.num_nodes == want.num_nodes
    for a, b in zip(g.coo(), want.coo()):
        assert a.dtype == b.dtype == np.int32
        np.testing.assert_array_equal(a, b)
    if dtype == np.int32:  # int32 ids are kept as given, as the general path keeps them
        assert g.coo()[0] is src


@pytest.mark.parametrize(
    "where, value, given_n",
    [("src", -1, True), ("dst", 10_000, True), ("dst", -5, False), ("src", 2**31 + 7, False)],
)
def test_bad_or_wide_ids_take_the_general_checks(where, value, given_n, monkeypatch):
    rng = np.random.default_rng(2)
    src, dst = rng.integers(0, 5000, M), rng.integers(0, 5000, M)
    (src if where == "src" else dst)[M // 2] = value
    n = 10_000 if given_n else None
    assert _checks._host_edges_staged(src, dst, n) is None
    if value < 0 or given_n:
        with pytest.raises(InvalidGraphError) as got:
            concomp.Graph.from_edges(src, dst, num_nodes=n)
        with pytest.raises(InvalidGraphError) as want:
            _general(src, dst, n, monkeypatch)
        assert str(got.value) == str(want.value) and f"position {M // 2}" in str(got.value)
    else:  # an id past int32: the general path makes int64 ids
        g = concomp.Graph.from_edges(src, dst, num_nodes=n)
        assert g.coo()[0].dtype == np.int64 and g.num_nodes == 2**31 + 8


def test_other_inputs_take_the_general_checks():
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 100, M), rng.integers(0, 100, M)
    assert _checks._host_edges_staged(src.astype(np.float64), dst, None) is None
    assert _checks._host_edges_staged(src.astype(np.uint64), dst, None) is None
    assert _checks._host_edges_staged(src[:-1], dst, None) is None  # lengths differ
    assert _checks._host_edges_staged(src[:100], dst[:100], None) is None  # small
    assert _checks._host_edges_staged(list(src), dst, None) is None


def test_the_bound_is_the_numpy_starts():
    from concomp._cpu.numpy_start import MAX_EDGES

    assert _checks.FUSED_HOST_EDGES == MAX_EDGES


def test_a_first_call_below_the_bound_does_not_load_numba():
    """A fresh process checks 600 k edges (past the staging kernels' own bound) without
    numba: the NumPy start answers such a graph, and the check must not load it."""
    code = textwrap.dedent(
        """
        import json, sys
        import numpy as np
        import concomp
        rng = np.random.default_rng(0)
        src, dst = rng.integers(0, 1000, 600_000), rng.integers(0, 1000, 600_000)
        g = concomp.Graph.from_edges(src, dst)
        print(json.dumps({"numba": "numba" in sys.modules, "n": g.num_nodes}))
        """
    )
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    row = json.loads(out.stdout.strip().splitlines()[-1])
    assert row == {"numba": False, "n": 1000}
