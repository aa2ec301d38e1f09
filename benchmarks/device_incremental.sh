#!/usr/bin/env bash
# One device run for spanning forests + incremental connectivity: the GPU tests of
# both, then the incremental benchmark on the suite graphs (about 5 minutes on an H100;
# most of the test time is NVRTC compiling the hook-recording kernels once).
# Results go to $OUT/incremental (or benchmarks/results/incremental). MAX_BATCHES
# lengthens the timed streams (default 200 batches; the stream rows amortise one
# CUDA graph capture over them).
set -o pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
DEST="${OUT:-benchmarks/results}/incremental"
python3 -c "import cupy, numba, scipy; print('cupy', cupy.__version__, 'numba', numba.__version__, 'scipy', scipy.__version__)"
timeout 240 python3 -m pytest tests/test_incremental.py tests/test_forest.py -m gpu -q -x \
    -p no:cacheprovider 2>&1 | tail -15
timeout 200 python3 benchmarks/bench_incremental.py --out "$DEST" --reps "${REPS:-5}" \
    ${GRAPHS:+--graphs "$GRAPHS"} ${MAX_BATCHES:+--max-batches "$MAX_BATCHES"} \
    ${VERBOSE:+--verbose} 2>&1
