"""End-to-end tests of the ``concomp`` command (``concomp.cli.main`` and ``python -m concomp``)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

from concomp.cli import SUBCOMMANDS, main

_HAS_IO = importlib.util.find_spec("concomp.io") is not None
_HAS_GENERATORS = importlib.util.find_spec("concomp.generators") is not None
needs_io = pytest.mark.skipif(not _HAS_IO, reason="concomp.io is not available")
needs_generators = pytest.mark.skipif(
    not _HAS_GENERATORS, reason="concomp.generators is not available"
)

N = 60


def _edges() -> tuple[np.ndarray, np.ndarray]:
    """A sparse random graph with several components; vertex 0 and N-1 both occur,
    so every reader agrees that n = N and ids are 0-based."""
    rng = np.random.default_rng(7)
    src = rng.integers(0, N, 40)
    dst = rng.integers(0, N, 40)
    return np.r_[0, src, 5], np.r_[N - 1, dst, 5]  # (5, 5) is a self loop


def _scipy_labels(src: np.ndarray, dst: np.ndarray) -> tuple[int, np.ndarray]:
    a = sp.coo_array((np.ones(src.size), (src, dst)), shape=(N, N))
    return scipy_cc(a, directed=False)


@pytest.fixture
def snap_file(tmp_path: Path) -> Path:
    src, dst = _edges()
    path = tmp_path / "graph.txt"
    lines = ["# Undirected graph: test", "# FromNodeId\tToNodeId"]
    lines += [f"{u}\t{v}" for u, v in zip(src, dst)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("concomp: error: "), err
    return lines[0]


def _value(out: str, label: str) -> str:
    """Value of the human-readable output line starting with ``label``."""
    for line in out.splitlines():
        if line.startswith(label + " "):
            return line[len(label) :].strip()
    raise AssertionError(f"no {label!r} line in:\n{out}")


def test_registry_has_the_subcommands() -> None:
    assert {"cc", "info", "generate"} <= set(SUBCOMMANDS)


@needs_io
def test_cc_counts_like_scipy(snap_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected, _ = _scipy_labels(*_edges())
    assert main(["cc", str(snap_file), "--device", "cpu"]) == 0
    out = capsys.readouterr().out
    assert int(_value(out, "components")) == expected
    assert int(_value(out, "nodes")) == N
    assert int(_value(out, "edges")) == 42
    assert _value(out, "time load").endswith(" s")


@needs_io
def test_cc_json(snap_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected, labels = _scipy_labels(*_edges())
    assert main(["cc", str(snap_file), "--json"]) == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert {"n", "m", "components", "largest_component", "time_s"} <= set(report)
    assert {"load", "compute", "write"} <= set(report["time_s"])
    assert report["components"] == expected
    assert report["largest_component"] == np.bincount(labels).max()
    assert captured.err == ""


@needs_io
@pytest.mark.parametrize("suffix", [".npy", ".txt", ".parquet"])
def test_cc_writes_labels(
    snap_file: Path, tmp_path: Path, suffix: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    out = tmp_path / f"labels{suffix}"
    assert main(["cc", str(snap_file), "-o", str(out)]) == 0
    assert _value(capsys.readouterr().out, "labels") == str(out)
    if suffix == ".npy":
        labels = np.load(out)
        assert labels.dtype == np.int32
    elif suffix == ".txt":
        labels = np.loadtxt(out, dtype=np.int64)
    else:
        import pyarrow.parquet as pq

        labels = pq.read_table(out).column("label").to_numpy()
    np.testing.assert_array_equal(labels, _scipy_labels(*_edges())[1])


def test_cc_rejects_unknown_label_suffix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # checked before the graph is read, so the missing input file does not matter
    assert main(["cc", str(tmp_path / "g.txt"), "-o", str(tmp_path / "labels.csv")]) == 2
    assert ".npy" in _one_error_line(capsys.readouterr().err)


@needs_io
def test_info(snap_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src, dst = _edges()
    assert main(["info", str(snap_file), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    loops = src == dst
    deg = np.bincount(src[~loops], minlength=N) + np.bincount(dst[~loops], minlength=N)
    assert report["n"] == N and report["m"] == src.size
    assert report["self_loops"] == int(loops.sum())
    assert report["components"] == _scipy_labels(src, dst)[0]
    assert (report["min_degree"], report["max_degree"]) == (deg.min(), deg.max())
    assert report["mean_degree"] == pytest.approx(deg.mean())
    assert report["directed"] is False and report["weighted"] is False
    assert report["index_dtype"] == "int32"
    assert main(["info", str(snap_file)]) == 0
    assert int(_value(capsys.readouterr().out, "self loops")) == 1


@needs_io
@needs_generators
def test_generate_then_cc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "grid.mtx"
    assert main(["generate", "grid:rows=10,cols=12", "-o", str(path)]) == 0
    assert path.exists()
    capsys.readouterr()
    assert main(["cc", str(path), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["n"], report["components"], report["largest_component"]) == (120, 1, 120)


@needs_generators
def test_cc_generate_option(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cc", "--generate", "grid:rows=4,cols=5", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["n"], report["components"]) == (20, 1)


@needs_io
def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.txt"
    assert main(["cc", str(missing)]) == 2
    captured = capsys.readouterr()
    assert "missing.txt" in _one_error_line(captured.err)
    assert captured.out == ""


@needs_io
def test_malformed_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("0 1\n1 two\n")
    assert main(["cc", str(bad)]) == 2
    _one_error_line(capsys.readouterr().err)


@needs_io
def test_debug_shows_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["cc", str(tmp_path / "missing.txt"), "--debug"]) == 2
    assert "Traceback" in capsys.readouterr().err
    assert main(["--debug", "info", str(tmp_path / "missing.txt")]) == 2
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv",
    [
        ["cc", "g.txt", "--device", "tpu"],
        ["cc"],
        ["cc", "g.txt", "--generate", "grid:rows=2,cols=2"],
        ["frobnicate"],
        [],
    ],
)
def test_usage_errors(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    _one_error_line(capsys.readouterr().err)


def test_help_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in ("cc", "info", "generate"))


@needs_io
def test_python_dash_m(snap_file: Path) -> None:
    src_dir = Path(__file__).resolve().parents[1] / "src"
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(src_dir), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "concomp", "cc", str(snap_file), "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["components"] == _scipy_labels(*_edges())[0]


def test_bench_is_the_harness(tmp_path, capsys):
    from concomp.cli import main

    out = tmp_path / "r.json"
    argv = ["bench", "--quick", "--graphs", "gridp4k,path-natural", "--out", str(out), "--json"]
    assert main(argv) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["file"] == str(out) and json.loads(out.read_text())["rows"] == doc["rows"]
    assert doc["problems"] == ["cc"] and set(doc["graphs"]) == {"gridp4k", "path-natural"}
    systems = {(r["graph"], r["system"], r["mode"]) for r in doc["rows"]}
    assert ("gridp4k", "concomp", "prebuilt") in systems and ("gridp4k", "scipy", "peer") in systems
    assert all(r["result"] == {"components": 1} for r in doc["rows"])
    assert doc["graphs"]["gridp4k"]["stats"]["m"] == 2 * 256 * 256 - 2 * 256


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--graphs", "nope"], ["graphs", "nope"]),
        (["--reps", "1"], ["--reps", "1", "5"]),
        (["nosuchproblem"], ["problems", "nosuchproblem"]),
        (["--tags", "nope"], ["tags", "nope"]),
    ],
)
def test_bench_bad_arguments_are_one_line(argv, words, capsys):
    from concomp.cli import main

    assert main(["bench", "--quick", *argv]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and all(w in err[0] for w in words), err


@needs_io
def test_corrupt_gzip_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gzip

    body = gzip.compress(b"".join(b"%d %d\n" % (i, i + 1) for i in range(20000)))
    bad = bytearray(body)
    bad[12] ^= 0xFF  # a flipped byte in the first deflate block header: zlib.error
    path = tmp_path / "bad.txt.gz"
    path.write_bytes(bytes(bad))
    assert main(["cc", str(path)]) == 2
    captured = capsys.readouterr()
    line = _one_error_line(captured.err)
    assert "bad.txt.gz" in line and "Traceback" not in captured.err
