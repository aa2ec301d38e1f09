"""The ``concomp`` command: connected components, graph facts and graph generation.

Subcommands
-----------
cc        connected components of a graph file or a generated graph, with timings
info      size, direction, weights, self loops, degrees and components of a graph file
generate  generate a graph from a spec (``rmat:scale=16,ef=16,seed=1``) and write it

Each subcommand is one :class:`Subcommand` in :data:`SUBCOMMANDS`: a function that adds
its arguments and a function that runs it and returns the exit status. Add one with
:func:`register`; :func:`build_parser` reads the registry when it runs.

This is the only module of concomp that prints. Results go to stdout (human-readable
lines, or one JSON object with ``--json``); progress and errors go to stderr. Bad input
is one line ``concomp: error: <message>`` and exit status 2 (``--debug`` prints the
traceback instead); success is 0.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from . import benchsuite
from .errors import ConcompError

__all__ = ["main", "build_parser", "register", "Subcommand", "SUBCOMMANDS", "CLIError"]

#: Exit status for bad input and usage errors (argparse uses 2 as well).
EXIT_BAD_INPUT = 2
#: Errors that mean "the input or the environment is wrong", not "concomp has a bug":
#: they become one line on stderr. Anything else propagates with its traceback.
_USER_ERRORS: tuple[type[BaseException], ...] = (
    ConcompError, FileNotFoundError, ValueError, OSError, ImportError, MemoryError,
)
_FORMATS_HELP = ("file format: auto (from the suffix), snap, csv, mtx, dimacs, pace, metis, "
                 "npz, parquet; .gz/.xz/.bz2 are decompressed transparently")
_LABEL_SUFFIXES = (".npy", ".txt", ".parquet")
_log = logging.getLogger("concomp")


class CLIError(ConcompError):
    """A command-line request that cannot be carried out (reported as one line)."""


@dataclass(frozen=True)
class Subcommand:
    """One ``concomp`` subcommand.

    Attributes
    ----------
    name : str
        The word typed after ``concomp``.
    help : str
        One line for ``concomp --help``.
    add_arguments : callable
        Adds the subcommand's arguments to its parser.
    run : callable
        Runs the subcommand on the parsed arguments and returns the exit status.
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


#: Registered subcommands in ``--help`` order.
SUBCOMMANDS: dict[str, Subcommand] = {}


def register(command: Subcommand) -> Subcommand:
    """Add ``command`` to :data:`SUBCOMMANDS` (a later registration of a name replaces it)."""
    SUBCOMMANDS[command.name] = command
    return command


class _Parser(argparse.ArgumentParser):
    """Argument parser whose usage errors are the same one line as every other error."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_BAD_INPUT, f"concomp: error: {message} (see '{self.prog} --help')\n")


# --------------------------------------------------------------------------- output helpers
def _progress_wanted(args: argparse.Namespace) -> bool:
    """Progress only for a person watching: a terminal on stderr, not turned off."""
    return not args.no_progress and sys.stderr.isatty()


def _tqdm_available() -> bool:
    return importlib.util.find_spec("tqdm") is not None


@contextmanager
def _phase(what: str, enabled: bool, delay: float = 1.0) -> Iterator[None]:
    """Say ``what`` is running on stderr, but only once it has taken ``delay`` seconds.

    Quick work stays silent; slow work (a large file, a big generator) tells the user
    that something is happening and, at the end, how long it took.
    """
    if not enabled:
        yield
        return
    shown = threading.Event()
    start = time.perf_counter()

    def announce() -> None:
        shown.set()
        print(f"concomp: {what} ...", file=sys.stderr, flush=True)

    timer = threading.Timer(delay, announce)
    timer.daemon = True
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        timer.join()  # the announcement, if it started, is printed before "done"
        if shown.is_set():
            print(f"concomp: {what}: done in {time.perf_counter() - start:.1f} s",
                  file=sys.stderr, flush=True)


def _emit(report: dict[str, Any], rows: Sequence[tuple[str, Any]], as_json: bool) -> None:
    """Print ``report`` as one JSON object, or ``rows`` as aligned ``label  value`` lines."""
    if as_json:
        print(json.dumps(report), flush=True)
        return
    width = max(len(label) for label, _ in rows) + 2
    for label, value in rows:
        if value is not None:
            print(f"{label:<{width}}{value}")
    sys.stdout.flush()


def _seconds(t: float | None) -> str | None:
    return None if t is None else f"{t:.3f} s"


def _round(t: float | None) -> float | None:
    """Seconds to the microsecond: finer digits are timer noise."""
    return None if t is None else round(t, 6)


# --------------------------------------------------------------------------- graph input
def _read(path: str, fmt: str, args: argparse.Namespace) -> tuple[Any, float]:
    """Read a graph file; returns the graph and the seconds it took."""
    from .io import read_graph  # imported late: `concomp --help` needs no I/O backends

    progress = _progress_wanted(args)
    start = time.perf_counter()
    # read_graph's tqdm bar covers reading the bytes; decompressing and parsing come
    # after it and can take longer, so the delayed notice stays on as well
    with _phase(f"reading {path}", progress):
        graph = read_graph(path, format=fmt, progress=progress and _tqdm_available())
    return graph, time.perf_counter() - start


def _generate(spec: str, args: argparse.Namespace) -> tuple[Any, float]:
    """Build a graph from a generator spec; returns the graph and the seconds it took."""
    from .generators import from_spec

    start = time.perf_counter()
    with _phase(f"generating {spec}", _progress_wanted(args)):
        graph = from_spec(spec)
    return graph, time.perf_counter() - start


def _resolved_device(graph: Any, device: str) -> str:
    """The engine that ``device`` selects for ``graph`` (for the report)."""
    from ._dispatch import choose_device

    return choose_device(graph, device)


def _largest_size(labels: np.ndarray, count: int) -> int:
    if count == 0:
        return 0
    return int(np.bincount(labels, minlength=count).max())


# --------------------------------------------------------------------------- labels output
def _check_label_path(path: str) -> str:
    """Return the label file's suffix, failing before any work is done if it is unknown."""
    suffix = Path(path).suffix.lower()
    if suffix not in _LABEL_SUFFIXES:
        raise CLIError(f"-o {path!r}: cannot write labels to a {suffix or 'suffix-less'} file; "
                       f"use one of {', '.join(_LABEL_SUFFIXES)}")
    return suffix


def write_labels(labels: np.ndarray, path: str) -> None:
    """Write one label per vertex to ``path`` (.npy, .txt one per line, or .parquet).

    The Parquet file has one int column ``label``; row ``v`` is vertex ``v``.
    """
    suffix = _check_label_path(path)
    if suffix == ".npy":
        np.save(path, labels)
    elif suffix == ".txt":
        np.savetxt(path, labels, fmt="%d")
    else:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise CLIError("writing labels to .parquet needs pyarrow; install it with "
                           "pip install 'concomp[io]' or use -o labels.npy") from exc
        pq.write_table(pa.table({"label": labels}), path)


# --------------------------------------------------------------------------- cc
def _add_cc_arguments(p: argparse.ArgumentParser) -> None:
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("path", nargs="?", metavar="PATH", help="graph file to read")
    src.add_argument("--generate", metavar="SPEC",
                     help="generate the graph instead, e.g. rmat:scale=16,ef=16,seed=1")
    p.add_argument("--format", default="auto", metavar="FMT", help=_FORMATS_HELP)
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"),
                   help="engine (default: auto, the GPU for large graphs when one is usable)")
    p.add_argument("--algorithm", default="auto", metavar="NAME",
                   help="'auto', a preset such as 'afforest', or a variant string such as "
                        "'kout-async-halve-csr'")
    p.add_argument("-o", "--output", metavar="FILE",
                   help="write the SciPy-numbered int32 labels to FILE (.npy, .txt, .parquet)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run_cc(args: argparse.Namespace) -> int:
    """``concomp cc``: count components, report sizes and per-phase times, write labels."""
    from .components import connected_components
    from .variants import resolve_variant

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
        count, labels = connected_components(graph, device=device, algorithm=args.algorithm,
                                             output_device="cpu")
    t_compute = time.perf_counter() - start
    t_write = None
    if args.output is not None:
        start = time.perf_counter()
        write_labels(labels, args.output)
        t_write = time.perf_counter() - start
    largest = _largest_size(labels, count)
    report = {
        "command": "cc", "source": source, "format": None if args.generate else args.format,
        "n": graph.num_nodes, "m": graph.num_edges, "components": count,
        "largest_component": largest, "device": device, "algorithm": args.algorithm,
        "output": args.output,
        "time_s": {"load": _round(t_load), "compute": _round(t_compute), "write": _round(t_write)},
    }
    rows = [("source", source), ("nodes", graph.num_nodes), ("edges", graph.num_edges),
            ("components", count), ("largest component", largest), ("device", device),
            ("algorithm", args.algorithm), ("labels", args.output),
            ("time load", _seconds(t_load)), ("time compute", _seconds(t_compute)),
            ("time write", _seconds(t_write))]
    _emit(report, rows, args.json)
    return 0


# --------------------------------------------------------------------------- info
def _add_info_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("path", metavar="PATH", help="graph file to read")
    p.add_argument("--format", default="auto", metavar="FMT", help=_FORMATS_HELP)
    p.add_argument("--device", default="auto", choices=("auto", "cpu", "gpu"),
                   help="engine for counting components (default: auto)")
    p.add_argument("--json", action="store_true", help="print one JSON object")


def degree_stats(graph: Any) -> tuple[int, tuple[int, int, float]]:
    """Self-loop count and (min, max, mean) degree of the undirected graph.

    Degrees count each non-loop input edge at both ends (duplicates included, self
    loops excluded), like the rows of ``graph.undirected_csr()``; a graph flagged
    ``symmetric`` already lists both directions, so each entry counts once.
    """
    from ._arrays import to_numpy

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
    from .components import connected_components

    graph, t_load = _read(args.path, args.format, args)
    self_loops, (dmin, dmax, dmean) = degree_stats(graph)
    count = connected_components(graph, device=args.device, return_labels=False)
    report = {
        "command": "info", "source": args.path, "format": args.format,
        "n": graph.num_nodes, "m": graph.num_edges, "directed": graph.directed,
        "weighted": graph.is_weighted, "self_loops": self_loops, "min_degree": dmin,
        "max_degree": dmax, "mean_degree": dmean, "components": count,
        "index_dtype": str(np.dtype(graph.index_dtype)), "time_s": {"load": _round(t_load)},
    }
    rows = [("source", args.path), ("nodes", graph.num_nodes), ("edges", graph.num_edges),
            ("directed", graph.directed), ("weighted", graph.is_weighted),
            ("self loops", self_loops), ("min degree", dmin), ("max degree", dmax),
            ("mean degree", f"{dmean:.3f}"), ("components", count),
            ("index dtype", report["index_dtype"]), ("time load", _seconds(t_load))]
    _emit(report, rows, args.json)
    return 0


# --------------------------------------------------------------------------- generate
def _add_generate_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("spec", metavar="SPEC",
                   help="generator spec, e.g. rmat:scale=16,ef=16,seed=1 or grid:rows=100,cols=100")
    p.add_argument("-o", "--output", metavar="FILE", required=True, help="graph file to write")
    p.add_argument("--format", default="auto", metavar="FMT", help=_FORMATS_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object")


def run_generate(args: argparse.Namespace) -> int:
    """``concomp generate``: build a graph from a spec and write it to a file."""
    from .io import write_graph

    graph, t_gen = _generate(args.spec, args)
    start = time.perf_counter()
    with _phase(f"writing {args.output}", _progress_wanted(args)):
        write_graph(graph, args.output, format=args.format)
    t_write = time.perf_counter() - start
    report = {
        "command": "generate", "spec": args.spec, "output": args.output, "format": args.format,
        "n": graph.num_nodes, "m": graph.num_edges,
        "time_s": {"generate": _round(t_gen), "write": _round(t_write)},
    }
    rows = [("spec", args.spec), ("output", args.output), ("nodes", graph.num_nodes),
            ("edges", graph.num_edges), ("time generate", _seconds(t_gen)),
            ("time write", _seconds(t_write))]
    _emit(report, rows, args.json)
    return 0


register(Subcommand("cc", "connected components of a graph file or a generated graph",
                    _add_cc_arguments, run_cc))
register(Subcommand("info", "facts about a graph file: size, degrees, self loops, components",
                    _add_info_arguments, run_info))
register(Subcommand("generate", "generate a graph from a spec and write it to a file",
                    _add_generate_arguments, run_generate))
register(Subcommand("bench", "time concomp against SciPy, NetworkX, igraph, NetworKit on the suite",
                    benchsuite.add_arguments, benchsuite.run))


# --------------------------------------------------------------------------- entry point
def build_parser() -> argparse.ArgumentParser:
    """The ``concomp`` parser with one subparser per entry of :data:`SUBCOMMANDS`."""
    from . import __version__

    parser = _Parser(prog="concomp", description="Graph connectivity on GPUs and CPUs.")
    parser.add_argument("--version", action="version", version=f"concomp {__version__}")
    parser.add_argument("--debug", action="store_true",
                        help="print full tracebacks and concomp's debug log on stderr")
    # Common options also accepted after the subcommand. SUPPRESS keeps a subparser
    # from overwriting a value given before the subcommand with its own default.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                        help="print full tracebacks and concomp's debug log on stderr")
    common.add_argument("--no-progress", action="store_true", default=argparse.SUPPRESS,
                        help="no progress messages on stderr")
    parser.set_defaults(no_progress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in SUBCOMMANDS.values():
        p = sub.add_parser(command.name, help=command.help, description=command.help,
                           parents=[common])
        command.add_arguments(p)
        p.set_defaults(_run=command.run)
    return parser


def _one_line(exc: BaseException) -> str:
    """The error as one line: OS errors as 'reason: file', others by their message."""
    if isinstance(exc, OSError) and exc.strerror and exc.filename is not None:
        msg = f"{exc.strerror}: {exc.filename}"
    else:
        msg = str(exc) or type(exc).__name__
    return " ".join(msg.split())


@contextmanager
def _debug_logging(enabled: bool) -> Iterator[None]:
    """Send concomp's log (engine choice and its reasons) to stderr while a command runs."""
    if not enabled:
        yield
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("concomp: %(name)s: %(message)s"))
    level = _log.level
    _log.addHandler(handler)
    _log.setLevel(logging.DEBUG)
    try:
        yield
    finally:
        _log.removeHandler(handler)
        _log.setLevel(level)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``concomp`` command with ``argv`` (default ``sys.argv[1:]``).

    Returns the exit status instead of exiting, so that tests and other programs
    can call it: 0 on success, 2 on bad input or usage (one line on stderr, or the
    traceback with ``--debug``).
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        with _debug_logging(args.debug):
            return args._run(args)
    except _USER_ERRORS as exc:
        if args.debug:
            traceback.print_exc()
        else:
            print(f"concomp: error: {_one_line(exc)}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("concomp: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover - `python -m concomp` goes through __main__.py
    sys.exit(main())
