"""Kernel getter: CUDA C++ sources in ``cuda/`` compiled by NVRTC through CuPy.

Templates are instantiated lazily with ``RawModule(name_expressions=...)``, one
module per kernel a call actually launches (not the whole family a driver could
launch), built by :mod:`concomp._gpu._build` (one cache for the package). A driver
that knows the kernels it is about to launch hands them to :func:`prefetch` first,
so that on a machine whose kernel cache is empty they compile side by side. CuPy
keeps its own on-disk cache of the compiled binaries; for modules built with name
expressions it does so from CuPy 14.2, the lowest version the ``gpu`` extras allow.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from . import _build
from ._compat import cupy_module
from ._source import CUDA_DIR, NVRTC_OPTIONS, source_text

__all__ = [
    "CUDA_DIR",
    "NVRTC_OPTIONS",
    "get_kernel",
    "get_kernels",
    "get_module",
    "prefetch",
    "source_text",
]


def get_module(filename: str, names: tuple[str, ...], device_id: int) -> Any:
    """The module of ``cuda/<filename>`` holding ``names``, on ``device_id``."""
    return _build.module(cupy_module(), filename, names, device_id)


def get_kernel(filename: str, name: str):
    """The compiled kernel ``name`` (a template instantiation such as ``"link<int>"``).

    Each kernel is its own NVRTC module: a call compiles only the kernels it launches,
    and one cached module serves every driver that launches that kernel.
    """
    return _build.function(cupy_module(), filename, name)


def get_kernels(filename: str, names: tuple[str, ...]) -> tuple[Any, ...]:
    """The kernels ``names`` of ``filename``, compiled together as one module.

    For kernels a driver always launches together: NVRTC then parses the source once
    for all of them instead of once each.
    """
    mod = get_module(filename, tuple(names), cupy_module().cuda.Device().id)
    return tuple(mod.get_function(name) for name in names)


def prefetch(filename: str, names: Iterable[str], together: bool = False) -> None:
    """Start compiling the kernels ``names`` of ``filename`` on worker threads: each as
    the module :func:`get_kernel` loads, or (``together``) all as the one module
    :func:`get_kernels` loads for the same tuple. Returns at once."""
    names = tuple(names)
    groups = [names] if together else [(name,) for name in names]
    _build.prefetch(cupy_module(), filename, groups)
