#!/usr/bin/env bash
# One command for a GPU machine, run from the repository root with the tree carried:
#   bash benchmarks/gpu_check.sh tests   -> the GPU test suite (pytest -m gpu); with GPUS=0,1
#        and pytest-xdist, JOBS workers spread over those GPUs (tests/conftest.py pins them)
#   bash benchmarks/gpu_check.sh dask    -> concomp.dask on GPU workers against the single-GPU
#        streamer (bench_dask.py) and, with 2 or more GPUs, the scaling run
#        (bench_dask_multigpu.py; SCALE, PARTS=strong|weak). Dask wheels: install them first
#        (.whl, benchmarks/README.md)
#   bash benchmarks/gpu_check.sh first-call -> first GPU calls in fresh processes, empty and
#        warm kernel caches (bench_first_call.py)
#   bash benchmarks/gpu_check.sh ab OLD  -> public-call A/B of the tree OLD against src/
#   bash benchmarks/gpu_check.sh host-input -> every host input kind end to end against the
#        streamer (bench_host_input.py; SCALES, default "22 24")
#   bash benchmarks/gpu_check.sh threads -> the CPU engine's thread curve on this machine's
#        cores (bench_cpu_threads.py; THREADS, default "1 2 4 8 16")
#   bash benchmarks/gpu_check.sh sanitize [TOOL...] -> compute-sanitizer (memcheck, racecheck,
#        initcheck, synccheck) over every GPU driver: benchmarks/gpu_sanitize.sh
#   bash benchmarks/gpu_check.sh bench [PROBLEM...] -> the benchmark harness on the GPU, with
#        the peers of .carry/peers/bin (PEERS=... to change; the default problems: cc forest
#        incremental streaming msf); the result file and RESULTS.md go to $OUT
# Real graphs are read from $CONCOMP_REAL_DATA (default .carry/real); results go to $OUT.
set -uo pipefail
export PYTHONPATH=src${PYTHONPATH:+:$PYTHONPATH} PYTHONUNBUFFERED=1 CONCOMP_REAL_DATA=${CONCOMP_REAL_DATA:-.carry/real}
OUT=${OUT:-benchmarks/out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
python3 -c "import cupy, numpy; print('cupy', cupy.__version__, 'numpy', numpy.__version__)"
case "${1:-tests}" in
  tests)
    JOBS=${JOBS:-1}
    if [ -n "${GPUS:-}" ] && python3 -c "import xdist" 2>/dev/null; then
      # one pytest, JOBS xdist workers over the GPUs named in GPUS, tests dealt one by one;
      # -v names each result as it lands, so a run the limit cuts still names its failures
      CONCOMP_TEST_GPUS=$GPUS timeout "${LIMIT:-560}" python3 -m pytest tests -m gpu -v \
        -p no:cacheprovider -n "$JOBS" --dist load ${PYTEST_ARGS:-} >"$OUT/gpu_tests.log" 2>&1
      echo "pytest exit status $?"
      grep -E "(FAILED|ERROR) tests/" "$OUT/gpu_tests.log" | head -30
      echo "$(grep -c " PASSED " "$OUT/gpu_tests.log") passed so far"
      tail -1 "$OUT/gpu_tests.log"
      exit 0
    fi
    # JOBS pytest processes share the GPU, each on every JOBS-th test file (largest first),
    # so kernel compilation and host work overlap; each prints its own summary line.
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
  dask)
    gpus=$(python3 -c "import cupy; print(cupy.cuda.runtime.getDeviceCount())")
    data=${DATA:-/tmp/concomp-dask-data}
    keep='worker\(s\)|stream_components|^dask|^wrote|^error|Error'  # not Dask's own log
    # one GPU worker against the single-GPU streamer: row groups of RG edges, T threads
    for run in ${DASK_RUNS-4e6:1 4e6:4 2.5e7:1 2.5e7:4}; do  # DASK_RUNS="": none
      rg=${run%:*} threads=${run#*:}
      timeout "${LIMIT_EACH:-200}" python3 benchmarks/bench_dask.py --device gpu --workers 1 \
        --threads "$threads" --edges 1e8 --scale 24 --row-group "$rg" --repeat 5 \
        --data "$data/rg$rg" --out "$OUT/dask-gpu-1worker-rg$rg-t$threads.json" 2>&1 |
        grep -E "$keep" | tail -4
    done
    if [ "$gpus" -ge 2 ]; then
      scale=${SCALE:-23}
      timeout "${LIMIT_SCALING:-300}" python3 benchmarks/bench_dask_multigpu.py --out "$OUT" \
        --data "$data/multigpu" --scale "$scale" --weak-scale "$((scale - 1))" --repeat 5 \
        --parts "${PARTS:-strong,weak}" 2>&1 | grep -E "$keep" | tail -12
    fi
    ;;
  first-call)
    timeout "${LIMIT:-150}" python3 benchmarks/bench_first_call.py --device gpu \
      --warm-repeats 5 --import-repeats 5 --out "$OUT/first-call-gpu.json" 2>&1 | tail -12
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
  host-input)
    # shellcheck disable=SC2086  # SCALES is a list
    timeout "${LIMIT:-580}" python3 benchmarks/bench_host_input.py --scales ${SCALES:-22 24} \
      --out "$OUT/host-input.json" ${HOST_ARGS:-} 2>&1 | tail -40
    ;;
  threads)
    # shellcheck disable=SC2086  # THREADS is a list
    timeout "${LIMIT:-580}" python3 benchmarks/bench_cpu_threads.py --threads ${THREADS:-1 2 4 8 16} \
      --out "$OUT/cpu-threads.json" ${THREADS_ARGS:-} 2>&1 | tail -14
    ;;
  ab)
    python3 benchmarks/ab_public_calls.py --tree "old=$2" --tree new=src --rounds "${ROUNDS:-2}" \
      --out "$OUT/ab_public_calls.json"
    ;;
esac
