// Strongly connected components (concomp._gpu.scc): trimming, min-label propagation in
// the manner of ECL-SCC (Alabandi et al., SC'23, with minima so that a component's label
// is its smallest vertex), and the forward-backward search from a pivot.
//
// State, one entry per vertex: lab (-1 while unsettled, else the smallest vertex of the
// component), the colour (cf, cb) of the part of the graph the vertex is still solved in,
// and the propagated values fw, bw. An arc counts ("live") while both ends are unsettled,
// share a colour and differ. out = CSR of the arcs (rows = sources), in = its transpose.
//
// Every kernel writes the entries of its own vertex only; other threads may read them
// during the same launch and see the old or the new value. Both are states the
// algorithm allows (a settled vertex only removes arcs; propagated values only fall),
// and the host repeats a step until a launch changes nothing, which it can only report
// after reading values that no thread was changing. Arrays written in a launch are
// therefore never declared const __restrict__ there (no read-only cache for them).
#include "common.cuh"

template <typename T>
__device__ __forceinline__ bool live(T u, T w, const T* lab, const T* cf, const T* cb) {
    return u != w && lab[w] < 0 && cf[u] == cf[w] && cb[u] == cb[w];
}

// Which ways the arcs run in id order: an arc to a smaller id sets bit 1 of *found, one
// to a larger id bit 2 (self loops set neither). A thread looks at whole rows and adds
// to *found only bits it does not hold yet, so a graph whose arcs all run one way makes
// few atomics; every thread stops once both bits are set, so a graph with arcs both
// ways costs little more than its first rows.
template <typename T>
__global__ void scc_arc_order(long long n, const T* __restrict__ ptr, const T* __restrict__ ind,
                              int* found) {
    GRID_STRIDE(i, n) {
        int seen = *(volatile int*)found;
        if (seen == 3) return;
        T v = (T)i;
        int bits = 0;
        for (T j = ptr[v]; j < ptr[v + 1]; ++j) {
            T w = ind[j];
            bits |= w < v ? 1 : (w > v ? 2 : 0);
        }
        if (bits & ~seen) atomicOr(found, bits);
    }
}

// Every vertex unsettled, one colour, fw = bw = v.
template <typename T>
__global__ void scc_init(long long n, T* lab, T* cf, T* cb, T* fw, T* bw) {
    GRID_STRIDE(i, n) {
        lab[i] = -1;
        cf[i] = 0;
        cb[i] = 0;
        fw[i] = (T)i;
        bw[i] = (T)i;
    }
}

// One trimming pass: an unsettled vertex without a live out-arc or without a live
// in-arc is a component of its own. *flag is set when a vertex is settled.
template <typename T>
__global__ void scc_trim(long long n, const T* __restrict__ optr, const T* __restrict__ oind,
                         const T* __restrict__ iptr, const T* __restrict__ iind, T* lab,
                         const T* __restrict__ cf, const T* __restrict__ cb, int* flag) {
    GRID_STRIDE(i, n) {
        T v = (T)i;
        if (lab[v] >= 0) continue;
        bool out = false, in = false;
        for (T j = optr[v]; j < optr[v + 1] && !out; ++j) out = live(v, oind[j], lab, cf, cb);
        for (T j = iptr[v]; out && j < iptr[v + 1] && !in; ++j) in = live(v, iind[j], lab, cf, cb);
        if (!out || !in) {
            lab[v] = v;
            *flag = 1;
        }
    }
}

// Jump pointers of a round: jf[v] is a live in-neighbour of v and jb[v] a live
// out-neighbour (v itself where there is none). Written after the round's trimming,
// so that each names a vertex of v's colour that reaches v (jf) or that v reaches (jb).
template <typename T>
__global__ void scc_jump_init(long long n, const T* __restrict__ optr,
                              const T* __restrict__ oind, const T* __restrict__ iptr,
                              const T* __restrict__ iind, const T* __restrict__ lab,
                              const T* __restrict__ cf, const T* __restrict__ cb, T* jf, T* jb) {
    GRID_STRIDE(i, n) {
        T v = (T)i;
        if (lab[v] >= 0) continue;
        T f = v, b = v;
        for (T j = iptr[v]; j < iptr[v + 1]; ++j) {
            if (live(v, iind[j], lab, cf, cb)) {
                f = iind[j];
                break;
            }
        }
        for (T j = optr[v]; j < optr[v + 1]; ++j) {
            if (live(v, oind[j], lab, cf, cb)) {
                b = oind[j];
                break;
            }
        }
        jf[v] = f;
        jb[v] = b;
    }
}

// One propagation step: fw[v] falls to the smallest fw of its live in-neighbours, bw[v]
// to the smallest bw of its live out-neighbours. *flag is set when a value falls.
//
// Two shortcuts keep the steps of a round from growing with the length of the paths
// the minima travel. Every vertex named by fw[v], jf[v] (or bw[v], jb[v]) reaches v (is
// reached from v) inside v's colour, so its own fw (bw) is a valid value for v: reading
// fw[fw[v]] jumps along the chain of minima, and the jump pointers double (jf[v] takes
// jf[jf[v]]) so that jf[v] walks up one in-path 2^k arcs after k steps. Along a path
// or a cycle numbered in either direction the minimum then arrives in O(log n) steps;
// without them a path numbered against the direction the minimum travels needs one
// step per vertex. A step that lowers no value read only final values, so the flag
// still means what it did.
template <typename T>
__device__ __forceinline__ void scc_jump_and_store(T v, T f, T b, T* fw, T* bw, T* jf, T* jb,
                                                   int* flag) {
    T pf = jf[v], pb = jb[v];
    T x = fw[pf];
    if (x < f) f = x;
    x = fw[f];
    if (x < f) f = x;
    x = bw[pb];
    if (x < b) b = x;
    x = bw[b];
    if (x < b) b = x;
    jf[v] = jf[pf];
    jb[v] = jb[pb];
    if (f < fw[v] || b < bw[v]) {
        fw[v] = f;
        bw[v] = b;
        *flag = 1;
    }
}

// One thread per vertex of at most `heavy` arcs in and out together; the heavier
// vertices are left to scc_propagate_heavy in the same step (a thread walking
// thousands of arcs would hold up the whole launch).
template <typename T>
__global__ void scc_propagate(long long n, const T* __restrict__ optr,
                              const T* __restrict__ oind, const T* __restrict__ iptr,
                              const T* __restrict__ iind, const T* __restrict__ lab,
                              const T* __restrict__ cf, const T* __restrict__ cb, T* fw, T* bw,
                              T* jf, T* jb, long long heavy, int* flag) {
    GRID_STRIDE(i, n) {
        T v = (T)i;
        if (lab[v] >= 0) continue;
        T ib = iptr[v], ie = iptr[v + 1], ob = optr[v], oe = optr[v + 1];
        if ((long long)(ie - ib) + (long long)(oe - ob) > heavy) continue;
        T f = fw[v], b = bw[v];
        for (T j = ib; j < ie; ++j) {
            T u = iind[j];
            T x = fw[u];
            if (x < f && live(v, u, lab, cf, cb)) f = x;
        }
        for (T j = ob; j < oe; ++j) {
            T w = oind[j];
            T x = bw[w];
            if (x < b && live(v, w, lab, cf, cb)) b = x;
        }
        scc_jump_and_store(v, f, b, fw, bw, jf, jb, flag);
    }
}

template <typename T>
__device__ __forceinline__ T warp_min(T x) {
    for (int d = 16; d > 0; d >>= 1) {
        T y = __shfl_xor_sync(0xffffffffu, x, d);
        if (y < x) x = y;
    }
    return x;
}

// The same step for the listed heavy vertices, one warp each: the lanes share the arcs
// and reduce their minima by shuffles; lane 0 jumps and stores.
template <typename T>
__global__ void scc_propagate_heavy(const T* __restrict__ list, long long count,
                                    const T* __restrict__ optr, const T* __restrict__ oind,
                                    const T* __restrict__ iptr, const T* __restrict__ iind,
                                    const T* __restrict__ lab, const T* __restrict__ cf,
                                    const T* __restrict__ cb, T* fw, T* bw, T* jf, T* jb,
                                    int* flag) {
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long k = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5; k < count;
         k += warps) {
        T v = list[k];
        if (lab[v] >= 0) continue;  // the same for every lane of the warp
        T f = fw[v], b = bw[v];
        for (T j = iptr[v] + lane; j < iptr[v + 1]; j += 32) {
            T u = iind[j];
            T x = fw[u];
            if (x < f && live(v, u, lab, cf, cb)) f = x;
        }
        for (T j = optr[v] + lane; j < optr[v + 1]; j += 32) {
            T w = oind[j];
            T x = bw[w];
            if (x < b && live(v, w, lab, cf, cb)) b = x;
        }
        f = warp_min(f);
        b = warp_min(b);
        if (lane == 0) scc_jump_and_store(v, f, b, fw, bw, jf, jb, flag);
        __syncwarp();
    }
}

// After propagation: fw[v] == bw[v] == c means c and v reach each other and no smaller
// vertex reaches c, so v's component has smallest vertex c. The other vertices take
// (fw, bw) as their colour (one component never spans two colours), restart from
// fw = bw = v, and count themselves in *left.
template <typename T>
__global__ void scc_settle(long long n, T* lab, T* cf, T* cb, T* fw, T* bw,
                           unsigned long long* left) {
    unsigned long long mine = 0;
    GRID_STRIDE(i, n) {
        T v = (T)i;
        if (lab[v] >= 0) continue;
        if (fw[v] == bw[v]) {
            lab[v] = fw[v];
        } else {
            cf[v] = fw[v];
            cb[v] = bw[v];
            fw[v] = v;
            bw[v] = v;
            ++mine;
        }
    }
    if (mine) atomicAdd(left, mine);
}

// One level of a breadth-first search over live arcs of one direction (ptr/ind): the
// unseen unsettled successors of the frontier are marked in seen and appended to next.
template <typename T>
__global__ void scc_bfs_level(const T* __restrict__ ptr, const T* __restrict__ ind,
                              const T* __restrict__ lab, const T* __restrict__ frontier,
                              long long size, int* seen, T* next,
                              unsigned long long* next_size) {
    GRID_STRIDE(i, size) {
        T v = frontier[i];
        for (T j = ptr[v]; j < ptr[v + 1]; ++j) {
            T w = ind[j];
            if (lab[w] < 0 && atomicExch(seen + w, 1) == 0) next[atomicAdd(next_size, 1ull)] = w;
        }
    }
}

// After the two searches from the pivot: the vertices both reached form the pivot's
// component, whose smallest vertex is root; every other unsettled vertex is coloured by
// which of the two searches reached it (a component lies wholly in one of the four sets).
template <typename T>
__global__ void scc_split(long long n, const int* __restrict__ fseen,
                          const int* __restrict__ bseen, T root, T* lab, T* cf, T* cb) {
    GRID_STRIDE(i, n) {
        if (lab[i] >= 0) continue;
        if (fseen[i] && bseen[i]) {
            lab[i] = root;
        } else {
            cf[i] = (T)fseen[i];
            cb[i] = (T)bseen[i];
        }
    }
}
