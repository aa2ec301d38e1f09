// Min-based connectivity families (GConn's "other" finishes), Soman's GPU-CC,
// Cong & Muzio's CC / CC-updt / Stages and ECL-CC.
//
// I is the vertex/offset type (int or long long). P is a parent (label) array
// whose entries only ever decrease towards smaller ids (Soman: see its kernels),
// so plain stores that move a pointer to an ancestor are benign races; links
// that must not be lost use atomics. `changed` flags are plain stores of 1.
//
// Spanning forests (the RECORD template flag, or a `record` kernel): the
// root-based rules hook a root by one compare-and-swap that succeeds once, and
// the id of the edge that did it goes to the root's `hook` slot (GConn, section
// 3.2), so the set slots are n - c edges, one per merge of two trees.
#include "uf.cuh"

template <typename I>
__device__ __forceinline__ I imin(I a, I b) { return a < b ? a : b; }
template <typename I>
__device__ __forceinline__ I imax(I a, I b) { return a < b ? b : a; }

// ================================================================== shared steps
// Full shortcut (pointer jumping until the parent is a root). Used as SV's full
// compression, Cong & Muzio's shortcut, Afforest's compress and Liu-Tarjan's
// full-shortcut rule.
template <typename I>
__global__ void shortcut_full(I* P, I n, int* changed) {
    GRID_STRIDE(v, n) {
        I d = ld(P + v), dd = ld(P + d);
        if (d == dd) continue;
        while (d != dd) {
            P[v] = dd;
            d = dd;
            dd = ld(P + d);
        }
        *changed = 1;
    }
}

// One shortcut step, P[v] <- P[P[v]] (Liu-Tarjan's shortcut, Stergiou).
template <typename I>
__global__ void shortcut_once(I* P, I n, int* changed) {
    GRID_STRIDE(v, n) {
        I d = ld(P + v), dd = ld(P + d);
        if (d != dd) {
            P[v] = dd;
            *changed = 1;
        }
    }
}

// Replace every edge (u, v) by (P[u], P[v]): Liu-Tarjan's alter, Cong & Muzio's
// update step, and the relabelling of the next Stages group.
template <typename I>
__global__ void relabel_edges(I* src, I* dst, const I* P, long long m) {
    GRID_STRIDE(i, m) {
        src[i] = ld(P + src[i]);
        dst[i] = ld(P + dst[i]);
    }
}

__device__ __forceinline__ u64 fam_mix64(u64 x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Sort keys of a random permutation of the edges (Stages, step 1).
template <typename I>
__global__ void hash_keys(u64* keys, long long m, u64 seed) {
    GRID_STRIDE(i, m) { keys[i] = fam_mix64(seed ^ (u64)i); }
}

// ================================================================== Soman et al.
// Hooking without atomics over the edge list. Even iterations hook the lower
// parent under the higher, odd iterations the reverse (Greiner's HY1); iteration
// 0 hooks the endpoints themselves. Every parent value read is a root of the
// iteration's start (leaves are never written), and within one iteration all
// hooks point the same way, so no cycle forms; a lost (overwritten) hook keeps
// its edge active for the next iteration. Edges found inside one tree are
// hidden for good (edge hiding: a separate, coalesced flag array).
template <typename I>
__global__ void soman_hook(I* P, const I* __restrict__ src, const I* __restrict__ dst,
                           unsigned char* hidden, long long m, int iter, int* changed) {
    GRID_STRIDE(i, m) {
        if (hidden[i]) continue;
        I a = src[i], b = dst[i];
        if (iter > 0) {
            a = ld(P + a);
            b = ld(P + b);
        }
        if (a == b) {
            hidden[i] = 1;
            continue;
        }
        if (iter & 1) P[imax(a, b)] = imin(a, b);
        else P[imin(a, b)] = imax(a, b);
        *changed = 1;
    }
}

// Spanning-forest version, step 1: every edge that would hook competes for its
// tree; the last writer of winner[tree] wins (one winner per tree).
template <typename I>
__global__ void soman_claim(const I* P, const I* __restrict__ src, const I* __restrict__ dst,
                            unsigned char* hidden, long long m, int iter, I* winner, int* changed) {
    GRID_STRIDE(i, m) {
        if (hidden[i]) continue;
        I a = src[i], b = dst[i];
        if (iter > 0) {
            a = P[a];
            b = P[b];
        }
        if (a == b) {
            hidden[i] = 1;
            continue;
        }
        winner[(iter & 1) ? imax(a, b) : imin(a, b)] = (I)i;
        *changed = 1;
    }
}

// Step 2: the winning edge of each tree hooks it (into a copy, so every edge
// still reads the parents that step 1 saw) and is recorded as its tree edge.
template <typename I>
__global__ void soman_commit(const I* P, I* P_next, const I* __restrict__ src,
                             const I* __restrict__ dst, const unsigned char* hidden, long long m,
                             int iter, const I* winner, I* hook_edge) {
    GRID_STRIDE(i, m) {
        if (hidden[i]) continue;
        I a = src[i], b = dst[i];
        if (iter > 0) {
            a = P[a];
            b = P[b];
        }
        I lo = imin(a, b), hi = imax(a, b);
        I tree = (iter & 1) ? hi : lo;
        if (winner[tree] == (I)i) {
            P_next[tree] = (iter & 1) ? lo : hi;
            hook_edge[tree] = (I)i;
        }
    }
}

// Multilevel pointer jumping, one level per launch, touching only vertices not
// yet known to point at a root (their state is kept in `settled`).
template <typename I>
__global__ void soman_jump(I* P, unsigned char* settled, I n, int* changed) {
    GRID_STRIDE(v, n) {
        if (settled[v]) continue;
        I p = P[v], pp = ld(P + p);
        if (p == pp) {
            settled[v] = 1;
        } else {
            P[v] = pp;
            *changed = 1;
        }
    }
}

// Coalesced termination check: two trees exist iff some P[i] != P[i + 1] (stars).
template <typename I>
__global__ void soman_multi(const I* P, I n, int* multi) {
    GRID_STRIDE(v, (long long)n - 1) {
        if (P[v] != P[v + 1]) *multi = 1;
    }
}

// ================================================================== Cong & Muzio
// CC graft (their Algorithm 1, each edge stored once): graft the tree of the
// larger endpoint label under the smaller one. The papers store plainly and let any
// of many edges win; an atomic minimum keeps the smallest offered, since on a star
// with its leaves in id order a later (larger) leaf winning moves the hub's label
// only one leaf down per round. All pointers still point downwards.
template <typename I>
__global__ void cm_graft(I* D, const I* __restrict__ src, const I* __restrict__ dst, long long m,
                         int* changed) {
    GRID_STRIDE(i, m) {
        I du = ld(D + src[i]), dv = ld(D + dst[i]);
        if (du == dv) continue;
        const I hi = du < dv ? dv : du, lo = du < dv ? du : dv;
        if (atomicMin(D + hi, lo) > lo) *changed = 1;
    }
}

// CC-updt graft (Algorithm 2): endpoints are already super-vertices after the
// update step, so the graft reads no labels at all (atomic minimum as in cm_graft).
template <typename I>
__global__ void cm_graft_updt(I* D, const I* __restrict__ src, const I* __restrict__ dst,
                              long long m, int* changed) {
    GRID_STRIDE(i, m) {
        const I u = src[i], v = dst[i];
        if (u == v) continue;
        const I hi = u < v ? v : u, lo = u < v ? u : v;
        if (atomicMin(D + hi, lo) > lo) *changed = 1;
    }
}

// Spanning-forest version of both: the root among the two labels is grafted by one
// CAS (CC reads the labels, CC-updt's edges are labels already). A graft that loses
// its CAS comes back next round (the winner set `changed`).
template <typename I>
__global__ void cm_graft_record(I* D, const I* __restrict__ src, const I* __restrict__ dst,
                                long long m, int update, I* hook, int* changed) {
    GRID_STRIDE(i, m) {
        I du = update ? src[i] : ld(D + src[i]), dv = update ? dst[i] : ld(D + dst[i]);
        if (du == dv) continue;
        I hi = imax(du, dv), lo = imin(du, dv);
        if (ld(D + hi) == hi && cas(D + hi, hi, lo) == hi) {
            hook[hi] = (I)i;
            *changed = 1;
        }
    }
}

// ================================================================== Shiloach-Vishkin (root-based)
// Hook a root under the smaller label with an atomic minimum. A root that another
// thread hooked in the meantime may still be moved (with its subtree) to a smaller
// label: still min-based and acyclic, and its edge is seen again next round.
// RECORD hooks by CAS instead, so each root is hooked once, by the edge it records.
template <bool RECORD, typename I>
__device__ __forceinline__ void sv_hook(I* P, I u, I w, int* changed, I* hook, I eid) {
    I pu = ld(P + u), pw = ld(P + w);
    if (pu == pw) return;
    I hi = imax(pu, pw), lo = imin(pu, pw);
    if (ld(P + hi) != hi) return;
    if (RECORD) {
        if (cas(P + hi, hi, lo) == hi) {
            hook[hi] = eid;
            *changed = 1;
        }
    } else if (atomic_min(P + hi, lo) > lo) {
        *changed = 1;
    }
}

template <typename I, bool RECORD>
__global__ void sv_hook_coo(I* P, const I* __restrict__ src, const I* __restrict__ dst,
                            long long m, I* hook, int* changed) {
    GRID_STRIDE(i, m) { sv_hook<RECORD>(P, src[i], dst[i], changed, hook, (I)i); }
}

struct SVHook {
    template <bool RECORD, typename I>
    static __device__ __forceinline__ void edge(I* P, I u, I w, int* changed, I* hook, I eid) {
        sv_hook<RECORD>(P, u, w, changed, hook, eid);
    }
};

// Afforest's link (Sutton et al.): CAS a root under the smaller root, climbing
// one level on both sides after a failed attempt.
struct AfforestLink {
    template <bool RECORD, typename I>
    static __device__ __forceinline__ void edge(I* comp, I u, I v, int*, I* hook, I eid) {
        I p1 = ld(comp + u), p2 = ld(comp + v);
        while (p1 != p2) {
            I high = imax(p1, p2), low = imin(p1, p2);
            I p_high = ld(comp + high);
            if (p_high == low) break;
            if (p_high == high && cas(comp + high, high, low) == high) {
                if (RECORD) hook[high] = eid;
                break;
            }
            p1 = ld(comp + ld(comp + high));
            p2 = ld(comp + low);
        }
    }
};

// Vertex-parallel CSR pass of a per-edge rule. Vertices labelled lmax are skipped
// (with sampling); without sampling each undirected edge is taken once (w < v).
// The first k0 edges of a vertex were covered by sampling. Vertices with more than
// `heavy` remaining edges are queued for the block-per-piece kernel below (uf.cuh).
// RECORD: eids holds the input edge id of each CSR entry, hook the forest slots.
template <typename I, class Op, bool RECORD>
__global__ void csr_light(I* P, const I* __restrict__ indptr, const I* __restrict__ indices,
                          const I* __restrict__ eids, I* hook, I n, int k0, const I* lmax,
                          int use_lmax, I heavy, I* queue, I* queue_len, int* changed) {
    I skip = lmax[0];
    GRID_STRIDE(v, n) {
        if (use_lmax && ld(P + v) == skip) continue;
        I b = indptr[v] + k0, e = indptr[v + 1];
        if (e - b > heavy) {
            queue_heavy(queue, queue_len, (I)v, e - b);
            continue;
        }
        for (I j = b; j < e; ++j) {
            I w = indices[j];
            if (!use_lmax && w > (I)v) continue;
            Op::template edge<RECORD>(P, (I)v, w, changed, hook, RECORD ? eids[j] : (I)0);
        }
    }
}

template <typename I, class Op, bool RECORD>
__global__ void csr_heavy(I* P, const I* __restrict__ indptr, const I* __restrict__ indices,
                          const I* __restrict__ eids, I* hook, int k0, int use_lmax,
                          const I* queue, const I* queue_len, int* changed) {
    I len = queue_len[0];
    for (I q = blockIdx.x; q < len; q += gridDim.x) {
        I piece, v = heavy_vertex(queue, q, piece), b, e;
        heavy_range(indptr[v] + k0, indptr[v + 1], piece, b, e);
        for (I j = b + threadIdx.x; j < e; j += blockDim.x) {
            I w = indices[j];
            if (!use_lmax && w > v) continue;
            Op::template edge<RECORD>(P, v, w, changed, hook, RECORD ? eids[j] : (I)0);
        }
    }
}

// ================================================================== Liu-Tarjan
// Connect rules send candidate parents (messages) with an atomic minimum:
//   0 connect:          min(u, v) to max(u, v)
//   1 parent-connect:   min(P[u], P[v]) to max(P[u], P[v])
//   2 extended-connect: with x = P[u], y = P[v]: if y < x send y to u and x, else x to v and y
// With sampling, an edge whose endpoints are both labelled lmax is skipped (checked
// every round, so an edge comes back once an endpoint leaves that tree).
template <typename I>
__device__ __forceinline__ void lt_send(I* msg, I target, I value, int* changed) {
    if (ld(msg + target) > value && atomic_min(msg + target, value) > value) *changed = 1;
}

// The messages of edge (u, v) under `rule`, each given to send(target, value).
template <typename I, class Send>
__device__ __forceinline__ void lt_messages(const I* P, I u, I v, int rule, I skip, int use_lmax,
                                            Send send) {
    if (u == v) return;
    I x = ld(P + u), y = ld(P + v);
    if (use_lmax && x == skip && y == skip) return;
    if (rule == 0) {
        send(imax(u, v), imin(u, v));
    } else if (x != y) {
        if (rule == 1) {
            send(imax(x, y), imin(x, y));
        } else if (y < x) {
            send(u, y);
            send(x, y);
        } else {
            send(y, x);
            send(v, x);
        }
    }
}

template <typename I>
__global__ void lt_connect(const I* P, I* msg, const I* __restrict__ src, const I* __restrict__ dst,
                           long long m, int rule, const I* lmax, int use_lmax, int* changed) {
    I skip = lmax[0];
    GRID_STRIDE(i, m) {
        lt_messages(P, src[i], dst[i], rule, skip, use_lmax,
                    [&](I target, I value) { lt_send(msg, target, value, changed); });
    }
}

// Update rule: P[u] <- min(P[u], msg[u]); root-update applies it to roots only.
template <typename I>
__global__ void lt_update(I* P, const I* msg, I n, int root_only, int* changed) {
    GRID_STRIDE(u, n) {
        I pu = P[u];
        if (root_only && pu != (I)u) continue;
        I mu = msg[u];
        if (mu < pu) {
            P[u] = mu;
            *changed = 1;
        }
    }
}

// Spanning-forest version of the root-update rules, run after lt_connect: every
// edge whose message to a root equals that root's final message offers its id
// (the first CAS wins). Each such edge joins the root's tree to the tree of the
// label it sent, and the update below hooks the root by that message, so the
// winner is the root's forest edge. P does not change between the two kernels.
template <typename I>
__device__ __forceinline__ void lt_offer(const I* P, const I* msg, I* win, I target, I value,
                                         I edge) {
    if (ld(msg + target) == value && ld(P + target) == target) cas(win + target, (I)-1, edge);
}

template <typename I>
__global__ void lt_claim(const I* P, const I* msg, I* win, const I* __restrict__ src,
                         const I* __restrict__ dst, long long m, int rule, const I* lmax,
                         int use_lmax) {
    I skip = lmax[0];
    GRID_STRIDE(i, m) {
        lt_messages(P, src[i], dst[i], rule, skip, use_lmax,
                    [&](I target, I value) { lt_offer(P, msg, win, target, value, (I)i); });
    }
}

// Root-update with a forest: a root that takes its message records the winning edge.
template <typename I>
__global__ void lt_update_record(I* P, const I* msg, I* win, I* hook, I n, int* changed) {
    GRID_STRIDE(u, n) {
        if (P[u] != (I)u) continue;
        I mu = msg[u];
        if (mu < (I)u) {
            P[u] = mu;
            hook[u] = win[u];
            win[u] = (I)-1;
            *changed = 1;
        }
    }
}

// ================================================================== Stergiou et al.
// Min-label round over two label arrays: labels of the previous round (prev) are
// offered across every edge, in both directions, to the current labels.
template <typename I>
__global__ void stergiou_edges(I* P, const I* __restrict__ prev, const I* __restrict__ src,
                               const I* __restrict__ dst, long long m, const I* lmax, int use_lmax,
                               int* changed) {
    I skip = lmax[0];
    GRID_STRIDE(i, m) {
        I u = src[i], v = dst[i];
        if (u == v) continue;
        if (use_lmax && ld(P + u) == skip && ld(P + v) == skip) continue;
        I pu = prev[u], pv = prev[v];
        if (ld(P + v) > pu && atomic_min(P + v, pu) > pu) *changed = 1;
        if (ld(P + u) > pv && atomic_min(P + u, pv) > pv) *changed = 1;
    }
}

// ================================================================== label propagation
// Data-driven: each frontier vertex compares labels across its edges; the larger
// label takes the smaller (atomic minimum) and its vertex joins the next frontier
// once per round (stamp). Vertices of degree > heavy go to the block kernel.
template <typename I>
__device__ __forceinline__ void lp_push(I x, int* stamp, int round, I* next, I* next_len) {
    if (atomicExch(stamp + x, round) != round) next[atomic_add(next_len, (I)1)] = x;
}

template <typename I>
__device__ __forceinline__ void lp_relax(I* lab, I v, I w, int* stamp, int round, I* next,
                                         I* next_len) {
    I lv = ld(lab + v), lw = ld(lab + w);
    if (lv < lw) {
        if (atomic_min(lab + w, lv) > lv) lp_push(w, stamp, round, next, next_len);
    } else if (lw < lv) {
        if (atomic_min(lab + v, lw) > lw) lp_push(v, stamp, round, next, next_len);
    }
}

template <typename I>
__global__ void lp_light(I* lab, const I* __restrict__ indptr, const I* __restrict__ indices,
                         const I* frontier, const I* frontier_len, I* next, I* next_len, int* stamp,
                         int round, I heavy, I* hq, I* hq_len) {
    I len = frontier_len[0];
    GRID_STRIDE(q, len) {
        I v = frontier[q];
        I b = indptr[v], e = indptr[v + 1];
        if (e - b > heavy) {
            hq[atomic_add(hq_len, (I)1)] = v;
            continue;
        }
        for (I j = b; j < e; ++j) lp_relax(lab, v, indices[j], stamp, round, next, next_len);
    }
}

template <typename I>
__global__ void lp_heavy(I* lab, const I* __restrict__ indptr, const I* __restrict__ indices,
                         const I* hq, const I* hq_len, I* next, I* next_len, int* stamp, int round) {
    I len = hq_len[0];
    for (I q = blockIdx.x; q < len; q += gridDim.x) {
        I v = hq[q];
        for (I j = indptr[v] + threadIdx.x; j < indptr[v + 1]; j += blockDim.x)
            lp_relax(lab, v, indices[j], stamp, round, next, next_len);
    }
}

// ================================================================== ECL-CC
// Init: label each vertex with its first smaller neighbour (itself if none). That
// is a hook too: with `record` the entry's edge id goes to the vertex's slot.
template <typename I>
__global__ void ecl_init(I* nstat, const I* __restrict__ indptr, const I* __restrict__ indices,
                         I n, const I* __restrict__ eids, I* hook, int record) {
    GRID_STRIDE(v, n) {
        I m = (I)v, at = (I)-1;
        for (I j = indptr[v]; j < indptr[v + 1] && at < 0; ++j) {
            if (indices[j] < (I)v) {
                m = indices[j];
                at = j;
            }
        }
        nstat[v] = m;
        if (record && at >= 0) hook[v] = eids[at];
    }
}

// The representative function: follow labels to the end of the chain, pointing
// each visited vertex at its grandparent on the way (intermediate pointer jumping).
template <typename I>
__device__ __forceinline__ I ecl_rep(I v, I* nstat) {
    I curr = ld(nstat + v);
    if (curr != v) {
        I prev = v, next;
        while (curr > (next = ld(nstat + curr))) {
            nstat[prev] = next;
            prev = curr;
            curr = next;
        }
    }
    return curr;
}

// Hook the larger representative under the smaller. ECL: CAS, retrying from the
// value a failed CAS returns. ECL_af: a plain store and a `reiterate` flag.
// RECORD (ECL only): the CAS that hooks a root writes the edge's id to its slot.
template <typename I, bool ATOMIC, bool RECORD>
__device__ __forceinline__ void ecl_link(I* nstat, I& vstat, I ostat, int* changed, I* hook,
                                         I eid) {
    if (ATOMIC) {
        while (vstat != ostat) {
            if (vstat < ostat) {
                I ret = cas(nstat + ostat, ostat, vstat);
                if (ret == ostat) {
                    if (RECORD) hook[ostat] = eid;
                    break;
                }
                ostat = ret;
            } else {
                I ret = cas(nstat + vstat, vstat, ostat);
                if (ret == vstat) {
                    if (RECORD) hook[vstat] = eid;
                    break;
                }
                vstat = ret;
            }
        }
    } else if (vstat != ostat) {
        if (vstat < ostat) nstat[ostat] = vstat;
        else nstat[vstat] = ostat;
        *changed = 1;
    }
}

// compute1: one thread per vertex of degree <= warp_deg; the others go to the
// double-sided worklist, the front (warp_deg, block_deg] and the rear > block_deg.
// Without sampling each edge is processed once (v > u).
template <typename I, bool ATOMIC, bool RECORD>
__global__ void ecl_compute1(I* nstat, const I* __restrict__ indptr, const I* __restrict__ indices,
                             const I* __restrict__ eids, I* hook, I n, int k0, const I* lmax,
                             int use_lmax, I* wl, I* top, I* pos, int fill_wl, I warp_deg,
                             I block_deg, int* changed) {
    I skip = lmax[0];
    GRID_STRIDE(v, n) {
        if (use_lmax && ld(nstat + v) == skip) continue;
        I b = indptr[v] + k0, e = indptr[v + 1];
        if (e - b > warp_deg) {
            if (fill_wl) {
                if (e - b <= block_deg) wl[atomic_add(top, (I)1)] = (I)v;
                else wl[atomic_add(pos, (I)-1)] = (I)v;
            }
            continue;
        }
        I vstat = ecl_rep((I)v, nstat);
        for (I j = b; j < e; ++j) {
            I u = indices[j];
            if (use_lmax || (I)v > u)
                ecl_link<I, ATOMIC, RECORD>(nstat, vstat, ecl_rep(u, nstat), changed, hook,
                                            RECORD ? eids[j] : (I)0);
        }
    }
}

// compute2: one warp per vertex from the front of the worklist.
template <typename I, bool ATOMIC, bool RECORD>
__global__ void ecl_compute2(I* nstat, const I* __restrict__ indptr, const I* __restrict__ indices,
                             const I* __restrict__ eids, I* hook, int k0, int use_lmax,
                             const I* wl, const I* top, int* changed) {
    I len = top[0];
    long long lane = threadIdx.x & 31;
    long long warp = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long q = warp; q < (long long)len; q += warps) {
        I v = wl[q];
        I vstat = ecl_rep(v, nstat);
        for (I j = indptr[v] + k0 + (I)lane; j < indptr[v + 1]; j += 32) {
            I u = indices[j];
            if (use_lmax || v > u)
                ecl_link<I, ATOMIC, RECORD>(nstat, vstat, ecl_rep(u, nstat), changed, hook,
                                            RECORD ? eids[j] : (I)0);
        }
    }
}

// compute3: one block per vertex from the rear of the worklist (entries pos+1 .. n-1).
template <typename I, bool ATOMIC, bool RECORD>
__global__ void ecl_compute3(I* nstat, const I* __restrict__ indptr, const I* __restrict__ indices,
                             const I* __restrict__ eids, I* hook, I n, int k0, int use_lmax,
                             const I* wl, const I* pos, int* changed) {
    I first = pos[0] + 1;
    for (I q = first + (I)blockIdx.x; q < n; q += (I)gridDim.x) {
        I v = wl[q];
        I vstat = ecl_rep(v, nstat);
        for (I j = indptr[v] + k0 + (I)threadIdx.x; j < indptr[v + 1]; j += (I)blockDim.x) {
            I u = indices[j];
            if (use_lmax || v > u)
                ecl_link<I, ATOMIC, RECORD>(nstat, vstat, ecl_rep(u, nstat), changed, hook,
                                            RECORD ? eids[j] : (I)0);
        }
    }
}

// Flatten: point every vertex at the end of its chain.
template <typename I>
__global__ void ecl_flatten(I* nstat, I n) {
    GRID_STRIDE(v, n) {
        I vstat = nstat[v], old = vstat, next;
        while (vstat > (next = ld(nstat + vstat))) vstat = next;
        if (old != vstat) nstat[v] = vstat;
    }
}

// ================================================================== BFS-CC
// comp[v] = -1 until visited; isolated vertices are their own component at once.
template <typename I>
__global__ void bfscc_init(I* comp, const I* __restrict__ indptr, I n) {
    GRID_STRIDE(v, n) { comp[v] = indptr[v] == indptr[v + 1] ? (I)v : (I)-1; }
}

// Smallest unvisited vertex >= start (the next BFS source; the minimum of its component).
template <typename I>
__global__ void bfscc_next_source(const I* comp, I start, I n, I* out) {
    GRID_STRIDE(t, (long long)(n - start)) {
        I v = start + (I)t;
        if (comp[v] < 0) atomic_min(out, v);
    }
}

// With `record` the entry that discovers a vertex gives its BFS-tree edge (eids: the
// input edge id of each CSR entry) to the vertex's slot.
template <typename I>
__global__ void bfscc_top_down(I* comp, const I* __restrict__ indptr, const I* __restrict__ indices,
                               I source, const I* frontier, const I* frontier_len, I* next,
                               I* next_len, const I* __restrict__ eids, I* hook, int record) {
    I len = frontier_len[0];
    GRID_STRIDE(q, len) {
        I v = frontier[q];
        for (I j = indptr[v]; j < indptr[v + 1]; ++j) {
            I w = indices[j];
            if (ld(comp + w) < 0 && cas(comp + w, (I)-1, source) == (I)-1) {
                if (record) hook[w] = eids[j];
                next[atomic_add(next_len, (I)1)] = w;
            }
        }
    }
}

template <typename I>
__global__ void bfscc_bottom_up(I* comp, const I* __restrict__ indptr, const I* __restrict__ indices,
                                I source, I n, const unsigned char* __restrict__ in_frontier,
                                unsigned char* in_next, I* next_len, const I* __restrict__ eids,
                                I* hook, int record) {
    GRID_STRIDE(v, n) {
        if (comp[v] >= 0) continue;
        for (I j = indptr[v]; j < indptr[v + 1]; ++j) {
            if (in_frontier[indices[j]]) {
                comp[v] = source;
                if (record) hook[v] = eids[j];
                in_next[v] = 1;
                atomic_add(next_len, (I)1);
                break;
            }
        }
    }
}

template <typename I>
__global__ void bfscc_to_bitmap(const I* queue, const I* len, unsigned char* bits) {
    I l = len[0];
    GRID_STRIDE(q, l) { bits[queue[q]] = 1; }
}
