#!/usr/bin/env bash
# Benchmarks of record: CC auto + hb parameters on the suite and auto on the
# real graphs, GPU MSF (device_msf.py), and the CLI's `concomp bench --device gpu`.
export PYTHONPATH=src PYTHONUNBUFFERED=1 CONCOMP_REAL_DATA=.carry/real
nvidia-smi --query-gpu=name --format=csv,noheader
V=auto,hb-rem_cas-splice-csr,hb1-rem_cas-splice-csr,hb2-rem_cas-splice-csr,hb3-rem_cas-splice-csr,kout-rem_cas-splice-csr,koutl-rem_cas-splice-csr,koutl-rem_cas-split-csr,none-rem_cas-splice-csr
timeout 200 python3 benchmarks/bench_gpu_cc.py --out $OUT/auto --variants ${VARIANTS:-$V} --no-peers \
  --real .carry/real --real-variants auto 2>&1 | tail -12
[ -n "$SKIP_MSF" ] || timeout 200 python3 benchmarks/device_msf.py --out $OUT/msf_h100.json 2>&1 | grep -v "^  check" | tail -16
timeout 150 python3 -m concomp bench --device gpu --no-peers --no-progress -o $OUT/cli_bench_gpu.json 2>&1 | tail -8
