// Filter-Borůvka on packed 64-bit edge keys, straight from the input edges.
//
// Each round works on lists of (root, root, key, w) entries: the edges whose ends were
// in different components. Links go into `parent`; `comp[v]` is v's root, written
// only by v's own thread in the compression pass (the path-halving stores of other
// threads into `parent` may lower a pointer another thread just raised, harmless for
// walking but not for a one-read lookup). The first round of a phase reads the
// input edges (raw vertex ids, so comp must be current for every vertex); later
// rounds read the previous round's list, whose ids were roots when it was written,
// and the compression pass updated comp for every such root. Hooking and
// compression touch only the live roots, a list that at least halves every round.
// List and root-list lengths are read on the device, so the host can launch
// several rounds without reading anything back.
//
// IdT is int or long long (vertex ids), S the input's id type. NVRTC has no
// standard headers: builtins only.

#include "common.cuh"

#define BK_NONE 0xffffffffffffffffull

// Block-aggregated append: one atomicAdd per block reserves the slots of its kept
// threads (warp counts are scanned in shared memory). Every thread of the block must
// call it. One atomic per warp on the single list counter makes whole runs slower
// (the counter's atomics serialise; benchmarks/device_msf.py).
__device__ __forceinline__ long long bk_block_append_slot(bool keep, unsigned long long* count) {
    __shared__ unsigned int warp_base[32];
    __shared__ unsigned long long block_base;
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
    if (lane == 0) warp_base[warp] = __popc(mask);
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned total = 0;
        for (unsigned w = 0; w < (blockDim.x + 31u) / 32u; ++w) {
            unsigned c = warp_base[w];
            warp_base[w] = total;
            total += c;
        }
        block_base = total ? atomicAdd(count, (unsigned long long)total) : 0ull;
    }
    __syncthreads();
    long long slot = (long long)(block_base + warp_base[warp] + __popc(mask & ((1u << lane) - 1u)));
    __syncthreads();  // the next call overwrites warp_base
    return slot;
}

// ------------------------------------------------------------------ keys
// Key of a non-loop edge i = (a, b),
// a = min(u, v), b = max(u, v):
//     k = (weight code << 32) | q(a, b),   q(a, b) = ((a << qbits) | b) >> qshift
// where qbits is the bit length of the largest vertex id and qshift = max(0, 2 qbits - 32):
// q keeps all of a and the top bits of b, so k orders edges by (weight, min, max) but
// two edges may share a key. Each offer therefore carries a second word
//     w = (b << 32) | i
// and a round picks, per component, the smallest key and then, among the edges that
// offered it, the smallest w (bk_resolve). Equal keys mean equal weight and equal a,
// so (k, w) orders edges exactly as the tie rule (weight, min, max, edge id) does.
// Nothing is sorted and nothing is kept per graph.
//
// Ranked mode (ranked != 0) reads edges already sorted by the tie rule (the ranking
// path of _gpu/msf.py, for weights wider than 32 bits): k is the position (a unique
// key, so no resolve pass is needed) and w the input edge id.
__device__ __forceinline__ u64 bk_q(u64 a, u64 b, int qbits, int qshift) {
    return ((a << qbits) | b) >> qshift;
}

// The keys of `count` edges spread over all `m` by a fixed multiplicative stride (edge
// j * 2654435761 mod m for sample j < 2**16: deterministic, and no product overflows).
template <typename S>
__global__ void bk_sample_keys(const S* __restrict__ src, const S* __restrict__ dst,
                                const u64* __restrict__ code, long long m, long long count,
                                u64 kmin, int qbits, int qshift, u64* __restrict__ out) {
    GRID_STRIDE(j, count) {
        const long long i = (long long)(((u64)j * 2654435761ull) % (u64)m);
        S u = src[i], v = dst[i];
        u64 a = (u64)(u < v ? u : v), b = (u64)(u < v ? v : u);
        out[j] = u == v ? BK_NONE : ((code[i] - kmin) << 32) | bk_q(a, b, qbits, qshift);
    }
}

// One round's offers. in_len == nullptr: the `count` input edges (a phase's first
// round; only keys in [lo, hi) take part; singletons: nothing is linked yet, so comp
// need not be read); else the previous round's list, of in_len[0] entries. Edges whose ends are
// in different components offer their key to both and go to the output list as
// (root, root, key, w).
template <typename S, typename IdT>
__global__ void bk_offer(const S* __restrict__ su, const S* __restrict__ sv,
                          const u64* __restrict__ scode, const long long* __restrict__ seid,
                          int ranked, u64 kmin, int qbits, int qshift,
                          const IdT* __restrict__ in_a, const IdT* __restrict__ in_b,
                          const u64* __restrict__ in_k, const u64* __restrict__ in_w,
                          const unsigned long long* __restrict__ in_len, long long count,
                          int singletons, u64 lo, u64 hi, const IdT* __restrict__ comp,
                          u64* best, IdT* __restrict__ out_a, IdT* __restrict__ out_b,
                          u64* __restrict__ out_k, u64* __restrict__ out_w,
                          unsigned long long* out_count) {
    bool listed = in_len != nullptr;  // else the input edges, `count` of them
    if (listed) count = (long long)in_len[0];
    for (long long start = (long long)blockIdx.x * blockDim.x; start < count;
         start += (long long)gridDim.x * blockDim.x) {
        long long i = start + threadIdx.x;
        bool keep = false;
        IdT ra = 0, rb = 0;
        u64 k = 0, w = 0;
        if (i < count) {
            bool live;
            IdT a, b;
            if (listed) {
                a = in_a[i];
                b = in_b[i];
                k = in_k[i];
                w = in_w[i];
                live = true;
            } else if (ranked) {
                a = (IdT)su[i];
                b = (IdT)sv[i];
                k = (u64)i;
                w = (u64)seid[i];
                live = k >= lo && k < hi;
            } else {
                S u = su[i], v = sv[i];
                a = (IdT)(u < v ? u : v);
                b = (IdT)(u < v ? v : u);
                k = ((scode[i] - kmin) << 32) | bk_q((u64)a, (u64)b, qbits, qshift);
                w = ((u64)b << 32) | (u64)i;
                live = u != v && k >= lo && k < hi;
            }
            if (live) {
                ra = singletons ? a : comp[a];  // singletons: nothing is linked yet
                rb = singletons ? b : comp[b];
                keep = ra != rb;
            }
            if (keep) {
                // a plain read first: most offers lose, and a read is cheaper than an atomic
                // (atomics alone make whole runs slower: benchmarks/device_msf.py)
                if (k < best[ra]) atomicMin(best + ra, k);
                if (k < best[rb]) atomicMin(best + rb, k);
            }
        }
        long long slot = bk_block_append_slot(keep, out_count);
        if (keep) {
            out_a[slot] = ra;
            out_b[slot] = rb;
            out_k[slot] = k;
            out_w[slot] = w;
        }
    }
}

// Among the offers of each component's smallest key, the smallest second word.
template <typename IdT>
__global__ void bk_resolve(const IdT* __restrict__ la, const IdT* __restrict__ lb,
                            const u64* __restrict__ lk, const u64* __restrict__ lw,
                            const unsigned long long* __restrict__ len,
                            const u64* __restrict__ best, u64* best2) {
    long long count = (long long)len[0];
    GRID_STRIDE(i, count) {
        u64 k = lk[i];
        IdT a = la[i], b = lb[i];
        bool wa = best[a] == k, wb = best[b] == k;
        if (!wa && !wb) continue;
        u64 w = lw[i];
        if (wa && w < best2[a]) atomicMin(best2 + a, w);
        if (wb && w < best2[b]) atomicMin(best2 + b, w);
    }
}

// Hook every root to the root across its chosen edge; the edge joins the forest. An
// edge is a component's choice when its key is the component's best and (resolved != 0)
// its second word the component's best2. (key, w) pairs are unique, so each edge is the
// choice of at most its two ends, and the links form a forest once 2-cycles (both ends
// chose the same edge) are broken: there the larger root goes under the smaller. Runs
// over the round's list, which holds every chosen edge exactly once. The forest is
// marked by input edge id (w & eid_mask), so ids come out sorted.
template <typename IdT>
__global__ void bk_link(const IdT* __restrict__ la, const IdT* __restrict__ lb,
                         const u64* __restrict__ lk, const u64* __restrict__ lw,
                         const unsigned long long* __restrict__ len,
                         const u64* __restrict__ best, const u64* __restrict__ best2,
                         int resolved, IdT* parent, u64 eid_mask,
                         unsigned char* __restrict__ in_forest) {
    long long count = (long long)len[0];
    GRID_STRIDE(i, count) {
        u64 k = lk[i];
        IdT a = la[i], b = lb[i];
        bool wa = best[a] == k, wb = best[b] == k;
        if (!wa && !wb) continue;
        u64 w = lw[i];
        if (resolved) {
            wa = wa && best2[a] == w;
            wb = wb && best2[b] == w;
            if (!wa && !wb) continue;
        }
        if (wa && wb) {
            if (a < b) { IdT t = a; a = b; b = t; }
        } else if (wb) {
            IdT t = a; a = b; b = t;
        }
        parent[a] = b;  // a was a root and only this edge's thread links it
        in_forest[w & eid_mask] = 1;
    }
}

// Compress the link forest for the roots of the last round (roots == nullptr: every
// vertex 0..count), record each one's root in comp, and collect the next round's roots:
// those still roots that had an edge to offer (a root without one is a finished
// component). Clears best and best2 (when given) for them. Concurrent path halving
// only replaces a parent by one of its ancestors, so the unsynchronised stores are safe.
template <typename IdT>
__global__ void bk_compress(const IdT* __restrict__ roots,
                             const unsigned long long* __restrict__ roots_len, long long count,
                             IdT* parent, IdT* __restrict__ comp, u64* __restrict__ best,
                             u64* __restrict__ best2, IdT* __restrict__ next,
                             unsigned long long* next_count) {
    if (roots) count = (long long)roots_len[0];
    for (long long start = (long long)blockIdx.x * blockDim.x; start < count;
         start += (long long)gridDim.x * blockDim.x) {
        long long i = start + threadIdx.x;
        bool keep = false;
        IdT r = 0;
        if (i < count) {
            r = roots ? roots[i] : (IdT)i;
            IdT x = r, p = parent[x];
            while (p != x) {
                IdT gp = parent[p];
                if (gp != p) parent[x] = gp;
                x = p;
                p = gp;
            }
            if (x != r) parent[r] = x;
            comp[r] = x;
            keep = x == r && best[r] != BK_NONE;
            best[r] = BK_NONE;
            if (best2) best2[r] = BK_NONE;
        }
        long long slot = bk_block_append_slot(keep, next_count);
        if (keep) next[slot] = r;
    }
}
