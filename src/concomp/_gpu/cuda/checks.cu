// Input checks of device arrays in one pass each and one download for all of them
// (concomp._gpu.checks): the range of vertex ids, and whether a CSR row pointer
// never decreases. The host reads the five words of `out` once; it zeroes them
// first (one memset, where filling them with other values took an upload), so the
// range is kept in encodings whose zero is the identity of their atomic:
// out[CHECK_MIN] holds max(~order_key(x)) and out[CHECK_MAX] max(order_key(x)), where
// order_key maps signed order to unsigned order (see concomp._gpu.checks._decode).
#include "common.cuh"

#define CHECK_MIN 0
#define CHECK_MAX 1
#define CHECK_DECREASES 2
#define CHECK_FIRST 3
#define CHECK_LAST 4

// Signed order as unsigned order: x < y exactly when order_key(x) < order_key(y).
__device__ __forceinline__ unsigned long long order_key(long long x) {
    return (unsigned long long)x ^ 0x8000000000000000ull;
}

// The smallest and largest of a warp's lanes' values, in every lane's lo / hi.
__device__ __forceinline__ void min_max_warp(long long& lo, long long& hi) {
    for (int off = 16; off > 0; off >>= 1) {
        long long olo = __shfl_xor_sync(0xffffffffu, lo, off);
        long long ohi = __shfl_xor_sync(0xffffffffu, hi, off);
        lo = olo < lo ? olo : lo;
        hi = ohi > hi ? ohi : hi;
    }
}

// out[CHECK_MIN] / out[CHECK_MAX]: smallest and largest value of a[0..m), encoded.
template <typename T>
__global__ void id_range(const T* __restrict__ a, long long m, long long* out) {
    long long lo = 0x7fffffffffffffffll, hi = -0x7fffffffffffffffll - 1;
    GRID_STRIDE(i, m) {
        long long x = (long long)a[i];
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
    }
    // the block reduces first (lanes, then warps): one atomic pair per block. Atomics on
    // one address serialise, and one pair per warp made the pass several times slower
    // than reading the array.
    __shared__ long long warp_lo[32], warp_hi[32];
    min_max_warp(lo, hi);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        warp_lo[warp] = lo;
        warp_hi[warp] = hi;
    }
    __syncthreads();
    if (warp == 0) {
        const int warps = (blockDim.x + 31) >> 5;
        lo = lane < warps ? warp_lo[lane] : 0x7fffffffffffffffll;
        hi = lane < warps ? warp_hi[lane] : -0x7fffffffffffffffll - 1;
        min_max_warp(lo, hi);
        if (lane == 0) {
            atomicMax((unsigned long long*)(out + CHECK_MIN), ~order_key(lo));
            atomicMax((unsigned long long*)(out + CHECK_MAX), order_key(hi));
        }
    }
}

// out[CHECK_DECREASES]: how many i have p[i + 1] < p[i]; out[CHECK_FIRST], out[CHECK_LAST]:
// p[0] and p[rows] (the row pointer has rows + 1 entries).
template <typename T>
__global__ void offsets_check(const T* __restrict__ p, long long rows, long long* out) {
    long long bad = 0;
    GRID_STRIDE(i, rows) bad += p[i + 1] < p[i];
    for (int off = 16; off > 0; off >>= 1) bad += __shfl_down_sync(0xffffffffu, bad, off);
    if ((threadIdx.x & 31) == 0 && bad) atomicAdd((unsigned long long*)(out + CHECK_DECREASES),
                                                  (unsigned long long)bad);
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        out[CHECK_FIRST] = (long long)p[0];
        out[CHECK_LAST] = (long long)p[rows];
    }
}

// out[CHECK_DECREASES]: how many weights are NaN (NaN is the one value unequal to itself).
template <typename T>
__global__ void nan_count(const T* __restrict__ w, long long m, long long* out) {
    long long bad = 0;
    GRID_STRIDE(i, m) bad += w[i] != w[i];
    for (int off = 16; off > 0; off >>= 1) bad += __shfl_down_sync(0xffffffffu, bad, off);
    if ((threadIdx.x & 31) == 0 && bad) atomicAdd((unsigned long long*)(out + CHECK_DECREASES),
                                                  (unsigned long long)bad);
}
