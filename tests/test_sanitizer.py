"""The compute-sanitizer run (issue 31): what its driver covers and how its logs are read
(on the CPU), and memcheck over a tiny run of every GPU driver (marked ``gpu``).

``benchmarks/gpu_sanitize.sh`` runs all four tools over the full driver on a GPU machine;
the ``gpu`` test here keeps memcheck in the GPU suite at a cost of seconds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from concomp._rules import union_rules_for
from concomp.incremental import legal_algorithms
from concomp.variants import Sampling, all_variants

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import sanitize_driver  # noqa: E402
import sanitize_report  # noqa: E402

LOG = """\
========= COMPUTE-SANITIZER
========= Invalid __global__ write of size 4 bytes
=========     at finish_coo<int, UniteAsync<FindHalve>, false, false>(int *, int *)+0x70
=========     by thread (31,0,0) in block (0,0,0)
=========     Address 0x7f00 is out of bounds
=========
sanitize driver (tiny): 7 runs
========= Uninitialized __global__ memory read of size 8 bytes
=========     at 0x1c0 in cupy_copy__int64_int64
=========     by thread (0,0,0) in block (0,0,0)
=========
========= Program hit cudaErrorInvalidValue (error 1) due to "invalid argument" on CUDA API \
call to cudaPointerGetAttributes.
=========     Saved host backtrace up to driver entry point at error
=========
========= Error: Race reported between Write access at prim_min_partial<int, 256>(int *)+0x100
=========     and Read access at prim_min_partial<int, 256>(int *)+0x120 [4 hazards]
=========
========= Warning: (Warp Level Programming) Potential RAW hazard detected at __shared__ 0x8
=========
========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 1 warning)
========= ERROR SUMMARY: 3 errors
"""


def test_kernel_names_cover_every_cuda_source() -> None:
    names = sanitize_report.concomp_kernel_names()
    for name in ("finish_coo", "batch_insert", "bk_offer", "prim_min_partial", "lt_connect"):
        assert name in names
    assert "cupy_copy" not in names


def test_log_records_are_told_apart_by_where_they_point() -> None:
    parsed = sanitize_report.parse_log(LOG, sanitize_report.concomp_kernel_names())
    assert (parsed["concomp"], parsed["other"], parsed["api"], parsed["warnings"]) == (2, 1, 1, 1)
    assert parsed["errors"] == 4
    assert parsed["tool_errors"] == 4  # 3 errors, and racecheck's 1
    assert parsed["examples"]["concomp"][0].startswith("Invalid __global__ write")
    assert "finish_coo<int" in parsed["examples"]["concomp"][0]
    clean = sanitize_report.parse_log(
        "========= COMPUTE-SANITIZER\n========= ERROR SUMMARY: 0 errors\n", {"finish_coo"}
    )
    assert clean["errors"] == 0 and clean["tool_errors"] == 0


def _doc(parsed: dict | None, stats: dict | None, exit_code: int) -> dict:
    run = {"subset": "full", "exit": exit_code, "limit_s": 240, "driver": stats, "parsed": parsed}
    return {"plain_run": {"runs": 3, "failures": []}, "tools": {"memcheck": run}}


def test_summary_line_and_verdict() -> None:
    names = sanitize_report.concomp_kernel_names()
    clean = sanitize_report.parse_log("========= ERROR SUMMARY: 0 errors\n", names)
    stats = {"runs": 107, "launches": 5123, "failures": []}
    line = sanitize_report.summary_line("memcheck", clean, {"subset": "full", "driver": stats})
    assert line.startswith(
        "memcheck: 0 errors in concomp kernels (5123 launches checked, 107 runs, subset full)"
    )
    assert not sanitize_report.failed(_doc(clean, stats, 0))
    dirty = sanitize_report.parse_log(LOG, names)
    assert sanitize_report.failed(_doc(dirty, stats, 86))
    assert sanitize_report.failed(_doc(clean, {**stats, "failures": [{"run": "x"}]}, 1))
    assert sanitize_report.failed(_doc(clean, None, 1))  # the driver died under the tool
    assert not sanitize_report.failed(_doc(clean, None, 124))  # out of time: reported only
    timed = sanitize_report.summary_line(
        "memcheck", clean, {"subset": "full", "exit": 124, "limit_s": 240, "driver": None}
    )
    assert "TIMED OUT after 240 s" in timed


def test_build_reads_a_folder_of_logs(tmp_path: Path) -> None:
    (tmp_path / "memcheck.log").write_text(LOG)
    (tmp_path / "memcheck.json").write_text(json.dumps({"runs": 7, "launches": 90}))
    (tmp_path / "memcheck.run.json").write_text('{"subset": "tiny", "exit": 86, "limit_s": 9}')
    doc = sanitize_report.build(tmp_path, ["memcheck", "racecheck"])
    assert doc["tools"]["memcheck"]["parsed"]["concomp"] == 2
    assert "90 launches checked, 7 runs, subset tiny" in doc["tools"]["memcheck"]["summary"]
    assert doc["tools"]["racecheck"]["summary"] == "racecheck: no log (exit None)"


def test_device_slug() -> None:
    assert sanitize_report.device_slug("NVIDIA H100 80GB HBM3") == "h100"
    assert sanitize_report.device_slug("NVIDIA H200") == "h200"
    assert sanitize_report.device_slug("Some Accelerator") == "gpu"


def test_full_driver_runs_every_union_find_rule_sampler_and_family() -> None:
    full = {str(v) for v in sanitize_driver.static_variants("full")}
    for row in union_rules_for("gpu", "static"):
        for compress in row.compress:
            assert f"none-{row.name}-{compress}-coo" in full
    ran = sanitize_driver.static_variants("full")
    assert {v.sampling for v in ran} == set(Sampling)
    assert {str(v.finish) for v in ran} == {str(v.finish) for v in all_variants("gpu")}
    small = sanitize_driver.static_variants("small")
    assert {v.sampling for v in small} == set(Sampling)
    assert {str(v.finish) for v in small} == {str(v.finish) for v in all_variants("gpu")}
    forest = sanitize_driver.forest_variants("full")
    assert {name.split("-")[1] for name in forest} >= {
        row.name for row in union_rules_for("gpu", "forest")
    }
    assert sanitize_driver.incremental_variants("full") == legal_algorithms("gpu")


def test_sanitizer_graph_has_the_features_code_paths_key_on() -> None:
    src, dst, n = sanitize_driver.sanitizer_graph()
    deg = np.bincount(src, minlength=n) + np.bincount(dst, minlength=n)
    assert deg.max() > 64  # a hub above Options.heavy_degree
    assert (src == dst).any() and (deg == 0).any()  # self loops, isolated vertices
    pairs = set(zip(src.tolist(), dst.tolist()))
    assert len(pairs) < src.shape[0]  # duplicate edges
    assert n < 1000


def test_launch_counter_wraps_the_one_module_builder(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver counts launches by wrapping the builder every concomp module comes
    from; a renamed builder would leave the memcheck test counting nothing."""
    from concomp._gpu import _build

    class Module:
        def get_function(self, name: str):
            return lambda *args: name

    monkeypatch.setattr(_build, "_build", lambda *key: Module())
    monkeypatch.setattr(_build, "_built", 0)
    monkeypatch.setattr(sanitize_driver, "LAUNCHES", [0])
    sanitize_driver.count_launches()
    kernel = _build._build(None, "ops.cu", ("iota<int>",), 0).get_function("iota<int>")
    assert kernel() == "iota<int>" and kernel() == "iota<int>"
    assert sanitize_driver.LAUNCHES == [2]
    monkeypatch.setattr(_build, "_built", 1)
    with pytest.raises(RuntimeError, match="before the first kernel"):
        sanitize_driver.count_launches()


def _find_sanitizer() -> str | None:
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    nvcc = shutil.which("nvcc")
    dirs = [Path(os.path.realpath(nvcc)).parent] if nvcc else []
    dirs += [Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin"]
    dirs += sorted(Path("/usr/local").glob("cuda*/bin"))
    for d in dirs:
        if (d / "compute-sanitizer").is_file():
            return str(d / "compute-sanitizer")
    return None


@pytest.mark.gpu
def test_memcheck_finds_no_error_in_concomp_kernels(tmp_path: Path) -> None:
    sanitizer = _find_sanitizer()
    if sanitizer is None:
        pytest.skip("compute-sanitizer not found (PATH, next to nvcc, /usr/local/cuda*)")
    log, stats = tmp_path / "memcheck.log", tmp_path / "stats.json"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run(
        [
            sanitizer,
            "--tool",
            "memcheck",
            "--error-exitcode",
            "86",
            "--print-limit",
            "50",
            "--log-file",
            str(log),
            sys.executable,
            str(ROOT / "benchmarks" / "sanitize_driver.py"),
            "--subset",
            "tiny",
            "--stats",
            str(stats),
        ],
        capture_output=True,
        text=True,
        timeout=400,
        env=env,
        check=False,
    )
    parsed = sanitize_report.parse_log(log.read_text(), sanitize_report.concomp_kernel_names())
    print(sanitize_report.summary_line("memcheck", parsed, {"subset": "tiny", "driver": None}))
    assert parsed["tool_summary"], f"no summary in the log; stderr:\n{proc.stderr[-3000:]}"
    assert parsed["concomp"] == 0, parsed["examples"]
    done = json.loads(stats.read_text())
    assert done["failures"] == [] and done["launches"] > 0, done
