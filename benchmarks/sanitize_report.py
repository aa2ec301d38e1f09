"""Read ``compute-sanitizer`` logs of ``sanitize_driver.py``; write the result file and the
summary lines (``benchmarks/gpu_sanitize.sh`` calls it).

Every reported problem is one record of the log: a line ``========= <what>`` and the
indented lines under it. A record is counted against concomp's own kernels when it
names one of them (every ``__global__`` function of ``src/concomp/_gpu/cuda``), as
an API error when the host hit a CUDA error (``Program hit ...``), and otherwise
against other kernels (CuPy's and CUB's). Racecheck warnings are counted apart.

    python benchmarks/sanitize_report.py --logs benchmarks/out/sanitize --tools memcheck
"""

from __future__ import annotations

import argparse
import datetime
import json
import re
import shutil
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CUDA_DIR = ROOT / "src" / "concomp" / "_gpu" / "cuda"
PREFIX = "========="
_GLOBAL = re.compile(r"__global__\s+(?:__launch_bounds__\([^)]*\)\s+)?void\s+(\w+)")
_SUMMARY = re.compile(r"^(ERROR|RACECHECK|LEAK) SUMMARY:")
_SKIP = ("COMPUTE-SANITIZER", "Target application returned")


def concomp_kernel_names(cuda_dir: Path = CUDA_DIR) -> set[str]:
    """Names of every ``__global__`` function in concomp's CUDA sources."""
    names: set[str] = set()
    for path in sorted(cuda_dir.glob("*.cu*")):
        names.update(_GLOBAL.findall(path.read_text()))
    return names


def records(text: str) -> list[list[str]]:
    """The log's records: each a top line and its indented lines (prefixes removed)."""
    out: list[list[str]] = []
    current: list[str] | None = None
    for raw in text.splitlines():
        if not raw.startswith(PREFIX):
            continue  # the driver's own output, interleaved where the log is stdout
        body = raw[len(PREFIX) :]
        body = body[1:] if body.startswith(" ") else body
        if not body.strip():
            current = None
        elif body[0].isspace() and current is not None:
            current.append(body.strip())
        elif not body[0].isspace():
            current = [body.strip()]
            out.append(current)
    return out


def parse_log(text: str, names: set[str]) -> dict[str, Any]:
    """Counts of a log's records by where they point, the tool's own summary lines, and
    the first few records of each kind (for the result file)."""
    word = re.compile(r"\b(" + "|".join(sorted(map(re.escape, names), key=len)[::-1]) + r")\b")
    counts = {"concomp": 0, "other": 0, "api": 0, "warnings": 0}
    examples: dict[str, list[str]] = {k: [] for k in counts}
    summaries: list[str] = []
    for rec in records(text):
        top = rec[0]
        if _SUMMARY.match(top):
            summaries.append(top)
            continue
        if top.startswith(_SKIP):
            continue
        if top.startswith("Warning"):
            kind = "warnings"
        elif top.startswith("Program hit"):
            kind = "api"
        elif names and word.search(" ".join(rec)):
            kind = "concomp"
        else:
            kind = "other"
        counts[kind] += 1
        if len(examples[kind]) < 5:
            examples[kind].append(" | ".join(rec)[:600])
    return {
        **counts,
        "errors": counts["concomp"] + counts["other"] + counts["api"],
        "tool_summary": summaries,
        "tool_errors": _summary_errors(summaries),
        "examples": {k: v for k, v in examples.items() if v},
    }


def _summary_errors(summaries: list[str]) -> int | None:
    """Errors the tool itself counted (it prints at most ``--print-limit`` records)."""
    total = None
    for line in summaries:
        m = re.search(r"ERROR SUMMARY: (\d+) error", line) or re.search(
            r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) error", line
        )
        if m:
            total = (total or 0) + int(m.group(1))
    return total


def summary_line(tool: str, parsed: dict[str, Any] | None, run: dict[str, Any]) -> str:
    """``memcheck: 0 errors in concomp kernels (N launches checked, R runs); ...``"""
    if run.get("skipped"):
        return f"{tool}: skipped ({run['skipped']})"
    if parsed is None:
        return f"{tool}: no log (exit {run.get('exit')})"
    stats = run.get("driver") or {}
    launches = stats.get("launches", "?")
    line = (
        f"{tool}: {parsed['concomp']} errors in concomp kernels ({launches} launches checked, "
        f"{stats.get('runs', '?')} runs, subset {run.get('subset')}); {parsed['other']} in other "
        f"kernels, {parsed['api']} host API errors"
    )
    if parsed["warnings"]:
        line += f", {parsed['warnings']} warnings"
    if parsed["tool_summary"]:
        line += f"; tool: {'; '.join(parsed['tool_summary'])}"
    if run.get("exit") == 124:
        line += f"; TIMED OUT after {run.get('limit_s')} s (later runs unchecked)"
    if stats.get("failures"):
        line += f"; {len(stats['failures'])} driver runs FAILED"
    return line


def device_slug(gpu_name: str) -> str:
    """``"h100"`` for ``"NVIDIA H100 80GB HBM3"``: the model token, else ``"gpu"``."""
    m = re.search(r"\b([a-z]{0,2}\d{2,4}[a-z]?)\b", gpu_name.lower())
    return m.group(1) if m else "gpu"


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return None


def build(logs: Path, tools: list[str]) -> dict[str, Any]:
    """The result document of one sanitizer run from its folder of logs."""
    names = concomp_kernel_names()
    doc: dict[str, Any] = {"kind": "sanitize", "concomp_kernels": len(names), "tools": {}}
    for tool in tools:
        run = _read_json(logs / f"{tool}.run.json") or {}
        run["driver"] = _read_json(logs / f"{tool}.json")
        log = logs / f"{tool}.log"
        parsed = parse_log(log.read_text(errors="replace"), names) if log.exists() else None
        run["parsed"] = parsed
        run["summary"] = summary_line(tool, parsed, run)
        doc["tools"][tool] = run
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--logs", type=Path, required=True)
    ap.add_argument(
        "--tools", nargs="+", default=["memcheck", "racecheck", "initcheck", "synccheck"]
    )
    ap.add_argument("--out", type=Path, help="result file (default benchmarks/results/...)")
    ap.add_argument("--copy-to", type=Path, help="also copy the result file into this folder")
    args = ap.parse_args()
    from concomp.bench.results import machine, source_commit, versions

    doc = build(args.logs, args.tools)
    doc["machine"] = machine("gpu")
    doc["versions"] = versions()
    doc["sanitizer"] = _read_json(args.logs / "sanitizer.json")
    doc["plain_run"] = _read_json(args.logs / "plain.json")
    out = args.out or ROOT / "benchmarks" / "results" / (
        f"{datetime.date.today().isoformat()}-{device_slug(doc['machine']['gpu']['name'])}-"
        f"{source_commit()}-sanitize.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, indent=1))
    if args.copy_to:
        args.copy_to.mkdir(parents=True, exist_ok=True)
        shutil.copy(out, args.copy_to / out.name)
    plain = doc["plain_run"] or {}
    print(
        f"plain run: {plain.get('runs', '?')} runs, {len(plain.get('failures', []))} "
        "differ from the CPU engine or failed"
    )
    for tool in args.tools:
        print(doc["tools"][tool]["summary"])
    print(f"result file: {out}")
    raise SystemExit(1 if failed(doc) else 0)


def failed(doc: dict[str, Any]) -> bool:
    """Whether the run found a problem: an error in a concomp kernel, a driver run that
    failed or differed from the CPU engine, or a tool whose driver died before its end
    (a tool that only ran out of time is reported, not failed)."""
    plain = doc.get("plain_run")
    if plain is None or plain.get("failures"):
        return True
    for run in doc["tools"].values():
        if run.get("skipped"):
            continue
        parsed, stats = run.get("parsed"), run.get("driver")
        if parsed is not None and parsed["concomp"]:
            return True
        if stats is not None and stats.get("failures"):
            return True
        if stats is None and run.get("exit") != 124:
            return True
    return False


if __name__ == "__main__":
    main()
