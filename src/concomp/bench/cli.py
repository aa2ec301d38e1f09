"""The harness's command line: ``python -m concomp.bench`` and ``concomp bench``.

::

    python -m concomp.bench cc msf [--device gpu] [--quick] [--graphs rmat22 gridp4k]
        [--tags road mesh] [--reps 5] [--peers .carry/peers/bin] [--out FILE.json]

Like :mod:`concomp.cli`, this module prints: progress on stderr, a table of the
medians and the result file's path on stdout (or the whole document with ``--json``).
Options of the earlier ``concomp bench`` still work: ``--graphs`` takes
comma-separated names too, ``--no-peers`` leaves the CPU peers out, ``--algorithm``
is the variant the public connected-components calls run, ``-o/--output`` is
``--out``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .._engine import SCC_ALGORITHMS
from . import results
from ._case import Settings
from .harness import choose_graphs, run_benchmark
from .runners import PROBLEMS
from .timing import MIN_REPS

__all__ = ["add_arguments", "run", "main"]


def _names(values: list[str] | None) -> list[str] | None:
    if values is None:
        return None
    return [x.strip() for v in values for x in v.split(",") if x.strip()]


def add_arguments(p: argparse.ArgumentParser) -> None:
    """The harness's arguments (shared by ``python -m concomp.bench`` and ``concomp bench``)."""
    p.add_argument(
        "problems",
        nargs="*",
        default=["cc"],
        metavar="PROBLEM",
        help=f"what to time: {', '.join(PROBLEMS)} (default: cc)",
    )
    p.add_argument("--device", default="cpu", choices=("cpu", "gpu"), help="engine (default cpu)")
    p.add_argument(
        "--quick", action="store_true", help="tiny sizes (seconds on a laptop), no real graphs"
    )
    p.add_argument("--graphs", nargs="+", metavar="NAME", help="corpus graphs by name")
    p.add_argument("--tags", nargs="+", metavar="TAG", help="corpus graphs carrying any tag")
    p.add_argument(
        "--reps", type=int, default=MIN_REPS, help=f"timed runs per measurement (>= {MIN_REPS})"
    )
    p.add_argument(
        "--peers", type=Path, metavar="BIN_DIR", help="folder of the built GPU peer binaries"
    )
    p.add_argument("--no-peers", action="store_true", help="leave out the CPU peers")
    p.add_argument(
        "--algorithm",
        default="auto",
        help="variant of the public cc calls, or SCC algorithm with scc alone (default auto)",
    )
    p.add_argument("--out", "-o", "--output", type=Path, metavar="FILE.json", help="result file")
    p.add_argument("--json", action="store_true", help="print the result document as JSON")


def _settings(args: argparse.Namespace) -> Settings:
    from ..variants import resolve_variant

    if isinstance(args.reps, bool) or args.reps < MIN_REPS:
        raise ValueError(
            f"argument `--reps`: {args.reps} is fewer than {MIN_REPS}; a median needs at "
            f"least {MIN_REPS} runs. Fix: pass --reps {MIN_REPS} or more."
        )
    if args.peers is not None and not args.peers.is_dir():
        raise ValueError(
            f"argument `--peers`: {str(args.peers)!r} is not a folder. Fix: pass the folder "
            "the peers were built into (benchmarks/peers/README.md says how)."
        )
    # a bad name fails before any graph is built: SCC algorithm names for scc alone
    if args.algorithm not in SCC_ALGORITHMS[args.device] or set(args.problems or ()) != {"scc"}:
        resolve_variant(args.algorithm)
    return Settings(
        device=args.device,
        reps=args.reps,
        cpu_peers=not args.no_peers,
        peers_dir=args.peers,
        algorithm=args.algorithm,
    )


def run(args: argparse.Namespace, command: str | None = None) -> int:
    """Run the harness on parsed arguments: write the result file, print the medians.

    ``command`` is recorded in the result file (default: this process's command line).
    """
    settings = _settings(args)
    graphs = choose_graphs(_names(args.graphs), _names(args.tags), args.quick)
    command = command or " ".join(sys.orig_argv)
    target = args.out or results.default_path(args.device)
    doc = run_benchmark(
        args.problems,
        graphs,
        settings,
        quick=args.quick,
        command=command,
        progress=lambda msg: print(msg, file=sys.stderr, flush=True),
        checkpoint=lambda partial: results.write(partial, target),
    )
    path = results.write(doc, target)
    if args.json:
        print(json.dumps({"command": "bench", "file": str(path), **doc}))
        return 0
    print(f"{'problem':11s} {'graph':22s} {'system':26s} {'median ms':>11s}  result")
    for r in doc["rows"]:
        if r["timing"] is None:
            continue
        system = f"{r['system']}/{r['mode']}"
        print(
            f"{r['problem']:11s} {r['graph']:22s} {system:26s} "
            f"{r['timing']['median_ms']:>11.3f}  {r['result']}"
        )
    print(f"wrote {path}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m concomp.bench``: the exit status (2 and one line for bad arguments)."""
    parser = argparse.ArgumentParser(prog="python -m concomp.bench", description=__doc__)
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args, None if argv is None else " ".join([parser.prog, *argv]))
    except ValueError as exc:
        print(f"concomp.bench: error: {exc}", file=sys.stderr)
        return 2
