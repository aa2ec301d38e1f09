"""The host-input benchmark: its table (from a hand-made result) and the script end to end.

The script runs here without a GPU (``CONCOMP_DISABLE_GPU``, so the same happens on a
GPU machine): GPU rows are skipped with the reason, ``auto`` is recorded as running on
the CPU, and the memory probe measures a call that must allocate its labels.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from concomp.bench.host_input import FILE_BYTES_KEY, PARQUET_READ_KEY, SCIPY_KEY, render_markdown

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_host_input.py"
MIB = 2**20


def _result() -> dict:
    graph = {
        "n": 4096,
        "m": 50_000,
        "count": 7,
        "times_ms": {
            "stream_components gpu": [10.0, 10.0, 10.0],
            "stream_components cpu": [40.0],
            "numpy pair int64 / gpu": [5.0, 7.0, 6.0],
            "numpy pair int64 / auto": [8.0],
            "numpy pair int64 / cpu": [20.0, 20.0],
            SCIPY_KEY: [100.0],
            "stream_components gpu parquet file": [30.0],
            "parquet file / gpu": [36.0],
            PARQUET_READ_KEY: [27.0, 24.0, 30.0],
            FILE_BYTES_KEY: [1.5],
        },
        "bytes_input": {
            "numpy pair int64": 12_000_000,
            "scipy csr symmetric": 50_000_000,
            "parquet file": 3_000_000,
        },
        "auto_device": {"numpy pair int64": "gpu"},
        "memory_bytes": {"numpy pair int64 / gpu": 3 * MIB, SCIPY_KEY: 6 * MIB},
    }
    sweep = [
        {"scale": 10, "m": 1000, "device": "cpu", "times_ms": [1.0]},
        {"scale": 10, "m": 1000, "device": "gpu", "times_ms": [2.0]},
        {"scale": 10, "m": 1000, "device": "auto", "times_ms": [1.1], "auto_device": "cpu"},
        {"scale": 10, "kind": "parquet file", "m": 1000, "device": "cpu", "times_ms": [3.0]},
        {"scale": 10, "kind": "parquet file", "m": 1000, "device": "gpu", "times_ms": [9.0]},
    ]
    skipped = [
        {"key": "polars frame", "graph": "rmat12", "reason": "not importable here"},
        {"key": "torch cpu edge_index", "graph": "rmat12", "reason": "not importable here"},
        {"key": "pinned_h2d_gbs", "graph": None, "reason": "no usable GPU: none here"},
    ]
    return {
        "benchmark": "host-input",
        "command": "python benchmarks/bench_host_input.py --scales 12",
        "commit": "abc1234",
        "machine": {"cpu": "Test CPU", "cores": 2},
        "pinned_h2d_gbs": 50.0,
        "graphs": {"rmat12": graph},
        "sweep": sweep,
        "skipped": skipped,
    }


def test_render_markdown_rows_ratios_bandwidth_and_memory():
    text = render_markdown(_result(), "benchmarks/results/x-host-input.json")
    lines = text.splitlines()
    assert "`benchmarks/results/x-host-input.json`" in text
    assert "- pinned host-to-device: 50.0 GB/s" in lines
    assert "- CPU: Test CPU, 2 cores" in lines and "- commit: abc1234" in lines
    assert "### rmat12: n = 4,096, m = 50,000, 7 components" in lines
    rows = [
        line
        for line in lines
        if line.startswith(("| stream", "| numpy", "| SciPy", "| parquet", "| pyarrow", "| file"))
        and "| rmat10 |" not in line  # the sweep's rows
    ]
    assert rows == [
        # stream_components reads the NumPy pair: 12 MB in 10 ms
        "| stream_components (numpy pair) | gpu | 10.00 | 1.00 | 1.20 | - | - |",
        "| stream_components (numpy pair) | cpu | 40.00 | 1.00 | 0.30 | - | - |",
        "| stream_components (parquet file) | gpu | 30.00 | 1.00 | 0.10 | - | - |",
        # pyarrow reading the file alone, against streaming the file on the GPU
        "| pyarrow read_table alone (parquet file) | cpu | 27.00 | 0.90 | 0.11 | - | - |",
        "| file bytes read alone (parquet file) | cpu | 1.50 | 0.05 | 2.00 | - | - |",
        "| numpy pair int64 | gpu | 6.00 | 0.60 | 2.00 | 3.0 MiB | 0.50 |",
        # auto ran on the GPU, so its ratio is to stream_components on the GPU
        "| numpy pair int64 | auto (gpu) | 8.00 | 0.80 | 1.50 | - | - |",
        "| numpy pair int64 | cpu | 20.00 | 0.50 | 0.60 | - | - |",
        # a file against streaming the same file, which has to be read as well
        "| parquet file | gpu | 36.00 | 1.20 | 0.08 | - | - |",
        "| SciPy csgraph (symmetric csr) | cpu | 100 | 2.50 | 0.50 | 6.0 MiB | 1.00 |",
    ]
    # a point without a kind is the NumPy pair's (files from before the sweep took kinds)
    assert "| numpy pair int64 | rmat10 | 1,000 | 1.00 | 2.00 | 1.10 | cpu |" in lines
    assert "| parquet file | rmat10 | 1,000 | 3.00 | 9.00 | - | - |" in lines
    assert "- polars frame (rmat12), torch cpu edge_index (rmat12): not importable here" in lines
    assert "- pinned_h2d_gbs: no usable GPU: none here" in lines


def test_render_markdown_leaves_out_what_the_file_lacks():
    doc = _result()
    for key in ("sweep", "skipped", "command", "commit", "machine", "pinned_h2d_gbs"):
        del doc[key]
    del doc["graphs"]["rmat12"]["memory_bytes"], doc["graphs"]["rmat12"]["auto_device"]
    text = render_markdown(doc)
    assert "switches" not in text and "Not run" not in text
    assert "| numpy pair int64 | auto | 8.00 | - | 1.50 | - | - |" in text.splitlines()


@pytest.mark.parametrize("bad", [{"rows": []}, {"benchmark": "renumber", "graphs": {}}, []])
def test_render_markdown_rejects_other_documents(bad):
    with pytest.raises(ValueError, match="argument `result`"):
        render_markdown(bad)


def _script(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ, **(env or {}), CONCOMP_DISABLE_GPU="1", PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), *args], capture_output=True, text=True, env=env, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done


def test_script_cpu_only_runs_every_kind_end_to_end(tmp_path):
    out = tmp_path / "host.json"
    done = _script("--devices", "cpu", "--scales", "8", "--sweep", "--reps", "1", "--no-memory",
                   "--out", str(out))  # fmt: skip
    doc = json.loads(out.read_text())
    assert doc["benchmark"] == "host-input" and doc["devices"] == ["cpu"]
    g = doc["graphs"]["rmat8"]
    skipped = {s["key"] for s in doc["skipped"]}
    kinds = [k.removesuffix(" / cpu") for k in g["times_ms"] if k.endswith(" / cpu")]
    missing = {"polars frame", "torch cpu edge_index", "pyarrow table", "parquet file"}
    assert len(kinds) + len(skipped & missing) == 10  # every kind timed or skipped
    assert {"numpy pair int64", "scipy coo", "pandas frame", "scipy csr symmetric"} <= set(kinds)
    assert {"stream_components cpu", SCIPY_KEY} <= set(g["times_ms"])
    assert not any(k.endswith(("/ gpu", "/ auto")) for k in g["times_ms"])
    assert all(g["bytes_input"][k] > 0 for k in kinds) and g["count"] >= 1
    assert doc["sweep"] == [] and doc["pinned_h2d_gbs"] is None
    assert "| numpy pair int64 | cpu |" in done.stdout and out.name in done.stdout


def test_script_without_gpu_skips_gpu_rows_and_measures_memory(tmp_path):
    out = tmp_path / "host.json"
    _script("--scales", "8", "--sweep", "8", "--reps", "1", "--kinds", "numpy pair int64",
            "scipy coo", "--out", str(out))  # fmt: skip
    doc = json.loads(out.read_text())
    g = doc["graphs"]["rmat8"]
    reasons = {s["key"]: s["reason"] for s in doc["skipped"]}
    for key in ("pinned_h2d_gbs", "stream_components gpu", "numpy pair int64 / gpu",
                "memory scipy coo / gpu", "sweep numpy pair int64 / gpu"):  # fmt: skip
        assert reasons[key].startswith("no usable GPU: CONCOMP_DISABLE_GPU"), key
    assert g["auto_device"] == {"numpy pair int64": "cpu", "scipy coo": "cpu"}
    auto = [p for p in doc["sweep"] if p["device"] == "auto"]
    assert auto[0]["auto_device"] == "cpu" and "device=auto -> cpu" in auto[0]["auto_reason"]
    assert set(g["memory_bytes"]) == {"numpy pair int64 / cpu", "scipy coo / cpu", SCIPY_KEY}
    assert all(v >= 0 for v in g["memory_bytes"].values()) and doc["memory_method"]


def test_sweep_times_each_sweep_kind_and_records_where_auto_ran(tmp_path):
    pytest.importorskip("pyarrow")
    out = tmp_path / "host.json"
    kinds = ("--sweep-kinds", "numpy pair int64", "parquet file")
    _script("--scales", "--sweep", "8", "9", *kinds, "--devices", "cpu", "auto", "--reps", "2",
            "--no-memory", "--out", str(out))  # fmt: skip
    doc = json.loads(out.read_text())
    got = {(p["kind"], p["scale"], p["device"]) for p in doc["sweep"]}
    assert got == {
        (k, s, d)
        for k in ("numpy pair int64", "parquet file")
        for s in (8, 9)
        for d in ("cpu", "auto")
    }
    assert all(len(p["times_ms"]) == 2 and p["m"] > 0 for p in doc["sweep"])
    assert {p["auto_device"] for p in doc["sweep"] if p["device"] == "auto"} == {"cpu"}
    text = render_markdown(doc, out.name)
    assert "| parquet file | rmat9 |" in text and "| numpy pair int64 | rmat8 |" in text


def test_memory_probe_counts_the_labels_the_call_allocates(tmp_path):
    n = 1 << 21
    np.save(tmp_path / "src.npy", np.arange(n - 1, dtype=np.int64))
    np.save(tmp_path / "dst.npy", np.arange(1, n, dtype=np.int64))
    done = _script("--memory-probe", "numpy pair int64", "cpu", "--probe-dir", str(tmp_path),
                   "--probe-n", str(n))  # fmt: skip
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["count"] == 1  # a path
    # the int32 labels the call returns are resident when it returns
    assert got["added_bytes"] >= 4 * n
    assert got["peak_bytes"] - got["baseline_bytes"] == got["added_bytes"]


def test_render_markdown_tables_of_the_other_entry_points():
    doc = _result()
    doc["graphs"]["rmat12"]["times_ms"].update(
        {
            "forest: numpy pair int64 / gpu": [2.0],
            "forest: numpy pair int64 / auto": [3.0],
            "forest: numpy pair int64 / cpu": [8.0],
            "msf: scipy csr one direction / gpu": [5.0],
            "msf: scipy csr one direction / cpu": [10.0],
            "msf: numpy pair int64 / cpu": [4.0],
            "msf: scipy scipy csr one direction": [20.0],
        }
    )
    doc["graphs"]["rmat12"]["auto_device"]["forest: numpy pair int64"] = "gpu"
    doc["graphs"]["rmat12"]["bytes_input"]["scipy csr one direction"] = 10_000_000
    lines = render_markdown(doc).splitlines()
    assert "### rmat12: `spanning_forest`" in lines
    assert "### rmat12: `minimum_spanning_forest`" in lines
    assert "| forest: numpy pair int64 | gpu |" not in "\n".join(lines)  # not a components row
    forest = lines[lines.index("### rmat12: `spanning_forest`") :]
    assert forest[4:7] == [
        "| numpy pair int64 | gpu | 2.00 | 0.25 | - | 6.00 |",
        "| numpy pair int64 | auto (gpu) | 3.00 | 0.38 | - | 4.00 |",
        "| numpy pair int64 | cpu | 8.00 | 1.00 | - | 1.50 |",
    ]
    msf = lines[lines.index("### rmat12: `minimum_spanning_forest`") :]
    assert msf[4:8] == [
        # SciPy ran on the one-direction CSR alone: every kind is compared with it
        "| scipy csr one direction | gpu | 5.00 | 0.50 | 0.25 | 2.00 |",
        "| scipy csr one direction | cpu | 10.00 | 1.00 | 0.50 | 1.00 |",
        "| numpy pair int64 | cpu | 4.00 | 1.00 | 0.20 | 3.00 |",
        "| SciPy (scipy csr one direction) | cpu | 20.00 | - | 1.00 | - |",
    ]


def test_script_times_every_entry_point_and_skips_gpu_rows(tmp_path):
    out = tmp_path / "host.json"
    done = _script("--scales", "8", "--sweep", "--reps", "1", "--no-memory", "--kinds",
                   "numpy pair int64", "scipy csr one direction", "scipy coo", "--entries",
                   "forest,msf,insert,csgraph", "--out", str(out))  # fmt: skip
    doc = json.loads(out.read_text())
    assert doc["entries"] == ["forest", "msf", "insert", "csgraph"]
    g = doc["graphs"]["rmat8"]
    times = set(g["times_ms"])
    for entry, kind in [
        ("forest", "numpy pair int64"),
        ("forest", "scipy coo"),
        ("msf", "scipy csr one direction"),
        ("insert", "numpy pair int64"),
        ("csgraph", "scipy coo"),
    ]:
        assert {f"{entry}: {kind} / cpu", f"{entry}: {kind} / auto"} <= times, (entry, kind)
        assert g["auto_device"][f"{entry}: {kind}"] in ("cpu", None), (entry, kind)
    assert "insert: scipy coo / cpu" not in times and "csgraph: numpy pair int64 / cpu" not in times
    assert {"msf: scipy scipy csr one direction", "csgraph: scipy scipy coo"} <= times
    assert not any(k.endswith("/ gpu") for k in times)
    assert "stream_components cpu" not in times  # components' references: not asked for
    reasons = {s["key"]: s["reason"] for s in doc["skipped"]}
    assert reasons["forest: numpy pair int64 / gpu"].startswith("no usable GPU")
    assert "### rmat8: `minimum_spanning_forest`" in done.stdout


def test_script_refuses_an_unknown_entry():
    env = dict(os.environ, CONCOMP_DISABLE_GPU="1", PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--entries", "forest,trees"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
    )
    assert done.returncode == 2 and "unknown entry 'trees'" in done.stderr


def test_read_file_bytes_reads_every_byte_in_order(tmp_path):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from host_kinds import read_file_bytes

    data = np.random.default_rng(3).integers(0, 256, 10_007, dtype=np.uint8)
    path = tmp_path / "f.bin"
    path.write_bytes(data.tobytes())
    for threads in (1, 3, 16):
        np.testing.assert_array_equal(read_file_bytes(str(path), threads), data)
    (tmp_path / "small").write_bytes(b"abcde")  # more threads than bytes: empty shares
    assert read_file_bytes(str(tmp_path / "small"), 16).tobytes() == b"abcde"
    (tmp_path / "empty").write_bytes(b"")
    assert read_file_bytes(str(tmp_path / "empty")).size == 0


def test_script_takes_corpus_graphs_with_their_own_ids(tmp_path, real_data_dir):
    """``--graphs`` times corpus graphs as the corpus numbers them, each undirected edge
    once (``src < dst``), with SciPy's count as the reference every row must match."""
    import numpy as np

    from concomp.generators.corpus import CORPUS

    out = tmp_path / "host.json"
    env_real = {"CONCOMP_REAL_DATA": str(real_data_dir)}
    done = _script("--scales", "--graphs", "road-luxembourg", "--devices", "cpu", "--kinds",
                   "numpy pair int64", "scipy csr one direction", "--sweep", "--reps", "1",
                   "--no-memory", "--out", str(out), env=env_real)  # fmt: skip
    doc = json.loads(out.read_text())
    assert list(doc["graphs"]) == ["road-luxembourg"]
    g = doc["graphs"]["road-luxembourg"]
    src, dst = CORPUS["road-luxembourg"].build("cpu").coo()
    keep = np.asarray(src) < np.asarray(dst)
    assert g["m"] == int(keep.sum()) and g["n"] == 114_599
    assert {"numpy pair int64 / cpu", "scipy csr one direction / cpu", SCIPY_KEY} <= set(
        g["times_ms"]
    )
    assert g["count"] == 1 and "### road-luxembourg" in done.stdout


def test_devices_of_a_kind_are_timed_in_one_interleaved_series(monkeypatch):
    """``timed_together`` warms every call up, then times one run of each per round, each
    round starting one call further on, and keeps the ``device=auto`` line of each warm-up."""
    import importlib.util
    import logging

    monkeypatch.syspath_prepend(str(SCRIPT.parent))
    spec = importlib.util.spec_from_file_location("bench_host_input_under_test", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    calls: list[str] = []

    def call(key: str):
        def run():
            calls.append(key)
            if key == "auto":
                logging.getLogger("concomp.dispatch").debug("x: device=auto -> cpu (small)")
            return (1, None)

        return run

    got = module.timed_together(
        {"gpu": call("gpu"), "auto": call("auto"), "cpu": call("cpu")}, reps=4
    )
    warm, rounds = calls[:3], [calls[3 + 3 * r : 6 + 3 * r] for r in range(4)]
    assert warm == ["gpu", "auto", "cpu"] and len(calls) == 15
    assert rounds == [
        ["gpu", "auto", "cpu"],
        ["auto", "cpu", "gpu"],
        ["cpu", "gpu", "auto"],
        ["gpu", "auto", "cpu"],
    ]
    assert [len(got[k][0]) for k in ("gpu", "auto", "cpu")] == [4, 4, 4]
    calls.clear()
    got = module.timed_apart({"gpu": call("gpu"), "auto": call("auto"), "cpu": call("cpu")}, 2)
    # gpu and auto interleaved (warm-ups, two rounds), then the CPU engine's own series
    assert calls == ["gpu", "auto", "gpu", "auto", "auto", "gpu", "cpu", "cpu", "cpu"]
    assert list(got) == ["gpu", "auto", "cpu"] and module.auto_device(got["auto"][2]) == "cpu"
    assert got["gpu"][2] is None and module.auto_device(got["auto"][2]) == "cpu"
