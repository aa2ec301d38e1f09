"""The CUDA C++ sources in ``cuda/``, as NVRTC compiles them (no CuPy needed here).

:mod:`concomp._gpu._compile` compiles them through CuPy; the CPU-side compile test
builds them with nvcc; :mod:`concomp._gpu.checks` compiles its own kernels from
here without the kernel getter (it is reached from the engine-neutral input
checks, below the modules that launch the engine's kernels).
"""

from __future__ import annotations

import functools
from pathlib import Path

__all__ = ["CUDA_DIR", "NVRTC_OPTIONS", "source_text"]

CUDA_DIR = Path(__file__).with_name("cuda")
#: Options shared by NVRTC (here) and nvcc (the CPU-side compile test).
NVRTC_OPTIONS = ("--std=c++17", "-DCONCOMP_NVRTC")


@functools.cache
def source_text(filename: str) -> str:
    """The source of ``cuda/<filename>`` with local ``#include "x.cuh"`` lines inlined.

    Inlining keeps NVRTC independent of include paths inside installed wheels.
    Each header is inlined once, where it is first included (``#pragma once``).
    """
    return "\n".join(_inline(filename, set()))


def _inline(filename: str, seen: set[str]) -> list[str]:
    out = []
    for line in (CUDA_DIR / filename).read_text().splitlines():
        s = line.strip()
        if s == "#pragma once":
            continue
        if s.startswith('#include "') and s.endswith('"'):
            header = s[len('#include "') : -1]
            if header not in seen:
                seen.add(header)
                out.extend(_inline(header, seen))
        else:
            out.append(line)
    return out
