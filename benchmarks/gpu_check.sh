#!/usr/bin/env bash
# One command for a GPU machine, run from the repository root with the tree carried:
#   bash benchmarks/gpu_check.sh tests   -> the GPU test suite (pytest -m gpu)
#   bash benchmarks/gpu_check.sh ab OLD  -> public-call A/B of the tree OLD against src/
# Real graphs are read from $CONCOMP_REAL_DATA (default .carry/real); results go to $OUT.
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1 CONCOMP_REAL_DATA=${CONCOMP_REAL_DATA:-.carry/real}
OUT=${OUT:-benchmarks/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
case "${1:-tests}" in
  tests)
    timeout "${LIMIT:-560}" python3 -m pytest tests -m gpu -q -p no:cacheprovider ${PYTEST_ARGS:-} \
      2>&1 | tee "$OUT/gpu_tests.log" | grep -v "^SKIPPED" | tail -40
    ;;
  ab)
    python3 benchmarks/ab_public_calls.py --tree "old=$2" --tree new=src --rounds "${ROUNDS:-2}" \
      --out "$OUT/ab_public_calls.json"
    ;;
esac
