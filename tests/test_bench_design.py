"""The papers' measurements of the harness: sampling coverage (both engines' contract),
the sampling and incremental-rules problems, merging a run's parts, the papers' section."""

from __future__ import annotations

import json

import numpy as np
import pytest

from concomp import Graph, Variant
from concomp._cpu.components import sampling_coverage
from concomp.bench import papers
from concomp.bench.merge import main as merge_main
from concomp.bench.merge import merge
from concomp.options import DEFAULTS


def test_sampling_coverage_of_two_paths():
    # 0-1-2-3 and 4-5: k-out with k >= 2 takes every edge, so the sample is the graph
    g = Graph.from_edges([0, 1, 2, 4], [1, 2, 3, 5], num_nodes=6)
    c = sampling_coverage(g, Variant.parse("kout-rem_cas-splice-csr"), DEFAULTS)
    assert c["coverage"] == pytest.approx(4 / 6)
    assert c["inter_component"] == 0.0
    assert 0.0 <= c["sample_share"] <= 1.0


def test_sampling_coverage_counts_edges_left_between_sampled_parts():
    # 1-out takes each row's first entry: 0-2 and 1-3 are sampled, edge 2-3 is left
    # between the two sampled parts (2 of the 6 CSR entries)
    indptr, indices = np.array([0, 1, 2, 4, 6]), np.array([2, 3, 0, 3, 1, 2])
    g = Graph.from_csr(indptr, indices, 4, symmetric=True)
    c = sampling_coverage(g, Variant.parse("kout1-rem_cas-splice-csr"), DEFAULTS)
    assert c["coverage"] == pytest.approx(0.5)
    assert c["inter_component"] == pytest.approx(2 / 6)
    full = sampling_coverage(g, Variant.parse("bfs-rem_cas-splice-csr"), DEFAULTS)
    assert full["coverage"] == pytest.approx(1.0) and full["inter_component"] == 0.0


def test_sampling_coverage_refuses_unsampled_variants():
    g = Graph.from_edges([0], [1], num_nodes=2)
    with pytest.raises(ValueError, match="no union-find sampler"):
        sampling_coverage(g, Variant.parse("none-rem_cas-splice-csr"), DEFAULTS)


def test_design_problems_run_and_agree(tmp_path):
    from concomp.bench.cli import main

    out = tmp_path / "d.json"
    assert main(["sampling", "incremental-rules", "--quick", "--graphs", "cong22",
                 "--no-peers", "--out", str(out)]) == 0  # fmt: skip
    doc = json.loads(out.read_text())
    samplers = {r["variant"].split("-")[0] for r in doc["rows"] if r["problem"] == "sampling"}
    assert samplers == {"kout", "koutr", "koutl", "hb", "bfs"}
    orders = {r["order"] for r in doc["rows"] if r["problem"] == "incremental-rules"}
    assert orders == {"csr", "gconn", "random"}
    comps = {r["result"]["components"] for r in doc["rows"]}
    assert comps == {doc["graphs"]["cong22"]["stats"]["components"]}
    text = "\n".join(papers.papers_section(doc))
    assert "GConn Table 3" in text and "GConn Table 4" in text


def _doc(commit="abc", graphs=("g",), rows=(), complete=True, problems=("cc",)):
    return {
        "schema": 1, "device": "gpu", "machine": {"cpu": "x"}, "reps": 5, "quick": False,
        "versions": {"concomp_commit": commit}, "graphs": {g: {"stats": {}} for g in graphs},
        "rows": list(rows), "skipped": [], "complete": complete, "command": f"cmd {commit}",
        "problems": list(problems), "created": "t",
    }  # fmt: skip


def test_merge_unites_graphs_and_rows_and_keeps_incompleteness():
    m = merge([_doc(graphs=("a",), rows=[1]), _doc(graphs=("b",), rows=[2], complete=False)])
    assert list(m["graphs"]) == ["a", "b"] and m["rows"] == [1, 2]
    assert m["complete"] is False and len(m["commands"]) == 2


def test_merge_refuses_parts_of_different_commits():
    with pytest.raises(ValueError, match="concomp commit"):
        merge([_doc("abc"), _doc("def")])


def test_merge_cli_replaces_the_recorded_commit(tmp_path):
    a, b, out = tmp_path / "a.json", tmp_path / "b.json", tmp_path / "m.json"
    a.write_text(json.dumps(_doc("abc-dirty", ("a",))))
    b.write_text(json.dumps(_doc("abc-dirty", ("b",))))
    assert merge_main([str(out), str(a), str(b), "--commit", "1234567"]) == 0
    m = json.loads(out.read_text())
    assert m["versions"]["concomp_commit"] == "1234567"
    assert m["commit_recorded"] == "abc-dirty"
    assert merge_main([str(out), str(a), str(tmp_path / "missing.json")]) == 2


def _variant_row(graph, variant, ms):
    return {
        "problem": "variants", "graph": graph, "system": "concomp", "mode": "variant",
        "variant": variant, "timing": {"median_ms": ms}, "result": {"components": 1},
    }  # fmt: skip


def test_papers_section_computes_ratios_from_the_rows():
    rows = [
        _variant_row("g", "none-async-split-coo", 2.0),
        _variant_row("g", "none-rem_cas-splice-coo", 3.0),
        _variant_row("g", "hb-rem_cas-splice-csr", 0.5),
        _variant_row("g", "none-soman-jump-coo", 8.0),
        _variant_row("g", "none-ecl-jump-csr", 4.0),
    ]
    text = "\n".join(papers.papers_section(_doc(rows=rows)))
    assert "Union-Rem-CAS over Union-Async, no sampling (best variant of each): g 1.50" in text
    assert "Soman over ECL-CC, no sampling: g 2.00" in text
    assert "Union-JTB over Union-Async, no sampling: the file has no such rows" in text
    assert papers.papers_section(_doc()) == []
