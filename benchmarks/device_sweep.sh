#!/usr/bin/env bash
# The full design-space sweep with peers on the suite graphs, then the real graphs
# (carried in .carry/real). Writes sweep.csv and summary.json under $OUT/gpu_cc.
export PYTHONPATH=src PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,clocks.max.sm,memory.total --format=csv,noheader
timeout 560 python3 benchmarks/bench_gpu_cc.py --out $OUT/gpu_cc --variants ${VARIANTS:-all} \
  --reps 5 --skip-slow-bfs --real ${REAL:-.carry/real} 2>&1 | grep -v "^ERROR" | tail -45
