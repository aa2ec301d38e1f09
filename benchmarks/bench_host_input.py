"""Host data on the GPU: every host input kind, end to end, against the streaming engine.

For R-MAT graphs (ids permuted, each undirected edge once, shuffled; generated on the
GPU when one is usable, else by the CPU generator), times the public
``connected_components`` call (labels back to the host) on every host input kind of
``host_kinds.py`` (NumPy int64 pair, ``(2, m)`` int32, SciPy CSR of one direction and
symmetric, SciPy COO, pandas, polars and pyarrow tables, CPU torch ``edge_index``, a
Parquet file read from its path) with ``device="gpu"``, ``"auto"`` and ``"cpu"``
(``--devices``, ``--kinds``), next to ``stream_components`` on the same NumPy pair
(per device), SciPy's ``connected_components`` on the symmetric CSR, the pinned
host-to-device bandwidth, and, for the Parquet file, ``pyarrow.parquet.read_table`` of its
two id columns on all threads (the host's floor for any call that reads the file) and
the file's bytes read alone on all threads (the floor of any reader). A kind whose
library does not import, and every GPU row where no GPU is usable, is
skipped and recorded with the reason. Wall clock
(``perf_counter``), median of ``--reps`` after a warm-up; the counts of every call
must agree. ``device="gpu"`` and ``"auto"`` on one kind are timed in one interleaved
series (a run of each per round), so that a drift of the machine's speed does not pass
for a difference between ``auto`` and the engine it chose; the CPU engine's runs form a
series of their own, since a GPU call right after one of them takes longer than any
caller of one engine sees. ``device="auto"`` rows record where ``auto`` ran (the
``concomp.dispatch`` debug log of the warm-up call).

Other entry points (``--entries components,forest,msf,insert,csgraph``; default
``components``): ``spanning_forest`` (``num_nodes`` given) and ``minimum_spanning_forest``
on every kind (edge lists with random weights passed as ``weights``; SciPy matrices
with their own values), ``IncrementalConnectivity.insert`` of the NumPy pair as one batch
into a new structure, and ``concomp.csgraph.connected_components`` on the SciPy kinds
(its engine set through ``CONCOMP_DEVICE``: it takes no ``device``), each with
``device="gpu"``, ``"auto"`` and ``"cpu"``, next to SciPy's ``minimum_spanning_tree``
(one-direction CSR) and ``connected_components`` (each SciPy kind). Keys
``"<entry>: <kind> / <device>"``; every row's component count must agree too.

A size sweep (``--sweep SCALE...``) times the CPU engine, the GPU and ``auto`` on R-MAT
graphs of growing size as each of ``--sweep-kinds`` (default: the NumPy pair), which is
where ``auto`` has to switch, and records where it ran.

Host memory (``--memory``, the default): for every kind with ``device="gpu"`` and
``"cpu"``, and for SciPy on the symmetric CSR, a fresh child process (this file with
``--memory-probe KIND DEVICE``) builds the input, warms up on a tiny graph (for the GPU
that creates the CUDA context, whose host memory is thus not counted as the call's),
and reports the peak resident memory one call adds over what it held before the call
(``host_kinds.memory_probe`` says how the peak is read).

Writes ``benchmarks/results/<date>-<gpu|cpu>-<commit>-host-input.json`` (or ``--out``):
per graph ``times_ms[key]`` (every timed run), ``memory_bytes[key]``,
``bytes_input[kind]`` and ``auto_device[kind]``; the ``sweep``; ``pinned_h2d_gbs``;
``skipped`` with reasons. Prints the table that ``python -m concomp.bench.render
RESULT.json --host-input FILE`` adds to RESULTS.md.

Corpus graphs (``--graphs``, names of :data:`concomp.generators.corpus.CORPUS`) join the
R-MAT scales with the corpus's own ids and edge order, each undirected edge once: grids,
meshes, paths and road networks arrive numbered along their geometry, as files number
them. SciPy runs on graphs of at most ``--scipy-max-edges`` edges.

Usage::

    python benchmarks/bench_host_input.py --scales 22 24    # GPU machine
    python benchmarks/bench_host_input.py --scales --graphs grid2d-natural road-usa-nw
    python benchmarks/bench_host_input.py --devices cpu --scales 16 --sweep --reps 2
    python benchmarks/bench_host_input.py --scales 22 --sweep --no-memory \
        --entries components,forest,msf,insert,csgraph
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from scipy.sparse.csgraph import connected_components as scipy_cc
from scipy.sparse.csgraph import minimum_spanning_tree as scipy_mst

import concomp
from concomp.bench.host_input import (
    BENCHMARK,
    ENTRIES,
    ENTRY_KEY,
    ENTRY_SCIPY_KEY,
    FILE_BYTES_KEY,
    PARQUET_READ_KEY,
    SCIPY_KEY,
    STREAM_FILE_KEY,
    STREAM_KEY,
    STREAM_SYM_KEY,
    render_markdown,
)
from concomp.bench.results import default_path, machine, source_commit, versions, write
from concomp.csgraph import connected_components as csgraph_cc
from concomp.incremental import IncrementalConnectivity
from concomp.streaming import stream_components
from host_kinds import KINDS, memory_probe, read_file_bytes, save_edges

DEVICES = ("gpu", "auto", "cpu")
_PAIR = "numpy pair int64"
_SCIPY_KINDS = ("scipy csr one direction", "scipy csr symmetric", "scipy coo")
_SYMMETRIC = "scipy csr symmetric"
_FILE = "parquet file"
_AUTO = re.compile(r"device=auto -> (cpu|gpu)")


class _Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


@contextmanager
def dispatch_log() -> Iterator[list[str]]:
    """The ``concomp.dispatch`` debug lines logged inside the block."""
    log, handler = logging.getLogger("concomp.dispatch"), _Lines()
    level = log.level
    log.setLevel(logging.DEBUG)
    log.addHandler(handler)
    try:
        yield handler.lines
    finally:
        log.removeHandler(handler)
        log.setLevel(level)


def timed(fn: Callable[[], Any], reps: int) -> tuple[list[float], Any, str | None]:
    """Times of ``reps`` runs after a warm-up, the last output, and the warm-up's last
    ``device=auto -> ...`` dispatch line (where ``auto`` ran; None if none)."""
    return timed_together({"": fn}, reps)[""]


def timed_together(
    fns: dict[str, Callable[[], Any]], reps: int
) -> dict[str, tuple[list[float], Any, str | None]]:
    """:func:`timed` of several calls, their timed runs interleaved (one of each per
    round, after a warm-up of each): a drift of the machine's speed over the rounds
    reaches every call alike, so that calls running the same code compare equal. Each
    round starts one call further on, so that what a call leaves behind (host threads
    still winding down, caches holding its data) does not always land on the same one."""
    out: dict[str, Any] = {}
    auto: dict[str, str | None] = {}
    for key, fn in fns.items():
        with dispatch_log() as lines:
            out[key] = fn()
        found = [line for line in lines if _AUTO.search(line)]
        auto[key] = found[-1] if found else None
    times: dict[str, list[float]] = {key: [] for key in fns}
    keys = list(fns)
    for r in range(reps):
        for key in keys[r % len(keys) :] + keys[: r % len(keys)]:
            t = time.perf_counter()
            out[key] = fns[key]()
            times[key].append((time.perf_counter() - t) * 1e3)
    return {key: (times[key], out[key], auto[key]) for key in fns}


def timed_apart(
    fns: dict[str, Callable[[], Any]], reps: int
) -> dict[str, tuple[list[float], Any, str | None]]:
    """:func:`timed_together` of the calls other than ``"cpu"``, then of ``"cpu"`` in a
    series of its own: a GPU call that followed a run of the CPU engine (every host core
    just busy) took longer than one that followed a GPU call, which no caller of one
    engine meets; interleaved, that cost would land on the GPU rows."""
    apart = {k: fn for k, fn in fns.items() if k == "cpu"}
    got: dict[str, tuple[list[float], Any, str | None]] = {}
    for series in ({k: fn for k, fn in fns.items() if k not in apart}, apart):
        if series:
            got.update(timed_together(series, reps))
    return {key: got[key] for key in fns}


def auto_device(line: str | None) -> str | None:
    match = _AUTO.search(line or "")
    return match.group(1) if match else None


def count_of(out: Any) -> int:
    return int(out[0] if isinstance(out, tuple) else out)


def gpu_status() -> tuple[bool, str]:
    from concomp._gpu._compat import gpu_status as status

    return status()


def _cupy() -> Any:
    from concomp._gpu._compat import cupy_or_raise

    return cupy_or_raise()


def pinned_bandwidth() -> float:
    """Host-to-device GB/s of one 1 GiB copy from page-locked memory (median of 5)."""
    cp = _cupy()
    import cupyx

    h = cupyx.empty_pinned(1 << 28, np.int32)
    h[:] = 1
    d = cp.empty(1 << 28, np.int32)
    ts = []
    for _ in range(6):
        cp.cuda.Device().synchronize()
        t = time.perf_counter()
        d.set(h)
        cp.cuda.Device().synchronize()
        ts.append(time.perf_counter() - t)
    return h.nbytes / statistics.median(ts[1:]) / 1e9


def _one_way(g: Any, gpu: bool) -> tuple[np.ndarray, np.ndarray]:
    """``g``'s edges as host int64 pairs ``s < d``, each undirected edge once, in the
    order ``g`` lists them; self loops dropped (they join nothing)."""
    s, d = ((a.get() if gpu else np.asarray(a)).astype(np.int64) for a in g.coo())
    if g.symmetric:  # both directions listed: keep one
        keep = s < d
        return s[keep], d[keep]
    s, d = np.minimum(s, d), np.maximum(s, d)
    keep = s != d
    return s[keep], d[keep]


def corpus_host(name: str, gpu: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """Corpus graph ``name`` (:data:`concomp.generators.corpus.CORPUS`, built on the GPU
    when one is usable) as :func:`_one_way` pairs, with the corpus's ids and edge order:
    grids, meshes, paths and road networks keep ids that follow their geometry, as their
    files number them."""
    from concomp.generators.corpus import CORPUS

    g = CORPUS[name].build("gpu" if gpu else "cpu")
    return (*_one_way(g, gpu), g.num_nodes)


def rmat_host(scale: int, seed: int = 1, gpu: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """R-MAT of ``scale`` (edge factor 16) as :func:`_one_way` pairs, shuffled."""
    g = concomp.generators.rmat(scale, 16, seed=seed, device="gpu" if gpu else "cpu")
    s, d = _one_way(g, gpu)
    order = np.random.default_rng(seed).permutation(s.shape[0])
    return s[order], d[order], g.num_nodes


class Run:
    """One invocation: its options, whether a GPU is usable, and the result document."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.gpu_ok, self.gpu_reason = gpu_status()
        self.graphs: dict[str, Any] = {}
        self.sweep_points: list[dict[str, Any]] = []
        self.skipped: list[dict[str, Any]] = []
        self.memory_method: str | None = None

    def skip(self, key: str, reason: str, graph: str | None = None) -> None:
        self.skipped.append({"key": key, "graph": graph, "reason": reason})
        print(f"  skipped {key}: {reason}", flush=True)

    def runs_on(self, device: str, key: str, graph: str | None) -> bool:
        """Whether ``device`` is asked for and usable (recording a skip when not usable)."""
        if device not in self.args.devices:
            return False
        if device == "gpu" and not self.gpu_ok:
            self.skip(key, f"no usable GPU: {self.gpu_reason}", graph)
            return False
        return True

    def record(
        self, row: dict[str, Any], key: str, times: list[float], out: Any, count: int | None = -1
    ) -> None:
        """Store ``times`` under ``key``; the component count (of ``out`` unless given;
        None: not a count, as for a spanning tree's weight) must agree with every row's."""
        count = count_of(out) if count == -1 else count
        if count is not None and row.setdefault("count", count) != count:
            raise SystemExit(f"{key}: {count} components, expected {row['count']}")
        row["times_ms"][key] = times
        print(f"  {key:44s} {statistics.median(times):9.1f} ms", flush=True)

    def graph(self, name: str, s: np.ndarray, d: np.ndarray, n: int, folder: Path) -> None:
        """Every row of one graph: ``s < d``, each undirected edge once, over ``n`` ids."""
        reps = self.args.reps
        row: dict[str, Any] = {"n": n, "m": int(s.shape[0]), "times_ms": {}}
        row.update(bytes_int64_pairs=int(s.nbytes + d.nbytes), bytes_input={}, auto_device={})
        self.graphs[name] = row
        print(f"{name} n={n} m={row['m']}", flush=True)
        cc = "components" in self.args.entries  # its references: streaming, SciPy, memory
        for dev in ("gpu", "cpu") if cc else ():
            key = STREAM_KEY.format(device=dev)
            if self.runs_on(dev, key, name):
                fn = lambda dev=dev: stream_components([(s, d)], n, device=dev)  # noqa: E731
                self.record(row, key, *timed(fn, reps)[:2])
        built = []
        for kind in self.args.kinds:
            try:
                graph, row["bytes_input"][kind] = KINDS[kind](s, d, n, folder)
            except ImportError as exc:
                self.skip(kind, f"not importable ({exc})", name)
                continue
            built.append(kind)
            if cc:
                self.time_kind(row, kind, graph, name)
            self.entries(row, name, kind, graph, s, d)
            if cc and kind == _SYMMETRIC:
                self.scipy(row, name, lambda g=graph: (g, row["bytes_input"][kind]))
                self.stream_symmetric(row, name, graph)
            if cc and kind == _FILE:
                self.stream_file(row, name, graph)
            del graph
        if cc and _SYMMETRIC not in built:
            self.scipy(row, name, lambda: KINDS[_SYMMETRIC](s, d, n, folder))
        if cc and self.args.memory:
            save_edges(folder, s, d)
            self.memory(row, name, folder, built)

    def entries(
        self, row: dict[str, Any], name: str, kind: str, graph: Any, s: np.ndarray, d: np.ndarray
    ) -> None:
        """The entry points other than ``connected_components`` on ``kind`` (see the module
        docstring), with SciPy where SciPy has the function."""
        n, reps, entries = row["n"], self.args.reps, self.args.entries
        w = np.random.default_rng(5).random(s.shape[0])
        calls: dict[str, Callable[[str], tuple[Callable[[], Any], Callable[[Any], int]]]] = {}
        if "forest" in entries:
            calls["forest"] = lambda dev: (
                lambda: concomp.spanning_forest(graph, num_nodes=n, device=dev),
                lambda f: f.num_components,
            )
        if "msf" in entries:
            weights = None if kind in _SCIPY_KINDS else w  # matrices carry their own values
            calls["msf"] = lambda dev: (
                lambda: concomp.minimum_spanning_forest(graph, weights, device=dev),
                lambda f: n - f.num_edges,  # forest edges: n - components, whatever f's n
            )
        if "insert" in entries and kind == _PAIR:
            calls["insert"] = lambda dev: (
                lambda: _insert(s, d, n, dev),
                lambda ic: ic.num_components,
            )
        if "csgraph" in entries and kind in _SCIPY_KINDS:
            calls["csgraph"] = lambda dev: (
                lambda: _with_device(dev, lambda: csgraph_cc(graph, directed=False)),
                count_of,
            )
        for entry, make in calls.items():
            for dev in DEVICES:
                key = ENTRY_KEY.format(entry=entry, kind=kind, device=dev)
                if self.runs_on(dev, key, name):
                    fn, count = make(dev)
                    times, out, auto = timed(fn, reps)
                    self.record(row, key, times, out, count(out))
                    if dev == "auto":
                        row["auto_device"][f"{entry}: {kind}"] = auto_device(auto)
        if "msf" in entries and kind == "scipy csr one direction":
            key = ENTRY_SCIPY_KEY.format(entry="msf", kind=kind)
            self.record(row, key, *timed(lambda: scipy_mst(graph), reps)[:2], None)
        if "csgraph" in entries and kind in _SCIPY_KINDS:
            key = ENTRY_SCIPY_KEY.format(entry="csgraph", kind=kind)
            fn = lambda: scipy_cc(graph, directed=False)  # noqa: E731
            self.record(row, key, *timed(fn, reps)[:2])

    def stream_symmetric(self, row: dict[str, Any], name: str, graph: Any) -> None:
        """``stream_components`` on the symmetric CSR's entries as pairs: the reference for
        that kind (its data hold every edge twice)."""
        rows = np.repeat(np.arange(row["n"], dtype=graph.indices.dtype), np.diff(graph.indptr))
        cols = graph.indices
        for dev in ("gpu", "cpu"):
            key = STREAM_SYM_KEY.format(device=dev)
            if self.runs_on(dev, key, name):
                fn = lambda dev=dev: stream_components([(rows, cols)], row["n"], device=dev)  # noqa: E731
                self.record(row, key, *timed(fn, self.args.reps)[:2])

    def stream_file(self, row: dict[str, Any], name: str, path: str) -> None:
        """``stream_components`` on the Parquet file: the reference for that kind (the
        file's row groups have to be read whichever call reads them)."""
        for dev in ("gpu", "cpu"):
            key = STREAM_FILE_KEY.format(device=dev)
            if self.runs_on(dev, key, name):
                fn = lambda dev=dev: stream_components([path], row["n"], device=dev)  # noqa: E731
                self.record(row, key, *timed(fn, self.args.reps)[:2])
        # the host's floor for reading the file: pyarrow alone, both id columns, all threads
        import pyarrow.parquet as pq

        columns = pq.ParquetFile(path).schema_arrow.names[:2]
        fn = lambda: pq.read_table(path, columns=columns, use_threads=True)  # noqa: E731
        self.record(row, PARQUET_READ_KEY, timed(fn, self.args.reps)[0], None, None)
        # the floor of any reader, one decoding on the device included: the bytes alone
        fn = lambda: read_file_bytes(path)  # noqa: E731
        self.record(row, FILE_BYTES_KEY, timed(fn, self.args.reps)[0], None, None)

    def time_kind(self, row: dict[str, Any], kind: str, graph: Any, name: str) -> None:
        """``connected_components`` on ``kind`` on every device asked for
        (:func:`timed_apart`): ``auto`` and the GPU in one interleaved series, the CPU
        engine in one of its own."""
        n = row["n"]
        fns = {
            dev: lambda dev=dev: concomp.connected_components(graph, num_nodes=n, device=dev)
            for dev in DEVICES
            if self.runs_on(dev, f"{kind} / {dev}", name)
        }
        for dev, (times, out, auto) in timed_apart(fns, self.args.reps).items():
            self.record(row, f"{kind} / {dev}", times, out)
            if dev == "auto":
                row["auto_device"][kind] = auto_device(auto)

    def scipy(self, row: dict[str, Any], name: str, make: Callable) -> None:
        """SciPy on the symmetric CSR ``make()`` returns (with the bytes of its ids), on
        graphs of at most ``--scipy-max-edges`` edges."""
        if row["m"] > self.args.scipy_max_edges:
            self.skip(SCIPY_KEY, f"{row['m']} edges > --scipy-max-edges", name)
            return
        graph, row["bytes_input"][_SYMMETRIC] = make()
        times, out, _ = timed(lambda: scipy_cc(graph, directed=False), self.args.reps)
        self.record(row, SCIPY_KEY, times, out)

    def memory(self, row: dict[str, Any], name: str, folder: Path, kinds: list[str]) -> None:
        if self.gpu_ok:  # the parent's cached device and pinned memory go back first
            _cupy().get_default_memory_pool().free_all_blocks()
            _cupy().get_default_pinned_memory_pool().free_all_blocks()
        row["memory_bytes"] = {}
        probes = [(k, f"{k} / {dev}", dev) for k in kinds for dev in ("gpu", "cpu")]
        if SCIPY_KEY in row["times_ms"]:
            probes.append((SCIPY_KEY, SCIPY_KEY, "cpu"))
        for kind, key, dev in probes:
            if not self.runs_on(dev, f"memory {key}", name):
                continue
            got = probe(kind, dev, folder, row["n"])
            if got["count"] != row["count"]:
                raise SystemExit(f"memory {key}: {got['count']} components, not {row['count']}")
            row["memory_bytes"][key] = got["added_bytes"]
            self.memory_method = got["method"]
            print(f"  memory {key:37s} {got['added_bytes'] / 2**20:9.1f} MiB", flush=True)

    def sweep(self, scale: int, folder: Path) -> None:
        """The CPU engine, the GPU and ``auto`` on R-MAT ``scale`` as each of
        ``--sweep-kinds`` (timed as :meth:`time_kind` times them)."""
        s, d, n = rmat_host(scale, seed=7, gpu=self.gpu_ok)
        for kind in self.args.sweep_kinds:
            try:
                graph, _ = KINDS[kind](s, d, n, folder)
            except ImportError as exc:
                self.skip(f"sweep {kind}", f"not importable ({exc})", f"rmat{scale}")
                continue
            fns = {
                dev: lambda dev=dev, g=graph: concomp.connected_components(
                    g, num_nodes=n, device=dev
                )
                for dev in ("cpu", "gpu", "auto")
                if self.runs_on(dev, f"sweep {kind} / {dev}", f"rmat{scale}")
            }
            for dev, (times, _, auto) in timed_apart(fns, self.args.reps).items():
                point = {"scale": scale, "kind": kind, "m": int(s.shape[0]), "device": dev}
                point["times_ms"] = times
                if dev == "auto":
                    point.update(auto_device=auto_device(auto), auto_reason=auto)
                self.sweep_points.append(point)
                med = statistics.median(times)
                line = f"sweep rmat{scale} {kind} m={s.shape[0]:>10d} {dev:5s} {med:9.2f} ms"
                print(line, flush=True)
            del graph, fns  # the next kind's input is built without this one held


def _insert(s: np.ndarray, d: np.ndarray, n: int, device: str) -> IncrementalConnectivity:
    """A new structure of ``n`` vertices with the pair inserted as one batch."""
    ic = IncrementalConnectivity(n, device=device)
    ic.insert(s, d)
    return ic


def _with_device(device: str, fn: Callable[[], Any]) -> Any:
    """``fn()`` with ``CONCOMP_DEVICE`` set to ``device`` (``concomp.csgraph`` takes no
    ``device``; "auto" unsets it)."""
    old = os.environ.pop("CONCOMP_DEVICE", None)
    if device != "auto":
        os.environ["CONCOMP_DEVICE"] = device
    try:
        return fn()
    finally:
        os.environ.pop("CONCOMP_DEVICE", None)
        if old is not None:
            os.environ["CONCOMP_DEVICE"] = old


def _entries(text: str) -> list[str]:
    names = [e.strip() for e in text.split(",") if e.strip()]
    bad = [e for e in names if e not in ENTRIES]
    if bad or not names:
        raise argparse.ArgumentTypeError(
            f"{text!r}: unknown entry {bad[0] if bad else '(none)'!r}; use a comma-separated "
            f"list of {', '.join(ENTRIES)}"
        )
    return names


def probe(kind: str, device: str, folder: Path, n: int) -> dict[str, Any]:
    """:func:`host_kinds.memory_probe` in a fresh process (this file, ``--memory-probe``)."""
    cmd = [sys.executable, __file__, "--memory-probe", kind, device]
    cmd += ["--probe-dir", str(folder), "--probe-n", str(n)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"memory probe {kind} / {device} failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scales", type=int, nargs="*", default=[22])
    ap.add_argument("--graphs", nargs="*", default=[], metavar="NAME", help="corpus graphs")
    ap.add_argument("--sweep", type=int, nargs="*", default=[14, 16, 18, 20, 22, 24])
    ap.add_argument(
        "--sweep-kinds", nargs="+", choices=list(KINDS), default=[_PAIR], metavar="KIND"
    )
    ap.add_argument("--reps", type=int, default=5)
    # R-MAT scale 22 has 64 M edges; SciPy takes tens of seconds a call above that
    ap.add_argument("--scipy-max-edges", type=int, default=70_000_000)
    ap.add_argument("--devices", nargs="+", choices=DEVICES, default=list(DEVICES))
    ap.add_argument("--kinds", nargs="+", choices=list(KINDS), default=list(KINDS))
    ap.add_argument("--entries", type=_entries, default=["components"])
    ap.add_argument("--memory", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--memory-probe", nargs=2, metavar=("KIND", "DEVICE"), help=argparse.SUPPRESS)
    ap.add_argument("--probe-dir", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--probe-n", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.reps < 1:
        ap.error(f"argument --reps: {args.reps} is not a count >= 1. Fix: pass --reps 5.")
    return args


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    args = parse(argv)
    if args.memory_probe:
        kind, device = args.memory_probe
        print(json.dumps(memory_probe(kind, device, args.probe_dir, args.probe_n)))
        return
    run = Run(args)
    pinned = None
    if run.runs_on("gpu", "pinned_h2d_gbs", None):
        pinned = pinned_bandwidth()
        print(f"pinned host-to-device: {pinned:.1f} GB/s", flush=True)
    label = "gpu" if run.gpu_ok and "gpu" in args.devices else "cpu"
    base = default_path(label)
    path = args.out or base.with_name(f"{base.stem}-host-input.json")

    def save(complete: bool) -> tuple[Path, dict]:
        """The file as it stands (written after every graph: a run cut short keeps its rows)."""
        doc = {
            "benchmark": BENCHMARK,
            "command": shlex.join(["python", "benchmarks/bench_host_input.py", *argv]),
            "commit": source_commit(),
            "machine": machine(label),
            "versions": versions(),
            "devices": args.devices,
            "entries": args.entries,
            "reps": args.reps,
            "memory_method": run.memory_method,
            "pinned_h2d_gbs": pinned,
            "graphs": run.graphs,
            "sweep": run.sweep_points,
            "skipped": run.skipped,
            "complete": complete,
        }
        return write(doc, path), doc

    with tempfile.TemporaryDirectory(prefix="host-input-") as folder:
        for scale in args.scales:
            run.graph(f"rmat{scale}", *rmat_host(scale, gpu=run.gpu_ok), Path(folder))
            save(False)
        for name in args.graphs:
            run.graph(name, *corpus_host(name, gpu=run.gpu_ok), Path(folder))
            save(False)
        sweep_folder = Path(folder) / "sweep"  # its files apart from the graphs' (same n)
        sweep_folder.mkdir()
        for scale in args.sweep:
            run.sweep(scale, sweep_folder)
    out, doc = save(True)
    print()
    print(render_markdown(doc, out.name))
    print(json.dumps({"written": str(out)}))


if __name__ == "__main__":
    main()
