"""The variant-growth benchmark end to end at toy sizes (no timings checked)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "bench_variant_growth.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True)


def test_every_algorithm_and_graph_gets_a_row(tmp_path):
    out = tmp_path / "g.json"
    res = _run("--entries", "msf,incremental", "--small", "6", "--big", "7", "--out", str(out))
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert doc["benchmark"] == "variant-growth" and doc["sizes"] == [64, 128]
    rows = doc["rows"]
    graphs = {r["graph"] for r in rows}
    assert {"path_natural", "ladder", "star-permuted", "stars-many-permuted"} <= graphs
    assert {r["algorithm"] for r in rows if r["entry"] == "msf"} == {"boruvka", "prim", "kruskal"}
    incremental = {r["algorithm"] for r in rows if r["entry"] == "incremental"}
    assert incremental and all(a.startswith("none-") and a.endswith("-coo") for a in incremental)
    for r in rows:
        assert r["small_ms"] > 0 and r["big_ms"] > 0
        assert abs(r["growth"] - r["big_ms"] / r["small_ms"]) < 1e-9


def test_unknown_entries_and_sizes_are_refused():
    res = _run("--entries", "components,bogus")
    assert res.returncode == 2 and "'bogus' is not one of" in res.stderr
    res = _run("--small", "8", "--big", "8")
    assert res.returncode == 2 and "must exceed --small" in res.stderr


def test_a_first_calls_compilation_is_not_held_against_the_limit(tmp_path, monkeypatch):
    """Each variant runs once untimed before the limit applies: a variant whose first
    call is slow (its kernels compile) is timed, not skipped; the record names the
    command's arguments."""
    import time

    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import bench_variant_growth as bench
    finally:
        sys.path.remove(str(SCRIPT.parent))
    first = set()

    def call(entry, device, algorithm, graph):
        def run():
            if algorithm not in first:  # the first call of a variant compiles
                first.add(algorithm)
                time.sleep(0.3)

        return run

    monkeypatch.setattr(bench, "call", call)
    monkeypatch.setattr(bench, "algorithms", lambda entry, device: ["slow-start", "other"])
    out = tmp_path / "g.json"
    argv = ["--entries", "incremental", "--small", "6", "--big", "7"]
    monkeypatch.setattr(sys, "argv", [str(SCRIPT), *argv, "--limit-s", "0.2", "--out", str(out)])
    bench.main()
    doc = json.loads(out.read_text())
    assert doc["skipped"] == [] and {r["algorithm"] for r in doc["rows"]} == {"slow-start", "other"}
    assert doc["command"].endswith(" ".join([*argv, "--limit-s", "0.2", "--out", str(out)]))


def test_named_algorithms_are_the_only_ones_timed(tmp_path):
    """``--algorithms`` times the variants it names, sampler sizes that
    ``concomp.all_variants`` leaves out included; names an entry cannot run are refused
    before anything is timed."""
    out = tmp_path / "g.json"
    names = "hb3-rem_cas-splice-csr,koutl-rem_cas-splice-csr,rem"
    res = _run("--algorithms", names, "--small", "6", "--big", "7", "--out", str(out))
    assert res.returncode == 0, res.stderr[-3000:]
    doc = json.loads(out.read_text())
    assert {r["algorithm"] for r in doc["rows"]} == set(names.split(","))
    assert f"--algorithms {names}" in doc["command"]
    res = _run("--algorithms", "hb3-bogus-splice-csr")
    assert res.returncode == 2 and "argument --algorithms: 'hb3-bogus-splice-csr'" in res.stderr
    res = _run("--entries", "msf", "--algorithms", "prim,quick")
    assert res.returncode == 2 and "'quick' is not one of msf's" in res.stderr
