"""Render a result file into ``benchmarks/RESULTS.md`` and the README's summary table.

::

    python -m concomp.bench.render benchmarks/results/<date>-<gpu|cpu>-<commit>.json \
        [--out-dir DIR] [--readme FILE | --no-readme] [--host-input FILE]

RESULTS.md names the file at the top, lists the machine, the versions and every
graph's statistics, then gives one table per problem: a row per graph, a column per
system (median ms), the ratio of concomp's public call to the best peer, and the
result every system agreed on. With matplotlib installed, one PNG per problem goes
beside it (``benchmarks/plots/``). The README's table between
:data:`README_START` and :data:`README_END` is replaced by a short summary of the same
file. With ``--host-input``, the table of a ``benchmarks/bench_host_input.py`` result
file (:func:`concomp.bench.host_input.render_markdown`) closes RESULTS.md, naming that
file. Every number written is a field of a result file.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from .host_input import render_markdown as host_input_section
from .papers import format_ms as _ms
from .papers import papers_section
from .results import SCHEMA, repository_root

__all__ = ["README_START", "README_END", "render", "results_page", "summary_table", "main"]

README_START = "<!-- bench-summary:start -->"
README_END = "<!-- bench-summary:end -->"
_PLOTS = "plots"
#: Problems whose rows only the papers' section shows (one table each there).
_IN_PAPERS = ("sampling", "incremental-rules")


def _label(r: dict[str, Any]) -> str:
    """Column name of a row: the system, its mode for concomp, the variant in a sweep."""
    if r["mode"] in ("variant", "sampling", "insert"):
        return f"{r['variant']} {r.get('order', '')}".strip()
    return r["system"] if r["mode"] == "peer" else f"{r['system']} {r['mode']}"


def _by_problem(doc: dict[str, Any]) -> dict[str, dict[str, dict[str, dict]]]:
    """problem -> graph -> column label -> row (timed rows only)."""
    out: dict[str, dict[str, dict[str, dict]]] = {}
    for r in doc["rows"]:
        if r["timing"] is None:
            continue
        out.setdefault(r["problem"], {}).setdefault(r["graph"], {})[_label(r)] = r
    return out


def _best_peer(cells: dict[str, dict]) -> tuple[str, float] | None:
    peers = [(k, r["timing"]["median_ms"]) for k, r in cells.items() if r["mode"] == "peer"]
    return min(peers, key=lambda p: p[1]) if peers else None


def _result_text(cells: dict[str, dict]) -> str:
    first = next(iter(cells.values()))["result"]
    return ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in first.items())


def _problem_table(graphs: dict[str, dict[str, dict]]) -> list[str]:
    columns = list(dict.fromkeys(c for cells in graphs.values() for c in cells))
    head = ["graph", *columns, "concomp / best peer", "result"]
    lines = ["| " + " | ".join(head) + " |", "|---" + "|---:" * (len(head) - 2) + "|---|"]
    for graph, cells in graphs.items():
        best = _best_peer(cells)
        mine = cells.get("concomp prebuilt") or cells.get("concomp host")
        ratio = f"{mine['timing']['median_ms'] / best[1]:.2f} ({best[0]})" if best and mine else "-"
        row = [
            graph,
            *(_ms(cells[c]["timing"]["median_ms"]) if c in cells else "-" for c in columns),
        ]
        lines.append("| " + " | ".join([*row, ratio, _result_text(cells)]) + " |")
    return lines


def _variant_table(graphs: dict[str, dict[str, dict]], top: int = 10) -> list[str]:
    lines = ["| graph | rank | variant | median ms |", "|---|---:|---|---:|"]
    for graph, cells in graphs.items():
        ranked = sorted(cells.items(), key=lambda kv: kv[1]["timing"]["median_ms"])
        for i, (name, r) in enumerate(ranked[:top], 1):
            lines.append(f"| {graph} | {i} | `{name}` | {_ms(r['timing']['median_ms'])} |")
    return lines


def _graph_table(doc: dict[str, Any]) -> list[str]:
    lines = [
        "| graph | tags | n | m | components | largest | max deg | mean deg | degree CV "
        "| diameter >= | id locality |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, g in doc["graphs"].items():
        s = g["stats"]
        lines.append(
            f"| {name} | {' '.join(g['tags'])} | {s['n']:,} | {s['m']:,} | {s['components']:,} "
            f"| {s['largest_component_share']:.3f} | {s['max_degree']:,} | {s['mean_degree']:.2f} "
            f"| {s['degree_cv']:.2f} | {s['diameter_estimate']:,} | {s['id_locality']:.3f} |"
        )
    return lines


def results_page(doc: dict[str, Any], name: str, plots: dict[str, str]) -> str:
    """The text of RESULTS.md for the result document ``doc`` saved as ``name``."""
    m, v = doc["machine"], doc["versions"]
    gpu = m.get("gpu")
    out = [
        "# Benchmark results",
        "",
        f"Rendered from `{name}` by `python -m concomp.bench.render`; every number below is",
        "a field of that file. Medians in ms of "
        f"{doc['reps']} timed runs after a warm-up ({'CUDA events' if gpu else 'perf_counter'}).",
        "",
        f"- command: `{doc['command']}`" if doc["command"] else "- command: (not recorded)",
        f"- device: {doc['device']}{' (quick sizes)' if doc['quick'] else ''}",
        *(
            [f"- incomplete run: it stopped after the graphs listed here ({len(doc['graphs'])})"]
            if doc.get("complete") is False
            else []
        ),
        f"- CPU: {m['cpu']}, {m['cores']} cores",
    ]
    if gpu:
        out.append(f"- GPU: {gpu['name']}, driver {gpu['driver']}, runtime {gpu['runtime']}")
    out.append("- versions: " + ", ".join(f"{k} {x}" for k, x in v.items() if x and k != "peers"))
    for line in v.get("peers") or []:
        out.append(f"- peer source: {line}")
    out += ["", "## Graphs", "", *_graph_table(doc)]
    if doc["skipped"]:
        out += ["", "Not run here:", ""]
        out += [f"- {s['graph']}: {s['reason']}" for s in doc["skipped"]]
    for problem, graphs in _by_problem(doc).items():
        if problem in _IN_PAPERS:
            continue  # rendered in the papers' section
        out += ["", f"## {problem}", ""]
        out += _variant_table(graphs) if problem == "variants" else _problem_table(graphs)
        if problem in plots:
            out += ["", f"![{problem}]({plots[problem]})"]
    papers = papers_section(doc)
    if papers:
        out += ["", *papers]
    return "\n".join(out) + "\n"


def summary_table(doc: dict[str, Any], name: str) -> str:
    """The README's short table: connected components per graph, concomp against the best
    peer (the first problem of the file when it has no cc rows)."""
    by = _by_problem(doc)
    if not by:
        return f"`{name}` holds no timings.\n"
    problem = "cc" if "cc" in by else next(iter(by))
    lines = [
        f"`{problem}` medians in ms from `{name}` ({doc['device']}"
        f"{', quick sizes' if doc['quick'] else ''}; `benchmarks/RESULTS.md` has every problem):",
        "",
        "| graph | concomp | best peer | peer ms | concomp / peer |",
        "|---|---:|---|---:|---:|",
    ]
    for graph, cells in by[problem].items():
        mine = cells.get("concomp prebuilt") or cells.get("concomp host")
        best = _best_peer(cells)
        if mine is None:
            continue
        ms = mine["timing"]["median_ms"]
        peer = f"{best[0]} | {_ms(best[1])} | {ms / best[1]:.2f}" if best else "- | - | -"
        lines.append(f"| {graph} | {_ms(ms)} | {peer} |")
    return "\n".join(lines) + "\n"


def _plot(doc: dict[str, Any], folder: Path) -> dict[str, str]:
    """One PNG per problem (log-scale medians, a bar per system), if matplotlib imports."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return {}
    folder.mkdir(parents=True, exist_ok=True)
    made = {}
    for problem, graphs in _by_problem(doc).items():
        if problem == "variants" or problem in _IN_PAPERS:
            continue
        columns = list(dict.fromkeys(c for cells in graphs.values() for c in cells))
        fig, ax = plt.subplots(figsize=(max(6, len(graphs) * 0.9), 4))
        width = 0.8 / max(len(columns), 1)
        for j, c in enumerate(columns):
            xs = [i + j * width for i, cells in enumerate(graphs.values()) if c in cells]
            ys = [cells[c]["timing"]["median_ms"] for cells in graphs.values() if c in cells]
            ax.bar(xs, ys, width, label=c)
        ax.set_yscale("log")
        ax.set_ylabel("median ms")
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(graphs))])
        ax.set_xticklabels(list(graphs), rotation=45, ha="right", fontsize=8)
        ax.set_title(problem)
        ax.legend(fontsize=7)
        fig.tight_layout()
        fig.savefig(folder / f"{problem}.png", dpi=120)
        plt.close(fig)
        made[problem] = f"{_PLOTS}/{problem}.png"
    return made


def replace_summary(readme: str, table: str) -> str:
    """``readme`` with the text between the markers replaced by ``table``."""
    start, end = readme.find(README_START), readme.find(README_END)
    if start < 0 or end < start:
        raise ValueError(
            f"README has no {README_START} ... {README_END} block. Fix: add the two markers "
            "where the summary table belongs."
        )
    return readme[: start + len(README_START)] + "\n" + table + readme[end:]


def _name(path: Path, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root))
    except ValueError:
        return Path(path).name


def render(
    result: Path,
    out_dir: Path | None = None,
    readme: Path | None = None,
    *,
    summary: bool = True,
    host_input: Path | None = None,
) -> Path:
    """Write RESULTS.md (and plots) for ``result`` into ``out_dir`` (default
    ``<repo>/benchmarks``) and, with ``summary``, refresh ``readme`` (default
    ``<repo>/README.md``; skipped when that file does not exist). ``host_input``, a
    ``bench_host_input.py`` result file, adds its table at the end. Returns RESULTS.md's
    path."""
    doc = json.loads(Path(result).read_text(encoding="utf-8"))
    if doc.get("schema") != SCHEMA:
        raise ValueError(
            f"argument `result`: {str(result)!r} has schema {doc.get('schema')!r}, not "
            f"{SCHEMA}; it was not written by this harness. Fix: pass a file that "
            "python -m concomp.bench wrote."
        )
    root = repository_root()
    out_dir = out_dir or root / "benchmarks"
    readme = readme or root / "README.md"
    name = _name(result, root)
    host = ""
    if host_input is not None:
        host_doc = json.loads(Path(host_input).read_text(encoding="utf-8"))
        host = "\n" + host_input_section(host_doc, _name(host_input, root))
    out_dir.mkdir(parents=True, exist_ok=True)
    plots = _plot(doc, out_dir / _PLOTS)
    page = out_dir / "RESULTS.md"
    page.write_text(results_page(doc, name, plots) + host, encoding="utf-8")
    if summary and readme.is_file():
        text = readme.read_text(encoding="utf-8")
        readme.write_text(replace_summary(text, summary_table(doc, name)), encoding="utf-8")
    return page


def main(argv: list[str] | None = None) -> int:
    """``python -m concomp.bench.render RESULT.json [--out-dir DIR] [--readme FILE]``."""
    p = argparse.ArgumentParser(prog="python -m concomp.bench.render", description=__doc__)
    p.add_argument("result", type=Path, help="result file written by python -m concomp.bench")
    p.add_argument("--out-dir", type=Path, help="folder of RESULTS.md (default benchmarks/)")
    p.add_argument("--readme", type=Path, help="README to refresh (default README.md)")
    p.add_argument("--no-readme", action="store_true", help="leave the README alone")
    p.add_argument("--host-input", type=Path, help="bench_host_input.py result file to add")
    args = p.parse_args(argv)
    try:
        page = render(
            args.result,
            args.out_dir,
            args.readme,
            summary=not args.no_readme,
            host_input=args.host_input,
        )
    except (ValueError, OSError) as exc:
        print(f"concomp.bench.render: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {page}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
