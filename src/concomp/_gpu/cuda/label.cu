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
//   label_border_global / label_border_staged
//                 neighbours in another tile unite through global memory (only the
//                 pixels on a tile's faces have such neighbours): images read them
//                 from global memory, volumes from a staged tile;
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

// Largest neighbour count the kernels hold in shared memory (a 3 x 3 x 3 structure has
// 13 earlier offsets); label.py keeps to it. The tile itself is dynamic shared memory,
// sized by label.py (staged_bytes).
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

// The neighbourhood as the kernels read it, one int array laid out by label.py:
//   [0] k, the number of earlier offsets; [1] ql, the index of (0, 0, -1) or -1;
//   [2] qu, the index of (0, -1, 0) or -1; [3..5] the smallest dz, dy, dx and 0; [6..8]
//   the largest and 0; then k (dz, dy, dx) triples; then k adjacency masks: bit r of mask q is set
//   when offsets q and r differ by an offset of the neighbourhood (or its negative).
// Offsets come ordered: (0, 0, -1) first and (0, -1, 0) next where they are present.
#define LABEL_HEAD 9
#define LABEL_NB_INTS (LABEL_HEAD + 4 * LABEL_MAX_OFFSETS)

__device__ __forceinline__ void label_load_nbhd(int* nb, const int* __restrict__ src) {
    const int k = src[0];
    for (int q = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
         q < LABEL_HEAD + 4 * k; q += blockDim.x * blockDim.y * blockDim.z)
        nb[q] = src[q];
}

// Whether neighbour value u joins a foreground pixel of value v.
template <typename T, bool ML>
__device__ __forceinline__ bool label_joins(T v, T u, T bg) {
    return u != bg && (!ML || u == v);
}

// A tile's pixels and the halo its rules read, staged in shared memory as T values
// (background outside the image): x from ox - hxl to ox + tx - 1 + hxh, likewise y, z.
// The halo sides come from the neighbourhood: the most negative offset (one more where
// the x or y step reads the pixel before a neighbour) and the most positive one.
struct LabelHalo {
    int hxl, hyl, hzl;  // low sides
    int sx, sy, sz;     // extents
};

__device__ __forceinline__ LabelHalo label_halo(const int* nb, int tx, int ty, int tz) {
    LabelHalo s;
    s.hxl = -nb[5] + (nb[1] >= 0 ? 1 : 0);
    s.hyl = -nb[4] + (nb[2] >= 0 ? 1 : 0);
    s.hzl = -nb[3];
    s.sx = tx + s.hxl + (nb[8] > 0 ? nb[8] : 0);
    s.sy = ty + s.hyl + (nb[7] > 0 ? nb[7] : 0);
    s.sz = tz + s.hzl + (nb[6] > 0 ? nb[6] : 0);
    return s;
}

// Stage the tile at (ox, oy, oz) with its halo into sv, all threads of the block. The
// first LABEL_STAGE_LOADS cells of each thread are loaded before any is stored, so their
// global reads are in flight together (a loop of load-store pairs waits for each read).
#define LABEL_STAGE_LOADS 4
template <typename T>
__device__ __forceinline__ T label_cell(const T* __restrict__ img, const LabelHalo& s, int c,
                                        long long ox, long long oy, long long oz, long long d,
                                        long long h, long long w, T bg) {
    const int cx = c % s.sx, cy = (c / s.sx) % s.sy, cz = c / (s.sx * s.sy);
    const long long x = ox - s.hxl + cx, y = oy - s.hyl + cy, z = oz - s.hzl + cz;
    const bool in = x >= 0 && x < w && y >= 0 && y < h && z >= 0 && z < d;
    return in ? img[(z * h + y) * w + x] : bg;
}

template <typename T>
__device__ __forceinline__ void label_stage(T* sv, const T* __restrict__ img,
                                            const LabelHalo& s, long long ox, long long oy,
                                            long long oz, long long d, long long h,
                                            long long w, T bg) {
    const int threads = blockDim.x * blockDim.y * blockDim.z;
    const int cells = s.sx * s.sy * s.sz;
    const int first = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    T vals[LABEL_STAGE_LOADS];
#pragma unroll
    for (int r = 0; r < LABEL_STAGE_LOADS; ++r) {
        const int c = first + r * threads;
        vals[r] = c < cells ? label_cell<T>(img, s, c, ox, oy, oz, d, h, w, bg) : bg;
    }
#pragma unroll
    for (int r = 0; r < LABEL_STAGE_LOADS; ++r) {
        const int c = first + r * threads;
        if (c < cells) sv[c] = vals[r];
    }
    for (int c = first + LABEL_STAGE_LOADS * threads; c < cells; c += threads)
        sv[c] = label_cell<T>(img, s, c, ox, oy, oz, d, h, w, bg);
}

// The offsets whose unions a foreground pixel (value v, at sv[c]; sx, sxy the staged
// strides) makes, as a bit mask. Every earlier neighbour that joins it must end up in its
// set; a union is left out where the neighbour is already tied to it through pairs whose
// later pixel comes before it (by induction over raster order those pairs are
// connected) and through unions it makes:
//  - the neighbour is adjacent to a neighbour it unites with;
//  - x step: its left neighbour L joins it (always united: it comes first) and the
//    pixel left of the neighbour m joins m (L and m - 1 differ by m's offset);
//  - y step: the same one row up, through its upper neighbour U (never skipped by the y
//    step itself, so the argument does not lean on the pair it leaves out).
// The local and the border pass compute the same mask and make its unions inside and
// across tiles respectively. On a dense 4-connected image most pixels make one union.
// at(dz, dy, dx) reads the value at that offset from the pixel (background outside
// the image): the staged tile in the local pass, global memory in the border pass.
template <typename T, bool ML, typename At>
__device__ __forceinline__ unsigned label_links(const At& at, T v, T bg, const int* nb) {
    const int k = nb[0], ql = nb[1], qu = nb[2];
    const int* off = nb + LABEL_HEAD;
    const int* adj = off + 3 * k;
    unsigned links = 0;
    bool left = false, up = false;
    for (int q = 0; q < k; ++q) {
        const int dz = off[3 * q], dy = off[3 * q + 1], dx = off[3 * q + 2];
        if (!label_joins<T, ML>(v, at(dz, dy, dx), bg)) continue;
        if (q == ql) {
            left = true;
            links |= 1u << q;
            continue;
        }
        bool tied = (adj[q] & links) != 0;
        tied = tied || (left && label_joins<T, ML>(v, at(dz, dy, dx - 1), bg));
        tied = tied || (up && q != qu && label_joins<T, ML>(v, at(dz, dy - 1, dx), bg));
        if (q == qu) up = true;
        if (!tied) links |= 1u << q;
    }
    return links;
}

// One block of bx x by x bz threads per tile of bx x (by * rows) x bz pixels: a thread
// takes rows pixels, one every by rows (more pixels per block: its fixed costs, the
// staging's latency and the barriers, are shared by more of them). A 3-D grid of
// tiles; the y and z grid sides may be smaller than the tile counts, so blocks step
// over them. Dynamic shared memory: the staged values (label.py sizes it), then the
// tile's parents. The tile's unions go into shared memory; then each foreground
// pixel's parent is its tile root's global index (the smallest index of its set within
// the tile, as local and global raster orders agree inside a tile), background
// pixels' -1.
template <typename T, typename I, bool ML>
__global__ void label_local(const T* __restrict__ img, I* __restrict__ parent, long long d,
                            long long h, long long w, const int* __restrict__ nbhd, T bg,
                            int rows) {
    extern __shared__ __align__(16) unsigned char label_smem[];
    __shared__ int nb[LABEL_NB_INTS];
    label_load_nbhd(nb, nbhd);
    __syncthreads();
    const int tx = blockDim.x, ty = blockDim.y * rows, tz = blockDim.z;
    const LabelHalo s = label_halo(nb, tx, ty, tz);
    T* sv = (T*)label_smem;
    int* sp = (int*)(label_smem + ((s.sx * s.sy * s.sz * sizeof(T) + 15) / 16) * 16);
    const int lx = threadIdx.x, lz = threadIdx.z;
    const int sxy = s.sx * s.sy;
    const long long nby = (h + ty - 1) / ty, nbz = (d + tz - 1) / tz;
    const int* off = nb + LABEL_HEAD;
    const int ql = nb[1];
    // rows of 32 pixels are whole warps: runs along x come from one ballot per row
    const bool row_warps = tx == 32;
    for (long long bz = blockIdx.z; bz < nbz; bz += gridDim.z) {
        for (long long by = blockIdx.y; by < nby; by += gridDim.y) {
            const long long ox = (long long)blockIdx.x * tx, oy = by * ty, oz = bz * tz;
            label_stage<T>(sv, img, s, ox, oy, oz, d, h, w, bg);
            const bool inside_xz = ox + lx < w && oz + lz < d;
            __syncthreads();
            for (int ly = threadIdx.y; ly < ty; ly += blockDim.y) {
                const int c = ((lz + s.hzl) * s.sy + ly + s.hyl) * s.sx + lx + s.hxl;
                const T v = sv[c];
                const bool fg = inside_xz && oy + ly < h && v != bg;
                const int l = (lz * ty + ly) * tx + lx;
                int p = l;
                if (row_warps) {
                    // a warp is one row of the tile: a pixel joined to its left neighbour
                    // goes straight under its run's first pixel, with no union
                    const bool joined =
                        fg && ql >= 0 && lx > 0 && label_joins<T, ML>(v, sv[c - 1], bg);
                    const unsigned starts = __ballot_sync(0xffffffffu, fg && !joined);
                    const unsigned upto = starts & (0xffffffffu >> (31 - lx));
                    p = l - lx + (upto ? 31 - __clz(upto) : lx);
                }
                sp[l] = fg ? p : -1;
            }
            __syncthreads();
            for (int ly = threadIdx.y; ly < ty; ly += blockDim.y) {
                const int c = ((lz + s.hzl) * s.sy + ly + s.hyl) * s.sx + lx + s.hxl;
                const T v = sv[c];
                if (!(inside_xz && oy + ly < h && v != bg)) continue;
                const int l = (lz * ty + ly) * tx + lx;
                const auto at = [&](int dz, int dy, int dx) {
                    return sv[c + dz * sxy + dy * s.sx + dx];
                };
                unsigned links = label_links<T, ML>(at, v, bg, nb);
                if (row_warps && lx > 0 && ql >= 0) links &= ~(1u << ql);  // in its run
                while (links) {
                    const int q = __ffs(links) - 1;
                    links &= links - 1;
                    const int mx = lx + off[3 * q + 2], my = ly + off[3 * q + 1],
                              mz = lz + off[3 * q];
                    if (mx < 0 || mx >= tx || my < 0 || my >= ty || mz < 0 || mz >= tz) continue;
                    label_unite<int>(sp, l, (mz * ty + my) * tx + mx);
                }
            }
            __syncthreads();
            for (int ly = threadIdx.y; ly < ty; ly += blockDim.y) {
                const long long y = oy + ly;
                if (!(inside_xz && y < h)) continue;
                const int l = (lz * ty + ly) * tx + lx;
                I out = (I)-1;
                if (sp[l] >= 0) {
                    const int r = label_root<int>(sp, l);
                    const int rx = r % tx, ry = (r / tx) % ty, rz = r / (tx * ty);
                    out = (I)(((oz + rz) * h + oy + ry) * w + ox + rx);
                }
                parent[((oz + lz) * h + y) * w + ox + lx] = out;
            }
            __syncthreads();  // sv and sp are refilled for the next tile
        }
    }
}

// The unions of a face pixel g (at lx, ly, lz in its tx x ty x tz tile) whose mask bits
// reach outside the tile, through global memory; both border passes end with this.
template <typename I>
__device__ __forceinline__ void label_unite_across(I* parent, unsigned links, const int* off,
                                                   long long g, int lx, int ly, int lz, int tx,
                                                   int ty, int tz, long long h, long long w) {
    while (links) {
        const int q = __ffs(links) - 1;
        links &= links - 1;
        const int dz = off[3 * q], dy = off[3 * q + 1], dx = off[3 * q + 2];
        const int mx = lx + dx, my = ly + dy, mz = lz + dz;
        if (mx >= 0 && mx < tx && my >= 0 && my < ty && mz >= 0 && mz < tz) continue;
        label_unite<I>(parent, (I)g, (I)(g + ((long long)dz * h + dy) * w + dx));
    }
}

// Neighbours in other tiles (tiles of tx x ty x tz pixels, as label_local's), for
// images: only pixels on a tile's faces have them. One thread per pixel of a row
// (blockDim.x threads per block along x, grid.y over the rows, stepping where there are
// more rows than blocks); a pixel off every face goes on at once, a face pixel reads its
// neighbourhood from global memory and makes the unions of its mask that leave its tile.
template <typename T, typename I, bool ML>
__global__ void label_border_global(const T* __restrict__ img, I* parent, long long d, long long h,
                             long long w, const int* __restrict__ nbhd, T bg, int tx, int ty,
                             int tz) {
    const int* nb = nbhd;  // read through the read-only cache: no staging, no barrier
    const long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= w) return;
    const int lx = (int)(x % tx);
    const bool x_face = !(lx + nb[5] >= 0 && lx + nb[8] < tx);
    const int* off = nb + LABEL_HEAD;
    for (long long row = blockIdx.y; row < d * h; row += gridDim.y) {
        const long long y = row % h, z = row / h;
        const int ly = (int)(y % ty), lz = (int)(z % tz);
        const bool face = x_face || !(lz + nb[3] >= 0 && lz + nb[6] < tz && ly + nb[4] >= 0 &&
                                      ly + nb[7] < ty);
        if (!face) continue;
        const long long g = row * w + x;
        const T v = img[g];
        if (v == bg) continue;
        const auto at = [&](int dz, int dy, int dx) {
            const long long xx = x + dx, yy = y + dy, zz = z + dz;
            const bool in = xx >= 0 && xx < w && yy >= 0 && yy < h && zz >= 0 && zz < d;
            return in ? img[g + ((long long)dz * h + dy) * w + dx] : bg;
        };
        label_unite_across<I>(parent, label_links<T, ML>(at, v, bg, nb), off, g, lx, ly, lz, tx,
                              ty, tz, h, w);
    }
}

// Neighbours in other tiles, for volumes (where many neighbourhood reads per face pixel
// are cheaper from a staged tile than from global memory): launched like label_local
// with one pixel per thread (dynamic shared memory: the staged values only); pixels on
// a tile's faces make the unions of their mask that leave the tile, through global
// memory.
template <typename T, typename I, bool ML>
__global__ void label_border_staged(const T* __restrict__ img, I* parent, long long d,
                                    long long h, long long w, const int* __restrict__ nbhd,
                                    T bg) {
    extern __shared__ __align__(16) unsigned char label_smem[];
    __shared__ int nb[LABEL_NB_INTS];
    label_load_nbhd(nb, nbhd);
    __syncthreads();
    const int tx = blockDim.x, ty = blockDim.y, tz = blockDim.z;
    const LabelHalo s = label_halo(nb, tx, ty, tz);
    T* sv = (T*)label_smem;
    const int lx = threadIdx.x, ly = threadIdx.y, lz = threadIdx.z;
    const bool face = !(lz + nb[3] >= 0 && lz + nb[6] < tz && ly + nb[4] >= 0 &&
                        ly + nb[7] < ty && lx + nb[5] >= 0 && lx + nb[8] < tx);
    const int sxy = s.sx * s.sy;
    const int c = ((lz + s.hzl) * s.sy + ly + s.hyl) * s.sx + lx + s.hxl;
    const long long nby = (h + ty - 1) / ty, nbz = (d + tz - 1) / tz;
    const int* off = nb + LABEL_HEAD;
    const auto at = [&](int dz, int dy, int dx) { return sv[c + dz * sxy + dy * s.sx + dx]; };
    for (long long bz = blockIdx.z; bz < nbz; bz += gridDim.z) {
        for (long long by = blockIdx.y; by < nby; by += gridDim.y) {
            const long long ox = (long long)blockIdx.x * tx, oy = by * ty, oz = bz * tz;
            label_stage<T>(sv, img, s, ox, oy, oz, d, h, w, bg);
            __syncthreads();
            const long long x = ox + lx, y = oy + ly, z = oz + lz;
            const T v = sv[c];
            if (face && x < w && y < h && z < d && v != bg) {
                const long long g = (z * h + y) * w + x;
                label_unite_across<I>(parent, label_links<T, ML>(at, v, bg, nb), off, g, lx, ly,
                                      lz, tx, ty, tz, h, w);
            }
            __syncthreads();  // sv is refilled for the next tile
        }
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
