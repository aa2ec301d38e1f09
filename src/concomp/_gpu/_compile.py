"""Kernel getter: CUDA C++ sources in ``cuda/`` compiled by NVRTC through CuPy.

Templates are instantiated lazily with ``RawModule(name_expressions=...)``, one
module per kernel a call actually launches (not the whole family a driver could
launch), memoized per (source, name expression, device). CuPy keeps its own
on-disk cache of the compiled binaries; for modules built with name expressions
it does so from CuPy 14.2, the lowest version the ``gpu`` extras allow.
"""

from __future__ import annotations

import functools
from typing import Any

from ._compat import cupy_module
from ._source import CUDA_DIR, NVRTC_OPTIONS, source_text

__all__ = ["CUDA_DIR", "NVRTC_OPTIONS", "get_kernel", "get_kernels", "get_module", "source_text"]


@functools.cache
def get_module(filename: str, names: tuple[str, ...], device_id: int):
    cupy = cupy_module()

    with cupy.cuda.Device(device_id):
        mod = cupy.RawModule(
            code=source_text(filename), options=NVRTC_OPTIONS, name_expressions=list(names)
        )
        mod.compile()
    return mod


@functools.cache
def _kernel(filename: str, name: str, device_id: int):
    return get_module(filename, (name,), device_id).get_function(name)


def get_kernel(filename: str, name: str):
    """The compiled kernel ``name`` (a template instantiation such as ``"link<int>"``).

    Each kernel is its own NVRTC module: a call compiles only the kernels it launches,
    and one cached module serves every driver that launches that kernel.
    """
    return _kernel(filename, name, cupy_module().cuda.Device().id)


def get_kernels(filename: str, names: tuple[str, ...]) -> tuple[Any, ...]:
    """The kernels ``names`` of ``filename``, compiled together as one module.

    For kernels a driver always launches together: NVRTC then parses the source once
    for all of them instead of once each.
    """
    mod = get_module(filename, tuple(names), cupy_module().cuda.Device().id)
    return tuple(mod.get_function(name) for name in names)
