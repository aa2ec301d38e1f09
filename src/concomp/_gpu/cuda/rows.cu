// Row counts of a CSR built from unsorted row keys (concomp._gpu.rows): one atomic
// increment per key, in place of cupy.bincount, which reads the keys' sign and maximum
// back to the host first (two synchronisations) and compiles a kernel of its own.
#include "common.cuh"

__device__ __forceinline__ void add_one(int* p) { atomicAdd(p, 1); }
__device__ __forceinline__ void add_one(long long* p) {
    atomicAdd(reinterpret_cast<unsigned long long*>(p), 1ull);
}

// counts[keys[i]] += 1 for every i < m (keys in [0, len(counts)), checked by the caller).
template <typename K, typename C>
__global__ void count_rows(const K* __restrict__ keys, long long m, C* counts) {
    GRID_STRIDE(i, m) { add_one(counts + keys[i]); }
}
