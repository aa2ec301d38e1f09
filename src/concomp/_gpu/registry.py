"""Every kernel instantiation the GPU engine can request, per CUDA source file.

The CPU-side compile test (``tests/test_kernel_compile.py``) builds all of them
with nvcc for sm_90, so a kernel build error fails CI instead of a device run.
"""

from __future__ import annotations

from . import (
    checks,
    family_state,
    incremental,
    label,
    msf_keys,
    msf_rank,
    ops,
    parquet,
    probe,
    rows,
    scc,
)
from .kernels import all_cc_instantiations


def all_instantiations() -> dict[str, list[str]]:
    """``{source file: [name expressions]}`` for every ``.cu`` file in ``cuda/``."""
    return {
        "cc.cu": all_cc_instantiations(),
        "msf.cu": sorted(set(msf_rank.INSTANTIATIONS)),
        "boruvka.cu": sorted(set(msf_keys.INSTANTIATIONS)),
        "families.cu": sorted(set(family_state.INSTANTIATIONS)),
        "incremental.cu": sorted(set(incremental.INSTANTIATIONS())),
        "checks.cu": sorted(checks.INSTANTIATIONS),
        "scc.cu": sorted(scc.INSTANTIATIONS),
        "probe.cu": sorted(probe.INSTANTIATIONS),
        "label.cu": sorted(label.INSTANTIATIONS),
        "rows.cu": sorted(rows.INSTANTIATIONS),
        "ops.cu": sorted(ops.INSTANTIATIONS),
        "parquet.cu": sorted(parquet.INSTANTIATIONS),
    }
