"""The ``cc``, ``info`` and ``generate`` subcommands of ``concomp``.

Each has a function that adds its arguments and one that runs it and returns the exit
status; :mod:`concomp.cli` registers them as :class:`concomp.cli.Subcommand` entries.
"""

from __future__ import annotations

import argparse
import time
from typing import Any

import numpy as np

from ._common import (
    _FORMATS_HELP,
    _check_label_path,
    _emit,
    _generate,
    _largest_size,
    _phase,
    _progress_wanted,
    _read,
    _resolved_device,
    _round,
    _seconds,
    write_labels,
)


# --------------------------------------------------------------------------- cc
def _add_cc_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("path", nargs="?", metavar="PATH", help="graph file to read")
    src.add_argument(
        "--generate",
        metavar="SPEC",
        help="generate the graph instead, e.g. rmat:scale=16,ef=16,seed=1",
    )
    p.add_argument("--format", default="auto", metavar="FMT", help=_FORMATS_HELP)
    p.add_argument(
        "--device",
        default="auto",
        choices=("auto", "cpu", "gpu"),
        help="engine (default: auto, the GPU for large graphs when one is usable)",
    )
    p.add_argument(
        "--algorithm",
        default="auto",
        metavar="NAME",
        help="'auto', a preset such as 'afforest', or a variant string such as "
        "'kout-async-halve-csr'",
    )
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the SciPy-numbered int32 labels to FILE (.npy, .txt, .parquet)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run_cc(args: argparse.Namespace) -> int:
    """``concomp cc``: count components, report sizes and per-phase times, write labels."""
    from ..components import connected_components
    from ..variants import resolve_variant

    # Reject a bad -o suffix or algorithm name before spending time on loading.
    if args.output is not None:
        _check_label_path(args.output)
    resolve_variant(args.algorithm)
    if args.generate is not None:
        graph, t_load = _generate(args.generate, args)
        source = f"generated {args.generate}"
    else:
        graph, t_load = _read(args.path, args.format, args)
        source = args.path
    device = _resolved_device(graph, args.device)
    start = time.perf_counter()
    with _phase("computing components", _progress_wanted(args)):
        count, labels = connected_components(
            graph, device=device, algorithm=args.algorithm, output_device="cpu"
        )
    t_compute = time.perf_counter() - start
    t_write = None
    if args.output is not None:
        start = time.perf_counter()
        write_labels(labels, args.output)
        t_write = time.perf_counter() - start
    largest = _largest_size(labels, count)
    report = {
        "command": "cc",
        "source": source,
        "format": None if args.generate else args.format,
        "n": graph.num_nodes,
        "m": graph.num_edges,
        "components": count,
        "largest_component": largest,
        "device": device,
        "algorithm": args.algorithm,
        "output": args.output,
        "time_s": {"load": _round(t_load), "compute": _round(t_compute), "write": _round(t_write)},
    }
    rows = [
        ("source", source),
        ("nodes", graph.num_nodes),
        ("edges", graph.num_edges),
        ("components", count),
        ("largest component", largest),
        ("device", device),
        ("algorithm", args.algorithm),
        ("labels", args.output),
        ("time load", _seconds(t_load)),
        ("time compute", _seconds(t_compute)),
        ("time write", _seconds(t_write)),
    ]
    _emit(report, rows, args.json)
    return 0


# --------------------------------------------------------------------------- info
def _add_info_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH", help="graph file to read")
    p.add_argument("--format", default="auto", metavar="FMT", help=_FORMATS_HELP)
    p.add_argument(
        "--device",
        default="auto",
        choices=("auto", "cpu", "gpu"),
        help="engine for counting components (default: auto)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def degree_stats(graph: Any) -> tuple[int, tuple[int, int, float]]:
    """Self-loop count and (min, max, mean) degree of the undirected graph.

    Degrees count each non-loop input edge at both ends (duplicates included, self
    loops excluded), like the rows of ``graph.undirected_csr()``; a graph flagged
    ``symmetric`` already lists both directions, so each entry counts once.
    """
    from .._arrays import to_numpy

    src, dst = (to_numpy(a) for a in graph.coo())
    loops = src == dst
    n = graph.num_nodes
    deg = np.bincount(src[~loops], minlength=n)
    if not graph.symmetric:
        deg = deg + np.bincount(dst[~loops], minlength=n)
    if n == 0:
        return int(loops.sum()), (0, 0, 0.0)
    return int(loops.sum()), (int(deg.min()), int(deg.max()), float(deg.sum()) / n)


def run_info(args: argparse.Namespace) -> int:
    """``concomp info``: the facts about a graph file that decide how to process it."""
    from ..components import connected_components

    graph, t_load = _read(args.path, args.format, args)
    self_loops, (dmin, dmax, dmean) = degree_stats(graph)
    count = connected_components(graph, device=args.device, return_labels=False)
    report = {
        "command": "info",
        "source": args.path,
        "format": args.format,
        "n": graph.num_nodes,
        "m": graph.num_edges,
        "directed": graph.directed,
        "weighted": graph.is_weighted,
        "self_loops": self_loops,
        "min_degree": dmin,
        "max_degree": dmax,
        "mean_degree": dmean,
        "components": count,
        "index_dtype": str(np.dtype(graph.index_dtype)),
        "time_s": {"load": _round(t_load)},
    }
    rows = [
        ("source", args.path),
        ("nodes", graph.num_nodes),
        ("edges", graph.num_edges),
        ("directed", graph.directed),
        ("weighted", graph.is_weighted),
        ("self loops", self_loops),
        ("min degree", dmin),
        ("max degree", dmax),
        ("mean degree", f"{dmean:.3f}"),
        ("components", count),
        ("index dtype", report["index_dtype"]),
        ("time load", _seconds(t_load)),
    ]
    _emit(report, rows, args.json)
    return 0


# --------------------------------------------------------------------------- generate
def _add_generate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "spec",
        metavar="SPEC",
        help="generator spec, e.g. rmat:scale=16,ef=16,seed=1 or grid:rows=100,cols=100",
    )
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="graph file to write")
    p.add_argument("--format", default="auto", metavar="FMT", help=_FORMATS_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run_generate(args: argparse.Namespace) -> int:
    """``concomp generate``: build a graph from a spec and write it to a file."""
    from ..io import write_graph

    graph, t_gen = _generate(args.spec, args)
    start = time.perf_counter()
    with _phase(f"writing {args.output}", _progress_wanted(args)):
        write_graph(graph, args.output, format=args.format)
    t_write = time.perf_counter() - start
    report = {
        "command": "generate",
        "spec": args.spec,
        "output": args.output,
        "format": args.format,
        "n": graph.num_nodes,
        "m": graph.num_edges,
        "time_s": {"generate": _round(t_gen), "write": _round(t_write)},
    }
    rows = [
        ("spec", args.spec),
        ("output", args.output),
        ("nodes", graph.num_nodes),
        ("edges", graph.num_edges),
        ("time generate", _seconds(t_gen)),
        ("time write", _seconds(t_write)),
    ]
    _emit(report, rows, args.json)
    return 0


# --------------------------------------------------------------------------- warmup
def _add_warmup_arguments(p: argparse.ArgumentParser) -> None:
    from ..warmup import WARMUP_TARGETS

    p.add_argument(
        "--device",
        default="auto",
        choices=("auto", "cpu", "gpu"),
        help="CPU kernels always; GPU kernels too where a GPU is usable (auto) or required (gpu)",
    )
    p.add_argument(
        "--what",
        nargs="+",
        default=list(WARMUP_TARGETS),
        choices=WARMUP_TARGETS,
        metavar="TARGET",
        help=f"entry points to compile: {', '.join(WARMUP_TARGETS)} (default: all)",
    )
    p.add_argument("--json", action="store_true", help="print the report as one JSON object")


def run_warmup(args: argparse.Namespace) -> int:
    """``concomp warmup``: compile the default kernels into the on-disk caches."""
    from ..warmup import warmup

    with _phase("compiling kernels", _progress_wanted(args)):
        took = warmup(device=args.device, what=args.what)
    report = {"command": "warmup", "time_s": {k: _round(v) for k, v in took.items()}}
    _emit(report, [(k, _seconds(v)) for k, v in took.items()], args.json)
    return 0
