"""A new process's first GPU calls, with an empty kernel cache, compile no CUB reduction
and none of CuPy's element-wise kernels but the copy inside ``cupy.argsort``.

CuPy compiles a CUB block reduction with NVRTC for reductions such as ``ndarray.all``
and the checks inside ``cupy.bincount`` (seconds each, on a new machine), and then
imports ``cupyx`` and SciPy in every new process. The default paths of the public
calls use the engine's own kernels for those steps (``concomp._gpu.rows``,
``msf_rank.weight_keys``, the fused checks); this test runs each call in a fresh
interpreter and records every NVRTC program CuPy builds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

SRC = Path(__file__).resolve().parents[1] / "src"

SCRIPT = r"""
import json, re, sys
import numpy as np
import cupy.cuda.compiler as compiler
import concomp

if not hasattr(compiler, "_NVRTCProgram"):
    print(json.dumps(None)); sys.exit()
programs = []
compile_program = compiler._NVRTCProgram.compile

def record(self, *args, **kwargs):
    options = args[0] if args else kwargs.get("options", ())
    programs.append((self.src, "-DCONCOMP_NVRTC" in options))
    return compile_program(self, *args, **kwargs)

compiler._NVRTCProgram.compile = record
rng = np.random.default_rng(1)
n, m = 5000, 20000
src, dst = rng.integers(0, n, m), rng.integers(0, n, m)
src[:20] = dst[:20]  # self loops
calls = {
    "components": lambda: concomp.connected_components((src, dst), num_nodes=n, device="gpu"),
    "spanning_forest": lambda: concomp.spanning_forest((src, dst), num_nodes=n, device="gpu"),
    "msf_float": lambda: concomp.minimum_spanning_forest(
        concomp.as_graph((src, dst), num_nodes=n, weights=rng.random(m)), device="gpu"),
    "msf_int": lambda: concomp.minimum_spanning_forest(
        concomp.as_graph((src, dst), num_nodes=n, weights=rng.integers(0, 9, m)), device="gpu"),
    "insert": lambda: concomp.IncrementalConnectivity(n, device="gpu").insert(src, dst),
    "stream": lambda: concomp.stream_components([(src, dst)], n, device="gpu"),
}
out = {}
for name, call in calls.items():
    before = len(programs)
    call()
    mine = programs[before:]
    out[name] = {
        "cub": sum("cub/" in src for src, _ in mine),
        "cupy": sorted(set(re.findall(r"__global__ void (\w+)", " ".join(
            src for src, ours in mine if not ours)))),
    }
print(json.dumps(out))
"""


def test_first_gpu_calls_compile_no_cub_reduction(tmp_path):
    env = dict(os.environ, CUPY_CACHE_DIR=str(tmp_path), PYTHONPATH=str(SRC))
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=600
    )
    assert out.returncode == 0, out.stderr[-3000:]
    counts = json.loads(out.stdout.strip().splitlines()[-1])
    if counts is None:
        pytest.skip("this CuPy has no cupy.cuda.compiler._NVRTCProgram to observe")
    assert {name: c["cub"] for name, c in counts.items()} == dict.fromkeys(counts, 0)
    # CuPy's own kernels: only the copy that cupy.argsort makes of its input
    # (concomp._gpu.ops.prefetch_argsort); every other step is one of the engine's
    # kernels, compiled side by side with the rest of the call's
    for name, c in counts.items():
        others = [k for k in c["cupy"] if not _is_argsort_copy(k)]
        assert others == [], (name, others)


def _is_argsort_copy(kernel: str) -> bool:
    """``cupy_copy__int32_int32`` and the like: a copy between equal dtypes."""
    parts = kernel.split("__")
    return parts[0] == "cupy_copy" and len(parts) == 2 and len(set(parts[1].split("_"))) == 1
