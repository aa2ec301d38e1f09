// Static connected components over the sampling x finish x compression design space.
//
// Template parameters: I (int or long long vertex/offset type), U (a union rule
// from uf.cuh), RECORD (write the id of each hooking edge into hook_edge[root],
// which turns every kernel into its spanning-forest version).
#include "uf.cuh"

// CuPy passes pointers and scalars; each kernel assembles its UFState from these
// (keyed_: the link order, see uf.cuh).
#define UF_PARAMS I *p_, int *aux_, u64 *packed_, int keyed_
#define UF_STATE UFState<I> s = {p_, aux_, packed_, 0, 0, keyed_}
// Sampling and the finish after it read parents through L1 (UFState::cached).
#define UF_STATE_CACHED UFState<I> s = {p_, aux_, packed_, 1, 0, keyed_}

__device__ __forceinline__ u64 mix64(u64 x) {
    // splitmix64 finaliser: cheap, well-spread hash for sampling decisions
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

template <typename I>
__device__ __forceinline__ void record(I* hook_edge, I linked, I eid) {
    if (linked >= 0) hook_edge[linked] = eid;
}

// One pass that resets every per-run array (fewer launches than separate fills).
// AUX and PACKED: the union rule keeps an auxiliary int array (hooks, locks) or
// JTB's packed words; RECORD: the run records hook edges.
template <typename I, bool AUX, bool PACKED, bool RECORD>
__global__ void init_state(I* p, int* aux, u64* packed, I* hook_edge, I* scratch, I n) {
    GRID_STRIDE(v, n) {
        p[v] = (I)v;
        if (AUX) aux[v] = 0;
        if (PACKED) packed[v] = (u64)v;
        if (RECORD) hook_edge[v] = (I)-1;
    }
    // outside the vertex loop: n may be smaller than the scratch array
    if (blockIdx.x == 0 && threadIdx.x < 4) scratch[threadIdx.x] = 0;
}

// ------------------------------------------------------------------ sampling
// k-out with CSR coalescing: adjacent threads take the first k edges of one vertex.
template <typename I, class U, bool RECORD>
__global__ void kout_first(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                           const I* __restrict__ eids, I* hook_edge, I n, int k) {
    UF_STATE_CACHED;
    GRID_STRIDE(t, (long long)n * k) {
        I v = (I)(t / k);
        int r = (int)(t - (long long)v * k);
        I j = indptr[v] + r;
        if (j < indptr[v + 1]) {
            I w = indices[j];
            I linked = U::unite(s, v, w);
            if (RECORD) record(hook_edge, linked, eids[j]);
        }
    }
}

// k-out over lower neighbours: one thread per vertex, in id order, unites v with
// its first k neighbours w < v among the first `scan` entries of its row: each
// sampled edge is taken from one end only, and a mesh's vertex reaches the part
// of the mesh its lower neighbours already joined. ONE_SIDE: parents overflow L2 (relaxed one-sided
// walks, as the unsampled finish); else cached reads (as the other samplers).
template <typename I, class U, bool RECORD, bool ONE_SIDE>
__global__ void kout_lower(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                           const I* __restrict__ eids, I* hook_edge, I n, int k, I scan) {
    UFState<I> s = {p_, aux_, packed_, !ONE_SIDE, ONE_SIDE, keyed_};
    GRID_STRIDE(i, n) {
        I v = (I)i, b = ld_stream(indptr + v), e = ld_stream(indptr + v + 1);
        if (e - b > scan) e = b + scan;
        int c = 0;
        for (I j = b; j < e && c < k; ++j) {
            I w = ld_stream(indices + j);
            if (w >= v) continue;
            ++c;
            I linked = U::unite(s, v, w);
            if (RECORD) record(hook_edge, linked, eids[j]);
        }
    }
}

// k-out with k neighbours drawn uniformly at random (with replacement).
template <typename I, class U, bool RECORD>
__global__ void kout_random(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                            const I* __restrict__ eids, I* hook_edge, I n, int k, u64 seed) {
    UF_STATE_CACHED;
    GRID_STRIDE(t, (long long)n * k) {
        I v = (I)(t / k);
        I b = indptr[v], deg = indptr[v + 1] - b;
        if (deg > 0) {
            I j = b + (I)(mix64(seed ^ (u64)t) % (u64)deg);
            I linked = U::unite(s, v, indices[j]);
            if (RECORD) record(hook_edge, linked, eids[j]);
        }
    }
}

// Hook-based sampling, step 1: hook every vertex to its first neighbour if that
// neighbour comes before it in the link order (only v writes p[v] here, so a
// plain store is safe).
template <typename I, bool JTB, bool RECORD>
__global__ void hb_hook(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                        const I* __restrict__ eids, I* hook_edge, I n) {
    UF_STATE;
    GRID_STRIDE(v, n) {
        I b = indptr[v];
        if (b < indptr[v + 1]) {
            I w = indices[b];
            if (before(s.keyed, w, (I)v)) {
                if (JTB) s.packed[v] = (u64)w;
                else s.p[v] = w;
                if (RECORD) hook_edge[v] = eids[b];
            }
        }
    }
}

// Hook-based sampling, step 2: every vertex still a root unites its next N edges.
// A vertex that another thread's union linked first skips all of them, edge 0
// included; the finish therefore starts such "unhooked" vertices (first neighbour
// not before it) at edge 0 (see first_edge below), which keeps this step cheap.
template <typename I, class U, bool JTB, bool RECORD>
__global__ void hb_roots(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                         const I* __restrict__ eids, I* hook_edge, I n, int N) {
    UF_STATE_CACHED;
    GRID_STRIDE(v, n) {
        I pv = JTB ? (I)(s.packed[v] & JTB_MASK) : s.p[v];
        if (pv != (I)v) continue;
        // edge 0 too: a root did not hook on it (its first neighbour came later)
        I b = indptr[v], e = min(indptr[v + 1], b + 1 + N);
        for (I j = b; j < e; ++j) {
            I linked = U::unite(s, (I)v, indices[j]);
            if (RECORD) record(hook_edge, linked, eids[j]);
        }
    }
}

// Hook-based sampling in one pass (after init_state; no spanning-forest records):
// hooked vertices store their first neighbour, the others unite edges 0..N. One
// thread per vertex, in decreasing id order: with sorted adjacency the vertices
// that unite are mostly low ids, so their blocks run last, after most hooks landed.
// A hook's plain store can still overwrite a link that a union made to that vertex
// moments before (or break the ancestry Rem reads); that loses only sampled unions,
// and every edge the finish skips from both ends is a hook edge (never overwritten:
// only roots are linked) or joins two vertices of the skipped tree, whose links all
// stand for real edges. So the result is exact; lost unions only cost finish work.
template <typename I, class U>
__global__ void hb_fused(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                         I n, int N) {
    UF_STATE_CACHED;
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)n) return;
    I v = (I)((long long)n - 1 - i);
    I b = ld_stream(indptr + v), e = ld_stream(indptr + v + 1);
    if (b == e) return;
    I f = ld_stream(indices + b);
    if (before(s.keyed, f, v)) {
        s.p[v] = f;
        return;
    }
    I last = min(e, b + 1 + N);
    for (I j = b; j < last; ++j) U::unite(s, v, ld_stream(indices + j));
}

// Most frequent root among 1024 sampled vertices, on the device (no host round trip).
// Counting goes through a shared-memory hash table (open addressing, 2048 slots), so
// each thread does O(1) work instead of comparing its sample with every other
// (1024 steps per thread, a visible share of a short run).
#define FREQ_SLOTS 2048
template <typename I, class U>
__global__ void frequent_label(UF_PARAMS, I n, I* out, u64 seed) {
    UF_STATE;
    __shared__ I keys[FREQ_SLOTS];
    __shared__ int counts[FREQ_SLOTS];
    __shared__ int best_count[32];
    __shared__ I best_label[32];
    int t = threadIdx.x;
    for (int j = t; j < FREQ_SLOTS; j += blockDim.x) {
        keys[j] = (I)-1;
        counts[j] = 0;
    }
    __syncthreads();
    I x = (I)(mix64(seed + t) % (u64)n);
    I lab = U::find(s, x);
    unsigned h = (unsigned)(mix64((u64)lab) & (FREQ_SLOTS - 1));
    while (true) {  // 1024 keys in 2048 slots: the probe always ends
        I k = ((volatile I*)keys)[h];
        if (k == lab) break;
        if (k == (I)-1) {
            I old = cas(keys + h, (I)-1, lab);
            if (old == (I)-1 || old == lab) break;
        }
        h = (h + 1) & (FREQ_SLOTS - 1);
    }
    atomicAdd(counts + h, 1);
    __syncthreads();
    // arg-max over the slots; ties go to the smaller label so the result is
    // deterministic (empty slots count 0 and never win: every sample counted once)
    int count = 0;
    I mine = (I)-1;
    for (int j = t; j < FREQ_SLOTS; j += blockDim.x) {
        int c = counts[j];
        I l = keys[j];
        if (c > count || (c == count && c > 0 && l < mine)) { count = c; mine = l; }
    }
    for (int off = 16; off > 0; off >>= 1) {
        int oc = __shfl_down_sync(0xffffffffu, count, off);
        I ol = __shfl_down_sync(0xffffffffu, mine, off);
        if (oc > count || (oc == count && oc > 0 && ol < mine)) { count = oc; mine = ol; }
    }
    if ((t & 31) == 0) { best_count[t >> 5] = count; best_label[t >> 5] = mine; }
    __syncthreads();
    if (t < 32) {
        count = best_count[t];
        mine = best_label[t];
        for (int off = 16; off > 0; off >>= 1) {
            int oc = __shfl_down_sync(0xffffffffu, count, off);
            I ol = __shfl_down_sync(0xffffffffu, mine, off);
            if (oc > count || (oc == count && oc > 0 && ol < mine)) { count = oc; mine = ol; }
        }
        if (t == 0) out[0] = mine;
    }
}

// ------------------------------------------------------------------ finish
template <typename I, bool JTB>
__device__ __forceinline__ I parent_of(const UFState<I>& s, I v) {
    return JTB ? (I)(ld(s.packed + v) & JTB_MASK) : ld(s.p + v);
}

// Plain (L1-cacheable) read, for passes in which no root changes: a stale value
// is still an ancestor, so walking up from it ends at the same root.
template <typename I, bool JTB>
__device__ __forceinline__ I parent_plain(const UFState<I>& s, I v) {
    return JTB ? (I)(s.packed[v] & JTB_MASK) : s.p[v];
}

// First edge the finish must unite for v: k0 leading edges were united by sampling,
// except that hook-based sampling (hb != 0, k0 == 1) guarantees edge 0 only for
// vertices hb_hook hooked; for the others hb_roots may have skipped it (racing with
// a union that linked v first), and losing it would disconnect v's component when
// the finish skips the neighbour's side.
template <typename I>
__device__ __forceinline__ I first_edge(const I* __restrict__ indptr,
                                        const I* __restrict__ indices, I v, int k0, int hb,
                                        int keyed) {
    I b = ld_stream(indptr + v);
    if (hb && b < ld_stream(indptr + v + 1) && !before(keyed, ld_stream(indices + b), v)) return b;
    return b + k0;
}

// Vertex-parallel CSR finish without sampling: each undirected edge is united
// once, from its larger end (w < v). Low-degree vertices are done by their own
// thread; vertices of degree > heavy are queued for finish_heavy below.
// ONE_SIDE sets UFState::one_side; a template parameter rather than an argument,
// because compiling both of Rem's loops into one kernel slows the kernel even
// where the one-sided loop is never taken.
template <typename I, class U, bool RECORD, bool ONE_SIDE>
__global__ void finish_csr(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                           const I* __restrict__ eids, I* hook_edge, I n, I heavy, I* queue,
                           I* queue_len) {
    UFState<I> s = {p_, aux_, packed_, 0, ONE_SIDE, keyed_};
    GRID_STRIDE(v, n) {
        I b = ld_stream(indptr + v), e = ld_stream(indptr + v + 1);
        if (e - b > heavy) {
            queue_heavy(queue, queue_len, (I)v, e - b);
            continue;
        }
        for (I j = b; j < e; ++j) {
            I w = ld_stream(indices + j);
            if (w > (I)v) continue;
            I linked = U::unite(s, (I)v, w);
            if (RECORD) record(hook_edge, linked, eids[j]);
        }
    }
}

// The CSR finish after sampling, a warp at a time: each lane tests one vertex
// against the most frequent label, then the warp unites the remaining edges of its
// kept vertices one vertex after another, its 32 lanes striding over the row. After
// sampling only ~1% of the vertices are kept, scattered, and a thread-per-vertex
// loop leaves each warp waiting on one lane's chain of up to `heavy` dependent
// unions. Vertices of degree > heavy go to finish_heavy as in finish_csr.
template <typename I, class U, bool JTB, bool RECORD>
__global__ void finish_csr_warp(UF_PARAMS, const I* __restrict__ indptr,
                                const I* __restrict__ indices, const I* __restrict__ eids,
                                I* hook_edge, I n, int k0, int hb, const I* lmax, I heavy,
                                I* queue, I* queue_len) {
    UFState<I> s = {p_, aux_, packed_, 1, 0, keyed_};
    const I skip = lmax[0];
    const int lane = threadIdx.x & 31;
    const long long stride = (long long)blockDim.x * gridDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x + (threadIdx.x & ~31); base < n;
         base += stride) {  // warp-uniform: every lane runs every iteration
        I v = (I)(base + lane), b = 0, e = 0;
        if (base + lane < n && parent_of<I, JTB>(s, v) != skip) {
            b = first_edge(indptr, indices, v, k0, hb, s.keyed);
            e = ld_stream(indptr + v + 1);
            if (e - b > heavy) {
                queue_heavy(queue, queue_len, v, e - b);
                e = b;
            }
        }
        // Where many lanes kept their vertex (e.g. hb on a grid) the lanes' own loops
        // take fewer rounds: take the shorter of the two schedules.
        unsigned len = (unsigned)(e - b), longest = len, rounds = (len + 31) / 32;
        for (int off = 16; off > 0; off >>= 1) {
            longest = max(longest, __shfl_xor_sync(0xffffffffu, longest, off));
            rounds += __shfl_xor_sync(0xffffffffu, rounds, off);
        }
        if (longest <= rounds) {
            for (I j = b; j < e; ++j) {
                I linked = U::unite(s, v, ld_stream(indices + j));
                if (RECORD) record(hook_edge, linked, eids[j]);
            }
            continue;
        }
        for (unsigned todo = __ballot_sync(0xffffffffu, e > b); todo; todo &= todo - 1) {
            int src = __ffs(todo) - 1;
            I u = __shfl_sync(0xffffffffu, v, src);
            I ub = __shfl_sync(0xffffffffu, b, src), ue = __shfl_sync(0xffffffffu, e, src);
            for (I j = ub + lane; j < ue; j += 32) {
                I linked = U::unite(s, u, ld_stream(indices + j));
                if (RECORD) record(hook_edge, linked, eids[j]);
            }
        }
    }
}

// Heavy rows: one block per queued piece (queue_heavy), threads stride over it.
template <typename I, class U, bool RECORD>
__global__ void finish_heavy(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                             const I* __restrict__ eids, I* hook_edge, int k0, int hb,
                             int sampled, const I* queue, const I* queue_len) {
    UFState<I> s = {p_, aux_, packed_, sampled, 0, keyed_};
    I len = queue_len[0];
    for (I q = blockIdx.x; q < len; q += gridDim.x) {
        I piece, v = heavy_vertex(queue, q, piece), b, e;
        heavy_range(first_edge(indptr, indices, v, k0, hb, s.keyed), indptr[v + 1], piece, b, e);
        for (I j = b + threadIdx.x; j < e; j += blockDim.x) {
            I w = ld_stream(indices + j);
            if (!sampled && w > v) continue;
            I linked = U::unite(s, v, w);
            if (RECORD) record(hook_edge, linked, eids[j]);
        }
    }
}

// Edge-parallel COO finish. With sampling, skip edges whose ends both sit in lmax.
template <typename I, class U, bool JTB, bool RECORD>
__global__ void finish_coo(UF_PARAMS, const I* __restrict__ src, const I* __restrict__ dst,
                           I* hook_edge, long long m, const I* lmax, int use_lmax, int one_way) {
    UFState<I> s = {p_, aux_, packed_, use_lmax, 0, keyed_};
    I skip = lmax[0];
    GRID_STRIDE(i, m) {
        I u = ld_stream(src + i), w = ld_stream(dst + i);
        if (one_way && w > u) continue;  // symmetric input lists every edge twice
        if (use_lmax && parent_of<I, JTB>(s, u) == skip && parent_of<I, JTB>(s, w) == skip)
            continue;
        I linked = U::unite(s, u, w);
        if (RECORD) record(hook_edge, linked, (I)i);
    }
}

// ------------------------------------------------------------------ after linking
// Point every vertex at its root (for JTB: unpack the root into p).
template <typename I, bool JTB>
__global__ void compress_all(UF_PARAMS, I n) {
    UF_STATE;
    GRID_STRIDE(v, n) {
        I x = (I)v, px = parent_plain<I, JTB>(s, x);
        while (px != x) {
            x = px;
            px = parent_plain<I, JTB>(s, x);
        }
        if (JTB) {
            s.p[v] = x;
            s.packed[v] = (s.packed[v] & ~JTB_MASK) | (u64)x;
        } else if (s.p[v] != x) {
            s.p[v] = x;
        }
    }
}

// Roots are their trees' first vertices in the link order, which in the keyed
// order are not their smallest: rename each root to its component's minimum, so
// that every variant returns the same root labels. root[] must point at roots
// (compressed); minv starts all at the type's maximum. The lanes of a warp hold
// consecutive vertices, so among the lanes that share a root the lowest holds the
// smallest vertex: only it goes on, and only if minv does not already hold a
// smaller one. A giant component's root thus takes one atomic per warp at most,
// not one per vertex (which serialised a whole wave of threads on one address).
template <typename I>
__global__ void root_min(const I* __restrict__ root, I* minv, I n) {
    GRID_STRIDE(v, n) {
        I r = root[v];
        unsigned same = __match_any_sync(__activemask(), r);
        if ((threadIdx.x & 31) == __ffs(same) - 1 && (I)v < ld(minv + r))
            atomic_min(minv + r, (I)v);
    }
}

template <typename I>
__global__ void apply_root_min(I* root, const I* __restrict__ minv, I n) {
    GRID_STRIDE(v, n) {
        root[v] = minv[root[v]];
    }
}

// ------------------------------------------------------------------ BFS sampling
// Top-down step: claim unvisited neighbours of the frontier for the source.
template <typename I, bool JTB, bool RECORD>
__global__ void bfs_top_down(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                             const I* __restrict__ eids, I* hook_edge, I source,
                             const I* __restrict__ frontier, const I* frontier_len, I* next,
                             I* next_len) {
    UF_STATE;
    I len = frontier_len[0];
    GRID_STRIDE(q, len) {
        I v = frontier[q];
        for (I j = indptr[v]; j < indptr[v + 1]; ++j) {
            I w = indices[j];
            bool won;
            if (JTB) won = atomicCAS(s.packed + w, (u64)w, (u64)source) == (u64)w && w != source;
            else won = w != source && cas(s.p + w, w, source) == w;
            if (won) {
                if (RECORD) hook_edge[w] = eids[j];
                next[atomic_add(next_len, (I)1)] = w;
            }
        }
    }
}

// Bottom-up step: every unvisited vertex looks for a visited neighbour.
template <typename I, bool JTB, bool RECORD>
__global__ void bfs_bottom_up(UF_PARAMS, const I* __restrict__ indptr, const I* __restrict__ indices,
                              const I* __restrict__ eids, I* hook_edge, I source, I n,
                              const unsigned char* __restrict__ in_frontier, unsigned char* in_next,
                              I* next_len) {
    UF_STATE;
    GRID_STRIDE(v, n) {
        if ((I)v == source || parent_of<I, JTB>(s, (I)v) != (I)v) continue;
        for (I j = indptr[v]; j < indptr[v + 1]; ++j) {
            if (in_frontier[indices[j]]) {
                if (JTB) s.packed[v] = (u64)source;
                else s.p[v] = source;
                if (RECORD) hook_edge[v] = eids[j];
                in_next[v] = 1;
                atomic_add(next_len, (I)1);
                break;
            }
        }
    }
}

template <typename I>
__global__ void queue_to_bitmap(const I* __restrict__ queue, const I* len, unsigned char* bits) {
    I l = len[0];
    GRID_STRIDE(q, l) { bits[queue[q]] = 1; }
}

// After BFS: make the star's first vertex in the link order its root, so that
// parents still come before their children (Rem's algorithm relies on it).
// minv holds the smallest place in the order (link_rank), all ones before the
// first pass.
template <typename I, bool JTB>
__global__ void bfs_star_min(UF_PARAMS, I source, I n, I* minv) {
    UF_STATE;
    GRID_STRIDE(v, n) {
        if ((I)v == source || parent_of<I, JTB>(s, (I)v) == source)
            atomicMin(reinterpret_cast<decltype(order_key((I)0))*>(minv),
                      link_rank(s.keyed, (I)v));
    }
}

template <typename I, bool JTB>
__global__ void bfs_reroot(UF_PARAMS, I source, I n, const I* minv) {
    UF_STATE;
    I m = rank_to_id<I>(s.keyed, *reinterpret_cast<const decltype(order_key((I)0))*>(minv));
    GRID_STRIDE(v, n) {
        if ((I)v == source || parent_of<I, JTB>(s, (I)v) == source) {
            if (JTB) s.packed[v] = (u64)m;
            else s.p[v] = m;
        }
    }
}
