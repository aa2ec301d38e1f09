"""The host-input table of RESULTS.md, from a ``bench_host_input.py`` result file.

``benchmarks/bench_host_input.py`` times ``concomp.connected_components`` on every host
input kind with ``device="gpu"``, ``"auto"`` and ``"cpu"``, next to ``stream_components``
and SciPy, and measures the peak host memory each call adds. Its result file holds, per
graph, ``times_ms`` (every timed run per key ``"<kind> / <device>"``), ``memory_bytes``
(peak added host memory per key), ``bytes_input`` (the bytes of vertex ids each kind
holds; a file's size) and ``auto_device`` (where ``"auto"`` ran each kind), and the
``sweep`` of sizes where ``"auto"`` switches. With ``--entries``, the other entry points
on the same inputs (keys ``"<entry>: <kind> / <device>"``, :data:`ENTRY_KEY`; SciPy's
function where it has one, :data:`ENTRY_SCIPY_KEY`) get a table each, against the
CPU engine and SciPy. :func:`render_markdown` turns it into a
section of RESULTS.md (``python -m concomp.bench.render ... --host-input FILE``); every
number in it is a field of that file or a median of its times.

Examples
--------
>>> from concomp.bench.host_input import render_markdown
>>> doc = {"benchmark": "host-input", "graphs": {"rmat8": {
...     "n": 256, "m": 1000, "count": 3,
...     "times_ms": {"numpy pair int64 / cpu": [2.0, 4.0, 3.0]},
...     "bytes_input": {"numpy pair int64": 16000}}}}
>>> text = render_markdown(doc, "host.json")
>>> print(next(line for line in text.splitlines() if line.startswith("| numpy")))
| numpy pair int64 | cpu | 3.00 | - | 0.01 | - | - |
"""

from __future__ import annotations

import statistics
from typing import Any

from .papers import format_ms

__all__ = [
    "BENCHMARK",
    "ENTRIES",
    "ENTRY_KEY",
    "ENTRY_SCIPY_KEY",
    "SCIPY_KEY",
    "FILE_BYTES_KEY",
    "PARQUET_READ_KEY",
    "STREAM_FILE_KEY",
    "STREAM_KEY",
    "render_markdown",
]

#: The ``benchmark`` field of a host-input result file.
BENCHMARK = "host-input"
#: Key of SciPy's ``connected_components`` on the symmetric CSR.
SCIPY_KEY = "scipy.sparse.csgraph symmetric csr"
#: Key of ``stream_components`` on the NumPy pair, per device.
STREAM_KEY = "stream_components {device}"
#: Key of ``stream_components`` on the symmetric CSR's entries as pairs (each edge
#: twice: the same data the symmetric CSR holds), per device.
STREAM_SYM_KEY = "stream_components {device} symmetric entries"
#: Key of ``stream_components`` on the Parquet file's path (its row groups read as it
#: goes: the same work the file kind's call has to do), per device.
STREAM_FILE_KEY = "stream_components {device} parquet file"
#: Key of ``pyarrow.parquet.read_table`` reading the Parquet file's two id columns on all
#: threads and nothing else: the host's floor for any call that reads that file.
PARQUET_READ_KEY = "pyarrow.parquet.read_table parquet file"
#: Key of reading the Parquet file's bytes alone on all threads (no decoding): the floor
#: of any reader of that file, a decoder on the device included.
FILE_BYTES_KEY = "file bytes read alone parquet file"
#: Entry points ``bench_host_input.py --entries`` times, and the call each one names.
ENTRIES = {
    "components": "connected_components",
    "forest": "spanning_forest",
    "msf": "minimum_spanning_forest",
    "insert": "IncrementalConnectivity.insert",
    "csgraph": "concomp.csgraph.connected_components",
}
#: Key of an entry point other than ``connected_components`` on one kind and device.
ENTRY_KEY = "{entry}: {kind} / {device}"
#: Key of SciPy's function for an entry point (``minimum_spanning_tree``,
#: ``connected_components``) on one kind.
ENTRY_SCIPY_KEY = "{entry}: scipy {kind}"
_ENTRY_PREFIXES = tuple(f"{e}: " for e in ENTRIES)
#: The kind whose bytes a SciPy row reads, the one ``stream_components`` reads, the file.
_SCIPY_KIND, _STREAM_KIND, _FILE_KIND = "scipy csr symmetric", "numpy pair int64", "parquet file"


def _check(result: Any) -> None:
    if not isinstance(result, dict) or not isinstance(result.get("graphs"), dict):
        raise ValueError(
            f"argument `result`: {type(result).__name__} without a `graphs` mapping is not a "
            "host-input result. Fix: pass the JSON that benchmarks/bench_host_input.py wrote."
        )
    if result.get("benchmark", BENCHMARK) != BENCHMARK:
        raise ValueError(
            f"argument `result`: benchmark {result['benchmark']!r} is not {BENCHMARK!r}. "
            "Fix: pass the JSON that benchmarks/bench_host_input.py wrote."
        )


def _median(times: list[float] | None) -> float | None:
    return float(statistics.median(times)) if times else None


def _mib(x: int | None) -> str:
    if x is None:
        return "-"
    mib = x / 2**20
    return f"{mib:.1f} MiB" if abs(mib) < 100 else f"{mib:,.0f} MiB"


def _ratio(a: float | None, b: float | None) -> str:
    return f"{a / b:.2f}" if a is not None and b else "-"


def _bytes(g: dict[str, Any], kind: str) -> int | None:
    nbytes = g.get("bytes_input", {}).get(kind)
    if nbytes is None and kind == _STREAM_KIND:  # files written before bytes_input
        nbytes = g.get("bytes_int64_pairs")
    return nbytes


def _row(
    g: dict[str, Any], key: str, label: str, kind: str, device: str, versus: str | None = None
) -> str | None:
    """One line of a graph's table (``kind``: the input the call reads), or None when
    the key has no times. Its ratio is to streaming the same data on the device it ran
    on, or on ``versus``."""
    ms = _median(g["times_ms"].get(key))
    if ms is None:
        return None
    ran = g.get("auto_device", {}).get(kind) if device == "auto" else device
    ran = versus or ran
    # each input against streaming the same data: the symmetric CSR holds every edge
    # twice, and a file has to be read
    ref = STREAM_KEY
    if kind == _SCIPY_KIND and key != SCIPY_KEY:
        ref = STREAM_SYM_KEY
    elif kind == _FILE_KIND:
        ref = STREAM_FILE_KEY
    times = g["times_ms"].get(ref.format(device=ran)) if ran else None
    if times is None and ran:
        times = g["times_ms"].get(STREAM_KEY.format(device=ran))
    stream = _median(times)
    nbytes = _bytes(g, kind)
    memory = g.get("memory_bytes", {})
    cells = [
        label,
        f"auto ({ran})" if device == "auto" and ran else device,
        format_ms(ms),
        _ratio(ms, stream),
        f"{nbytes / ms / 1e6:.2f}" if nbytes and ms > 0 else "-",
        _mib(memory.get(key)),
        _ratio(memory.get(key), memory.get(SCIPY_KEY)),
    ]
    return "| " + " | ".join(cells) + " |"


def _graph_table(name: str, g: dict[str, Any]) -> list[str]:
    count = f", {g['count']:,} components" if "count" in g else ""
    head = [
        f"### {name}: n = {g['n']:,}, m = {g['m']:,}{count}",
        "",
        "| input | device | median ms | / stream_components | input GB/s "
        "| host memory added | / SciPy's |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    lines = [
        _row(g, STREAM_KEY.format(device=d), "stream_components (numpy pair)", _STREAM_KIND, d)
        for d in ("gpu", "cpu")
    ]
    lines += [
        _row(g, STREAM_SYM_KEY.format(device=d), "stream_components (symmetric entries)",
             _SCIPY_KIND, d)
        for d in ("gpu", "cpu")
    ]  # fmt: skip
    lines += [
        _row(g, STREAM_FILE_KEY.format(device=d), "stream_components (parquet file)", _FILE_KIND, d)
        for d in ("gpu", "cpu")
    ]
    # the host's floor for the file, against streaming it on the GPU
    lines.append(
        _row(
            g, PARQUET_READ_KEY, "pyarrow read_table alone (parquet file)", _FILE_KIND, "cpu", "gpu"
        )
    )
    lines.append(
        _row(g, FILE_BYTES_KEY, "file bytes read alone (parquet file)", _FILE_KIND, "cpu", "gpu")
    )
    kinds = dict.fromkeys(
        k.rsplit(" / ", 1)[0]
        for k in g["times_ms"]
        if " / " in k and not k.startswith(_ENTRY_PREFIXES)
    )
    for kind in kinds:
        lines += [_row(g, f"{kind} / {d}", kind, kind, d) for d in ("gpu", "auto", "cpu")]
    lines.append(_row(g, SCIPY_KEY, "SciPy csgraph (symmetric csr)", _SCIPY_KIND, "cpu"))
    return head + [line for line in lines if line is not None]


def _entry_table(name: str, g: dict[str, Any], entry: str) -> list[str]:
    """The rows of one entry point other than ``connected_components``: per kind and
    device the median, its ratio to the CPU engine on the same kind, and to SciPy's
    function on that kind where it has one (or on the one kind SciPy ran)."""
    prefix = f"{entry}: "
    times = {k.removeprefix(prefix): v for k, v in g["times_ms"].items() if k.startswith(prefix)}
    scipy = {
        k.removeprefix("scipy "): v
        for k, v in times.items()
        if k.startswith("scipy ") and " / " not in k
    }
    kinds = dict.fromkeys(k.rsplit(" / ", 1)[0] for k in times if " / " in k)
    lines = [
        f"### {name}: `{ENTRIES[entry]}`",
        "",
        "| input | device | median ms | / CPU engine | / SciPy | input GB/s |",
        "|---|---|---:|---:|---:|---:|",
    ]
    only_scipy = _median(next(iter(scipy.values()))) if len(scipy) == 1 else None
    for kind in kinds:
        cpu = _median(times.get(f"{kind} / cpu"))
        ref = _median(scipy[kind]) if kind in scipy else only_scipy
        nbytes = _bytes(g, kind)
        for device in ("gpu", "auto", "cpu"):
            ms = _median(times.get(f"{kind} / {device}"))
            if ms is None:
                continue
            ran = g.get("auto_device", {}).get(f"{prefix}{kind}")
            cells = [
                kind,
                (f"auto ({ran})" if ran else "auto") if device == "auto" else device,
                format_ms(ms),
                _ratio(ms, cpu),
                _ratio(ms, ref),
                f"{nbytes / ms / 1e6:.2f}" if nbytes and ms > 0 else "-",
            ]
            lines.append("| " + " | ".join(cells) + " |")
    for kind, t in scipy.items():
        lines.append(f"| SciPy ({kind}) | cpu | {format_ms(_median(t))} | - | 1.00 | - |")
    return lines


def _sweep_table(sweep: list[dict[str, Any]]) -> list[str]:
    # points without a kind come from files written before the sweep took kinds
    by: dict[tuple[str, int], dict[str, Any]] = {}
    for p in sweep:
        key = (p.get("kind", "numpy pair int64"), p["scale"])
        by.setdefault(key, {"m": p["m"]})[p["device"]] = p
    out = [
        "| input | graph | m | cpu ms | gpu ms | auto ms | auto ran on |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for (kind, scale), cells in sorted(by.items()):
        ms = [
            format_ms(_median(cells[d]["times_ms"])) if d in cells else "-"
            for d in ("cpu", "gpu", "auto")
        ]
        chose = cells.get("auto", {}).get("auto_device") or "-"
        row = [kind, f"rmat{scale}", f"{cells['m']:,}", *ms, chose]
        out.append("| " + " | ".join(row) + " |")
    return out


def _machine(result: dict[str, Any]) -> list[str]:
    m = result.get("machine") or {}
    lines = [f"- CPU: {m['cpu']}, {m['cores']} cores"] if "cpu" in m else []
    if m.get("gpu"):
        lines.append(f"- GPU: {m['gpu']['name']}")
    if result.get("commit"):
        lines.append(f"- commit: {result['commit']}")
    return lines


def _skipped(skipped: list[dict[str, Any]]) -> list[str]:
    """What was not run, one line per reason (a missing GPU skips many keys at once)."""
    by: dict[str, list[str]] = {}
    for s in skipped:
        where = f" ({s['graph']})" if s.get("graph") else ""
        by.setdefault(s["reason"], []).append(f"{s['key']}{where}")
    if not by:
        return []
    return ["", "Not run:", "", *(f"- {', '.join(keys)}: {why}" for why, keys in by.items())]


def render_markdown(result: dict[str, Any], name: str | None = None) -> str:
    """The host-input section of RESULTS.md for the result document ``result``.

    Parameters
    ----------
    result : dict
        A result document written by ``benchmarks/bench_host_input.py``.
    name : str, optional
        The file it was read from, named in the section's first lines.

    Returns
    -------
    str
        Markdown: per graph, a row per input kind and device (median ms, the ratio to
        ``stream_components`` on the device that ran the call, the input's bytes per
        second, the peak host memory the call added and its ratio to SciPy's); a table
        per other entry point timed (median ms, the ratios to the CPU engine and to
        SciPy, the input's bytes per second); the size sweep of ``device="auto"`` and
        what was not run, with the reason.

    Raises
    ------
    ValueError
        ``result`` is not a host-input result document.
    """
    _check(result)
    source = f"`{name}`" if name else "a bench_host_input.py result file"
    out = [
        "## Host input: the public calls on host data",
        "",
        f"Rendered from {source}.",
        "Every number is a field of that file or a median of its timed runs (wall clock,",
        "labels back on the host). Input GB/s: the bytes of vertex ids the input holds (a",
        "file: its size) over the median. Host memory added: the peak resident memory of a",
        "fresh process during one call over its resident memory before it, with the input",
        "built and the engine warmed up on a tiny graph.",
        "",
    ]
    if result.get("command"):
        out += [f"- command: `{result['command']}`"]
    out += _machine(result)
    gbs = result.get("pinned_h2d_gbs")
    out += [f"- pinned host-to-device: {gbs:.1f} GB/s" if gbs else "- pinned host-to-device: -"]
    for gname, g in result["graphs"].items():
        if any(not k.startswith(_ENTRY_PREFIXES) for k in g["times_ms"]):
            out += ["", *_graph_table(gname, g)]
        for entry in ENTRIES:
            if any(k.startswith(f"{entry}: ") for k in g["times_ms"]):
                out += ["", *_entry_table(gname, g, entry)]
    if result.get("sweep"):
        out += ["", '### Where `device="auto"` switches (R-MAT graphs of growing size)', ""]
        out += _sweep_table(result["sweep"])
    out += _skipped(result.get("skipped") or [])
    return "\n".join(out) + "\n"
