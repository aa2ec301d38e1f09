"""Published GPU codes run beside concomp: their input files, their runs, their own timers.

The peers are built outside the repository by ``benchmarks/peers/build.sh`` (sources,
commits, flags, patches and what each binary times: ``benchmarks/peers/README.md``).
This module finds the binaries (:func:`available`), writes one graph in every input
format they read (:func:`write_inputs`), runs a peer on it and parses the time its own
timer printed and its result (:func:`run_cc`, :func:`run_msf`, :func:`run_incremental`,
:func:`run_scc`). A run that fails, times out or prints nothing parsable raises
:class:`PeerError` naming the peer, the command and the tail of its output.

Afforest repeats its kernel inside one process: it runs once with ``reps + 1`` trials and
the first is dropped as warm-up. The others time one run per process: they run
``reps + 1`` times and the first process is the warm-up. Every process gets
``CUDA_MODULE_LOADING=EAGER``, so that no kernel module is loaded inside a timed region,
and the largest stack the hard limit allows (ECL-CC checks its result recursively).

Examples
--------
>>> import tempfile
>>> import numpy as np
>>> files = write_inputs(np.array([0, 1, 2, 2]), np.array([1, 0]), 3, None, tempfile.mkdtemp())
>>> files.egr.read_bytes()[:8] == np.array([3, 2], "<i4").tobytes()
True
>>> parse_output("ecl-scc", "compute time: 0.000125 s\\n\\nnumber of SCCs: 7\\n")
((0.125,), 7)
"""

from __future__ import annotations

import os
import re
import resource
import shlex
import statistics
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from concomp.errors import ConcompError

__all__ = [
    "PEERS",
    "PeerError",
    "PeerFiles",
    "PeerRun",
    "available",
    "parse_output",
    "run_cc",
    "run_incremental",
    "run_msf",
    "run_scc",
    "write_inputs",
    "simple_csr",
]

#: Seconds one peer process may run before it is stopped.
TIMEOUT_S = 600.0
#: Characters of a peer's output kept in :attr:`PeerRun.raw_tail` and in error messages.
TAIL_CHARS = 1500
#: The ECL codes and GConn hold vertex and edge counts in 32-bit ints.
_INT32_MAX = 2**31 - 1


class PeerError(ConcompError, RuntimeError):
    """A peer binary is missing, failed, timed out or printed no usable result."""


@dataclass(frozen=True)
class PeerFiles:
    """One graph in the peers' input formats (``None``: that file was not written).

    ``egr`` / ``egr_weighted``: ECL's binary CSR (ECL-CC, ECL-SCC / ECL-MST); ``sg``:
    the GAP benchmark's serialized graph (Afforest); ``mtx``: GConn's Matrix Market
    header, beside which its binary edge lists lie (``mtx`` + ``.sorted``,
    ``.unsorted`` and their ``_e`` counts); ``gconn_batch_edges``: the directed edges of
    GConn's incremental batch.
    """

    folder: Path
    num_nodes: int
    num_entries: int
    egr: Path | None
    egr_weighted: Path | None
    sg: Path | None
    mtx: Path | None
    gconn_batch_edges: int


@dataclass(frozen=True)
class PeerRun:
    """One peer on one graph: its own timer's readings (ms) and its result.

    ``result`` is the number of components (``cc``, ``incremental``), the weight of the
    minimum spanning forest (``msf``) or the number of strongly connected components
    (``scc``); ``raw_tail`` is the end of the last run's output.
    """

    peer: str
    problem: str
    times_ms: tuple[float, ...]
    median_ms: float
    result: int
    raw_tail: str


# ----------------------------------------------------------------------------- inputs


def _check_csr(
    indptr: np.ndarray, indices: np.ndarray, num_nodes: int, weights: np.ndarray | None
) -> tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]:
    if isinstance(num_nodes, bool) or not isinstance(num_nodes, (int, np.integer)):
        raise TypeError(f"num_nodes={num_nodes!r} must be an integer")
    n = int(num_nodes)
    if not 1 <= n <= _INT32_MAX:
        raise ValueError(f"num_nodes={n} must be in [1, 2**31 - 1]: the peers read 32-bit ids")
    arrays = {"indptr": np.asarray(indptr), "indices": np.asarray(indices)}
    if weights is not None:
        arrays["weights"] = np.asarray(weights)
    for name, a in arrays.items():
        if a.ndim != 1 or a.dtype.kind not in "iu":
            raise ValueError(
                f"{name} must be a 1-D integer array, got dtype {a.dtype} and shape {a.shape}"
            )
    ptr, idx = arrays["indptr"].astype(np.int64), arrays["indices"].astype(np.int64)
    nnz = idx.size
    if ptr.size != n + 1 or ptr[0] != 0 or ptr[-1] != nnz or np.any(np.diff(ptr) < 0):
        got = f"{ptr.size} entries" + (f" from {ptr[0]} to {ptr[-1]}" if ptr.size else "")
        raise ValueError(
            f"indptr must hold num_nodes + 1 = {n + 1} nondecreasing entries from 0 to "
            f"len(indices) = {nnz}; got {got}"
        )
    if nnz > _INT32_MAX:
        raise ValueError(f"len(indices)={nnz} exceeds 2**31 - 1, the peers' 32-bit edge count")
    if nnz and (idx.min() < 0 or idx.max() >= n):
        raise ValueError(f"indices must lie in [0, num_nodes={n}); found {idx.min()}..{idx.max()}")
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    loops = np.flatnonzero(rows == idx)
    in_row = np.ones(max(nnz - 1, 0), dtype=bool)
    ends = ptr[1:-1]
    in_row[ends[(ends > 0) & (ends < nnz)] - 1] = False
    unsorted = np.flatnonzero((np.diff(idx) <= 0) & in_row)
    if loops.size or unsorted.size:
        where = f"self loop at entry {loops[0]}" if loops.size else f"entry {unsorted[0] + 1}"
        raise ValueError(
            f"indices must be strictly increasing within each row, without self loops "
            f"(GConn's edge files are sorted and deduplicated); {where} breaks this. Fix: "
            "csr.sum_duplicates(); csr.setdiag(0); csr.eliminate_zeros() in SciPy"
        )
    w = None
    if weights is not None:
        w = arrays["weights"].astype(np.int64)
        if w.size != nnz or (nnz and (w.min() < 0 or w.max() > _INT32_MAX)):
            got = f"{w.size} values" + (f" in {w.min()}..{w.max()}" if w.size else "")
            raise ValueError(
                f"weights must hold len(indices) = {nnz} integers in [0, 2**31 - 1] (ECL-MST "
                f"packs them into unsigned keys); got {got}"
            )
    return n, ptr, idx, rows, w


def simple_csr(indptr: np.ndarray, indices: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The CSR with every row sorted, duplicate entries and self loops removed (what
    :func:`write_inputs` requires; reachability, so the strongly connected components
    of a directed CSR, is unchanged).

    Examples
    --------
    >>> ptr, idx = simple_csr(np.array([0, 3, 4, 4]), np.array([2, 0, 2, 1]))
    >>> ptr.tolist(), idx.tolist()
    ([0, 1, 1, 1], [2])
    """
    ptr, idx = np.asarray(indptr, np.int64), np.asarray(indices, np.int64)
    n = ptr.size - 1
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ptr))
    keys = np.unique(rows[rows != idx] * max(n, 1) + idx[rows != idx])
    rows, cols = keys // max(n, 1), keys % max(n, 1)
    out = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=n), out=out[1:])
    return out, cols


def write_inputs(
    indptr: np.ndarray,
    indices: np.ndarray,
    num_nodes: int,
    weights: np.ndarray | None,
    folder: str | os.PathLike[str],
    *,
    formats: Sequence[str] = ("ecl", "gapbs", "gconn"),
) -> PeerFiles:
    """Write one graph, given as host CSR, in the input formats of the peers.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        CSR of the graph: rows sorted, no duplicate entries, no self loops. The
        connected-components peers need it symmetric (each edge in both rows); ECL-SCC
        reads it as the directed graph.
    num_nodes : int
        Number of vertices, at least 1.
    weights : numpy.ndarray or None
        Integer weight per CSR entry in [0, 2**31 - 1], the same in both directions of an
        edge; given, ``egr_weighted`` is written for ECL-MST.
    folder : path
        Where the files go (created if missing); one call per graph serves every peer.
    formats : sequence of {"ecl", "gapbs", "gconn"}
        Which formats to write: ``graph.egr`` (+ ``graph.w.egr``), ``graph.sg``,
        ``graph.mtx`` with GConn's edge lists.
    """
    unknown = set(formats) - {"ecl", "gapbs", "gconn"}
    if unknown:
        raise ValueError(
            f"formats={tuple(formats)!r}: unknown {sorted(unknown)}; use ecl, gapbs, gconn"
        )
    n, ptr, idx, rows, w = _check_csr(indptr, indices, num_nodes, weights)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    egr = egr_w = sg = mtx = None
    batch = 0
    if "ecl" in formats:
        egr = _write_egr(out / "graph.egr", n, ptr, idx, None)
        if w is not None:
            egr_w = _write_egr(out / "graph.w.egr", n, ptr, idx, w)
    if "gapbs" in formats:
        sg = _write_sg(out / "graph.sg", n, ptr, idx)
    if "gconn" in formats:
        mtx, batch = _write_gconn(out / "graph.mtx", n, rows, idx)
    return PeerFiles(out, n, int(idx.size), egr, egr_w, sg, mtx, batch)


def _write_egr(path: Path, n: int, ptr, idx, weights) -> Path:
    # ECLgraph.h: int32 nodes, int32 edges, int32 nindex[nodes + 1], int32 nlist[edges],
    # then int32 eweight[edges] if the file holds weights.
    with open(path, "wb") as f:
        np.array([n, idx.size], "<i4").tofile(f)
        ptr.astype("<i4").tofile(f)
        idx.astype("<i4").tofile(f)
        if weights is not None:
            weights.astype("<i4").tofile(f)
    return path


def _write_sg(path: Path, n: int, ptr, idx) -> Path:
    # GAP's reader.h ReadSerializedGraph: bool directed, int64 num_edges (CSR entries),
    # int64 num_nodes, int64 offsets[num_nodes + 1], int32 neighbors[num_edges].
    with open(path, "wb") as f:
        np.array([0], "u1").tofile(f)
        np.array([idx.size, n], "<i8").tofile(f)
        ptr.astype("<i8").tofile(f)
        idx.astype("<i4").tofile(f)
    return path


def _write_gconn(path: Path, n: int, rows, idx) -> tuple[Path, int]:
    # GConn's gen_graph.cu reads V from the Matrix Market size line, then the edge list
    # that its own converter (mtx_parse_write) would have cached beside the file:
    # PATH.sorted = (src, dst) uint32 pairs sorted, both directions (CSR, SAMPLE);
    # PATH.unsorted = the file's edges then their reverses (COO); PATH.*_e = the count.
    # It allocates (2 * header count + 1 + V) pairs, so the header count covers both.
    upper = idx > rows
    pairs = np.column_stack([rows, idx]).astype("<u4")
    batch = np.concatenate(
        [np.column_stack([rows[upper], idx[upper]]), np.column_stack([idx[upper], rows[upper]])]
    ).astype("<u4")
    header_edges = max((idx.size + 1) // 2, int(upper.sum()))
    path.write_text(f"%%MatrixMarket matrix coordinate pattern symmetric\n{n} {n} {header_edges}\n")
    pairs.tofile(f"{path}.sorted")
    Path(f"{path}.sorted_e").write_text(str(len(pairs)))
    batch.tofile(f"{path}.unsorted")
    Path(f"{path}.unsorted_e").write_text(str(len(batch)))
    return path, len(batch)


# ----------------------------------------------------------------------------- peers


@dataclass(frozen=True)
class _Peer:
    binary: str
    problem: str
    family: str
    args: Callable[[PeerFiles, int], list[str]]
    internal_trials: bool = False


def _file(files: PeerFiles, name: str) -> str:
    path = getattr(files, name)
    if path is None:
        raise PeerError(
            f"files.{name} is None: write_inputs wrote no such file in {files.folder}; call it "
            "with that format in formats= (and with weights for the weighted ECL file)"
        )
    return str(path)


def _gconn(fmt: str, algo: str) -> Callable[[PeerFiles, int], list[str]]:
    return lambda f, trials: [_file(f, "mtx"), "SYM", fmt, algo]


_PEERS: dict[str, _Peer] = {
    "ecl-cc": _Peer("ecl-cc", "cc", "ecl-cc", lambda f, t: [_file(f, "egr"), "1"]),
    "afforest": _Peer(
        "afforest", "cc", "afforest", lambda f, t: ["-f", _file(f, "sg"), "-n", str(t), "-a"], True
    ),
    "gconn-kout": _Peer("gconn-cc", "cc", "gconn", _gconn("SAMPLE", "ASYNC_A_HALVE")),
    "gconn-nosample": _Peer("gconn-cc", "cc", "gconn", _gconn("CSR", "ASYNC_COMPRESS")),
    "gconn-inc": _Peer("gconn-inc", "incremental", "gconn", _gconn("COO", "ASYNC_A_SPLIT")),
    "ecl-mst": _Peer("ecl-mst", "msf", "ecl-mst", lambda f, t: [_file(f, "egr_weighted")]),
    "ecl-scc": _Peer("ecl-scc", "scc", "ecl-scc", lambda f, t: [_file(f, "egr")]),
}
#: Peer name -> the problem it solves: ``cc``, ``msf``, ``incremental`` or ``scc``.
PEERS: dict[str, str] = {name: peer.problem for name, peer in _PEERS.items()}


def available(bin_dir: str | os.PathLike[str]) -> dict[str, Path]:
    """The peers whose binary ``build.sh`` left in ``bin_dir``: peer name -> binary.

    GConn's two static variants share one binary.
    """
    found = {}
    for name, peer in _PEERS.items():
        path = Path(bin_dir) / peer.binary
        if path.is_file() and os.access(path, os.X_OK):
            found[name] = path
    return found


# What each peer prints, as its printf / cout statements write it (the README quotes them).
_NUM = r"([0-9]+(?:\.[0-9]*)?(?:[eE][-+]?[0-9]+)?)"
_TIME_S = {
    "ecl-cc": rf"^Average kernel execution time: {_NUM} s$",
    "afforest": rf"^Trial Time:\s+{_NUM}$",
    "ecl-mst": rf"^Dev[+-]:\s+{_NUM} s$",
    "ecl-scc": rf"^compute time: {_NUM} s$",
}
_RESULT = {
    "ecl-cc": r"^number of connected components: (\d+)$",
    "afforest": r"^There are (\d+) components$",
    "gconn": r"^(\d+),$",
    "ecl-mst": r"^GPU MST weight: (\d+)$",
    "ecl-scc": r"^number of SCCs: (\d+)$",
}
#: A line the peer prints when its own check of its result failed.
_FAILED = {"ecl-cc": r"^FAIL$", "ecl-mst": r"^ERROR: results differ!$"}


def parse_output(
    peer: str, stdout: str, stderr: str = "", *, batch_edges: int | None = None
) -> tuple[tuple[float, ...], int]:
    """Times (ms, in printed order) and the result from one process's output.

    GConn prints its time as the last ``%f,`` on stdout and its component count on
    stderr; its incremental build prints throughput (edges / ms / 1e6), which
    ``batch_edges`` (:attr:`PeerFiles.gconn_batch_edges`) turns back into ms.
    Raises ``ValueError`` when the output lacks a time or a result, when a time is not
    positive or a count is 0 (no GPU work was done), or when the peer's own check of its
    result failed.
    """
    family = _peer(peer, None).family
    if family in _FAILED and re.search(_FAILED[family], stdout, re.MULTILINE):
        raise ValueError(f"{peer} reports that its own check of its result failed")
    if family == "gconn":
        last = re.search(rf"{_NUM},\s*$", stdout)
        times = [float(last.group(1))] if last else []
        if times and peer == "gconn-inc":
            if not batch_edges or not times[0]:
                raise ValueError(
                    f"GConn's throughput {times[0]} with batch_edges={batch_edges} gives no "
                    "time: pass files.gconn_batch_edges of a graph with edges"
                )
            times = [batch_edges / (times[0] * 1e6)]
        results = re.findall(_RESULT[family], stderr, re.MULTILINE)
    else:
        times = [1e3 * float(t) for t in re.findall(_TIME_S[family], stdout, re.MULTILINE)]
        results = re.findall(_RESULT[family], stdout, re.MULTILINE)
    if not times:
        raise ValueError(f"no time in {peer}'s output")
    if not results:
        raise ValueError(f"no result in {peer}'s output (pattern {_RESULT[family]!r})")
    result = int(results[-1])
    # GConn checks no CUDA call: without a working GPU it prints a time of 0 and 0 roots.
    if min(times) <= 0 or (result == 0 and _PEERS[peer].problem != "msf"):
        raise ValueError(
            f"{peer} printed time(s) {times} ms and result {result}: no GPU work was done "
            "(a CUDA error the peer does not check?)"
        )
    return tuple(times), result


def _peer(name: str, problem: str | None) -> _Peer:
    peer = _PEERS.get(name)
    if peer is None or problem not in (None, peer.problem):
        legal = sorted(n for n, p in _PEERS.items() if problem in (None, p.problem))
        raise ValueError(f"peer={name!r} is not a {problem or 'known'} peer; use one of {legal}")
    return peer


def _raise_stack_limit() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_STACK)
    resource.setrlimit(resource.RLIMIT_STACK, (hard, hard))


def _error(peer: str, cmd: Sequence[str], what: str, output: str) -> PeerError:
    tail = output[-TAIL_CHARS:] if output.strip() else "(no output)"
    return PeerError(f"peer {peer!r} {what}\ncommand: {shlex.join(cmd)}\noutput tail:\n{tail}")


def _execute(peer: str, cmd: Sequence[str], timeout_s: float) -> tuple[str, str]:
    """Run one process to completion; its stdout and stderr."""
    try:
        done = subprocess.run(
            cmd,
            capture_output=True,
            timeout=timeout_s,
            env={**os.environ, "CUDA_MODULE_LOADING": "EAGER"},
            preexec_fn=_raise_stack_limit,
        )
    except subprocess.TimeoutExpired as exc:
        out = b"".join(s for s in (exc.stdout, exc.stderr) if isinstance(s, bytes))
        why = f"timed out after {timeout_s:g} s"
        raise _error(peer, cmd, why, out.decode(errors="replace")) from None
    except OSError as exc:
        raise _error(peer, cmd, f"could not start: {exc}", "") from None
    stdout, stderr = (b.decode(errors="replace") for b in (done.stdout, done.stderr))
    if done.returncode != 0:
        raise _error(peer, cmd, f"exited with status {done.returncode}", stdout + stderr)
    return stdout, stderr


def _run(
    name: str,
    problem: str,
    files: PeerFiles,
    reps: int,
    bin_dir: str | os.PathLike[str],
    timeout_s: float,
) -> PeerRun:
    peer = _peer(name, problem)
    if isinstance(reps, bool) or not isinstance(reps, int) or reps < 1:
        raise ValueError(f"reps={reps!r} must be a positive integer (timed runs after a warm-up)")
    binary = available(bin_dir).get(name)
    if binary is None:
        raise PeerError(
            f"peer {name!r}: no executable {peer.binary!r} in bin_dir={os.fspath(bin_dir)!r}; "
            "build it with: bash benchmarks/peers/build.sh SRC_DIR BIN_DIR"
        )
    cmd = [str(binary), *peer.args(files, reps + 1)]
    times: list[float] = []
    results = []
    for i in range(1 if peer.internal_trials else reps + 1):
        stdout, stderr = _execute(name, cmd, timeout_s)
        try:
            got, result = parse_output(name, stdout, stderr, batch_edges=files.gconn_batch_edges)
            if peer.internal_trials and len(got) != reps + 1:
                raise ValueError(f"{len(got)} trial times printed, {reps + 1} asked for")
        except ValueError as exc:
            raise _error(name, cmd, f"printed no usable result: {exc}", stdout + stderr) from None
        results.append(result)
        if peer.internal_trials:
            times.extend(got[1:])  # its first trial is the warm-up
        elif i > 0:  # the first process is the warm-up
            times.extend(got)
    tail = (stdout + stderr)[-TAIL_CHARS:]
    if len(set(results)) != 1:
        raise _error(name, cmd, f"gave different results run to run: {results}", tail)
    return PeerRun(name, problem, tuple(times), statistics.median(times), results[0], tail)


def run_cc(
    peer: str,
    files: PeerFiles,
    reps: int = 5,
    *,
    bin_dir: str | os.PathLike[str],
    timeout_s: float = TIMEOUT_S,
) -> PeerRun:
    """Static connected components of a symmetric graph: ``ecl-cc``, ``afforest``,
    ``gconn-kout`` (k-out sampling + Union-Async, atomic halving) or ``gconn-nosample``
    (CSR, Union-Async, full compression)."""
    return _run(peer, "cc", files, reps, bin_dir, timeout_s)


def run_msf(
    peer: str,
    files: PeerFiles,
    reps: int = 5,
    *,
    bin_dir: str | os.PathLike[str],
    timeout_s: float = TIMEOUT_S,
) -> PeerRun:
    """Weight of the minimum spanning forest: ``ecl-mst`` (``files`` written with weights)."""
    return _run(peer, "msf", files, reps, bin_dir, timeout_s)


def run_incremental(
    peer: str,
    files: PeerFiles,
    reps: int = 5,
    *,
    bin_dir: str | os.PathLike[str],
    timeout_s: float = TIMEOUT_S,
) -> PeerRun:
    """Every edge, both directions, inserted as one batch: ``gconn-inc`` (Union-Async,
    atomic splitting, COO); the result is the number of components."""
    return _run(peer, "incremental", files, reps, bin_dir, timeout_s)


def run_scc(
    peer: str,
    files: PeerFiles,
    reps: int = 5,
    *,
    bin_dir: str | os.PathLike[str],
    timeout_s: float = TIMEOUT_S,
) -> PeerRun:
    """Strongly connected components of the directed CSR written by :func:`write_inputs`:
    ``ecl-scc``."""
    return _run(peer, "scc", files, reps, bin_dir, timeout_s)
