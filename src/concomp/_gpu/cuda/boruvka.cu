// Filter-Borůvka on packed 64-bit edge keys, without sorting the edges by weight.
//
// The driver keeps the non-loop edges in "structure order": sorted by
// (min(u,v), max(u,v), edge id), a weight-independent order that is computed once
// per graph. An edge at position q of that order gets the key
//     (weight code << 32) | q
// where the weight code is the edge's order-preserving weight key minus the
// smallest one (it must fit 32 bits, as must q). Comparing two keys therefore
// compares (weight, min, max, edge id): the library's tie rule, in one integer,
// so "lightest edge of a component" is a 64-bit atomicMin.
//
// Each round works on lists of (root, root, key) entries: the edges whose ends were
// in different components. Links go into `parent`; `comp[v]` is v's root, written
// only by v's own thread in the compression pass (the path-halving stores of other
// threads into `parent` may lower a pointer another thread just raised, harmless for
// walking but not for a one-read lookup). The first round of a phase reads the
// structure arrays (raw vertex ids, so comp must be current for every vertex); later
// rounds read the previous round's list, whose ids were roots when it was written,
// and the compression pass updated comp for every such root. Hooking and
// compression touch only the live roots, a list that at least halves every round.
//
// IdT is int or long long (vertex ids). NVRTC has no standard headers: builtins only.

typedef unsigned long long u64;
#define BK_NONE 0xffffffffffffffffull

#define BK_GRID_STRIDE(i, n)                                                                \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)blockDim.x * gridDim.x)

// Warp-aggregated append: one atomicAdd per warp reserves the slots of its kept lanes.
// Every lane of the warp must call it (the trip counts of the callers' loops are
// block-uniform for that reason).
__device__ __forceinline__ long long bk_append_slot(bool keep, unsigned long long* count) {
    unsigned mask = __ballot_sync(0xffffffffu, keep);
    unsigned lane = threadIdx.x & 31u;
    unsigned long long base = 0;
    if (lane == 0 && mask) base = atomicAdd(count, (unsigned long long)__popc(mask));
    base = __shfl_sync(0xffffffffu, base, 0);
    return (long long)(base + __popc(mask & ((1u << lane) - 1u)));
}

// key[q] = (code[eid[q]] - kmin) << 32 | q for the `count` edges in structure order.
__global__ void bk_keys(const u64* __restrict__ code, const long long* __restrict__ eid,
                        long long count, u64 kmin, u64* __restrict__ key) {
    BK_GRID_STRIDE(q, count) { key[q] = ((code[eid[q]] - kmin) << 32) | (u64)q; }
}

// One round's offers. listed == 0: the edges are the structure arrays' entries whose
// key lies in [lo, hi) (a phase's first round); listed != 0: the previous round's
// list. Edges whose ends are in different components offer their key to both
// components (a plain read first: most offers lose, and a read is cheaper than an
// atomic) and go to the output list as (root, root, key).
template <typename IdT>
__global__ void bk_offer(const IdT* __restrict__ su, const IdT* __restrict__ sv,
                         const u64* __restrict__ skey, const IdT* __restrict__ in_a,
                         const IdT* __restrict__ in_b, const u64* __restrict__ in_k, int listed,
                         long long count, u64 lo, u64 hi, const IdT* __restrict__ comp,
                         u64* best, IdT* __restrict__ out_a, IdT* __restrict__ out_b,
                         u64* __restrict__ out_k, unsigned long long* out_count) {
    for (long long start = (long long)blockIdx.x * blockDim.x; start < count;
         start += (long long)gridDim.x * blockDim.x) {
        long long i = start + threadIdx.x;
        bool keep = false;
        IdT ra = 0, rb = 0;
        u64 k = 0;
        if (i < count) {
            bool live;
            IdT a, b;
            if (listed) {
                a = in_a[i];
                b = in_b[i];
                k = in_k[i];
                live = true;
            } else {
                k = skey[i];
                live = k >= lo && k < hi;
                a = su[i];
                b = sv[i];
            }
            if (live) {
                ra = comp[a];
                rb = comp[b];
                keep = ra != rb;
            }
            if (keep) {
                if (k < best[ra]) atomicMin(best + ra, k);
                if (k < best[rb]) atomicMin(best + rb, k);
            }
        }
        long long slot = bk_append_slot(keep, out_count);
        if (keep) {
            out_a[slot] = ra;
            out_b[slot] = rb;
            out_k[slot] = k;
        }
    }
}

// Hook every root to the root across its lightest edge; the edge joins the forest.
// Keys are unique, so each edge is the lightest of at most its two ends, and the
// links form a forest once 2-cycles (both ends chose the same edge) are broken: there
// the larger root goes under the smaller. Runs over the round's output list, which
// holds every winning edge exactly once. The forest is marked by input edge id; the
// key's low bits (position_mask) are the edge's position in the structure arrays (all
// 64 bits when the keys are ranks, see _gpu/msf.py).
// The list length is read on the device (the launch is sized by an upper bound), so
// the host syncs once per round, after compression.
template <typename IdT>
__global__ void bk_link(const IdT* __restrict__ la, const IdT* __restrict__ lb,
                        const u64* __restrict__ lk, const unsigned long long* __restrict__ len,
                        const u64* __restrict__ best, IdT* parent,
                        const long long* __restrict__ eid, u64 position_mask,
                        unsigned char* __restrict__ in_forest) {
    long long count = (long long)len[0];
    BK_GRID_STRIDE(i, count) {
        u64 k = lk[i];
        IdT a = la[i], b = lb[i];
        bool wa = best[a] == k, wb = best[b] == k;
        if (!wa && !wb) continue;
        if (wa && wb) {
            if (a < b) { IdT t = a; a = b; b = t; }
        } else if (wb) {
            IdT t = a; a = b; b = t;
        }
        parent[a] = b;  // a was a root and only this edge's thread links it
        in_forest[eid[k & position_mask]] = 1;  // by input edge id: ids come out sorted
    }
}

// Compress the link forest for the roots of this round (roots == nullptr: every
// vertex 0..count), record each one's root in comp, and collect the next round's roots: those still roots that had an
// edge to offer (a root without one is a finished component). Clears best for them.
// Concurrent path halving only replaces a parent by one of its ancestors, so the
// unsynchronised stores are safe.
template <typename IdT>
__global__ void bk_compress(const IdT* __restrict__ roots, long long count, IdT* parent,
                            IdT* __restrict__ comp, u64* __restrict__ best,
                            IdT* __restrict__ next,
                            unsigned long long* next_count) {
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
        }
        long long slot = bk_append_slot(keep, next_count);
        if (keep) next[slot] = r;
    }
}

// ------------------------------------------------------------------ the structure order
// Without a global sort: count the non-loop edges per smaller endpoint, scan, scatter
// (max, edge id) into each row, then sort every row by (max, edge id) with one thread
// per row. The driver takes this path only when no row is long (insertion sort is
// quadratic in the row length); otherwise it sorts packed words globally.
__device__ __forceinline__ int bk_add(int* a, int v) { return atomicAdd(a, v); }
__device__ __forceinline__ long long bk_add(long long* a, long long v) {
    return (long long)atomicAdd((unsigned long long*)a, (unsigned long long)v);
}

// row_len[min(u, v)] += 1 for every non-loop edge.
template <typename S, typename IdT>
__global__ void eo_count(const S* __restrict__ src, const S* __restrict__ dst, long long m,
                         IdT* row_len) {
    BK_GRID_STRIDE(i, m) {
        S u = src[i], v = dst[i];
        if (u != v) bk_add(row_len + (u < v ? u : v), (IdT)1);
    }
}

// Place every non-loop edge in its row (any order within the row: the row sort fixes it).
template <typename S, typename IdT>
__global__ void eo_scatter(const S* __restrict__ src, const S* __restrict__ dst, long long m,
                           const IdT* __restrict__ row_start, IdT* cursor, IdT* __restrict__ hi,
                           long long* __restrict__ eid) {
    BK_GRID_STRIDE(i, m) {
        S u = src[i], v = dst[i];
        if (u == v) continue;
        S a = u < v ? u : v, b = u < v ? v : u;
        IdT at = row_start[a] + bk_add(cursor + a, (IdT)1);
        hi[at] = (IdT)b;
        eid[at] = i;
    }
}

// Sort each row by (max, edge id) and fill in its min endpoint.
template <typename IdT>
__global__ void eo_sort_rows(const IdT* __restrict__ row_start, IdT* __restrict__ hi,
                             long long* __restrict__ eid, IdT* __restrict__ lo, IdT n) {
    BK_GRID_STRIDE(v, n) {
        IdT b = row_start[v], e = row_start[v + 1];
        for (IdT j = b + 1; j < e; ++j) {
            IdT h = hi[j];
            long long x = eid[j];
            IdT k = j;
            while (k > b && (hi[k - 1] > h || (hi[k - 1] == h && eid[k - 1] > x))) {
                hi[k] = hi[k - 1];
                eid[k] = eid[k - 1];
                --k;
            }
            hi[k] = h;
            eid[k] = x;
        }
        for (IdT j = b; j < e; ++j) lo[j] = (IdT)v;
    }
}
