"""The result file of a run: where it goes, and the machine and versions it records.

One file per run, ``benchmarks/results/<YYYY-MM-DD>-<gpu|cpu>-<commit>.json``, where
``commit`` is ``git rev-parse --short HEAD`` of the source tree, with ``-dirty`` when
tracked files differ from it. A second run of the same day, device and commit gets
``-2``, ``-3``, ...: no run overwrites another.
"""

from __future__ import annotations

import datetime
import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA", "source_commit", "default_path", "machine", "versions", "write"]

#: Version of the result file layout (readers check it).
SCHEMA = 1
_SRC = Path(__file__).resolve().parents[2]


def _git(*args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(_SRC), *args], capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def source_commit() -> str:
    """Short commit of the source tree, ``-dirty`` if tracked files changed ("unknown"
    outside a git checkout)."""
    head = _git("rev-parse", "--short", "HEAD")
    if not head:
        return "unknown"
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return f"{head}-dirty" if dirty else head


def repository_root() -> Path:
    """The checkout holding the package (the working directory outside one)."""
    top = _git("rev-parse", "--show-toplevel")
    return Path(top) if top else Path.cwd()


def default_path(device: str, today: datetime.date | None = None) -> Path:
    """``<repo>/benchmarks/results/<date>-<device>-<commit>.json``, made unique."""
    day = (today or datetime.date.today()).isoformat()
    folder = repository_root() / "benchmarks" / "results"
    stem = f"{day}-{device}-{source_commit()}"
    path, k = folder / f"{stem}.json", 2
    while path.exists():
        path, k = folder / f"{stem}-{k}.json", k + 1
    return path


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_bytes() -> int | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def _numba_threads() -> int | None:
    """Threads the CPU engine's parallel kernels use (``NUMBA_NUM_THREADS``)."""
    try:
        import numba
    except ImportError:
        return None
    return int(numba.get_num_threads())


def machine(device: str) -> dict[str, Any]:
    """CPU model, cores, memory and, for GPU runs, the GPU and its driver."""
    out: dict[str, Any] = {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "memory_bytes": _memory_bytes(),
        "platform": platform.platform(),
        "numba_threads": _numba_threads(),
    }
    if device == "gpu":
        from .._gpu._compat import cupy_or_raise, device_info

        cupy = cupy_or_raise()
        info = device_info()
        rt = cupy.cuda.runtime
        out["gpu"] = {
            "name": info["name"],
            "sm_count": info["sm_count"],
            "l2_bytes": info["l2_bytes"],
            "memory_bytes": info["total_mem"],
            "compute_capability": list(info["cc"]),
            "driver": rt.driverGetVersion(),
            "runtime": rt.runtimeGetVersion(),
        }
    return out


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def versions(peer_sources: list[str] | None = None) -> dict[str, Any]:
    """Python, the libraries timed or used, concomp (version and commit), peers' sources."""
    from .. import __version__

    out: dict[str, Any] = {"python": sys.version.split()[0]}
    for dist in ("numpy", "scipy", "numba", "networkx", "igraph", "networkit"):
        out[dist] = _version(dist)
    out["cupy"] = _version("cupy") or _version("cupy-cuda12x") or _version("cupy-cuda13x")
    out["concomp"] = __version__
    out["concomp_commit"] = source_commit()
    if peer_sources is not None:
        out["peers"] = peer_sources
    return out


def write(document: dict[str, Any], path: Path) -> Path:
    """Write the result document as indented JSON (folders made as needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return path
