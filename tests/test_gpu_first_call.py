"""A new process's first GPU calls, with an empty kernel cache, compile no CUB reduction.

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
import json, sys
import numpy as np
import cupy.cuda.compiler as compiler
import concomp

if not hasattr(compiler, "_NVRTCProgram"):
    print(json.dumps(None)); sys.exit()
programs = []
compile_program = compiler._NVRTCProgram.compile

def record(self, *args, **kwargs):
    programs.append(self.src)
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
    out[name] = sum("cub/" in p for p in programs[before:])
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
    assert counts == dict.fromkeys(counts, 0)
