// Connected-component labelling of images and volumes on an implicit grid (no edge list).
//
// The image is seen as a volume D x H x W (a 2-D image has D = 1) in C order. Every
// foreground pixel unites with its *earlier* foreground neighbours (offsets before it
// in raster order, passed as (dz, dy, dx) triples); a union links the larger root under
// the smaller with atomicMin, so a root is always the smallest linear index of its set:
// the component's first pixel in raster order.
//
// Four launches and one small scan (block-based union-find, as in Playne and Hawick,
// IEEE TPDS 2018, and the block labellers of Allegretti, Bolelli and Grana):
//   label_local   one thread block per tile of the volume: the tile's pixels unite in
//                 shared memory, and each pixel's parent is set to its tile root;
//   label_border  neighbours in another tile unite through global memory (only the
//                 pixels on a tile's low faces have such neighbours);
//   label_flatten every parent becomes its root; one bit per pixel marks the roots, and
//                 counts[k] is the number of roots among pixels 32k .. 32k + 31;
//   (an inclusive scan of counts on the host side's CuPy)
//   label_number  label of root r = roots before r in raster order + 1, read off the
//                 scan and r's bit word: labels 1..N in raster order of first
//                 appearance (scipy.ndimage.label's numbering), 0 = background.
//
// Template parameters: T the image's element type, I the index type (int when the image
// has fewer than 2^31 - 1 pixels, long long otherwise), ML whether neighbours must
// hold equal values (multilabel), O the output's element type, L a label type.
#include "common.cuh"

// Largest tile (threads per block) and neighbour count (a 3 x 3 x 3 structure has 13
// earlier offsets) the kernels hold in shared memory; label.py keeps to both.
#define LABEL_MAX_TILE 256
#define LABEL_MAX_OFFSETS 13

// Every parent pointer goes to a smaller index (a union links the larger root under the
// smaller; a tile root is its set's smallest index), so x's ancestors have decreasing
// indices and its root is the smallest of them. That makes path halving safe under
// concurrent unions: x's parent is lowered to its grandparent with atomicMin, which
// never replaces a pointer with one further from the root, whatever other threads wrote
// meanwhile. Reads are volatile: other threads lower parents while this one walks.
template <typename I>
__device__ __forceinline__ I label_root(I* parent, I x) {
    volatile I* vp = parent;
    I p = vp[x];
    while (p != x) {
        const I gp = vp[p];
        if (gp == p) return p;
        atomicMin(&parent[x], gp);
        x = gp;
        p = vp[x];
    }
    return x;
}

// Link the sets of a and b, the larger root under the smaller. atomicMin returns the
// parent b had: if it was still b the link is made; otherwise b had been linked
// meanwhile and the walk goes on from its new parent (always smaller, so it ends).
// Works on global and on shared memory (generic addresses).
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

// A block's tile: its origin in the volume and the pixel of this thread.
struct LabelTile {
    int lx, ly, lz;           // this thread's position in the tile
    long long x, y, z;        // ... and in the volume
    long long ox, oy, oz;     // the tile's origin
};

__device__ __forceinline__ LabelTile label_tile(long long h, long long w, int tz, int ty,
                                                int tx) {
    LabelTile t;
    const long long nbx = (w + tx - 1) / tx;
    const long long nby = (h + ty - 1) / ty;
    const long long b = blockIdx.x;
    t.ox = (b % nbx) * tx;
    t.oy = ((b / nbx) % nby) * ty;
    t.oz = (b / (nbx * nby)) * tz;
    const int l = threadIdx.x;
    t.lx = l % tx;
    t.ly = (l / tx) % ty;
    t.lz = l / (tx * ty);
    t.x = t.ox + t.lx;
    t.y = t.oy + t.ly;
    t.z = t.oz + t.lz;
    return t;
}

// One block per tile of tz x ty x tx pixels (blockDim.x == tz * ty * tx): the tile's
// pixels unite among themselves in shared memory, then each foreground pixel's parent
// is its tile root's global index (the smallest index of its set within the tile, as
// local and global raster orders agree inside a tile), background pixels' -1.
template <typename T, typename I, bool ML>
__global__ void label_local(const T* __restrict__ img, I* __restrict__ parent, long long d,
                            long long h, long long w, int tz, int ty, int tx,
                            const int* __restrict__ offsets, int k, T bg) {
    __shared__ int sp[LABEL_MAX_TILE];
    __shared__ T sv[LABEL_MAX_TILE];
    __shared__ int so[3 * LABEL_MAX_OFFSETS];
    const LabelTile t = label_tile(h, w, tz, ty, tx);
    const int l = threadIdx.x;
    const bool inside = t.x < w && t.y < h && t.z < d;
    const long long g = (t.z * h + t.y) * w + t.x;
    const T v = inside ? img[g] : bg;
    const bool fg = inside && v != bg;
    sv[l] = v;
    sp[l] = fg ? l : -1;
    for (int q = l; q < 3 * k; q += blockDim.x) so[q] = offsets[q];
    __syncthreads();
    if (fg) {
        for (int q = 0; q < k; ++q) {
            const int nx = t.lx + so[3 * q + 2], ny = t.ly + so[3 * q + 1],
                      nz = t.lz + so[3 * q];
            if (nx < 0 || nx >= tx || ny < 0 || ny >= ty || nz < 0 || nz >= tz) continue;
            if (t.ox + nx >= w || t.oy + ny >= h || t.oz + nz >= d) continue;
            const int m = (nz * ty + ny) * tx + nx;
            const T u = sv[m];
            if (u == bg || (ML && u != v)) continue;
            label_unite<int>(sp, l, m);
        }
    }
    __syncthreads();
    if (!inside) return;
    if (!fg) {
        parent[g] = (I)-1;
        return;
    }
    const int r = label_root<int>(sp, l);
    const long long rx = r % tx, ry = (r / tx) % ty, rz = r / (tx * ty);
    parent[g] = (I)(((t.oz + rz) * h + t.oy + ry) * w + t.ox + rx);
}

// Whether neighbours a and b (values va, vb) belong together: both foreground and, for
// multilabel, equal.
template <typename T, bool ML>
__device__ __forceinline__ bool label_joins(T va, T vb, T bg) {
    return va != bg && vb != bg && (!ML || va == vb);
}

// Neighbours in other tiles: each foreground pixel unites, through global memory, with
// its earlier foreground neighbours outside its own tile (launched with label_local's
// tiles; only pixels on a tile's low faces, or its last column for offsets such as
// (0, -1, +1), have any).
//
// A union is skipped where the pixel one step back along x (or y) repeats it: if i - e
// is in i's tile and joins i, and j - e is in j's tile and joins j, the local pass has
// united i with i - e and j with j - e, and the thread of i - e unites i - e with
// j - e (same offset, also across tiles) or skips by the same rule from a pixel further
// back in the tile. On a dense face that leaves one global union per run of pixels.
template <typename T, typename I, bool ML>
__global__ void label_border(const T* __restrict__ img, I* parent, long long d, long long h,
                             long long w, int tz, int ty, int tx,
                             const int* __restrict__ offsets, int k, T bg) {
    __shared__ int so[3 * LABEL_MAX_OFFSETS];
    for (int q = threadIdx.x; q < 3 * k; q += blockDim.x) so[q] = offsets[q];
    __syncthreads();
    const LabelTile t = label_tile(h, w, tz, ty, tx);
    if (t.x >= w || t.y >= h || t.z >= d) return;
    bool step_x = false, step_y = false;  // the neighbourhood holds (0,0,-1) / (0,-1,0)
    for (int q = 0; q < k; ++q) {
        step_x |= so[3 * q] == 0 && so[3 * q + 1] == 0 && so[3 * q + 2] == -1;
        step_y |= so[3 * q] == 0 && so[3 * q + 1] == -1 && so[3 * q + 2] == 0;
    }
    const long long g = (t.z * h + t.y) * w + t.x;
    bool read = false;
    T v = bg;
    for (int q = 0; q < k; ++q) {
        const int dx = so[3 * q + 2], dy = so[3 * q + 1], dz = so[3 * q];
        const int lx = t.lx + dx, ly = t.ly + dy, lz = t.lz + dz;
        if (lx >= 0 && lx < tx && ly >= 0 && ly < ty && lz >= 0 && lz < tz) continue;
        const long long nx = t.x + dx, ny = t.y + dy, nz = t.z + dz;
        if (nx < 0 || nx >= w || ny < 0 || ny >= h || nz < 0 || nz >= d) continue;
        if (!read) {
            v = img[g];
            read = true;
            if (v == bg) return;
        }
        const long long j = (nz * h + ny) * w + nx;
        const T u = img[j];
        if (!label_joins<T, ML>(v, u, bg)) continue;
        // j - 1 lies in j's tile when nx is not the first column of a tile
        if (step_x && t.lx > 0 && nx % tx != 0 && label_joins<T, ML>(v, img[g - 1], bg) &&
            label_joins<T, ML>(u, img[j - 1], bg))
            continue;
        if (step_y && t.ly > 0 && ny % ty != 0 && label_joins<T, ML>(v, img[g - w], bg) &&
            label_joins<T, ML>(u, img[j - w], bg))
            continue;
        label_unite<I>(parent, (I)g, (I)j);
    }
}

// Every foreground parent becomes its root (walks halve the path behind them). Pixels 32k .. 32k + 31
// are one warp's lanes in one step of the loop (blockDim.x is a multiple of 32), so the
// warp's ballot is word k of the root bits. n_words = ceil(n / 32).
template <typename I>
__global__ void label_flatten(I* parent, unsigned int* __restrict__ bits,
                             I* __restrict__ counts, I n) {
    const long long stride = (long long)blockDim.x * gridDim.x;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < (long long)n;
         base += stride) {
        const long long i = base + threadIdx.x;
        bool root = false;
        if (i < (long long)n) {
            const I first = parent[i];
            if (first >= 0) {
                const I r = label_root<I>(parent, first);
                // the root is smaller than anything a halving walk may write here later
                if (r != first) parent[i] = r;
                root = r == (I)i;
            }
        }
        const unsigned int word = __ballot_sync(0xffffffffu, root);
        if ((threadIdx.x & 31) == 0 && i < (long long)n) {
            bits[i >> 5] = word;
            counts[i >> 5] = (I)__popc(word);
        }
    }
}

// Labels from the roots: scan[k] is the number of roots among pixels 0 .. 32k + 31.
template <typename I, typename O>
__global__ void label_number(const I* __restrict__ parent, const unsigned int* __restrict__ bits,
                             const I* __restrict__ scan, O* __restrict__ out, I n) {
    GRID_STRIDE(i, n) {
        const I r = parent[i];
        if (r < 0) {
            out[i] = (O)0;
            continue;
        }
        const unsigned int word = bits[r >> 5];
        const unsigned int below = word & ((1u << (r & 31)) - 1u);
        out[i] = (O)(scan[r >> 5] - (I)__popc(word) + (I)__popc(below) + 1);
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
