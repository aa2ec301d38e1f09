"""The ``concomp`` command: connected components, graph facts and graph generation.

Subcommands
-----------
cc        connected components of a graph file or a generated graph, with timings
info      size, direction, weights, self loops, degrees and components of a graph file
generate  generate a graph from a spec (``rmat:scale=16,ef=16,seed=1``) and write it
warmup    compile the kernels ahead of time into numba's and CuPy's on-disk caches
bench     the benchmark harness (:mod:`concomp.bench`; ``python -m concomp.bench`` is the same)

Each subcommand is one :class:`Subcommand` in :data:`SUBCOMMANDS`: a function that adds
its arguments and a function that runs it and returns the exit status. Add one with
:func:`register`; :func:`build_parser` reads the registry when it runs.

This module and its private helpers (:mod:`concomp.cli._commands`, the ``cc``, ``info``
and ``generate`` subcommands; :mod:`concomp.cli._common`, their shared output and input
helpers) and the harness's command line (:mod:`concomp.bench.cli`,
:mod:`concomp.bench.render`) are the only code of concomp that prints. Results go to
stdout (human-readable lines, or one JSON object with ``--json``); progress and errors
go to stderr. Bad input
is one line ``concomp: error: <message>`` and exit status 2 (``--debug`` prints the
traceback instead); success is 0.
"""

from __future__ import annotations

import argparse
import logging
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import NoReturn

from ..errors import ConcompError
from ._commands import (
    _add_cc_arguments,
    _add_generate_arguments,
    _add_info_arguments,
    _add_warmup_arguments,
    degree_stats,  # noqa: F401  (re-exported: a public name of concomp.cli)
    run_cc,
    run_generate,
    run_info,
    run_warmup,
)
from ._common import (
    CLIError,
    write_labels,  # noqa: F401  (re-exported: a public name of concomp.cli)
)

__all__ = ["main", "build_parser", "register", "Subcommand", "SUBCOMMANDS", "CLIError"]

#: Exit status for bad input and usage errors (argparse uses 2 as well).
EXIT_BAD_INPUT = 2
#: Errors that mean "the input or the environment is wrong", not "concomp has a bug":
#: they become one line on stderr. Anything else propagates with its traceback.
_USER_ERRORS: tuple[type[BaseException], ...] = (
    ConcompError,
    FileNotFoundError,
    ValueError,
    OSError,
    ImportError,
    MemoryError,
)
_log = logging.getLogger("concomp")


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


def _add_bench_arguments(p: argparse.ArgumentParser) -> None:
    from ..bench.cli import add_arguments

    add_arguments(p)


def _run_bench(args: argparse.Namespace) -> int:
    from ..bench.cli import run

    return run(args)


register(
    Subcommand(
        "cc", "connected components of a graph file or a generated graph", _add_cc_arguments, run_cc
    )
)
register(
    Subcommand(
        "info",
        "facts about a graph file: size, degrees, self loops, components",
        _add_info_arguments,
        run_info,
    )
)
register(
    Subcommand(
        "generate",
        "generate a graph from a spec and write it to a file",
        _add_generate_arguments,
        run_generate,
    )
)
register(
    Subcommand(
        "warmup",
        "compile the kernels ahead of time (numba and CuPy keep them on disk)",
        _add_warmup_arguments,
        run_warmup,
    )
)
register(
    Subcommand(
        "bench",
        "the benchmark harness: concomp and its peers on the corpus, one result file",
        _add_bench_arguments,
        _run_bench,
    )
)


# --------------------------------------------------------------------------- entry point
def build_parser() -> argparse.ArgumentParser:
    """The ``concomp`` parser with one subparser per entry of :data:`SUBCOMMANDS`."""
    from .. import __version__

    parser = _Parser(prog="concomp", description="Graph connectivity on GPUs and CPUs.")
    parser.add_argument("--version", action="version", version=f"concomp {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="print full tracebacks and concomp's debug log on stderr",
    )
    # Common options also accepted after the subcommand. SUPPRESS keeps a subparser
    # from overwriting a value given before the subcommand with its own default.
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "--debug",
        action="store_true",
        default=argparse.SUPPRESS,
        help="print full tracebacks and concomp's debug log on stderr",
    )
    common.add_argument(
        "--no-progress",
        action="store_true",
        default=argparse.SUPPRESS,
        help="no progress messages on stderr",
    )
    parser.set_defaults(no_progress=False)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for command in SUBCOMMANDS.values():
        p = sub.add_parser(
            command.name, help=command.help, description=command.help, parents=[common]
        )
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
