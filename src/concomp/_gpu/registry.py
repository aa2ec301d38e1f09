"""Every kernel instantiation the GPU engine can request, per CUDA source file.

The CPU-side compile test (``tests/test_kernel_compile.py``) builds all of them
with nvcc for sm_90, so a kernel build error fails CI instead of a device run.
"""

from __future__ import annotations

import importlib
import itertools


def cc_instantiations() -> list[str]:
    """Every cc.cu name expression: the union-find rules (other families use families.cu)."""
    from ..variants import COMPRESS_RULES, UNION_FIND, Finish
    from .kernels import cc_names, unite_cpp

    names: set[str] = set()
    for finish, itype, record in itertools.product(sorted(UNION_FIND), ("int", "long long"),
                                                   (False, True)):
        for compress in COMPRESS_RULES[finish]:
            names.update(cc_names(unite_cpp(finish, compress), finish == Finish.JTB, itype,
                                  record).values())
    return sorted(names)


def all_instantiations() -> dict[str, list[str]]:
    """``{source file: [name expressions]}`` for every ``.cu`` file in ``cuda/``."""
    out = {"cc.cu": cc_instantiations()}
    for module, attr, filename in (("msf", "INSTANTIATIONS", "msf.cu"),
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
