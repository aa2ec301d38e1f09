// The graph statistics GPU `auto` decides from (concomp._gpu.probe), gathered in one
// launch per statistic into four doubles that the host reads once:
//   out[0] sampled vertices, out[1] sum of their degrees, out[2] sum of squared degrees,
//   out[3] sampled edges whose ends are at most `window` ids apart.
// Vertices: 0, step, 2 step, ... below n. Edges: one position in each of num equal
// stretches of the m edges, placed inside it by a hash of i (locality.sample_positions,
// the same integers), read from a COO edge list or from a CSR, whose row of a position
// is found by binary search.
// Also the count of root labels' roots, the one number a count-only call reads back.
#include "common.cuh"

#define PROBE_THREADS 256

__device__ __forceinline__ void probe_add(double* out, double a, double b, double c) {
    // per-block sums in shared memory, then one global atomic per value and block
    __shared__ double s[3];
    if (threadIdx.x < 3) s[threadIdx.x] = 0.0;
    __syncthreads();
    if (a != 0.0) atomicAdd(&s[0], a);
    if (b != 0.0) atomicAdd(&s[1], b);
    if (c != 0.0) atomicAdd(&s[2], c);
    __syncthreads();
    if (threadIdx.x < 3 && s[threadIdx.x] != 0.0) atomicAdd(&out[threadIdx.x], s[threadIdx.x]);
}

template <typename P>
__global__ void probe_degrees(const P* __restrict__ indptr, long long n, long long step,
                              double* out) {
    double k = 0.0, sum = 0.0, sq = 0.0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i * step < n;
         i += (long long)blockDim.x * gridDim.x) {
        long long v = i * step;
        double d = (double)(indptr[v + 1] - indptr[v]);
        k += 1.0;
        sum += d;
        sq += d * d;
    }
    probe_add(out, k, sum, sq);
}

__device__ __forceinline__ long long probe_position(long long i, long long m, long long num) {
    long long p = i * m / num, stride = m / num;
    if (stride > 1) p += (long long)((((u64)i * 0x9E3779B97F4A7C15ull) >> 33) % (u64)stride);
    return p;
}

__device__ __forceinline__ bool probe_local(long long u, long long v, long long window) {
    long long gap = u > v ? u - v : v - u;
    return gap <= window;
}

template <typename T>
__global__ void probe_local_coo(const T* __restrict__ src, const T* __restrict__ dst,
                                long long m, long long num, long long window, double* out) {
    double local = 0.0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < num;
         i += (long long)blockDim.x * gridDim.x) {
        long long p = probe_position(i, m, num);
        if (probe_local((long long)src[p], (long long)dst[p], window)) local += 1.0;
    }
    probe_add(out + 3, local, 0.0, 0.0);
}

template <typename P, typename T>
__global__ void probe_local_csr(const P* __restrict__ indptr, const T* __restrict__ indices,
                                long long n, long long m, long long num, long long window,
                                double* out) {
    double local = 0.0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < num;
         i += (long long)blockDim.x * gridDim.x) {
        long long p = probe_position(i, m, num);
        // the last row r with indptr[r] <= p (searchsorted(indptr, p, "right") - 1)
        long long lo = 0, hi = n;  // indptr[lo] <= p < indptr[hi + 1] ... narrowed below
        while (lo < hi) {
            long long mid = lo + (hi - lo + 1) / 2;
            if ((long long)indptr[mid] <= p) lo = mid; else hi = mid - 1;
        }
        if (probe_local(lo, (long long)indices[p], window)) local += 1.0;
    }
    probe_add(out + 3, local, 0.0, 0.0);
}

// The number of roots (entries with r[v] == v) of root labels, added into *out: one
// atomic per warp that found any.
template <typename T>
__global__ void count_roots(const T* __restrict__ r, long long n, unsigned long long* out) {
    unsigned long long c = 0;
    GRID_STRIDE(i, n) c += (r[i] == (T)i) ? 1ull : 0ull;
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(out, c);
}

// SciPy's numbering from root labels (concomp._gpu.probe.canonical_numbers), after a scan
// that counts the roots up to each vertex (numbers, concomp._gpu.ops.root_numbers):
// labels[v] = number of roots up to roots[v], less one.
template <typename T, typename O>
__global__ void root_numbers(const T* __restrict__ roots, const O* __restrict__ numbers,
                             long long n, O* __restrict__ labels) {
    GRID_STRIDE(v, n) labels[v] = numbers[roots[v]] - 1;
}

// The edge ids a forest run recorded (concomp._gpu.probe.forest_edge_ids): ids[v] = hook[v]
// widened to int64 where the slot is set (>= 0), else the largest int64, so that one sort
// puts the set slots first in ascending order; *count = how many are set.
template <typename T>
__global__ void hook_ids(const T* __restrict__ hook, long long n, long long* __restrict__ ids,
                         unsigned long long* count) {
    unsigned long long c = 0;
    GRID_STRIDE(v, n) {
        const T h = hook[v];
        ids[v] = h >= 0 ? (long long)h : 0x7fffffffffffffffll;
        c += h >= 0;
    }
    for (int o = 16; o > 0; o >>= 1) c += __shfl_down_sync(0xffffffffu, c, o);
    if ((threadIdx.x & 31) == 0 && c) atomicAdd(count, c);
}
