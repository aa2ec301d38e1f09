// Incremental connectivity: batches of COO inserts and connectivity queries
// (GConn, Algorithm 3). The union-find state lives on the device between batches;
// a batch is one kernel for its inserts, then one for its queries, so every query
// sees every insert of its own batch (the kernel boundary orders them). Streams of
// many small batches run the same way, batch after batch, driven by a device counter.
//
// Template parameters: I (int or long long vertex type), U (a union rule from
// uf.cuh; GConn's best incremental rule is UniteAsync<FindSplit>), T / OT (the
// id and op-code types a caller's batch arrives in, for the validation pass).
// Links follow the id order (UFState::keyed left at 0): the forest is saved to and
// restored from the state files the CPU engine shares, whose union-find links by id.
#include "uf.cuh"

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
// Adds each thread's count of links to the link counter (every lane must call it).
// The counter is LINK_SLOTS counters 32 bytes apart, which the host sums: atomics
// on one address serialise, and one atomic per warp on a single counter costs a
// large batch (one entry per thread: millions of warps) a visible share of its time.
// A warp picks its slot from its global index, so neighbouring warps, which
// finish together, hit different slots.
#define LINK_SLOTS 256
#define LINK_STRIDE 4
__device__ __forceinline__ void add_links(long long* links, long long mine) {
    for (int off = 16; off > 0; off >>= 1) mine += __shfl_down_sync(0xffffffffu, mine, off);
    if ((threadIdx.x & 31) == 0 && mine) {
        unsigned warp = (blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5)) % LINK_SLOTS;
        atomic_add(links + LINK_STRIDE * warp, mine);
    }
}

// One insert at stream position i (pos: its position within its batch). A link
// that turns root r into a non-root records the edge in r's hook record: r owns
// that forest edge (GConn section 3.2), so each record is written at most once.
// A record is four 64-bit words, (src, dst, batch, pos), 32-byte aligned: one
// sector per link. Four separate arrays cost four partially written sectors per
// link, which dominates a batch that links most vertices
// (benchmarks/profile_incremental_cost.py). No equal-parents shortcut before the
// union: two plain loads per edge cost more than the unions they save.
// only_true: store result[i] only when the insert links (the caller wrote false).
template <typename I, class U>
__device__ __forceinline__ long long insert_at(const UFState<I>& s, I a, I b, long long i,
                                               long long pos, bool* result, long long* hooks,
                                               long long batch, bool only_true = false) {
    I linked = U::unite(s, a, b);
    if (!only_true || linked >= 0)
        st_stream(reinterpret_cast<unsigned char*>(result + i), (unsigned char)(linked >= 0));
    if (linked < 0) return 0;
    longlong2* rec = reinterpret_cast<longlong2*>(hooks + 4 * (long long)linked);
    st_stream(rec, make_longlong2((long long)a, (long long)b));
    st_stream(rec + 1, make_longlong2(batch, pos));
    return 1;
}

// Inserts of one batch (ops[i] == 0, or every entry when mixed == 0). Edges are
// not prefetched: loading each thread's next edge ahead of its union is slower.
template <typename I, class U>
__global__ void batch_insert(I* p, int* aux, const I* __restrict__ u, const I* __restrict__ v,
                             const signed char* __restrict__ ops, int mixed, long long m,
                             bool* result, long long* hooks, long long batch, long long* links) {
    UFState<I> s = {p, aux, nullptr, 1};  // cached: see UFState
    long long mine = 0;
    GRID_STRIDE(i, m) {
        if (mixed && ops[i] != 0) continue;
        mine += insert_at<I, U>(s, ld_stream(u + i), ld_stream(v + i), i, i, result, hooks,
                                batch);
    }
    add_links(links, mine);
}

// The inserts (a, b) of one batch with a > b (larger == 1) or a <= b (larger == 0).
// A large batch whose parent array overflows L2 runs as two such passes, one
// thread per entry in position order, with a flattening in between (see
// IncrementalEngine.run). In a batch in CSR order the first pass is the static
// finish's order: links go to smaller ids, whose parents the rows before brought
// into L2. In a symmetric batch the second pass then finds one root at both ends.
// ONE_SIDE sets UFState::one_side (a template parameter for the reason given at
// cc.cu's finish_csr).
template <typename I, class U, bool ONE_SIDE>
__global__ void batch_insert_half(I* p, int* aux, const I* __restrict__ u,
                                  const I* __restrict__ v, const signed char* __restrict__ ops,
                                  int mixed, long long m, bool* result, long long* hooks,
                                  long long batch, long long* links, int larger) {
    UFState<I> s = {p, aux, nullptr, 1, ONE_SIDE};  // cached reads: see IncrementalEngine.run
    long long mine = 0;
    GRID_STRIDE(i, m) {
        if (mixed && ops[i] != 0) continue;  // a query: batch_query writes its result
        I a = ld_stream(u + i), b = ld_stream(v + i);
        if ((a > b) != (larger != 0)) {
            // the first pass writes every insert's result, so that it stores whole
            // sectors and the second pass stores only the (rare) links it makes
            if (larger) st_stream(reinterpret_cast<unsigned char*>(result + i), (unsigned char)0);
            continue;
        }
        mine += insert_at<I, U>(s, a, b, i, i, result, hooks, batch, !larger);
    }
    add_links(links, mine);
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

// ------------------------------------------------------------------ streams
// A stream is m positions cut into batches of `size` (the last may be shorter).
// ctrl[0] holds the index b of the batch to run, ctrl[1] counts the blocks done
// with it. The kernels' arguments never change from batch to batch, so the host
// can launch (or capture and replay) the same kernels over and over without
// reading anything back; a launch with b >= nbatches does nothing, which makes
// replaying more steps than there are batches harmless.

// Every block reads the index once, at its start, so all blocks of a launch work
// on the same batch.
__device__ __forceinline__ long long stream_batch(const long long* ctrl) {
    __shared__ long long b;
    if (threadIdx.x == 0) b = ld(ctrl);
    __syncthreads();
    return b;
}

// The launch that ends batch b's work advances ctrl[0], but only its last block
// to finish may: a block that starts late must still read b (blocks need not all
// be resident at once).
__device__ __forceinline__ void stream_advance(long long* ctrl, long long b) {
    __syncthreads();
    if (threadIdx.x != 0) return;
    __threadfence();  // this block's read of ctrl[0] happens before it counts as done
    u64 done = atomicAdd((u64*)(ctrl + 1), 1ull);
    if (done == (u64)gridDim.x - 1) {
        ctrl[1] = 0;
        ctrl[0] = b + 1;
        __threadfence();
    }
}

// Inserts of batch ctrl[0] (hooks record batch first + b and the position within
// the batch). advance: this launch ends the batch (an insert-only stream).
template <typename I, class U>
__global__ void stream_insert(I* p, int* aux, const I* __restrict__ u, const I* __restrict__ v,
                              const signed char* __restrict__ ops, int mixed, long long m,
                              long long size, long long nbatches, bool* result,
                              long long* hooks, long long first, long long* links,
                              long long* ctrl, int advance) {
    long long b = stream_batch(ctrl);
    if (b >= nbatches) return;
    UFState<I> s = {p, aux, nullptr, 1};  // cached: see UFState
    long long lo = b * size, hi = m - lo < size ? m : lo + size;
    long long mine = 0;
    for (long long i = lo + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < hi;
         i += (long long)blockDim.x * gridDim.x) {
        if (mixed && ops[i] != 0) continue;
        mine += insert_at<I, U>(s, ld_stream(u + i), ld_stream(v + i), i, i - lo, result, hooks,
                                first + b);
    }
    add_links(links, mine);
    if (advance) stream_advance(ctrl, b);
}

// Queries (ops[i] == 1) of batch ctrl[0] of a mixed stream, after its inserts;
// always ends the batch.
template <typename I>
__global__ void stream_query(I* p, const I* __restrict__ u, const I* __restrict__ v,
                             const signed char* __restrict__ ops, long long m, long long size,
                             long long nbatches, bool* result, long long* ctrl) {
    long long b = stream_batch(ctrl);
    if (b >= nbatches) return;
    long long lo = b * size, hi = m - lo < size ? m : lo + size;
    for (long long i = lo + (long long)blockIdx.x * blockDim.x + threadIdx.x; i < hi;
         i += (long long)blockDim.x * gridDim.x) {
        if (ops[i] != 1) continue;
        result[i] = FindSplit::find(p, u[i]) == FindSplit::find(p, v[i]);
    }
    stream_advance(ctrl, b);
}

// ------------------------------------------------------------------ persistent streams
// A whole stream in one launch: every block loops over the batches and the grid
// meets at a barrier after each batch's inserts (and after its queries), so a
// batch costs a barrier instead of a kernel launch. The host sizes the grid so
// that all its blocks are resident at once (a barrier among blocks that cannot
// all run would never open).

// Grid barrier on a counter that only grows: the k-th barrier of a launch (k from
// 1) opens once all gridDim.x blocks have arrived k times. The counter is zeroed
// before the launch.
__device__ __forceinline__ void grid_barrier(u64* count, u64 k) {
    __syncthreads();
    if (threadIdx.x == 0) {
        u64 target = k * (u64)gridDim.x;
        __threadfence();  // this block's writes are visible before it arrives
        atomicAdd(count, 1ull);
        while (ld(count) < target) {}
        __threadfence();  // and the other blocks' writes before this block goes on
    }
    __syncthreads();
}

template <typename I, class U>
__global__ void stream_persistent(I* p, int* aux, const I* __restrict__ u,
                                  const I* __restrict__ v, const signed char* __restrict__ ops,
                                  int mixed, long long m, long long size, long long nbatches,
                                  bool* result, long long* hooks, long long first,
                                  long long* links, u64* barrier) {
    UFState<I> s = {p, aux, nullptr, 1};  // cached: see UFState
    long long mine = 0;
    u64 k = 0;
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = (long long)blockDim.x * gridDim.x;
    // (no prefetch of each thread's first edge of the next batch before the
    // barrier: it is slower)
    for (long long b = 0; b < nbatches; ++b) {
        long long lo = b * size, hi = m - lo < size ? m : lo + size;
        for (long long i = lo + t; i < hi; i += stride) {
            if (mixed && ops[i] != 0) continue;
            mine += insert_at<I, U>(s, ld_stream(u + i), ld_stream(v + i), i, i - lo, result,
                                    hooks, first + b);
        }
        grid_barrier(barrier, ++k);
        if (!mixed) continue;
        for (long long i = lo + t; i < hi; i += stride) {
            if (ops[i] != 1) continue;
            result[i] = FindSplit::find(p, u[i]) == FindSplit::find(p, v[i]);
        }
        grid_barrier(barrier, ++k);
    }
    add_links(links, mine);
}
