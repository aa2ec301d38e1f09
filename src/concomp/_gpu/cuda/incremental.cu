// Incremental connectivity: batches of COO inserts and connectivity queries
// (GConn, Algorithm 3). The union-find state lives on the device between batches;
// a batch is one kernel for its inserts, then one for its queries, so every query
// sees every insert of its own batch (the kernel boundary orders them).
//
// Template parameters: I (int or long long vertex type), U (a union rule from
// uf.cuh; GConn's best incremental rule is UniteAsync<FindSplit>), T / OT (the
// id and op-code types a caller's batch arrives in, for the validation pass).
#include "uf.cuh"

#define GRID_STRIDE(i, n)                                                            \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)blockDim.x * gridDim.x)

// ------------------------------------------------------------------ validation
// The host needs to know whether any id is negative (an error), the largest id
// (it decides growth) and how many op codes are not 0 / 1: one pass, one 3-word
// download. All three start at 0, so the host clears the buffer with a memset
// instead of a kernel launch (ids are >= 0 in any batch that passes).
template <typename T, typename OT>
__global__ void batch_stats(const T* __restrict__ u, const T* __restrict__ v,
                            const OT* __restrict__ ops, long long m, int has_ops,
                            long long* out) {
    long long neg = 0, hi = 0, bad = 0;
    GRID_STRIDE(i, m) {
        long long a = (long long)u[i], b = (long long)v[i];
        neg += (a < 0) + (b < 0);
        long long l = a < b ? b : a;
        hi = l > hi ? l : hi;
        if (has_ops) {
            OT o = ops[i];
            bad += (o != (OT)0 && o != (OT)1) ? 1 : 0;
        }
    }
    // warp reduction first: one atomic per warp instead of one per element
    for (int off = 16; off > 0; off >>= 1) {
        neg += __shfl_down_sync(0xffffffffu, neg, off);
        long long ohi = __shfl_down_sync(0xffffffffu, hi, off);
        hi = ohi > hi ? ohi : hi;
        bad += __shfl_down_sync(0xffffffffu, bad, off);
    }
    if ((threadIdx.x & 31) == 0) {
        if (neg) atomic_add(out, neg);
        if (hi) atomicMax(out + 1, hi);
        if (bad) atomic_add(out + 2, bad);
    }
}

// ------------------------------------------------------------------ batches
// Inserts of one batch (ops[i] == 0, or every entry when mixed == 0). A link
// that turns root r into a non-root records the edge in r's hook slots: r owns
// that forest edge (GConn section 3.2), so each slot is written at most once.
template <typename I, class U>
__global__ void batch_insert(I* p, int* aux, const I* __restrict__ u, const I* __restrict__ v,
                             const signed char* __restrict__ ops, int mixed, long long m,
                             bool* result, I* hook_src, I* hook_dst, long long* hook_batch,
                             long long* hook_pos, long long batch, long long* links) {
    UFState<I> s = {p, aux, nullptr};
    long long mine = 0;
    GRID_STRIDE(i, m) {
        if (mixed && ops[i] != 0) continue;
        I a = u[i], b = v[i];
        // equal parents mean one tree already: skip the union's finds (two plain loads;
        // most edges of a large batch end up here once the big component has formed)
        I linked = ld(p + a) == ld(p + b) ? (I)-1 : U::unite(s, a, b);
        result[i] = linked >= 0;
        if (linked >= 0) {
            hook_src[linked] = a;
            hook_dst[linked] = b;
            hook_batch[linked] = batch;
            hook_pos[linked] = i;
            ++mine;
        }
    }
    if (mine) atomic_add(links, mine);
}

// Queries of one batch (ops[i] == 1, or every entry when mixed == 0). No link
// runs concurrently, so path splitting here only shortens paths.
template <typename I>
__global__ void batch_query(I* p, const I* __restrict__ u, const I* __restrict__ v,
                            const signed char* __restrict__ ops, int mixed, long long m,
                            bool* result) {
    GRID_STRIDE(i, m) {
        if (mixed && ops[i] != 1) continue;
        result[i] = FindSplit::find(p, u[i]) == FindSplit::find(p, v[i]);
    }
}

template <typename I>
__global__ void find_roots(I* p, const I* __restrict__ v, long long m, long long* out) {
    GRID_STRIDE(i, m) { out[i] = (long long)FindSplit::find(p, v[i]); }
}

// Point every vertex of [0, n) at its root (benign races: only moves to ancestors).
template <typename I>
__global__ void flatten_all(I* p, I n) {
    GRID_STRIDE(v, n) {
        I x = (I)v, px = ld(p + x);
        while (px != x) {
            x = px;
            px = ld(p + x);
        }
        if (p[v] != x) p[v] = x;
    }
}
