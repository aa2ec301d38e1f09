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

// Symmetric CSR of an edge list (concomp._gpu.rows.symmetric_csr), step 1: the row key of
// every entry, keys[e] = src[e] and keys[m + e] = dst[e], with self loops keyed n (a row
// past the last, sorted away), and the count of every row.
template <typename I, typename C>
__global__ void sym_keys(const I* __restrict__ src, const I* __restrict__ dst, long long m, I n,
                         I* __restrict__ keys, C* counts) {
    GRID_STRIDE(e, m) {
        const I u = src[e], v = dst[e];
        const bool loop = u == v;
        keys[e] = loop ? n : u;
        keys[m + e] = loop ? n : v;
        if (!loop) {
            add_one(counts + u);
            add_one(counts + v);
        }
    }
}

// Step 2, after a stable sort of the keys: entry i of the CSR is sorted position order[i],
// the forward copy of edge order[i] or the reverse copy of edge order[i] - m.
template <typename I>
__global__ void sym_gather(const I* __restrict__ src, const I* __restrict__ dst,
                           const long long* __restrict__ order, long long m, long long total,
                           I* __restrict__ indices, I* __restrict__ eid) {
    GRID_STRIDE(i, total) {
        const long long p = order[i];
        const bool forward = p < m;
        const long long e = forward ? p : p - m;
        indices[i] = forward ? dst[e] : src[e];
        eid[i] = (I)e;
    }
}
