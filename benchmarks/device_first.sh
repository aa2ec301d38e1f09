#!/usr/bin/env bash
# One device run: environment probe, GPU tests, then the GPU CC benchmark.
export PYTHONPATH=src PYTHONUNBUFFERED=1
python3 - <<'PY'
import numpy, scipy, cupy, sys
print("python", sys.version.split()[0], "numpy", numpy.__version__, "scipy", scipy.__version__, "cupy", cupy.__version__)
try:
    import numba; print("numba", numba.__version__)
except Exception as e:
    print("numba import failed:", e)
PY
timeout 300 python3 -m pytest tests/test_gpu_engine.py -q -x -p no:cacheprovider 2>&1 | tail -15
timeout 240 python3 benchmarks/bench_gpu_cc.py --out $OUT/gpu_cc --variants "${VARIANTS:-kout-async-halve-csr,none-async-halve-csr,kout-rem_cas-splice-csr,none-rem_cas-splice-csr,kout-async-split-coo,hb-async-halve-csr,koutr-async-halve-csr}" --reps 5 --skip-slow-bfs 2>&1 | tail -30
