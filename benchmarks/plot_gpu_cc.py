"""Plots and tables from a GPU sweep (``bench_gpu_cc.py`` output).

    python benchmarks/plot_gpu_cc.py benchmarks/results/gpu_cc

Writes into that folder:
- ``heatmap.png``: slowdown of every variant vs the fastest on each graph (GConn Table 2 style);
- ``ranking.png``: per finish family, the best variant's slowdown per graph, graphs
  sorted by diameter (GConn Figures 3-4 style);
- ``table.md``: per graph, the best variant, auto, the peers, and the reference numbers.
"""

from __future__ import annotations

import csv
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

#: Peers measured on an H100 (../shared/reference-numbers.md), ms.
REFERENCE = {
    "rmat22": {"ECL-CC": 2.01, "Afforest": 1.68, "GConn best": 0.457, "GConn no sampling": 1.28},
    "er22": {"ECL-CC": 3.83, "Afforest": 8.89, "GConn best": 0.388, "GConn no sampling": 1.46},
    "gridp4k": {"ECL-CC": 3.95, "Afforest": 3.33, "GConn best": 1.96, "GConn no sampling": 2.72},
    "cong22": {"ECL-CC": 3.23, "Afforest": 5.73, "GConn best": 0.367, "GConn no sampling": 1.40},
}
TARGET = {"rmat22": 0.37, "er22": 0.31, "gridp4k": 1.32, "cong22": 0.29}
#: Suite graphs in order of increasing diameter (real graphs: pseudo-diameters from the data
#: README).
DIAMETER_ORDER = ["er22", "rmat22", "cong22", "gridp4k"]


def load(folder: Path):
    times: dict[str, dict[str, float]] = defaultdict(dict)
    for r in csv.DictReader(open(folder / "sweep.csv")):
        ms = float(r["ms"]) if r["ms"] else math.nan
        if not math.isnan(ms):
            times[r["graph"]][r["variant"]] = ms
    summary = json.loads((folder / "summary.json").read_text())
    return times, summary


def heatmap(times, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    graphs = [g for g in DIAMETER_ORDER if g in times] + sorted(set(times) - set(DIAMETER_ORDER))
    graphs = [g for g in graphs if len(times[g]) > 50]  # the full sweep only
    variants = sorted({v for g in graphs for v in times[g]})
    data = np.full((len(variants), len(graphs)), np.nan)
    for j, g in enumerate(graphs):
        best = min(times[g].values())
        for i, v in enumerate(variants):
            if v in times[g]:
                data[i, j] = times[g][v] / best
    fig, ax = plt.subplots(figsize=(2 + 1.2 * len(graphs), max(6, 0.12 * len(variants))))
    im = ax.imshow(np.log10(data), aspect="auto", cmap="viridis_r", vmin=0, vmax=3)
    ax.set_xticks(range(len(graphs)), graphs)
    ax.set_yticks(range(len(variants)), variants, fontsize=4)
    fig.colorbar(im, ax=ax, label="log10(slowdown vs fastest)")
    ax.set_title("GPU design-space sweep: slowdown vs the fastest variant")
    fig.tight_layout()
    fig.savefig(folder / "heatmap.png", dpi=150)
    plt.close(fig)


def ranking(times, folder: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    graphs = [g for g in DIAMETER_ORDER if g in times]
    fams: dict[str, list[float]] = {}
    for g in graphs:
        best = min(times[g].values())
        per: dict[str, float] = {}
        for v, ms in times[g].items():
            sampling, finish = v.split("-")[0], v.split("-")[1]
            key = f"{finish} ({'no sampling' if sampling == 'none' else 'sampled'})"
            per[key] = min(per.get(key, math.inf), ms / best)
        for k, x in per.items():
            fams.setdefault(k, [math.nan] * len(graphs))[graphs.index(g)] = x
    fig, ax = plt.subplots(figsize=(9, 5))
    for k in sorted(fams, key=lambda k: sum(x for x in fams[k] if x == x)):
        ax.plot(graphs, fams[k], marker="o", label=k)
    ax.set_yscale("log")
    ax.set_ylabel("slowdown vs fastest (best variant of the family)")
    ax.set_xlabel("graph (increasing diameter)")
    ax.legend(fontsize=5, ncol=3)
    ax.set_title("Finish families, with and without sampling (GConn Fig. 3-4 style)")
    fig.tight_layout()
    fig.savefig(folder / "ranking.png", dpi=150)
    plt.close(fig)


def table(times, summary, folder: Path) -> str:
    lines = [
        f"Device: {summary.get('device')}; copy bandwidth "
        f"{summary.get('copy_bandwidth_GBps', 0):.0f} GB/s. Times in ms (median of 5).",
        "",
        "auto = the rule in force when the sweep ran (see README.md for the current rule).",
        "",
        "| graph | n | edges | best variant | best | auto | auto variant | target | "
        "GConn best | ECL-CC | SciPy (1 core) |",
        "|---|---:|---:|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for g, info in summary["graphs"].items():
        ref = REFERENCE.get(g, {})
        lines.append(
            f"| {g} | {info.get('n', '')} | {info.get('undirected_edges', '')} | "
            f"{info.get('best_variant')} | {info.get('best_ms') or math.nan:.3f} | "
            f"{info.get('auto_ms') or math.nan:.3f} | {info.get('auto_variant')} | "
            f"{TARGET.get(g, '')} | {ref.get('GConn best', '')} | {ref.get('ECL-CC', '')} | "
            f"{info.get('scipy_ms', math.nan):.0f} |"
        )
    text = "\n".join(lines) + "\n"
    (folder / "table.md").write_text(text)
    return text


def main(argv=None) -> int:
    folder = Path((argv or sys.argv[1:] or ["benchmarks/results/gpu_cc"])[0])
    times, summary = load(folder)
    heatmap(times, folder)
    ranking(times, folder)
    print(table(times, summary, folder))
    return 0


if __name__ == "__main__":
    sys.exit(main())
