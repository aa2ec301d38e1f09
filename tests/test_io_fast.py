"""The fast I/O paths: ISA-L gzip and its stdlib fallback, the METIS symmetry check,
integer and float text output, Parquet read from the file."""

from __future__ import annotations

import gzip
import itertools

import numpy as np
import pytest

from concomp.cli._common import write_labels
from concomp.io import _files, read_graph, write_graph
from concomp.io._emit import float_tokens, format_column
from concomp.io._scan import is_symmetric_csr

isal = pytest.importorskip("isal", reason="isal (the io extra) is not installed")
BACKENDS = ["isal", "stdlib"]


@pytest.fixture(params=BACKENDS)
def gzip_backend(request, monkeypatch):
    if request.param == "stdlib":
        monkeypatch.setattr(_files, "_isal_gzip", lambda: None)
    return request.param


def _edges(m=5000, n=700, seed=0):
    rng = np.random.default_rng(seed)
    return rng.integers(0, n, m), rng.integers(0, n, m), rng.random(m)


def test_gzip_round_trip_with_either_backend(tmp_path, gzip_backend):
    src, dst, w = _edges()
    path = tmp_path / "g.txt.gz"
    write_graph((src, dst, w), path)
    assert gzip.decompress(path.read_bytes()).startswith(b"#")  # a standard gzip stream
    g = read_graph(path)
    s, d = g.coo()
    assert np.array_equal(s, src) and np.array_equal(d, dst)
    assert np.array_equal(g.weights, w)


def test_truncated_gzip_is_a_format_error_with_either_backend(tmp_path, gzip_backend):
    from concomp import GraphFormatError

    src, dst, _ = _edges()
    full = tmp_path / "g.txt.gz"
    write_graph((src, dst), full)
    cut = tmp_path / "cut.txt.gz"
    cut.write_bytes(full.read_bytes()[: full.stat().st_size // 2])
    with pytest.raises(GraphFormatError, match="corrupt or truncated"):
        read_graph(cut)


def _csr(rows, cols, n):
    order = np.argsort(rows, kind="stable")
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=indptr[1:])
    return indptr, cols[order].astype(np.int32)


@pytest.mark.parametrize("seed", range(40))
def test_metis_symmetry_check_matches_sorting(seed):
    rng = np.random.default_rng(seed)
    n, m = int(rng.integers(1, 9)), int(rng.integers(0, 25))
    r, c = rng.integers(0, n, m), rng.integers(0, n, m)
    if seed % 2:
        r, c = np.concatenate([r, c]), np.concatenate([c, r])
        perm = rng.permutation(r.shape[0])
        r, c = r[perm], c[perm]
    expected = np.array_equal(np.sort(r * n + c), np.sort(c * n + r))
    assert is_symmetric_csr(*_csr(r, c, n)) == expected


def test_metis_file_symmetry_flag(tmp_path):
    sym = tmp_path / "sym.graph"
    sym.write_text("3 2\n2\n1 3\n2\n")
    assert read_graph(sym).symmetric
    asym = tmp_path / "asym.graph"
    asym.write_text("3 2\n2 3\n1\n2\n")
    assert not read_graph(asym).symmetric


def test_labels_text_matches_numpy(tmp_path):
    labels = np.array([0, 5, 123456789, 0, 2**31 - 1], np.int32)
    path = tmp_path / "labels.txt"
    write_labels(labels, str(path))
    assert np.array_equal(np.loadtxt(path, dtype=np.int64), labels)
    assert format_column(np.zeros(0, np.int64)).size == 0


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_float_weights_text_round_trips(tmp_path, dtype):
    w = np.array([0.1, 1.0, -0.0, 1e20, 2.5e-310, 1 / 3, np.inf, -7.0], dtype)
    src, dst = np.arange(w.size), np.arange(w.size) + 1
    path = tmp_path / "g.txt"
    write_graph((src, dst, w), path)
    back = read_graph(path).weights
    assert back.dtype.kind == "f"
    assert np.array_equal(back.astype(dtype), w)


def test_float_tokens_without_pyarrow_agree(monkeypatch):
    import sys

    w = np.random.default_rng(3).random(1000) * 10 ** np.arange(1000) % 1e300
    fast = float_tokens(w)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    slow = float_tokens(w)
    for off, data in (fast, slow):
        toks = [float(data[a:b].tobytes()) for a, b in itertools.pairwise(off)]
        assert np.array_equal(np.array(toks), w)


def test_parquet_read_from_the_file(tmp_path):
    pytest.importorskip("pyarrow")
    src, dst, w = _edges()
    path = tmp_path / "g.parquet"
    write_graph((src, dst, w), path)
    g = read_graph(path)
    s, d = g.coo()
    assert np.array_equal(s, src) and np.array_equal(d, dst) and np.array_equal(g.weights, w)
