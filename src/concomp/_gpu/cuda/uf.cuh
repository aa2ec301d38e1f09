// Concurrent union-find rules for the GPU engine (GConn / ConnectIt design space).
//
// Every rule is a small policy struct; kernels are templates over them. All
// id-ordered unions link the root that comes later in the link order under the
// one that comes earlier (JTB: by random rank), so no cycle can form. unite()
// returns the root that stopped being a root (the vertex that "owns" the hooking
// edge, used by spanning forests), or -1.
//
// The link order (before() below) is the id order, or, where UFState::keyed is
// set, a fixed pseudo-random permutation of the ids. Ordered by raw id,
// concurrent links of a graph whose ids follow its long paths (a polyline, a time
// series, a grid or road network as read from a file) build parent chains as
// long as the paths, and every later walk runs down them: time grows with the
// square of the path. In a random order a chain is a run of decreasing keys,
// which is O(log n) long on any id order. The id order is faster where ids do
// not follow paths (hook-based sampling hooks most vertices to their smallest
// neighbour, and the parents in use stay in a prefix that L2 holds), so the
// drivers choose (Options.link_order). Roots are their trees' first vertices in
// the link order; the drivers rename them to the minima (root_min in cc.cu).
//
// Plain (non-atomic) stores are used for compression: they only ever move a
// non-root's pointer to one of its ancestors, and non-roots are never linked,
// so a lost or stale store is harmless. Links of roots always use CAS.
#pragma once

#include "common.cuh"

template <typename I>
__device__ __forceinline__ I cas(I* addr, I expected, I desired);

template <>
__device__ __forceinline__ int cas<int>(int* addr, int expected, int desired) {
    return atomicCAS(addr, expected, desired);
}

template <>
__device__ __forceinline__ long long cas<long long>(long long* addr, long long expected,
                                                     long long desired) {
    return (long long)atomicCAS((u64*)addr, (u64)expected, (u64)desired);
}

__device__ __forceinline__ int atomic_add(int* a, int v) { return atomicAdd(a, v); }
__device__ __forceinline__ long long atomic_add(long long* a, long long v) {
    return (long long)atomicAdd((u64*)a, (u64)v);
}
__device__ __forceinline__ int atomic_min(int* a, int v) { return atomicMin(a, v); }
__device__ __forceinline__ long long atomic_min(long long* a, long long v) { return atomicMin(a, v); }

// ------------------------------------------------------------------ heavy rows
// Vertex-parallel CSR passes queue rows longer than `heavy` for a block-per-slot
// kernel, in pieces of at most HEAVY_PIECE entries, one queue slot (and one block)
// per piece: a hub's row in one block would leave that block reading the whole row
// while the others idle (a star took as long as one block reading its hub's row).
// A row's first slot holds the vertex, its i-th further slot holds -i, so the block
// taking a slot finds the vertex i slots back. A queue of at most
// min(n, entries / (heavy + 1)) + entries / HEAVY_PIECE + 1 slots always suffices
// (kernels.heavy_queue_slots): only rows longer than HEAVY_PIECE take more than one.
#define HEAVY_PIECE 4096

template <typename I>
__device__ __forceinline__ void queue_heavy(I* queue, I* queue_len, I v, I len) {
    I pieces = (I)(((long long)len + HEAVY_PIECE - 1) / HEAVY_PIECE);
    I slot = atomic_add(queue_len, pieces);
    queue[slot] = v;
    for (I i = 1; i < pieces; ++i) queue[slot + i] = -i;
}

// The vertex of queue slot q and which piece of its row the slot is.
template <typename I>
__device__ __forceinline__ I heavy_vertex(const I* queue, I q, I& piece) {
    I v = queue[q];
    piece = v < 0 ? -v : 0;
    return v < 0 ? queue[q + v] : v;
}

// The entries [b, e) of a piece of the row whose remaining entries are [first, end).
template <typename I>
__device__ __forceinline__ void heavy_range(I first, I end, I piece, I& b, I& e) {
    long long start = (long long)first + (long long)piece * HEAVY_PIECE;
    b = (I)start;
    e = (I)min((long long)end, start + HEAVY_PIECE);
}

// Relaxed loads at GPU scope: another thread may have linked or compressed since
// our last read, so the value must come from L2 (the point of coherence) and the
// compiler must not reuse an earlier read. Weaker, and cheaper, than volatile
// (system scope); the CAS that acts on a value still checks it.
__device__ __forceinline__ int ld(const int* a) {
    int v;
    asm volatile("ld.relaxed.gpu.global.s32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
}
__device__ __forceinline__ long long ld(const long long* a) {
    long long v;
    asm volatile("ld.relaxed.gpu.global.s64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    return v;
}
__device__ __forceinline__ u64 ld(const u64* a) {
    u64 v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    return v;
}

// Weak loads, which L1 may serve with a value another SM has since replaced:
// for Rem's union when UFState::cached is set (see there).
__device__ __forceinline__ int ld_cached(const int* a) {
    int v;
    asm volatile("ld.global.ca.s32 %0, [%1];" : "=r"(v) : "l"(a) : "memory");
    return v;
}
__device__ __forceinline__ long long ld_cached(const long long* a) {
    long long v;
    asm volatile("ld.global.ca.s64 %0, [%1];" : "=l"(v) : "l"(a) : "memory");
    return v;
}

// Inputs that a pass reads once (edge lists, CSR indices) and outputs it writes
// once: L2 evict-first ("streaming") loads and stores, so that they do not evict
// the parent array, which every union reads at random.
template <typename T>
__device__ __forceinline__ T ld_stream(const T* a) {
    return __ldcs(a);
}
template <typename T>
__device__ __forceinline__ void st_stream(T* a, T v) {
    __stcs(a, v);
}

// ------------------------------------------------------------------ link order
// order_key is a bijection of the unsigned id space (an xor-shift-multiply mixer,
// lowbias32 / the splitmix64 finaliser) and key_to_id its inverse, so that a
// vertex can be recovered from the smallest key of a set (BFS sampling re-roots
// its star so).
__device__ __forceinline__ unsigned order_key(int x) {
    unsigned k = (unsigned)x;
    k = (k ^ (k >> 16)) * 0x7feb352du;
    k = (k ^ (k >> 15)) * 0x846ca68bu;
    return k ^ (k >> 16);
}
__device__ __forceinline__ u64 order_key(long long x) {
    u64 k = (u64)x;
    k = (k ^ (k >> 30)) * 0xBF58476D1CE4E5B9ull;
    k = (k ^ (k >> 27)) * 0x94D049BB133111EBull;
    return k ^ (k >> 31);
}
__device__ __forceinline__ int key_to_id(unsigned k) {
    k ^= k >> 16;
    k *= 0x43021123u;
    k ^= (k >> 15) ^ (k >> 30);
    k *= 0x1d69e2a5u;
    k ^= k >> 16;
    return (int)k;
}
__device__ __forceinline__ long long key_to_id(u64 k) {
    k ^= (k >> 31) ^ (k >> 62);
    k *= 0x319642b2d24d8ec3ull;
    k ^= (k >> 27) ^ (k >> 54);
    k *= 0x96de1b173f119089ull;
    k ^= (k >> 30) ^ (k >> 60);
    return (long long)k;
}
// A vertex's place in the link order: its key (keyed) or its id, unsigned.
template <typename I>
__device__ __forceinline__ auto link_rank(int keyed, I x) -> decltype(order_key(x)) {
    return keyed ? order_key(x) : (decltype(order_key(x)))x;
}
template <typename I, typename K>
__device__ __forceinline__ I rank_to_id(int keyed, K k) {
    return keyed ? (I)key_to_id(k) : (I)k;
}
// Whether a comes before b in the link order (parents come before their children).
template <typename I>
__device__ __forceinline__ bool before(int keyed, I a, I b) {
    return keyed ? order_key(a) < order_key(b) : a < b;
}

// ------------------------------------------------------------------ finds
// Every find takes the link order's flag (UFState::keyed); only FindCompress reads it.
struct FindNaive {
    template <typename I>
    static __device__ __forceinline__ I find(I* p, I x, int = 0) {
        I px = ld(p + x);
        while (px != x) {
            x = px;
            px = ld(p + x);
        }
        return x;
    }
};

struct FindSplit {
    template <typename I>
    static __device__ __forceinline__ I find(I* p, I x, int = 0) {
        while (true) {
            I px = ld(p + x);
            I ppx = ld(p + px);
            if (px == ppx) return px;
            p[x] = ppx;
            x = px;
        }
    }
};

struct FindHalve {
    template <typename I>
    static __device__ __forceinline__ I find(I* p, I x, int = 0) {
        while (true) {
            I px = ld(p + x);
            I ppx = ld(p + px);
            if (px == ppx) return px;
            p[x] = ppx;
            x = ppx;
        }
    }
};

// Full compression. Parents always come before their children in the link
// order, so "root before px" means "x still points below the root we found". Testing px != root instead would be wrong: a concurrent compression may
// already have lifted x above that root, and we must not pull it back down.
struct FindCompress {
    template <typename I>
    static __device__ __forceinline__ I find(I* p, I x, int keyed = 0) {
        I root = FindNaive::find(p, x);
        I px = ld(p + x);
        while (before(keyed, root, px)) {
            p[x] = root;
            x = px;
            px = ld(p + x);
        }
        return root;
    }
};

// ------------------------------------------------------------------ state
// Everything a rule may need, passed by value to every kernel.
template <typename I>
struct UFState {
    I* p;        // parents
    int* aux;    // hooks (Union-Hooks) or locks (Rem-Lock)
    u64* packed; // (rank << 56) | parent, for Union-JTB
    // Rem's union (and its compression steps) read parents with weak loads that
    // L1 may serve, instead of relaxed loads from L2: cheaper where the parent
    // array fits in L2 (sampling, inserts), dearer for an unsampled finish over a
    // parent array larger than L2 (benchmarks/bench_gpu_cc.py measures both).
    // Kernels set it; other rules ignore it.
    int cached;
    // Rem's union re-reads only the moved side's parent (UniteRem::unite_one_side).
    // Zero unless a kernel sets it (aggregate initialisation).
    int one_side;
    // The link order: pseudo-random keys (1) or ids (0, also where a kernel leaves
    // it out of the aggregate initialisation, as incremental.cu does: its forests
    // go to the CPU engine's state files, which link by id).
    int keyed;
};

// ------------------------------------------------------------------ unions
template <class F>
struct UniteAsync {
    template <typename I>
    static __device__ __forceinline__ I find(const UFState<I>& s, I x) { return F::find(s.p, x, s.keyed); }

    template <typename I>
    static __device__ __forceinline__ I unite(const UFState<I>& s, I u, I v) {
        while (true) {
            I ru = F::find(s.p, u, s.keyed), rv = F::find(s.p, v, s.keyed);
            if (ru == rv) return -1;
            if (before(s.keyed, ru, rv)) { I t = ru; ru = rv; rv = t; }
            // re-read before the CAS: under contention a plain load is far cheaper
            // than a CAS that is bound to fail (many threads race to link one hub)
            if (ld(s.p + ru) == ru && cas(s.p + ru, ru, rv) == ru) return ru;
            u = ru;
            v = rv;
        }
    }
};

// Walk both paths together from the endpoints; stop as soon as they meet.
template <class F>
struct UniteEarly {
    template <typename I>
    static __device__ __forceinline__ I find(const UFState<I>& s, I x) { return F::find(s.p, x, s.keyed); }

    template <typename I>
    static __device__ __forceinline__ I unite(const UFState<I>& s, I u, I v) {
        I* p = s.p;
        I linked = -1;
        while (u != v) {
            if (before(s.keyed, u, v)) { I t = u; u = v; v = t; }
            I pu = ld(p + u);
            if (pu == u) {
                if (cas(p + u, u, v) == u) { linked = u; break; }
                continue;
            }
            I ppu = ld(p + pu);
            if (ppu != pu) p[u] = ppu;  // one splitting step while walking
            u = pu;
        }
        return linked;
    }
};

// CAS on an auxiliary hooks array so that writes to the parents are uncontended.
template <class F>
struct UniteHooks {
    template <typename I>
    static __device__ __forceinline__ I find(const UFState<I>& s, I x) { return F::find(s.p, x, s.keyed); }

    template <typename I>
    static __device__ __forceinline__ I unite(const UFState<I>& s, I u, I v) {
        while (true) {
            I ru = F::find(s.p, u, s.keyed), rv = F::find(s.p, v, s.keyed);
            if (ru == rv) return -1;
            if (before(s.keyed, ru, rv)) { I t = ru; ru = rv; rv = t; }
            if (ld(s.aux + ru) == 0 && atomicCAS(s.aux + ru, 0, 1) == 0) {
                s.p[ru] = rv;
                __threadfence();
                return ru;
            }
            u = ru;
            v = rv;
        }
    }
};

// The grandparent read of a compression step: an ancestor even if stale.
template <typename I>
__device__ __forceinline__ I cached_step_ld(I* a, int cached) {
    return cached ? ld_cached(a) : ld(a);
}

// Rem's splicing rules (ConnectIt): what a non-root rx does while walking up.
// step() returns the node to go on from; when it read that node's parent on the
// way (path splitting does), it also stores it in `known` (else leaves it alone).
struct SpliceAtomic {
    template <typename I>
    static __device__ __forceinline__ I step(I* p, I rx, I prx, I pry, int, I&) {
        cas(p + rx, prx, pry);  // move rx under the other tree's (earlier) node
        return prx;
    }
};
struct SplitAtomicOne {
    template <typename I>
    static __device__ __forceinline__ I step(I* p, I rx, I prx, I, int cached, I& known) {
        I pp = cached_step_ld(p + prx, cached);
        cas(p + rx, prx, pp);
        known = pp;
        return prx;
    }
};
struct HalveAtomicOne {
    template <typename I>
    static __device__ __forceinline__ I step(I* p, I rx, I prx, I, int cached, I&) {
        I pp = cached_step_ld(p + prx, cached);
        cas(p + rx, prx, pp);
        return pp;
    }
};

// Rem's algorithm. Parents always come before their children in the link order
// and ancestry never breaks, so: prx == pry (even read at different times) is a
// common ancestor (same tree); linking root rx under a pry before it cannot close
// a cycle; and every iteration that does not return moves rx strictly earlier in
// the order (to an ancestor, or to the parent a failed link CAS returns). Weak
// (L1-cached, possibly stale) loads are therefore correct too: UFState::cached
// picks them per kernel.
template <class S, bool LOCK>
struct UniteRem {
    template <typename I>
    static __device__ __forceinline__ I find(const UFState<I>& s, I x) {
        return FindNaive::find(s.p, x);
    }

    // Try to hang root rx under `to`; return rx's parent before the attempt.
    template <typename I>
    static __device__ __forceinline__ I link(const UFState<I>& s, I rx, I to) {
        if constexpr (!LOCK) {
            return cas(s.p + rx, rx, to);
        } else {
            while (atomicCAS(s.aux + rx, 0, 1) != 0) {}
            __threadfence();
            I old = ld(s.p + rx);
            if (old == rx) s.p[rx] = to;
            __threadfence();
            atomicExch(s.aux + rx, 0);
            return old;
        }
    }

    template <typename I>
    static __device__ __forceinline__ I parent(const UFState<I>& s, I x) {
        return s.cached ? ld_cached(s.p + x) : ld(s.p + x);
    }

    template <typename I>
    static __device__ __forceinline__ I unite(const UFState<I>& s, I x, I y) {
        if (s.one_side) return unite_one_side(s, x, y);
        I* p = s.p;
        I rx = x, ry = y;
        while (true) {
            I prx = parent(s, rx), pry = parent(s, ry);
            if (prx == pry) return -1;
            if (before(s.keyed, prx, pry)) {
                I t = rx; rx = ry; ry = t;
                t = prx; prx = pry; pry = t;
            }
            if (rx == prx) {
                I old = link(s, rx, pry);
                if (old == rx) return rx;
                rx = old;  // linked by someone else meanwhile: go on from its new parent
                continue;
            }
            I known;
            rx = S::step(p, rx, prx, pry, s.cached, known);
        }
    }

    // The same walk re-reading only the parent of the side that moved, with a
    // splitting step's grandparent read serving as the next parent: the other
    // side's value may be stale, but it is still an ancestor, which is all the
    // argument above needs. It saves L2 traffic, which bounds a finish whose
    // parent array overflows L2; where the parents fit in L2, fresh values end
    // contended unions sooner. So the drivers ask for it (UFState::one_side) only
    // for parent arrays larger than L2 (Options.one_side_above_bytes).
    template <typename I>
    static __device__ __forceinline__ I unite_one_side(const UFState<I>& s, I x, I y) {
        I rx = x, ry = y;
        I prx = parent(s, rx), pry = parent(s, ry);
        while (true) {
            if (prx == pry) return -1;
            if (before(s.keyed, prx, pry)) {
                I t = rx; rx = ry; ry = t;
                t = prx; prx = pry; pry = t;
            }
            I known = (I)-1;
            if (rx == prx) {
                I old = link(s, rx, pry);
                if (old == rx) return rx;
                rx = old;
            } else {
                rx = S::step(s.p, rx, prx, pry, s.cached, known);
            }
            prx = known >= 0 ? known : parent(s, rx);
        }
    }
};

// Jayanti-Tarjan-Boix-Adsera: link by random rank, (rank, parent) in one 64-bit word.
#define JTB_SHIFT 56
#define JTB_MASK ((1ull << JTB_SHIFT) - 1ull)

template <bool TWO_TRY_SPLIT>
struct UniteJTB {
    template <typename I>
    static __device__ __forceinline__ I parent(const UFState<I>& s, I x) {
        return (I)(ld(s.packed + x) & JTB_MASK);
    }

    template <typename I>
    static __device__ __forceinline__ I find(const UFState<I>& s, I x) {
        while (true) {
            u64 wx = ld(s.packed + x);
            I px = (I)(wx & JTB_MASK);
            if (px == x) return x;
            if (TWO_TRY_SPLIT) {
                for (int t = 0; t < 2; ++t) {
                    u64 wp = ld(s.packed + px);
                    I ppx = (I)(wp & JTB_MASK);
                    if (ppx == px) break;
                    u64 nw = (wx & ~JTB_MASK) | (u64)ppx;
                    u64 old = atomicCAS(s.packed + x, wx, nw);
                    if (old == wx) break;
                    wx = old;
                    px = (I)(wx & JTB_MASK);
                }
            }
            x = px;
        }
    }

    template <typename I>
    static __device__ __forceinline__ I unite(const UFState<I>& s, I u, I v) {
        while (true) {
            I ru = find(s, u), rv = find(s, v);
            if (ru == rv) return -1;
            u64 wu = ld(s.packed + ru), wv = ld(s.packed + rv);
            if ((I)(wu & JTB_MASK) != ru || (I)(wv & JTB_MASK) != rv) { u = ru; v = rv; continue; }
            u64 ku = wu >> JTB_SHIFT, kv = wv >> JTB_SHIFT;
            // lower rank goes under higher; equal ranks: the later root in the link
            // order under the earlier (as hook-based sampling's plain hooks), and the
            // survivor's rank grows (best effort; rank only guides balance).
            bool u_under = ku < kv || (ku == kv && before(s.keyed, rv, ru));
            I child = u_under ? ru : rv, par = u_under ? rv : ru;
            u64 wc = u_under ? wu : wv;
            if (atomicCAS(s.packed + child, wc, (wc & ~JTB_MASK) | (u64)par) == wc) {
                if (ku == kv) {
                    u64 wp = u_under ? wv : wu;
                    atomicCAS(s.packed + par, wp, wp + (1ull << JTB_SHIFT));
                }
                return child;
            }
            u = ru;
            v = rv;
        }
    }
};
