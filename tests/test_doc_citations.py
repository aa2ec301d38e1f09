"""Every result file the docs cite exists: the README, the changelog, the benchmark and
guide pages and the package's docstrings name files under ``benchmarks/results/`` in
full (``benchmarks/results/<date>-<machine>-<commit>-<what>.json``) or shortened to
``…-<machine>-<commit>-<what>.json``; a shortened name must match exactly one file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
_FULL = re.compile(r"results/(\d{4}-\d{2}-\d{2}-[A-Za-z0-9]+-[0-9a-f]{7}[A-Za-z0-9._-]*?\.json)")
_SHORT = re.compile(r"…-([A-Za-z0-9]+-[0-9a-f]{7}-[A-Za-z0-9._-]*?\.json)")


def _documents() -> list[Path]:
    docs = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(ROOT.glob("benchmarks/*.md"))]
    docs += sorted(ROOT.glob("docs/**/*.rst")) + sorted(ROOT.glob("src/concomp/**/*.py"))
    return [d for d in docs if d.is_file()]


def _dangling(text: str, names: set[str]) -> list[str]:
    """The citations in ``text`` that name no file of ``names`` (or, shortened, more
    than one)."""
    bad = [m.group(1) for m in _FULL.finditer(text) if m.group(1) not in names]
    for m in _SHORT.finditer(text):
        if sum(n.endswith("-" + m.group(1)) for n in names) != 1:
            bad.append("…-" + m.group(1))
    return bad


def test_the_checker_finds_missing_and_ambiguous_citations():
    names = {"2026-01-01-cpu-abcdef0-x.json", "2026-01-01-cpu-abcdef0-y.json"}
    text = (
        "benchmarks/results/2026-01-01-cpu-abcdef0-x.json, "
        "benchmarks/results/2026-01-01-cpu-1234567-x.json, …-cpu-abcdef0-y.json, …-x.json"
    )
    assert _dangling(text, names) == ["2026-01-01-cpu-1234567-x.json"]
    assert _dangling("…-cpu-abcdef0-z.json", names) == ["…-cpu-abcdef0-z.json"]


@pytest.mark.skipif(not RESULTS.is_dir(), reason="no benchmarks/results folder here")
def test_every_cited_result_file_exists():
    names = {p.name for p in RESULTS.glob("*.json")}
    bad = {
        str(doc.relative_to(ROOT)): found
        for doc in _documents()
        if (found := _dangling(doc.read_text(encoding="utf-8"), names))
    }
    assert not bad, f"citations of result files that do not exist: {bad}"
