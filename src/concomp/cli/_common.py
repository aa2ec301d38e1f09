"""Shared pieces of the ``concomp`` subcommands: progress, output, graph input, labels.

:mod:`concomp.cli` and :mod:`concomp.cli._commands` are the only users; like them, this
module prints (results to stdout, progress to stderr).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ConcompError

_FORMATS_HELP = (
    "file format: auto (from the suffix), snap, csv, mtx, dimacs, pace, metis, "
    "npz, parquet; .gz/.xz/.bz2 are decompressed transparently"
)
_LABEL_SUFFIXES = (".npy", ".txt", ".parquet")


class CLIError(ConcompError):
    """A command-line request that cannot be carried out (reported as one line)."""

    __module__ = "concomp.cli"  # its public home: tracebacks and pickles name it there


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
            print(
                f"concomp: {what}: done in {time.perf_counter() - start:.1f} s",
                file=sys.stderr,
                flush=True,
            )


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
    from ..io import read_graph  # imported late: `concomp --help` needs no I/O backends

    progress = _progress_wanted(args)
    start = time.perf_counter()
    # read_graph's tqdm bar covers reading the bytes; decompressing and parsing come
    # after it and can take longer, so the delayed notice stays on as well
    with _phase(f"reading {path}", progress):
        graph = read_graph(path, format=fmt, progress=progress and _tqdm_available())
    return graph, time.perf_counter() - start


def _generate(spec: str, args: argparse.Namespace) -> tuple[Any, float]:
    """Build a graph from a generator spec; returns the graph and the seconds it took."""
    from ..generators import from_spec

    start = time.perf_counter()
    with _phase(f"generating {spec}", _progress_wanted(args)):
        graph = from_spec(spec)
    return graph, time.perf_counter() - start


def _resolved_device(graph: Any, device: str) -> str:
    """The engine that ``device`` selects for ``graph`` (for the report)."""
    from .._dispatch import choose_device

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
        raise CLIError(
            f"-o {path!r}: cannot write labels to a {suffix or 'suffix-less'} file; "
            f"use one of {', '.join(_LABEL_SUFFIXES)}"
        )
    return suffix


def write_labels(labels: np.ndarray, path: str) -> None:
    """Write one label per vertex to ``path`` (.npy, .txt one per line, or .parquet).

    The Parquet file has one int column ``label``; row ``v`` is vertex ``v``.
    """
    suffix = _check_label_path(path)
    if suffix == ".npy":
        np.save(path, labels)
    elif suffix == ".txt":
        from ..io._emit import format_column

        with open(path, "wb") as f:
            f.write(memoryview(format_column(labels)))
    else:
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError as exc:
            raise CLIError(
                "writing labels to .parquet needs pyarrow; install it with "
                "pip install 'concomp[io]' or use -o labels.npy"
            ) from exc
        pq.write_table(pa.table({"label": labels}), path)
