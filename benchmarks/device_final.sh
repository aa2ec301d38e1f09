#!/usr/bin/env bash
# Final device pass: every GPU test of the suite, then auto on every graph (suite + real).
export PYTHONPATH=src PYTHONUNBUFFERED=1 CONCOMP_REAL_DATA=.carry/real
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 420 python3 -m pytest tests -m gpu -q -p no:cacheprovider 2>&1 | grep -E "passed|failed|FAILED|rror" | head -20
timeout 160 python3 benchmarks/bench_gpu_cc.py --out $OUT/auto --variants ${VARIANTS:-auto} --no-peers \
  --real .carry/real --real-variants auto 2>&1 | tail -35
