#!/usr/bin/env bash
# Device run of tests/test_families.py: every GPU min-based / Stages variant (int32 and
# int64 kernels) against SciPy, Soman's spanning forest, the presets, and the CPU
# ECL / parallel Rem / CAS tests. Run from the repository root on the GPU machine.
# Budget: about 4 minutes, two NVRTC compiles of families.cu and a few of cc.cu included.
export PYTHONPATH=src PYTHONUNBUFFERED=1
python3 - <<'PY'
import sys
import numpy, scipy
print("python", sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__)
for mod in ("cupy", "numba"):
    try:
        print(mod, __import__(mod).__version__)
    except Exception as exc:  # the test module skips what it cannot run
        print(mod, "import failed:", exc)
PY
timeout 420 python3 -m pytest tests/test_families.py -q -p no:cacheprovider --durations=15 2>&1 | tail -40
