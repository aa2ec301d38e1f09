#!/usr/bin/env bash
# GPU tests of the union-find engine, then the full design-space sweep with peers.
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest tests/test_gpu_engine.py -q -p no:cacheprovider 2>&1 | tail -4
timeout 380 python3 benchmarks/bench_gpu_cc.py --out $OUT/gpu_cc --variants ${VARIANTS:-all} --reps 5 --skip-slow-bfs 2>&1 | tail -25
