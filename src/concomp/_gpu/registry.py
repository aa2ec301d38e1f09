"""Every kernel instantiation the GPU engine can request, per CUDA source file.

The CPU-side compile test (``tests/test_kernel_compile.py``) builds all of them
with nvcc for sm_90, so a kernel build error fails CI instead of a device run.
"""

from __future__ import annotations

import importlib


def all_instantiations() -> dict[str, list[str]]:
    """``{source file: [name expressions]}`` for every ``.cu`` file in ``cuda/``."""
    from .kernels import all_cc_instantiations

    out = {"cc.cu": all_cc_instantiations()}
    for module, attr, filename in (("msf", "INSTANTIATIONS", "msf.cu"),
                                   ("msf_keys", "INSTANTIATIONS", "boruvka.cu"),
                                   ("families", "INSTANTIATIONS", "families.cu"),
                                   ("incremental", "INSTANTIATIONS", "incremental.cu")):
        try:
            mod = importlib.import_module(f"{__package__}.{module}")
        except ImportError:
            continue
        names = getattr(mod, attr, None)
        if names:
            out[filename] = sorted(set(names() if callable(names) else names))
    return out
