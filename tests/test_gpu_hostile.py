"""Issue 31 on the device: every hostile input of :mod:`concomp.testing.hostile` through the
GPU entry points (CuPy pairs and ``(2, m)`` arrays, ``cupyx`` CSR, device Graphs, torch
CUDA tensors where torch is installed, host data with ``device="gpu"``) ends in a
documented error, and the GPU is still usable afterwards in the same process.

The cases run in child processes: a kernel fault poisons the CUDA context of its
process, which must fail the test rather than take the test run down. One child runs
the whole table (start-up and kernel compilation paid once); the case that used to
poison the context, ``num_nodes=2**62``, also runs alone in a fresh child.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytestmark = pytest.mark.gpu

SRC = str(Path(__file__).resolve().parents[1] / "src")
#: Far above the table's run (compiling a few kernels on a cold cache included).
CHILD_TIMEOUT_S = 300

CHILD = textwrap.dedent("""
    import json, sys
    import numpy as np
    import cupy as cp
    import concomp
    from concomp.testing.hostile import hostile_cases

    try:
        import torch
        torch_device = "cuda" if torch.cuda.is_available() else None
    except ImportError:
        torch_device = None
    only = set(sys.argv[1:])
    cases = {}
    for case in hostile_cases(cp, "gpu", torch_device=torch_device):
        if only and case.name not in only:
            continue
        try:
            cases[case.name] = ["ok", case.check()]
        except AssertionError as exc:
            cases[case.name] = ["fail", str(exc)[:600]]
    print(json.dumps({"cases": cases}), flush=True)

    # the same process: the device still computes, and concomp still answers right
    alive = {"cupy_sum": int(cp.arange(10).sum())}
    count, labels = concomp.connected_components(
        (cp.array([0, 2]), cp.array([1, 3])), num_nodes=5, device="gpu"
    )
    alive["cc"] = [int(count), cp.asnumpy(labels).tolist()]
    big = 2**63 - 1
    res = concomp.connected_components(
        (cp.array([0, 5], dtype=cp.int64), cp.array([big, 5], dtype=cp.int64)), device="gpu"
    )
    alive["renumbered"] = [res.num_components, cp.asnumpy(res.node_ids).tolist()]
    ic = concomp.IncrementalConnectivity(device="gpu")
    ic.insert(cp.array([0, 2]), cp.array([1, 3]))
    alive["incremental"] = cp.asnumpy(ic.labels()).tolist()
    alive["stream"] = concomp.stream_components(
        [(cp.array([0]), cp.array([4]))], device="gpu", return_labels=False
    )
    cp.cuda.runtime.deviceSynchronize()
    print(json.dumps({"alive": alive}), flush=True)
""")

ALIVE = {
    "cupy_sum": 45,
    "cc": [3, [0, 0, 1, 1, 2]],
    "renumbered": [2, [0, 5, 2**63 - 1]],
    "incremental": [0, 0, 1, 1],
    "stream": 4,
}


def _run_child(*names: str) -> tuple[dict, dict | None, str]:
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    try:
        proc = subprocess.run(
            [sys.executable, "-c", CHILD, *names],
            capture_output=True,
            text=True,
            timeout=CHILD_TIMEOUT_S,
            env=env,
            check=False,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"the child process ran past {CHILD_TIMEOUT_S} s")
    docs = [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]
    cases = next((d["cases"] for d in docs if "cases" in d), None)
    alive = next((d["alive"] for d in docs if "alive" in d), None)
    assert cases is not None, f"exit {proc.returncode}; stderr:\n{proc.stderr[-4000:]}"
    return cases, alive, f"exit {proc.returncode}; stderr:\n{proc.stderr[-4000:]}"


def _report(cases: dict) -> None:
    for name, (status, detail) in sorted(cases.items()):
        print(f"{name}: {detail if status == 'ok' else 'FAILED ' + detail}")


def test_every_hostile_case_raises_a_documented_error_and_the_gpu_stays_usable() -> None:
    cases, alive, tail = _run_child()
    _report(cases)
    failed = {k: v[1] for k, v in cases.items() if v[0] != "ok"}
    assert not failed, json.dumps(failed, indent=1)
    assert len(cases) >= 40, sorted(cases)
    assert alive == ALIVE, tail


def test_num_nodes_2_62_alone_in_a_fresh_process() -> None:
    cases, alive, tail = _run_child("cc_num_nodes_2_62")
    _report(cases)
    assert cases == {"cc_num_nodes_2_62": ["ok", cases["cc_num_nodes_2_62"][1]]}, cases
    assert cases["cc_num_nodes_2_62"][1] in ("InvalidGraphError", "DeviceMemoryError")
    assert alive == ALIVE, tail


def test_the_size_check_reads_the_device() -> None:
    import cupy as cp

    from concomp._gpu._compat import check_device_fits, device_total_bytes
    from concomp.errors import DeviceMemoryError

    total = device_total_bytes()
    free = cp.cuda.runtime.memGetInfo()[0]
    assert 0 < free <= total
    assert check_device_fits("all of it", total) == total
    with pytest.raises(DeviceMemoryError, match=rf"more than the device's total memory of {total}"):
        check_device_fits("one byte more", total + 1)
