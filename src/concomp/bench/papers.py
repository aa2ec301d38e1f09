"""The papers' findings, recomputed from a result file (a section of RESULTS.md).

Each finding quotes what a paper reports and puts beside it the same quantity computed
from the rows of the file: the ``variants`` sweep (GConn's Table 2 and Figs. 3-4, Cong
& Muzio's ranking, Soman and ECL), ``sampling`` (GConn's Table 3) and
``incremental-rules`` (GConn's Table 4). A finding whose rows the file lacks says so;
nothing here is a number from anywhere else.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

__all__ = ["format_ms", "papers_section", "sampling_table", "incremental_rules_table"]


def format_ms(x: float | None) -> str:
    """A median in ms as the rendered tables print it (three significant figures)."""
    if x is None:
        return "-"
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def _timed(rows: Iterable[dict[str, Any]], problem: str) -> list[dict[str, Any]]:
    return [r for r in rows if r["problem"] == problem and r["timing"] is not None]


def _sweep(doc: dict[str, Any]) -> dict[str, dict[str, float]]:
    """graph -> variant -> median ms, from the ``variants`` rows."""
    out: dict[str, dict[str, float]] = {}
    for r in _timed(doc["rows"], "variants"):
        out.setdefault(r["graph"], {})[r["variant"]] = r["timing"]["median_ms"]
    return out


def _best(times: dict[str, float], sampler: str | None = None, finish: str | None = None):
    """``(variant, ms)`` of the fastest variant with that sampler / finish (None if none)."""
    picked = [
        (v, t)
        for v, t in times.items()
        if (sampler is None or v.split("-")[0] == sampler)
        and (finish is None or v.split("-")[1] == finish)
    ]
    return min(picked, key=lambda p: p[1]) if picked else None


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def _ratio_line(
    sweep: dict[str, dict[str, float]], num: tuple, den: tuple, what: str, paper: str
) -> list[str]:
    """A finding about ``best(num) / best(den)`` per graph (num/den: (sampler, finish))."""
    cells, ratios = [], []
    for graph, times in sweep.items():
        a, b = _best(times, *num), _best(times, *den)
        if a and b:
            ratios.append(a[1] / b[1])
            cells.append(f"{graph} {a[1] / b[1]:.2f}")
    if not ratios:
        return [f"- {what}: the file has no such rows. Paper: {paper}"]
    return [f"- {what}: {', '.join(cells)} (geometric mean {_geomean(ratios):.2f}). Paper: {paper}"]


def _ranking_line(sweep: dict[str, dict[str, float]], entries: list[tuple], paper: str) -> str:
    """The order of ``entries`` ((label, sampler, finish)) by their best time, per graph."""
    parts = []
    for graph, times in sweep.items():
        found = [(label, _best(times, s, f)) for label, s, f in entries]
        found = [(label, b[1]) for label, b in found if b]
        found.sort(key=lambda p: p[1])
        parts.append(f"{graph}: " + " < ".join(f"{lab} {format_ms(t)}" for lab, t in found))
    return "; ".join(parts) + f". Paper: {paper}"


def papers_section(doc: dict[str, Any]) -> list[str]:
    """Markdown lines of the section (empty when the file has no sweep rows)."""
    sweep = _sweep(doc)
    out: list[str] = []
    if sweep:
        out += ["### GConn (Hong, Dhulipala and Shun): variant ranking, Table 2 and Figs. 3-4", ""]
        out.append("| graph | fastest variant | ms | " + " | ".join(
            f"best {s}" for s in ("none", "kout", "koutr", "koutl", "hb", "bfs", "stages")
        ) + " |")  # fmt: skip
        out.append("|---|---|---:|" + "---|" * 7)
        for graph, times in sweep.items():
            v, t = _best(times)
            cells = []
            for s in ("none", "kout", "koutr", "koutl", "hb", "bfs", "stages"):
                b = _best(times, s)
                cells.append(f"`{b[0]}` {format_ms(b[1])}" if b else "-")
            out.append(f"| {graph} | `{v}` | {format_ms(t)} | " + " | ".join(cells) + " |")
        out.append("")
        out += _ratio_line(
            sweep, ("none", "rem_cas"), ("none", "async"),
            "Union-Rem-CAS over Union-Async, no sampling (best variant of each)",
            "1.02x slower on average; the fastest no-sampling variant is one of the two.",
        )  # fmt: skip
        out += _ratio_line(
            sweep, ("none", "jtb"), ("none", "async"),
            "Union-JTB over Union-Async, no sampling",
            "1.26x slower on average.",
        )  # fmt: skip
        out += _ratio_line(
            sweep, ("none", "hooks"), ("none", "async"),
            "Union-Hooks over Union-Async, no sampling",
            "1.44x slower on average.",
        )  # fmt: skip
        out += _ratio_line(
            sweep, ("none", "lt"), ("none", "async"),
            "fastest Liu-Tarjan over Union-Async, no sampling",
            "3.72x slower on average.",
        )  # fmt: skip
        out += _ratio_line(
            sweep, ("none", "sv"), ("none", "async"),
            "fastest Shiloach-Vishkin over Union-Async, no sampling",
            "5.19x slower on average.",
        )  # fmt: skip
        fastest_none = []
        for graph, times in sweep.items():
            b = _best(times, "none")
            if b:
                fastest_none.append(f"{graph} `{b[0]}`")
        out.append(
            "- Fastest variant without sampling: " + ", ".join(fastest_none)
            + ". Paper: Union-Async or Union-Rem-CAS on every graph."
        )  # fmt: skip
        out.append(
            "- Fastest sampler: "
            + ", ".join(f"{g} `{_best(t)[0].split('-')[0]}`" for g, t in sweep.items())
            + ". Paper (Table 2, Sec. 4.7): HB sampling is fastest where its coverage is "
            "high; BFS sampling never is."
        )  # fmt: skip
        out += ["", "### Cong and Muzio: CC, CC-updt, Stages, Rem", ""]
        entries = [
            ("CC", "none", "graft"),
            ("CC-updt", "none", "graft_updt"),
            ("Stages(CC)", "stages", "graft"),
            ("Stages(CC-updt)", "stages", "graft_updt"),
            ("Rem", "none", "rem_cas"),
        ]
        out.append(
            "- Order by best time: "
            + _ranking_line(
                sweep, entries,
                "CC-updt always faster than CC (1.75-1.83x), Stages faster than CC-updt "
                "(1.7-2.3x over CC on the S2050), Rem's place depends on the machine and input.",
            )
        )  # fmt: skip
        out += ["", "### Soman et al. and ECL-CC (Jaiganesh)", ""]
        out += _ratio_line(
            sweep, ("none", "soman"), ("none", "ecl"), "Soman over ECL-CC, no sampling",
            "ECL-CC is 4.0x (Titan X) and 4.3x (K40) faster than Soman's on average.",
        )  # fmt: skip
        out += _ratio_line(
            sweep, ("none", "ecl_af"), ("none", "ecl"), "ECL_af over ECL-CC, no sampling",
            "ECL_af is 2.0x (Titan X) and 2.2x (K40) faster than Soman's on average, "
            "against ECL-CC's 4.0x and 4.3x: about 2x slower than ECL-CC.",
        )  # fmt: skip
    sampling = _timed(doc["rows"], "sampling")
    if sampling:
        out += ["", "### GConn Table 3: sampling coverage", ""]
        out += sampling_table(sampling)
        out += [
            "",
            "Paper: BFS and k-out sampling have similar, high coverage; HB's coverage is "
            "lower on high-diameter graphs; sampling takes most of the run's time.",
        ]
    inc = _timed(doc["rows"], "incremental-rules")
    if inc:
        out += ["", "### GConn Table 4: incremental rules, all edges as one batch", ""]
        out += incremental_rules_table(inc)
        out += [
            "",
            "Paper: in the incremental setting Union-Async is usually the fastest rule.",
        ]
    if not out:
        return []
    return [
        "## The papers' findings, recomputed from this file",
        "",
        "Each line gives the paper's statement and the same quantity from this file's "
        "rows; graphs the sweep did not reach are absent, not estimated.",
        "",
        *out,
    ]


def sampling_table(rows: list[dict[str, Any]]) -> list[str]:
    """graph x sampler: whole-run ms, coverage, inter-component share, sampling share."""
    lines = [
        "| graph | sampler (finish Rem-CAS) | run ms | coverage | inter-component "
        "| sampling share of the run |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        c, ms = r["coverage"], format_ms(r["timing"]["median_ms"])
        lines.append(
            f"| {r['graph']} | {r['variant'].split('-')[0]} | {ms} "
            f"| {c['coverage']:.3f} | {c['inter_component']:.4f} | {c['sample_share']:.2f} |"
        )
    return lines


def incremental_rules_table(rows: list[dict[str, Any]]) -> list[str]:
    """graph x rule: median ms in each batch order."""
    orders = list(dict.fromkeys(r["order"] for r in rows))
    cells: dict[tuple[str, str], dict[str, float]] = {}
    for r in rows:
        cells.setdefault((r["graph"], r["variant"]), {})[r["order"]] = r["timing"]["median_ms"]
    lines = [
        "| graph | rule | " + " | ".join(f"{o} order ms" for o in orders) + " |",
        "|---|---|" + "---:|" * len(orders),
    ]
    for (graph, rule), t in cells.items():
        times = " | ".join(format_ms(t.get(o)) for o in orders)
        lines.append(f"| {graph} | `{rule}` | {times} |")
    return lines
