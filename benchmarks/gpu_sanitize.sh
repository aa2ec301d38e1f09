#!/usr/bin/env bash
# compute-sanitizer over small runs of every GPU driver, in one command on a GPU machine,
# from the repository root:
#   bash benchmarks/gpu_sanitize.sh [TOOL...]     TOOL: memcheck racecheck initcheck synccheck
# (default: all four). The driver is benchmarks/sanitize_driver.py: memcheck runs its full
# subset (every union rule with every find rule, every sampler and family, every other
# driver); racecheck, initcheck and synccheck, which instrument more, run the small subset
# (one variant per union rule, sampler and family, and every other driver once).
# SUBSET_<tool>=full|small|tiny overrides a tool's subset; LIMIT_S (default 240) caps each
# tool's run, and a tool that reaches it is reported as timed out.
# First a plain run of the full subset compiles every kernel (outside the sanitizer, into
# CuPy's kernel cache) and checks every result against the CPU engine.
# Logs go to $OUT/sanitize (OUT defaults to benchmarks/out); the result file to
# benchmarks/results/<date>-<device>-<commit>-sanitize.json, copied into $OUT; one summary
# line per tool is printed. Exit status 0 when no tool found an error in concomp's kernels
# and every driver run matched the CPU engine; 0 too, with a message, where
# compute-sanitizer is not installed.
set -uo pipefail
export PYTHONPATH=src PYTHONUNBUFFERED=1
OUT=${OUT:-benchmarks/out}
LOGS="$OUT/sanitize"
LIMIT_S=${LIMIT_S:-240}
mkdir -p "$LOGS"

find_sanitizer() {
  local nvcc dir candidate
  if command -v compute-sanitizer >/dev/null 2>&1; then
    command -v compute-sanitizer
    return 0
  fi
  if nvcc=$(command -v nvcc 2>/dev/null); then
    dir=$(dirname "$(readlink -f "$nvcc")")
    if [ -x "$dir/compute-sanitizer" ]; then
      echo "$dir/compute-sanitizer"
      return 0
    fi
  fi
  for dir in ${CUDA_HOME:-} /usr/local/cuda /usr/local/cuda-*; do
    for candidate in "$dir/bin/compute-sanitizer" "$dir/compute-sanitizer/compute-sanitizer"; do
      if [ -x "$candidate" ]; then
        echo "$candidate"
        return 0
      fi
    done
  done
  return 1
}

tools=("$@")
[ ${#tools[@]} -eq 0 ] && tools=(memcheck racecheck initcheck synccheck)
if ! SAN=$(find_sanitizer); then
  echo "compute-sanitizer not found (on PATH, next to nvcc, in \$CUDA_HOME or /usr/local/cuda*):" \
    "skipping the sanitizer run"
  exit 0
fi
version=$("$SAN" --version 2>&1 | tail -1)
echo "$SAN: $version"
python3 -c 'import json, sys; print(json.dumps({"path": sys.argv[1], "version": sys.argv[2]}))' \
  "$SAN" "$version" >"$LOGS/sanitizer.json"

python3 benchmarks/sanitize_driver.py --subset full --stats "$LOGS/plain.json" \
  >"$LOGS/plain.out" 2>&1
echo "plain run: $(tail -1 "$LOGS/plain.out")"

for tool in "${tools[@]}"; do
  var="SUBSET_$tool"
  subset=${!var:-}
  if [ -z "$subset" ]; then
    if [ "$tool" = memcheck ]; then subset=full; else subset=small; fi
  fi
  rm -f "$LOGS/$tool.log" "$LOGS/$tool.json"
  start=$(date +%s)
  timeout --kill-after=15 "$LIMIT_S" "$SAN" --tool "$tool" --error-exitcode 86 \
    --print-limit 200 --log-file "$LOGS/$tool.log" \
    python3 benchmarks/sanitize_driver.py --subset "$subset" --stats "$LOGS/$tool.json" \
    >"$LOGS/$tool.out" 2>&1
  rc=$?
  echo "{\"subset\": \"$subset\", \"exit\": $rc, \"seconds\": $(($(date +%s) - start)), " \
    "\"limit_s\": $LIMIT_S}" >"$LOGS/$tool.run.json"
done

python3 benchmarks/sanitize_report.py --logs "$LOGS" --tools "${tools[@]}" --copy-to "$OUT"
