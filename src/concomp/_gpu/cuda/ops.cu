// Array steps of the GPU drivers (concomp._gpu.ops): ranges, fills, casts, gathers,
// prefix sums and the positions of set flags. CuPy's element-wise operations,
// fancy indexing and cumsum's input copy each build an NVRTC program of their own
// on a machine whose kernel cache is empty (about a tenth of a second each); these
// are the package's own kernels, compiled with the rest of a call's kernels.
#include "common.cuh"

// out[i] = i.
template <typename T>
__global__ void iota(T* __restrict__ out, long long n) {
    GRID_STRIDE(i, n) { out[i] = (T)i; }
}

// out[i] = value.
template <typename T>
__global__ void fill(T* __restrict__ out, long long n, T value) {
    GRID_STRIDE(i, n) { out[i] = value; }
}

// out[i] = (T)in[i] (the caller checks that the values fit).
template <typename S, typename T>
__global__ void cast(const S* __restrict__ in, long long n, T* __restrict__ out) {
    GRID_STRIDE(i, n) { out[i] = (T)in[i]; }
}

// out[i] = values[idx[i]], on words of the element's size (any dtype of that size).
template <typename W, typename I>
__global__ void gather(const W* __restrict__ values, const I* __restrict__ idx, long long n,
                       W* __restrict__ out) {
    GRID_STRIDE(i, n) { out[i] = values[idx[i]]; }
}

// ------------------------------------------------------------------ prefix sums
// Three launches: every tile's sum (scan_tiles), an exclusive scan of those sums by one
// block (scan_carry), then every tile again from its carry (scan_apply, or
// flag_positions for the positions of set flags). A tile is SCAN_THREADS threads of
// SCAN_ITEMS consecutive entries each.
#define SCAN_THREADS 256
#define SCAN_ITEMS 8
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)

// What an entry adds to the sum, by MODE: the entry itself (SCAN_VALUES), 1 where it is
// non-zero (SCAN_FLAGS), or 1 where it equals its position, a root of root labels
// (SCAN_ROOTS: the sum up to v is then the number of roots up to v).
#define SCAN_VALUES 0
#define SCAN_FLAGS 1
#define SCAN_ROOTS 2
template <typename S, typename T, int MODE>
__device__ __forceinline__ T scan_value(const S* in, long long i) {
    if (MODE == SCAN_FLAGS) return in[i] != 0 ? (T)1 : (T)0;
    if (MODE == SCAN_ROOTS) return in[i] == (S)i ? (T)1 : (T)0;
    return (T)in[i];
}

// Inclusive prefix sum of x over the block's threads; *total gets the block's sum.
// `warp_sums` is shared memory of SCAN_THREADS / 32 entries.
template <typename T>
__device__ T block_inclusive(T x, T* warp_sums, T* total) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = 1; d < 32; d <<= 1) {
        const T y = __shfl_up_sync(0xffffffffu, x, d);
        if (lane >= d) x += y;
    }
    if (lane == 31) warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        T s = lane < SCAN_THREADS / 32 ? warp_sums[lane] : (T)0;
        for (int d = 1; d < 32; d <<= 1) {
            const T y = __shfl_up_sync(0xffffffffu, s, d);
            if (lane >= d) s += y;
        }
        if (lane < SCAN_THREADS / 32) warp_sums[lane] = s;
    }
    __syncthreads();
    const T before = warp > 0 ? warp_sums[warp - 1] : (T)0;
    *total = warp_sums[SCAN_THREADS / 32 - 1];
    __syncthreads();  // the caller may call again with the same shared memory
    return x + before;
}

// sums[b] = the sum of tile b's values.
template <typename S, typename T, int MODE>
__global__ void __launch_bounds__(SCAN_THREADS)
    scan_tiles(const S* __restrict__ in, long long n, T* __restrict__ sums) {
    __shared__ T warp_sums[SCAN_THREADS / 32];
    const long long first = (long long)blockIdx.x * SCAN_TILE + (long long)threadIdx.x * SCAN_ITEMS;
    T x = 0;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k)
        if (first + k < n) x += scan_value<S, T, MODE>(in, first + k);
    T total;
    block_inclusive(x, warp_sums, &total);
    if (threadIdx.x == 0) sums[blockIdx.x] = total;
}

// One block: sums[0..tiles) becomes its exclusive prefix sum, and sums[tiles] the total.
template <typename T>
__global__ void __launch_bounds__(SCAN_THREADS) scan_carry(T* sums, long long tiles) {
    __shared__ T warp_sums[SCAN_THREADS / 32];
    T carry = 0;
    for (long long base = 0; base < tiles; base += SCAN_TILE) {
        const long long first = base + (long long)threadIdx.x * SCAN_ITEMS;
        T v[SCAN_ITEMS];
        T x = 0;
#pragma unroll
        for (int k = 0; k < SCAN_ITEMS; ++k) {
            v[k] = first + k < tiles ? sums[first + k] : (T)0;
            x += v[k];
        }
        T total;
        T run = carry + block_inclusive(x, warp_sums, &total) - x;
#pragma unroll
        for (int k = 0; k < SCAN_ITEMS; ++k) {
            if (first + k < tiles) sums[first + k] = run;
            run += v[k];
        }
        carry += total;
    }
    if (threadIdx.x == 0) sums[tiles] = carry;
}

// out[i] = the inclusive prefix sum of the values up to i (`out` may be `in`: each thread
// reads its entries before it writes them, and no other thread touches them).
template <typename S, typename T, int MODE>
__global__ void __launch_bounds__(SCAN_THREADS)
    scan_apply(const S* in, long long n, const T* __restrict__ carry, T* out) {
    __shared__ T warp_sums[SCAN_THREADS / 32];
    const long long first = (long long)blockIdx.x * SCAN_TILE + (long long)threadIdx.x * SCAN_ITEMS;
    T v[SCAN_ITEMS];
    T x = 0;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        v[k] = first + k < n ? scan_value<S, T, MODE>(in, first + k) : (T)0;
        x += v[k];
    }
    T total;
    T run = carry[blockIdx.x] + block_inclusive(x, warp_sums, &total) - x;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        run += v[k];
        if (first + k < n) out[first + k] = run;
    }
}

// out[j] = the position of the j-th non-zero flag, in ascending order (numpy.flatnonzero).
template <typename S>
__global__ void __launch_bounds__(SCAN_THREADS)
    flag_positions(const S* __restrict__ flags, long long n, const long long* __restrict__ carry,
                   long long* __restrict__ out) {
    __shared__ long long warp_sums[SCAN_THREADS / 32];
    const long long first = (long long)blockIdx.x * SCAN_TILE + (long long)threadIdx.x * SCAN_ITEMS;
    bool set[SCAN_ITEMS];
    long long x = 0;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k) {
        set[k] = first + k < n && flags[first + k] != 0;
        x += set[k];
    }
    long long total;
    long long at = carry[blockIdx.x] + block_inclusive(x, warp_sums, &total) - x;
#pragma unroll
    for (int k = 0; k < SCAN_ITEMS; ++k)
        if (set[k]) out[at++] = first + k;
}
