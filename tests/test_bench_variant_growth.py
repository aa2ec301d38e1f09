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
