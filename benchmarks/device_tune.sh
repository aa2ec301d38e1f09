#!/usr/bin/env bash
export PYTHONPATH=src PYTHONUNBUFFERED=1
timeout 200 python3 -m pytest tests/test_gpu_engine.py -q -x -p no:cacheprovider 2>&1 | grep -E "passed|failed|Error" | head -5
timeout 300 python3 benchmarks/profile_gpu_cc.py --graphs ${GRAPHS:-rmat22,er22,cong22,gridp4k} \
  --variants ${VARIANTS:-kout-rem_cas-splice-csr,kout-async-halve-csr,kout-async-split-csr,kout-rem_cas-halve-csr,hb-async-halve-csr,none-rem_cas-halve-csr} \
  --knobs "${KNOBS:-}" 2>&1 | tail -60
