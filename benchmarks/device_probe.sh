#!/usr/bin/env bash
# Device pass for diagnostics: GPU tests of the touched engines, where GPU Borůvka spends its
# time, and what the incremental insert kernel's outputs cost.
export PYTHONPATH=src PYTHONUNBUFFERED=1 CONCOMP_REAL_DATA=.carry/real
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 python3 -m pytest ${TESTS:-tests/test_msf.py tests/test_incremental.py} -m gpu -q -p no:cacheprovider 2>&1 | tail -4
timeout 240 python3 benchmarks/profile_msf.py 2>&1 | tail -40
timeout 300 python3 benchmarks/profile_incremental_cost.py ${INC_ARGS:-} 2>&1 | tail -45
