"""Compile every kernel instantiation the registry can produce for sm_90 with nvcc.

No GPU is needed: this catches template and syntax errors in CI instead of on
the device. Skipped (with the reason) where nvcc is not installed.
"""

from __future__ import annotations

import shutil
import subprocess

import pytest

from concomp._gpu._compile import CUDA_DIR, NVRTC_OPTIONS, source_text
from concomp._gpu.registry import all_instantiations

NVCC = shutil.which("nvcc")
pytestmark = pytest.mark.skipif(NVCC is None, reason="nvcc not found on PATH")


def test_every_source_file_is_registered():
    registered = set(all_instantiations())
    on_disk = {p.name for p in CUDA_DIR.glob("*.cu")}
    assert on_disk <= registered, f"kernels never compiled by the test: {on_disk - registered}"


@pytest.mark.parametrize("filename", sorted(all_instantiations()))
def test_compile_all_instantiations_sm90(filename, tmp_path):
    names = all_instantiations()[filename]
    assert names, f"{filename} registers no instantiations"
    # Taking each instantiation's address forces nvcc to build its device code.
    body = ",\n".join(f"  (void*)&{n}" for n in names)
    src = source_text(filename) + f"\nvoid* concomp_instantiations[] = {{\n{body}\n}};\n"
    cu = tmp_path / f"all_{filename}"
    cu.write_text(src)
    cmd = [NVCC, "-arch=sm_90", *NVRTC_OPTIONS, "-c", str(cu), "-o", str(tmp_path / "x.o")]
    res = subprocess.run(cmd, capture_output=True, text=True)
    assert res.returncode == 0, res.stderr[-4000:]
    assert "warning" not in res.stderr.lower(), res.stderr[-4000:]


def test_heavy_piece_matches_the_kernels():
    """The host sizes the heavy-row queues for the pieces uf.cuh splits long rows into."""
    import re

    from concomp._gpu.kernels import HEAVY_PIECE

    found = re.search(r"#define HEAVY_PIECE (\d+)", source_text("uf.cuh"))
    assert found is not None and int(found.group(1)) == HEAVY_PIECE


def test_label_max_offsets_matches_the_kernels():
    """label.py refuses neighbourhoods the kernels' shared neighbour table cannot hold."""
    import re

    from concomp._gpu.label import MAX_OFFSETS

    found = re.search(r"#define LABEL_MAX_OFFSETS (\d+)", source_text("label.cu"))
    assert found is not None and int(found.group(1)) == MAX_OFFSETS


def test_snappy_threads_matches_the_kernels():
    """parquet.py launches pq_snappy with the block its shared ring is laid out for."""
    import re

    from concomp._gpu.parquet import SNAPPY_THREADS

    found = re.search(r"#define PQ_SNAPPY_THREADS (\d+)", source_text("parquet.cu"))
    assert found is not None and int(found.group(1)) == SNAPPY_THREADS
