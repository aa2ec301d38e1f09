#!/usr/bin/env bash
# One device run (about 4 minutes): the streaming tests on the GPU, then the streaming
# benchmark (1e9 edges held in host memory; edges/s against the pinned H2D bandwidth).
# Results land in $OUT (the device tool's output folder) or benchmarks/results.
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUTDIR=${OUT:-benchmarks/results}
mkdir -p "$OUTDIR"
python3 -c "import cupy, numba, numpy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'numpy', numpy.__version__)"
timeout 150 python3 -m pytest tests/test_streaming.py -q -x -p no:cacheprovider -k "gpu or stage or plan" 2>&1 | tail -15
timeout 200 python3 benchmarks/bench_streaming.py --out "$OUTDIR/streaming.json" \
    --edges "${EDGES:-1000000000}" --scale "${SCALE:-26}" --graphs "${GRAPHS:-uniform,rmat}" \
    --variants "${VARIANTS:-none-async-halve-coo,none-rem_cas-splice-coo}" --reps "${REPS:-5}" 2>&1 | tail -40
