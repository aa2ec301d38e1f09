#!/usr/bin/env bash
# One command for a GPU machine, run from the repository root with the tree carried:
#   bash benchmarks/gpu_check.sh tests   -> the GPU test suite (pytest -m gpu)
#   bash benchmarks/gpu_check.sh ab OLD  -> public-call A/B of the tree OLD against src/
#   bash benchmarks/gpu_check.sh sanitize [TOOL...] -> compute-sanitizer (memcheck, racecheck,
#        initcheck, synccheck) over every GPU driver: benchmarks/gpu_sanitize.sh
#   bash benchmarks/gpu_check.sh bench [PROBLEM...] -> the benchmark harness on the GPU, with
#        the peers of .carry/peers/bin (PEERS=... to change; the default problems: cc forest
#        incremental streaming msf); the result file and RESULTS.md go to $OUT
# Real graphs are read from $CONCOMP_REAL_DATA (default .carry/real); results go to $OUT.
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1 CONCOMP_REAL_DATA=${CONCOMP_REAL_DATA:-.carry/real}
OUT=${OUT:-benchmarks/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
case "${1:-tests}" in
  tests)
    # JOBS pytest processes share the GPU, each on every JOBS-th test file (largest first),
    # so kernel compilation and host work overlap; each prints its own summary line.
    JOBS=${JOBS:-1}
    mapfile -t files < <(ls -S tests/test_*.py)
    for ((j = 0; j < JOBS; j++)); do
      part=()
      for ((i = j; i < ${#files[@]}; i += JOBS)); do part+=("${files[i]}"); done
      timeout "${LIMIT:-560}" python3 -m pytest "${part[@]}" -m gpu -q -p no:cacheprovider \
        ${PYTEST_ARGS:-} >"$OUT/gpu_tests_$j.log" 2>&1 &
    done
    wait
    for ((j = 0; j < JOBS; j++)); do
      grep -E "^(FAILED|ERROR)" "$OUT/gpu_tests_$j.log" | head -20
      tail -1 "$OUT/gpu_tests_$j.log"
    done
    ;;
  bench)
    shift
    problems=("$@")
    [ ${#problems[@]} -eq 0 ] && problems=(cc forest incremental streaming msf)
    peers=()
    PEERS=${PEERS:-.carry/peers/bin}
    if [ ! -d "$PEERS" ] && [ -d .carry/peers/src ]; then
      bash benchmarks/peers/build.sh .carry/peers/src "$PEERS" 2>&1 | tail -12
    fi
    [ -d "$PEERS" ] && peers=(--peers "$PEERS")
    result="$OUT/$(date +%F)-gpu-$(git rev-parse --short HEAD 2>/dev/null || echo unknown).json"
    python3 -m concomp.bench "${problems[@]}" --device gpu "${peers[@]}" ${BENCH_ARGS:-} \
      --out "$result"
    python3 -m concomp.bench.render "$result" --out-dir "$OUT" --no-readme
    ;;
  sanitize)
    shift
    OUT="$OUT" bash benchmarks/gpu_sanitize.sh "$@"
    ;;
  ab)
    python3 benchmarks/ab_public_calls.py --tree "old=$2" --tree new=src --rounds "${ROUNDS:-2}" \
      --out "$OUT/ab_public_calls.json"
    ;;
esac
