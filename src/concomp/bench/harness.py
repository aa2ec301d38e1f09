"""A benchmark run: every selected problem on every selected corpus graph, one document.

:func:`run_benchmark` builds each graph once (on the GPU for GPU runs), records its
statistics, runs the problems' runners on it, checks that every system agrees, and
returns the result document that :func:`concomp.bench.results.write` saves. Graphs
that cannot be built here (a real graph whose file is absent) are listed under
``skipped`` with the reason.
"""

from __future__ import annotations

import datetime
import gc
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..generators.corpus import CorpusGraph, select
from . import results
from ._case import Case, Settings
from .runners import PROBLEMS, run_problem
from .stats import graph_statistics

__all__ = ["run_benchmark", "choose_graphs"]


def choose_graphs(
    names: Sequence[str] | None, tags: Sequence[str] | None, quick: bool
) -> list[CorpusGraph]:
    """The corpus entries of a run: those named, else those tagged, else all of them.

    A ``quick`` run without names or tags leaves out the real graphs (they have one
    size, which is not tiny); name or tag them to include them.
    """
    chosen = select(names, tags)
    if quick and names is None and tags is None:
        chosen = [e for e in chosen if not e.is_real]
    return chosen


def _check_problems(problems: Sequence[str]) -> list[str]:
    unknown = [p for p in problems if p not in PROBLEMS]
    if unknown or not problems:
        raise ValueError(
            f"argument `problems`: {list(problems) if problems else 'none'} "
            f"{'contains unknown ' + str(unknown) if unknown else 'given'}; choose from "
            f"{', '.join(PROBLEMS)}. Fix: name one or more of those."
        )
    return list(dict.fromkeys(problems))


def run_benchmark(
    problems: Sequence[str],
    graphs: Sequence[CorpusGraph],
    settings: Settings,
    *,
    quick: bool = False,
    command: str = "",
    progress: Callable[[str], None] | None = None,
    checkpoint: Callable[[dict[str, Any]], object] | None = None,
) -> dict[str, Any]:
    """Time ``problems`` on ``graphs``; the result document (every number kept).

    ``checkpoint(doc)``, when given, is called after every graph with the document so
    far (marked ``"complete": False`` until the last graph is done), so that a run
    stopped midway still leaves every finished graph's numbers.

    Raises
    ------
    ValueError
        An unknown problem.
    concomp.bench.runners.ResultMismatchError
        Two systems disagree on a result.
    """
    problems = _check_problems(problems)
    say = progress or (lambda _msg: None)
    if settings.device == "cpu":
        _load_cpu_kernels()
    peer_sources = None
    if settings.peers_dir is not None:
        from .gpu_peers import peer_sources as sources

        peer_sources = sources(settings.peers_dir)
    doc: dict[str, Any] = {
        "schema": results.SCHEMA,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": command,
        "device": settings.device,
        "quick": quick,
        "reps": settings.reps,
        "problems": problems,
        "machine": results.machine(settings.device),
        "versions": results.versions(peer_sources),
        "graphs": {},
        "skipped": [],
        "rows": [],
        "complete": False,
    }
    with tempfile.TemporaryDirectory(prefix="concomp-bench-") as work:
        settings.work = Path(work)
        for entry in graphs:
            reason = entry.skip_reason()
            if reason is not None:
                doc["skipped"].append({"graph": entry.name, "reason": reason})
                say(f"{entry.name}: skipped ({reason})")
                continue
            _run_graph(entry, problems, settings, quick, doc, say)
            if checkpoint is not None:
                checkpoint(doc)
    doc["complete"] = True
    return doc


def _load_cpu_kernels() -> None:
    """Load the CPU engine's compiled kernels before anything is timed.

    A process's first calls on small graphs are answered with NumPy while the compiled
    kernels are not loaded (``Options.numpy_start`` says when), so a small graph's rows
    would time NumPy or the kernels depending on the graphs run before it.
    ``benchmarks/bench_first_call.py`` times that start.
    """
    from ..warmup import warmup

    warmup(device="cpu", what=("components",))


def _run_graph(
    entry: CorpusGraph,
    problems: list[str],
    settings: Settings,
    quick: bool,
    doc: dict[str, Any],
    say: Callable[[str], None],
) -> None:
    # strongly connected components run on the directed graphs, everything else on the
    # symmetric ones
    problems = [p for p in problems if (p == "scc") == entry.directed]
    if not problems:
        return
    graph = entry.build(settings.device, quick=quick)
    stats = graph_statistics(graph)
    doc["graphs"][entry.name] = {
        "description": entry.description,
        "tags": sorted(entry.tags),
        "source": entry.source,
        "params": entry.params(quick),
        "seed": entry.seed,
        "stats": stats,
    }
    say(f"{entry.name}: n={stats['n']:,} m={stats['m']:,} components={stats['components']:,}")
    case = Case(entry, graph, stats["components"])
    for problem in problems:
        rows = run_problem(problem, case, settings)
        for r in rows:
            t = r["timing"]
            if t is not None and stats["m"]:
                r["edges_per_s"] = stats["m"] / (t["median_ms"] / 1e3) if t["median_ms"] else None
            doc["rows"].append({"problem": problem, "graph": entry.name, **r})
            say(_describe(problem, entry.name, r))
    del case, graph
    gc.collect()
    if settings.device == "gpu":
        from .._gpu._compat import cupy_or_raise

        cupy_or_raise().get_default_memory_pool().free_all_blocks()


def _describe(problem: str, graph: str, r: dict[str, Any]) -> str:
    label = f"{r['system']}/{r['mode']}" + (f" {r['variant']}" if r.get("variant") else "")
    if r["timing"] is None:
        return f"  {problem:11s} {graph:20s} {label:44s} skipped: {r.get('skipped')}"
    return f"  {problem:11s} {graph:20s} {label:44s} {r['timing']['median_ms']:10.3f} ms"
