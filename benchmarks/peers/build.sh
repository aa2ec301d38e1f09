#!/usr/bin/env bash
# Build the published GPU peers for the benchmark harness:
#   bash benchmarks/peers/build.sh SRC_DIR BIN_DIR
# SRC_DIR holds one folder per peer (ecl-cc, afforest, gconn, ecl-mst, ecl-scc), exported
# from the commits that SRC_DIR/../SOURCES.txt names; the sources never enter this repository.
# Every peer found is built for $ARCH (default sm_90) with -O3 into BIN_DIR, in parallel; one
# status line per peer; a failure does not stop the others; the exit status is nonzero if any
# build failed. SRC_DIR is never modified: the few patches (README.md beside this file says
# which and why) are applied by sed to a copy under BIN_DIR/build, and each one is checked, so
# that a changed upstream file fails the build instead of going unpatched.
# Environment: NVCC (default nvcc), ARCH (default sm_90), CURAND_INCLUDE (a folder holding
# curand_kernel.h, for GConn, where the toolkit has none).
set -uo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 SRC_DIR BIN_DIR" >&2
  exit 2
fi
SRC=$(cd "$1" && pwd) || { echo "SRC_DIR '$1' is not a folder" >&2; exit 2; }
mkdir -p "$2" || exit 2
BIN=$(cd "$2" && pwd)
NVCC=${NVCC:-nvcc}
ARCH=${ARCH:-sm_90}
WORK=$BIN/build
LOGS=$BIN/logs
rm -rf "$WORK"
mkdir -p "$WORK" "$LOGS"
"$NVCC" --version | tail -1 || { echo "no working nvcc ('$NVCC')" >&2; exit 2; }

# fresh_copy PEER: a private copy of SRC/PEER to patch and build in; prints its path.
fresh_copy() {
  cp -r "$SRC/$1" "$WORK/$1" && echo "$WORK/$1"
}

# patch_file FILE SED_SCRIPT MUST_MATCH: apply the sed script, then require MUST_MATCH (a fixed
# string) in the result, so that an upstream change shows as a failed build.
patch_file() {
  sed -i -e "$2" "$1" && grep -qF -- "$3" "$1" || { echo "patch did not apply to $1: $2"; return 1; }
}

# A folder with curand_kernel.h: the toolkit's own, $CURAND_INCLUDE, or the nvidia-curand wheel
# of any python3 on the PATH (the GPU image ships CUDA's libraries as wheels).
curand_include() {
  local nvcc_dir inc py sp
  nvcc_dir=$(dirname "$(command -v "$NVCC")")
  for inc in "${CURAND_INCLUDE:-}" "$nvcc_dir/../include" "${CUDA_HOME:-/usr/local/cuda}/include"; do
    [ -n "$inc" ] && [ -f "$inc/curand_kernel.h" ] && { echo "$inc"; return 0; }
  done
  for py in python3 python; do
    command -v "$py" >/dev/null || continue
    for sp in $("$py" -c 'import site, sys; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null); do
      for inc in "$sp"/nvidia/cu13/include "$sp"/nvidia/cu12/include "$sp"/nvidia/curand/include; do
        [ -f "$inc/curand_kernel.h" ] && { echo "$inc"; return 0; }
      done
    done
  done
  return 1
}

build_ecl_cc() {
  local d
  d=$(fresh_copy ecl-cc) || return 1
  # The timer prints seconds with 4 decimals (0.1 ms steps); print 9 to resolve microseconds.
  patch_file "$d/main.cu" 's/execution time: %\.4f s/execution time: %.9f s/' \
    'execution time: %.9f s' || return 1
  "$NVCC" -O3 -std=c++17 -arch="$ARCH" -I"$d" "$d/main.cu" -o "$BIN/ecl-cc"
}

build_afforest() {
  local d
  d=$(fresh_copy afforest) || return 1
  # __any/__ballot without a mask do not exist for sm_70 and later; every lane of the warp
  # reaches these calls (the kernels round the loop up to whole blocks), so the full mask holds.
  patch_file "$d/device/cta_scheduler.cuh" \
    's/__any(/__any_sync(0xffffffffu, /g; s/__ballot(/__ballot_sync(0xffffffffu, /g' \
    '__ballot_sync(0xffffffffu, ' || return 1
  "$NVCC" -O3 -std=c++17 -arch="$ARCH" -I"$d/src" -I"$d/deps/cub" -Xcompiler -fopenmp \
    "$d/device/cc.cu" -o "$BIN/afforest"
}

# GConn's install.sh flags (SCC = static connectivity, DCC = one batch of insertions), with
# $ARCH for sm_70, C++17 for C++11 (CUDA 13's headers need it), PRINT for the component count
# and without ptxas -v.
gconn_flags=(-O3 -std=c++17 --disable-warnings -DVOLTA -DSSFACT=4 -DFUS_SAMPLE -DPRINT
  --use_fast_math -Xptxas -dlcm=ca)

build_gconn() {
  local mode=$1 out=$2 d inc
  d=$WORK/gconn-$mode
  cp -r "$SRC/gconn" "$d" || return 1
  inc=$(curand_include) || { echo "no curand_kernel.h found: set CURAND_INCLUDE"; return 1; }
  if [ "$mode" = static ]; then
    set -- -DALPHA=4 -DSCC
  else
    set -- -DSTREAMING_SIMPLE
  fi
  (cd "$d" && "$NVCC" "${gconn_flags[@]}" "$@" -arch="$ARCH" -I"$inc" \
    gen_graph.cu union_find.cu main.cu -o "$BIN/$out")
}

# CUDA 13 dropped cudaDeviceProp's clockRate and memoryClockRate, which the ECL codes print
# in their banner line: read the same values through cudaDeviceGetAttribute.
patch_clock_rates() {
  patch_file "$1" \
    's/deviceProp\.\(clockRate\|memoryClockRate\)/[]{int v = 0; cudaDeviceGetAttribute(\&v, cudaDevAttr\u\1, Device); return v;}()/g' \
    'cudaDevAttrMemoryClockRate, Device)'
}

build_ecl_mst() {
  local d
  d=$(fresh_copy ecl-mst) || return 1
  patch_clock_rates "$d/source/ECL-MST_10.cu" || return 1
  # ECL-MST checks its tree against a serial Kruskal but prints no weight: print the GPU's.
  patch_file "$d/source/ECL-MST_10.cu" \
    's/^  if ((gpuMSTweight != cpuMSTweight)/  printf("GPU MST weight: %llu\\n", gpuMSTweight);\n&/' \
    'printf("GPU MST weight: %llu\n", gpuMSTweight);' || return 1
  "$NVCC" -O3 -arch="$ARCH" "$d/source/ECL-MST_10.cu" -o "$BIN/ecl-mst"
}

build_ecl_scc() {
  local d
  d=$(fresh_copy ecl-scc) || return 1
  patch_clock_rates "$d/source/ECL-SCC_10.cu" || return 1
  "$NVCC" -O3 -arch="$ARCH" "$d/source/ECL-SCC_10.cu" -o "$BIN/ecl-scc"
}

# binary name, source folder, build command
targets=(
  "ecl-cc ecl-cc build_ecl_cc"
  "afforest afforest build_afforest"
  "gconn-cc gconn build_gconn static gconn-cc"
  "gconn-inc gconn build_gconn incremental gconn-inc"
  "ecl-mst ecl-mst build_ecl_mst"
  "ecl-scc ecl-scc build_ecl_scc"
)

for t in "${targets[@]}"; do
  read -r name folder cmd <<<"$t"
  rm -f "$BIN/$name" "$LOGS/$name.status"
  if [ ! -d "$SRC/$folder" ]; then
    echo "skipped (no $SRC/$folder)" >"$LOGS/$name.status"
    continue
  fi
  (
    start=$SECONDS
    if $cmd >"$LOGS/$name.log" 2>&1 && [ -x "$BIN/$name" ]; then
      echo "ok ($((SECONDS - start)) s) -> $BIN/$name" >"$LOGS/$name.status"
    else
      echo "FAILED ($((SECONDS - start)) s), log: $LOGS/$name.log" >"$LOGS/$name.status"
    fi
  ) &
done
wait

failed=0
for t in "${targets[@]}"; do
  read -r name _ <<<"$t"
  status=$(cat "$LOGS/$name.status")
  printf '%-10s %s\n' "$name:" "$status"
  case $status in FAILED*) failed=1 ;; esac
done
exit $failed
