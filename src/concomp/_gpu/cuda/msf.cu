// Minimum spanning forest kernels: edge ranking and Wang et al.'s GPU Prim (Borůvka: boruvka.cu).
//
// The driver sorts the edges once by the tie key (weight, min(u,v), max(u,v), edge id)
// and renumbers them by position in that order. An edge's rank is then a complete,
// unique key (smaller rank = lighter edge), so "lightest edge" is an integer atomicMin
// and the tie rule holds exactly for any weight type, float64 included.
//
// IdT is int or long long: vertex ids, ranks and CSR offsets share one type.
// NVRTC has no standard headers: only builtins are used here.
#include "common.cuh"

template <typename IdT> struct IdLimits;
template <> struct IdLimits<int> { static constexpr int none = 0x7fffffff; };
template <> struct IdLimits<long long> { static constexpr long long none = 0x7fffffffffffffffLL; };


// ------------------------------------------------------------------------------ weight keys
// Unsigned 64-bit keys whose order is the weights' order, the CPU engine's mapping
// (concomp._gpu.msf_rank.weight_keys): integers offset by 2^63, IEEE floats by their
// sign bit (-0.0 read as 0.0), and float64 weights that are all integers of magnitude
// below 2^53 as those integers. `flip` is ~0 for a maximum forest (keys reversed).
// One launch each, in place of a dozen CuPy element-wise passes and a reduction that
// each compile on a new machine.

template <typename W, bool SIGNED>
__global__ void int_keys(const W* __restrict__ w, long long m, unsigned long long flip,
                         unsigned long long* __restrict__ key) {
    GRID_STRIDE(e, m) {
        const unsigned long long k = SIGNED ? (unsigned long long)(long long)w[e] ^ (1ull << 63)
                                            : (unsigned long long)w[e];
        key[e] = k ^ flip;
    }
}

__device__ __forceinline__ unsigned long long ieee_key(float x) {
    if (x == 0.0f) x = 0.0f;  // -0.0 ties with 0.0
    const unsigned int b = __float_as_uint(x);
    return (b >> 31) ? (unsigned long long)(~b) : (unsigned long long)(b | 0x80000000u);
}

__device__ __forceinline__ unsigned long long ieee_key(double x) {
    if (x == 0.0) x = 0.0;
    const unsigned long long b = (unsigned long long)__double_as_longlong(x);
    return (b >> 63) ? ~b : (b | (1ull << 63));
}

// *not_integral = 1 if some weight is not an integer of magnitude below 2^53.
template <typename W>
__global__ void float_integral(const W* __restrict__ w, long long m, int* not_integral) {
    GRID_STRIDE(e, m) {
        const double x = (double)w[e];
        if (!(fabs(x) < 9007199254740992.0 && x == floor(x))) *not_integral = 1;
    }
}

template <typename W>
__global__ void float_keys(const W* __restrict__ w, long long m, int integral,
                           unsigned long long flip, unsigned long long* __restrict__ key) {
    GRID_STRIDE(e, m) {
        const unsigned long long k =
            integral ? (unsigned long long)(long long)w[e] ^ (1ull << 63) : ieee_key(w[e]);
        key[e] = k ^ flip;
    }
}


// ------------------------------------------------------------------------------ ranking
// The driver ranks edges by one (or two) stable sorts of packed words. These kernels
// replace a dozen elementwise CuPy passes (and their temporaries) around those sorts:
// one reduction, one pass that builds the words, one that decodes the sorted order.
// S is the caller's id type (int or long long); keys are unsigned weight keys whose
// order is the weights' order.

// min and max key over the non-loop edges, and how many there are (out starts as
// {~0, 0, 0}). Warp reduction first: one atomic per warp and quantity.
template <typename S>
__global__ void rank_stats(const S* __restrict__ src, const S* __restrict__ dst,
                           const unsigned long long* __restrict__ key, long long m,
                           unsigned long long* out) {
    unsigned long long lo = ~0ull, hi = 0, count = 0;
    GRID_STRIDE(i, m) {
        if (src[i] != dst[i]) {
            unsigned long long k = key[i];
            lo = k < lo ? k : lo;
            hi = k > hi ? k : hi;
            ++count;
        }
    }
    for (int off = 16; off > 0; off >>= 1) {
        unsigned long long o = __shfl_down_sync(0xffffffffu, lo, off);
        lo = o < lo ? o : lo;
        o = __shfl_down_sync(0xffffffffu, hi, off);
        hi = o > hi ? o : hi;
        count += __shfl_down_sync(0xffffffffu, count, off);
    }
    if ((threadIdx.x & 31) == 0 && count) {
        atomicMin(out, lo);
        atomicMax(out + 1, hi);
        atomicAdd(out + 2, count);
    }
}

// word = (low bits of key - kmin) << 2*nbits | min(u,v) << nbits | max(u,v), and the
// key's higher bits as a 16-bit band for a second sort (when with_band). Self loops get
// the largest word and band, so they sort last and the driver cuts them off by count.
template <typename S>
__global__ void rank_words(const S* __restrict__ src, const S* __restrict__ dst,
                           const unsigned long long* __restrict__ key, long long m,
                           unsigned long long kmin, int nbits, int low, int with_band,
                           unsigned long long* __restrict__ word,
                           unsigned short* __restrict__ band) {
    unsigned long long low_mask = low ? (~0ull >> (64 - low)) : 0ull;
    GRID_STRIDE(i, m) {
        S u = src[i], v = dst[i];
        unsigned long long w = ~0ull;
        unsigned short b = 0xffffu;
        if (u != v) {
            unsigned long long k = key[i] - kmin;
            unsigned long long lo = (unsigned long long)(u < v ? u : v);
            unsigned long long hi = (unsigned long long)(u < v ? v : u);
            w = (lo << nbits) | hi;
            if (low) w |= (k & low_mask) << (2 * nbits);
            b = (unsigned short)(low < 64 ? (k >> low) : 0ull);
        }
        word[i] = w;
        if (with_band) band[i] = b;
    }
}

// Endpoints of the edges in rank order: eu[r] = min, ev[r] = max of edge order[r].
template <typename S, typename IdT>
__global__ void rank_decode(const S* __restrict__ src, const S* __restrict__ dst,
                            const long long* __restrict__ order, long long count,
                            IdT* __restrict__ eu, IdT* __restrict__ ev) {
    GRID_STRIDE(r, count) {
        long long e = order[r];
        S u = src[e], v = dst[e];
        eu[r] = (IdT)(u < v ? u : v);
        ev[r] = (IdT)(u < v ? v : u);
    }
}

// Weight keys too wide to pack beside the endpoints: stable sorts by max(u, v), by
// min(u, v) and by the key, least significant first, over the non-loop edges. These
// kernels gather each sort's keys and compose the permutations (CuPy's sorts are
// compiled ahead of time; its comparisons, compaction and gathers compile on first use).

// The non-loop edges' ids in ascending order, by an order-keeping compaction over tiles
// of RANK_TILE edges, one block of RANK_THREADS threads each: rank_nonloop_count counts a
// tile's non-loop edges; after a prefix sum of the counts, rank_nonloop_write writes the
// tile's ids from its offset, RANK_THREADS edges at a time (warp ballots order them).
#define RANK_THREADS 256
#define RANK_TILE (RANK_THREADS * 16)

template <typename S>
__global__ void rank_nonloop_count(const S* __restrict__ src, const S* __restrict__ dst,
                                   long long m, long long* __restrict__ tile_counts) {
    const long long base = (long long)blockIdx.x * RANK_TILE;
    int c = 0;
    for (int j = threadIdx.x; j < RANK_TILE; j += RANK_THREADS) {
        const long long e = base + j;
        c += e < m && src[e] != dst[e];
    }
    for (int off = 16; off > 0; off >>= 1) c += __shfl_down_sync(0xffffffffu, c, off);
    __shared__ int warp_count[RANK_THREADS / 32];
    if ((threadIdx.x & 31) == 0) warp_count[threadIdx.x >> 5] = c;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long total = 0;
        for (int w = 0; w < RANK_THREADS / 32; ++w) total += warp_count[w];
        tile_counts[blockIdx.x] = total;
    }
}

// ends: the inclusive prefix sum of the tiles' counts.
template <typename S>
__global__ void rank_nonloop_write(const S* __restrict__ src, const S* __restrict__ dst,
                                   long long m, const long long* __restrict__ ends,
                                   long long* __restrict__ ids) {
    const long long base = (long long)blockIdx.x * RANK_TILE;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    __shared__ int warp_count[RANK_THREADS / 32];
    long long next = blockIdx.x ? ends[blockIdx.x - 1] : 0;  // the same in every thread
    for (int j0 = 0; j0 < RANK_TILE; j0 += RANK_THREADS) {
        const long long e = base + j0 + threadIdx.x;
        const bool keep = e < m && src[e] != dst[e];
        const unsigned int mask = __ballot_sync(0xffffffffu, keep);
        if (lane == 0) warp_count[warp] = __popc(mask);
        __syncthreads();
        int before = __popc(mask & ((1u << lane) - 1)), all = 0;
        for (int w = 0; w < RANK_THREADS / 32; ++w) {
            before += w < warp ? warp_count[w] : 0;
            all += warp_count[w];
        }
        if (keep) ids[next + before] = e;
        next += all;
        __syncthreads();  // warp_count is rewritten by the next step
    }
}

// out[r] = the larger (take_max) or the smaller endpoint of edge order[r].
template <typename S>
__global__ void rank_endpoint(const S* __restrict__ src, const S* __restrict__ dst,
                              const long long* __restrict__ order, long long count, int take_max,
                              S* __restrict__ out) {
    GRID_STRIDE(r, count) {
        const long long e = order[r];
        const S u = src[e], v = dst[e];
        out[r] = (take_max ? u < v : v < u) ? v : u;
    }
}

// out[r] = values[order[r]]: a sort's keys, or two permutations composed.
template <typename K>
__global__ void rank_gather(const K* __restrict__ values, const long long* __restrict__ order,
                            long long count, K* __restrict__ out) {
    GRID_STRIDE(r, count) out[r] = values[order[r]];
}

// ------------------------------------------------------------------------------ Prim
// Wang et al. (2011): the candidate edge list is R1 (tree endpoint), R2 (vertex) and R3
// (weight) over positions 0..n-1; positions < k are in the forest, the rest are
// candidates. Here R3 holds the rank of the lightest edge from the tree to R2[p] (ranks
// are exact weights), and R1 follows from that rank at the end, which keeps the update
// a single atomicMin instead of a racy two-array write. state = {k, C}: the number of
// finished positions and the vertex added last (C < 0: nothing left to do).
template <typename IdT>
struct alignas(2 * sizeof(IdT)) PackedEdge {  // the paper's packed (vertex, weight) entry
    IdT v, rank;
};

template <typename IdT>
__device__ __forceinline__ void min_pair(IdT& val, IdT& idx, IdT v2, IdT i2) {
    if (v2 < val || (v2 == val && i2 < idx)) {
        val = v2;
        idx = i2;
    }
}

// Shared-memory tree reduction of (value, index) pairs, unrolled for a fixed BLOCK.
template <typename IdT, int BLOCK>
__device__ __forceinline__ void block_min(IdT* sval, IdT* sidx, IdT val, IdT idx) {
    unsigned t = threadIdx.x;
    sval[t] = val;
    sidx[t] = idx;
    __syncthreads();
#pragma unroll
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (t < (unsigned)s) min_pair(sval[t], sidx[t], sval[t + s], sidx[t + s]);
        __syncthreads();
    }
}

// GMR kernel 1: every block reduces its grid-stride share of R3[k..n) to one
// (value, position) pair in T1/T2. Any length works, not only powers of two.
template <typename IdT, int BLOCK>
__global__ void prim_min_partial(const IdT* __restrict__ R3, const IdT* __restrict__ state,
                                 IdT n, IdT* __restrict__ T1, IdT* __restrict__ T2) {
    __shared__ IdT sval[BLOCK];
    __shared__ IdT sidx[BLOCK];
    IdT val = IdLimits<IdT>::none, idx = IdLimits<IdT>::none;
    for (long long p = state[0] + (long long)blockIdx.x * BLOCK + threadIdx.x; p < n;
         p += (long long)gridDim.x * BLOCK)
        min_pair(val, idx, R3[p], (IdT)p);
    block_min<IdT, BLOCK>(sval, sidx, val, idx);
    if (threadIdx.x == 0) {
        T1[blockIdx.x] = sval[0];
        T2[blockIdx.x] = sidx[0];
    }
}

// GMR kernel 2 plus "add the new MST edge": one block reduces the partial results,
// then thread 0 swaps the winner to position k, records its rank and publishes C.
// With no candidate edge left (value none) the winner starts a new tree.
template <typename IdT, int BLOCK>
__global__ void prim_min_final(IdT* __restrict__ R2, IdT* __restrict__ R3, IdT* __restrict__ pos,
                               IdT* state, const IdT* __restrict__ T1,
                               const IdT* __restrict__ T2, int partials, IdT n,
                               IdT* __restrict__ tree_rank) {
    __shared__ IdT sval[BLOCK];
    __shared__ IdT sidx[BLOCK];
    IdT val = IdLimits<IdT>::none, idx = IdLimits<IdT>::none;
    for (int b = threadIdx.x; b < partials; b += BLOCK) min_pair(val, idx, T1[b], T2[b]);
    block_min<IdT, BLOCK>(sval, sidx, val, idx);
    if (threadIdx.x != 0) return;
    IdT k = state[0];
    if (k >= n) {
        state[1] = -1;
        return;
    }
    IdT p = sidx[0], vk = R2[k], vp = R2[p], rp = R3[p];
    R2[k] = vp;
    R2[p] = vk;
    R3[p] = R3[k];
    R3[k] = rp;
    pos[vp] = k;
    pos[vk] = p;
    tree_rank[k] = rp;
    state[0] = k + 1;
    state[1] = vp;
}

// Compare-and-update: the neighbours of C that are still candidates may now be
// reached more cheaply. One thread per adjacency entry of C (the paper's "C -> n"
// direction: consecutive threads read consecutive packed entries).
template <typename IdT>
__global__ void prim_update(const IdT* __restrict__ indptr,
                            const PackedEdge<IdT>* __restrict__ adj, IdT* R3,
                            const IdT* __restrict__ pos, const IdT* __restrict__ state) {
    IdT k = state[0], c = state[1];
    if (c < 0) return;
    for (long long j = indptr[c] + (long long)blockIdx.x * blockDim.x + threadIdx.x;
         j < indptr[c + 1]; j += (long long)blockDim.x * gridDim.x) {
        PackedEdge<IdT> e = adj[j];
        IdT p = pos[e.v];
        if (p >= k && e.rank < R3[p]) atomicMin(&R3[p], e.rank);
    }
}

// R1 of the candidate list: the tree-side endpoint of each position's edge (-1 for the
// first vertex of each tree).
template <typename IdT>
__global__ void prim_outgoing(const IdT* __restrict__ R2, const IdT* __restrict__ tree_rank,
                              const IdT* __restrict__ eu, const IdT* __restrict__ ev,
                              IdT* __restrict__ R1, IdT n) {
    GRID_STRIDE(p, n) {
        IdT r = tree_rank[p];
        R1[p] = r == IdLimits<IdT>::none ? (IdT)-1 : (eu[r] == R2[p] ? ev[r] : eu[r]);
    }
}
