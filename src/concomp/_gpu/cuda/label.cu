// Connected-component labelling of images and volumes on an implicit grid (no edge list).
//
// The image is seen as a volume D x H x W (a 2-D image has D = 1) in C order; pixel i's
// parent starts as i (foreground) or -1 (background). Every foreground pixel unites
// with its *earlier* foreground neighbours (offsets before it in raster order, passed
// as (dz, dy, dx) triples): the union links the larger root under the smaller with
// atomicMin, so a root is always the smallest linear index of its set, which is the
// component's first pixel in raster order. After full compression, flags[i] = 1 at the
// roots; an inclusive scan over the flags gives each root its label 1..N in raster
// order of first appearance (scipy.ndimage.label's numbering).
//
// Template parameters: T the image's element type, I the index type (int when the image
// has fewer than 2^31 - 1 pixels, long long otherwise), ML whether neighbours must
// hold equal values (multilabel), O the output's element type, L a label type.
#include "common.cuh"

// The root of x, read through volatile loads: other threads lower parents with
// atomicMin while this one walks, and each step must see memory, not a register.
template <typename I>
__device__ __forceinline__ I label_root(const volatile I* parent, I x) {
    I p = parent[x];
    while (p != x) {
        x = p;
        p = parent[x];
    }
    return x;
}

// Link the sets of a and b, the larger root under the smaller. atomicMin returns the
// parent b had: if it was still b the link is made; otherwise b had been linked
// meanwhile and the walk goes on from its new parent (always smaller, so it ends).
template <typename I>
__device__ __forceinline__ void label_unite(I* parent, I a, I b) {
    while (true) {
        a = label_root<I>(parent, a);
        b = label_root<I>(parent, b);
        if (a == b) return;
        if (a > b) {
            I t = a;
            a = b;
            b = t;
        }
        I old = atomicMin(&parent[b], a);
        if (old == b) return;
        b = old;
    }
}

template <typename T, typename I>
__global__ void label_init(const T* __restrict__ img, I* __restrict__ parent, I n, T bg) {
    GRID_STRIDE(i, n) { parent[i] = img[i] != bg ? (I)i : (I)-1; }
}

template <typename T, typename I, bool ML>
__global__ void label_union(const T* __restrict__ img, I* parent, I d, I h, I w,
                            const int* __restrict__ offsets, int k, T bg) {
    const long long plane = (long long)h * w;
    GRID_STRIDE(i, (long long)d * plane) {
        const T v = img[i];
        if (v == bg) continue;
        const long long z = i / plane;
        const long long y = (i - z * plane) / w;
        const long long x = i - z * plane - y * w;
        for (int t = 0; t < k; ++t) {
            const long long nz = z + offsets[3 * t];
            const long long ny = y + offsets[3 * t + 1];
            const long long nx = x + offsets[3 * t + 2];
            if (nz < 0 || ny < 0 || ny >= h || nx < 0 || nx >= w) continue;
            const long long j = (nz * h + ny) * w + nx;
            const T u = img[j];
            if (u == bg || (ML && u != v)) continue;
            label_unite<I>(parent, (I)i, (I)j);
        }
    }
}

// Each foreground pixel's parent becomes its root; flags mark the roots. A thread
// overwrites only its own parent, with an ancestor, so concurrent walks stay valid.
template <typename I>
__global__ void label_compress(I* parent, I* __restrict__ flags, I n) {
    GRID_STRIDE(i, n) {
        I p = parent[i];
        if (p < 0) {
            flags[i] = 0;
            continue;
        }
        const I r = label_root<I>(parent, (I)i);
        parent[i] = r;
        flags[i] = r == (I)i;
    }
}

// ranks: the inclusive scan of the root flags, so ranks[root] is the root's label.
template <typename I, typename O>
__global__ void label_write(const I* __restrict__ parent, const I* __restrict__ ranks,
                            O* __restrict__ out, I n) {
    GRID_STRIDE(i, n) {
        const I p = parent[i];
        out[i] = p < 0 ? (O)0 : (O)ranks[p];
    }
}

// Sizes, bounding boxes [start, stop) and coordinate sums of labels 1..count, in one
// pass with atomics; row k of the (count x 3) arrays is label k + 1 (axes z, y, x).
template <typename L>
__global__ void label_stats(const L* __restrict__ labels, long long n, long long h,
                            long long w, long long count, unsigned long long* sizes,
                            long long* starts, long long* stops, unsigned long long* sums) {
    const long long plane = h * w;
    GRID_STRIDE(i, n) {
        const long long lbl = (long long)labels[i];
        if (lbl <= 0 || lbl > count) continue;
        const long long k = lbl - 1;
        const long long c[3] = {i / plane, (i % plane) / w, i % w};
        atomicAdd(&sizes[k], 1ULL);
        for (int a = 0; a < 3; ++a) {
            atomicMin(&starts[3 * k + a], c[a]);
            atomicMax(&stops[3 * k + a], c[a] + 1);
            atomicAdd(&sums[3 * k + a], (unsigned long long)c[a]);
        }
    }
}
