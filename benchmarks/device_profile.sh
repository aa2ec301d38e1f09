#!/usr/bin/env bash
# Device pass for optimisation work: GPU tests of the touched engines, MSF and CC per-phase profiles.
export PYTHONPATH=src PYTHONUNBUFFERED=1 CONCOMP_REAL_DATA=.carry/real
nvidia-smi --query-gpu=name --format=csv,noheader
timeout 300 python3 -m pytest ${TESTS:-tests/test_msf.py tests/test_gpu_engine.py} -m gpu -q -p no:cacheprovider 2>&1 | tail -4
timeout 150 python3 benchmarks/profile_msf.py 2>&1 | grep -v "round"
timeout 200 python3 benchmarks/profile_gpu_cc.py --graphs ${GRAPHS:-er22,cong22,rmat22,gridp4k} \
  --variants ${VARIANTS:-hb-rem_cas-splice-csr,hb1-rem_cas-splice-csr,none-rem_cas-splice-csr} 2>&1 | tail -30
