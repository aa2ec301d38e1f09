// Decoding the pages of a Parquet file's integer id columns on the device
// (concomp._gpu.parquet). The file's column chunks lie in one byte buffer; the host
// has parsed the page headers (concomp._shared.parquet_pages) into tables of positions
// in that buffer. Two steps:
//   pq_snappy   a compressed page's body, Snappy-decompressed into the same buffer's
//               scratch part: a warp per page (or fewer threads);
//   pq_values   a data page's values, PLAIN or dictionary indices in the RLE /
//               bit-packed hybrid, into the output ids: one block per page, its first
//               thread cutting the hybrid into runs that the whole block expands.
// Nothing here trusts the file: every length and index is checked, and a page that
// fails writes an error code (PQ_*) into its status word instead of reading or
// writing out of bounds.
#include "common.cuh"
// snappy.cuh: the decompressor and the codes PQ_OK, PQ_SNAPPY, PQ_SNAPPY_SIZE
#include "snappy.cuh"

#define PQ_SNAPPY_THREADS 32  // threads of a pq_snappy block (_gpu/parquet.py launches as many)

#define PQ_SHORT 3         // the values need more bytes than the page holds
#define PQ_DICT_INDEX 4    // a dictionary index past the dictionary
#define PQ_BIT_WIDTH 5     // an index bit width above 32
#define PQ_NARROW 6        // a value does not fit the int32 output (the host widens)
#define PQ_ENCODING 7      // an encoding the decoder does not read
#define PQ_NO_DICT 8       // dictionary indices without a dictionary page

// Columns of the decode table, one row per data page.
#define PV_POS 0
#define PV_LEN 1
#define PV_COUNT 2
#define PV_ENCODING 3
#define PV_ROW 4
#define PV_DICT_POS 5
#define PV_DICT_COUNT 6
#define PV_LEVELS 7
#define PV_COLUMN 8
#define PV_COLS 9

#define PQ_RUNS 128  // runs a block's first thread cuts at a time

__device__ __forceinline__ unsigned long long pq_le(const unsigned char* p, int bytes) {
    unsigned long long v = 0;
    for (int k = 0; k < bytes; ++k) v |= (unsigned long long)p[k] << (8 * k);
    return v;
}

// A group of 2^lanes_log2 threads of one warp per job (in_pos, in_len, out_pos, out_len):
// a page Snappy-decompressed into the buffer's scratch part (snappy.cuh). Pages are many;
// a block holds few threads, so that a launch of a few hundred pages still spreads over
// the SMs. _gpu/parquet.py gives each page a whole warp, whose lanes walk its elements in
// step and share its long literals.
extern "C" __global__ void __launch_bounds__(PQ_SNAPPY_THREADS)
    pq_snappy(unsigned char* bytes, const long long* jobs, long long njobs,
              const int* page_of_job, int* status, int lanes_log2) {
    __shared__ u64 ring[SN_RING * PQ_SNAPPY_THREADS], in_ring[SN_IN_RING * PQ_SNAPPY_THREADS];
    const int lanes = 1 << lanes_log2;
    const long long j = ((long long)blockIdx.x * blockDim.x + threadIdx.x) >> lanes_log2;
    if (j >= njobs) return;  // a group's lanes share j: they leave together
    const int lane = (int)(threadIdx.x & (lanes - 1));
    const unsigned group = lanes == 32 ? 0xffffffffu : ((1u << lanes) - 1u)
                                                           << ((threadIdx.x & 31) & ~(lanes - 1));
    const long long* job = jobs + 4 * j;
    const int err = sn_decompress(bytes, job[0], job[1], job[2], job[3], ring + threadIdx.x,
                                  in_ring + threadIdx.x, PQ_SNAPPY_THREADS, lane, lanes, group);
    sn_settle();
    if (err != PQ_OK && lane == 0) atomicMax(status + page_of_job[j], err);
}

template <typename O>
__device__ __forceinline__ bool pq_store(O* out, long long i, long long v);

template <>
__device__ __forceinline__ bool pq_store<long long>(long long* out, long long i, long long v) {
    out[i] = v;
    return true;
}

template <>
__device__ __forceinline__ bool pq_store<int>(int* out, long long i, long long v) {
    out[i] = (int)v;
    return v >= -2147483648ll && v <= 2147483647ll;
}

// A value of physical type P (int: INT32, long long: INT64) stored little-endian at p.
template <typename P>
__device__ __forceinline__ long long pq_value(const unsigned char* p) {
    return (long long)(P)pq_le(p, (int)sizeof(P));
}

// The unsigned varint at *p (advanced past it), or -1 past `end` / too long.
__device__ __forceinline__ long long pq_varint(const unsigned char*& p, const unsigned char* end) {
    unsigned long long v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        if (p >= end) return -1;
        unsigned char b = *p++;
        v |= (unsigned long long)(b & 0x7f) << shift;
        if (b < 0x80) return v > 0x7fffffffffffffffull ? -1 : (long long)v;
    }
    return -1;
}

// One block per data page (grid-stride over pages): its values into out_src or
// out_dst (by the page's column) from its row on.
template <typename P, typename O>
__global__ void pq_values(const unsigned char* bytes, const long long* pages, int npages,
                          O* out_src, O* out_dst, int* status, const int* page_ids) {
    __shared__ long long run_start[PQ_RUNS], run_count[PQ_RUNS], run_pos[PQ_RUNS];
    __shared__ long long run_value[PQ_RUNS];  // an RLE run's index; -1: bit-packed
    __shared__ int nruns, shared_err, expand_err, width;
    __shared__ long long cursor, produced;
    __shared__ int earlier;
    for (int pg = blockIdx.x; pg < npages; pg += gridDim.x) {
        // a page whose decompression failed keeps that error and is not decoded
        if (threadIdx.x == 0) earlier = status[page_ids[pg]];
        __syncthreads();
        const bool failed = earlier != PQ_OK;
        __syncthreads();  // every thread has read it before thread 0 moves on
        if (failed) continue;
        const long long* row = pages + (long long)pg * PV_COLS;
        const unsigned char* p = bytes + row[PV_POS];
        const unsigned char* end = p + row[PV_LEN];
        const long long count = row[PV_COUNT];
        const long long encoding = row[PV_ENCODING];
        O* out = (row[PV_COLUMN] ? out_dst : out_src) + row[PV_ROW];
        int err = PQ_OK;
        if (row[PV_LEVELS]) {  // a V1 page of an optional column: skip its definition levels
            if (end - p < 4) {
                err = PQ_SHORT;
            } else {
                long long skip = 4 + (long long)pq_le(p, 4);
                if (end - p < skip) err = PQ_SHORT; else p += skip;
            }
        }
        if (encoding == 0) {  // PLAIN
            if (err == PQ_OK && (end - p) / (long long)sizeof(P) < count) err = PQ_SHORT;
            bool narrow_ok = true;
            if (err == PQ_OK)
                for (long long i = threadIdx.x; i < count; i += blockDim.x)
                    narrow_ok &= pq_store<O>(out, i, pq_value<P>(p + i * sizeof(P)));
            if (!narrow_ok) err = PQ_NARROW;
            if (err != PQ_OK) atomicMax(status + page_ids[pg], err);
            __syncthreads();  // the block's shared words are reused by the next page
            continue;
        }
        if (encoding != 2 && encoding != 8) {
            if (threadIdx.x == 0) atomicMax(status + page_ids[pg], PQ_ENCODING);
            continue;
        }
        const unsigned char* dict = bytes + row[PV_DICT_POS];
        const long long dict_count = row[PV_DICT_COUNT];
        if (threadIdx.x == 0) {
            shared_err = err;
            if (err == PQ_OK && row[PV_DICT_POS] < 0) shared_err = PQ_NO_DICT;
            if (shared_err == PQ_OK && p >= end && count > 0) shared_err = PQ_SHORT;
            width = shared_err == PQ_OK && count > 0 ? p[0] : 0;
            if (width > 32) shared_err = PQ_BIT_WIDTH;
            cursor = (p - bytes) + (count > 0 ? 1 : 0);
            produced = 0;
            expand_err = PQ_OK;
        }
        __syncthreads();
        const unsigned char* base = bytes;
        const long long stop = row[PV_POS] + row[PV_LEN];
        bool narrow_ok = true;
        while (true) {
            if (threadIdx.x == 0) {  // cut up to PQ_RUNS runs of the hybrid
                int k = 0;
                while (shared_err == PQ_OK && k < PQ_RUNS && produced < count) {
                    const unsigned char* q = base + cursor;
                    long long h = pq_varint(q, base + stop);
                    if (h < 0) { shared_err = PQ_SHORT; break; }
                    long long vbytes = (width + 7) / 8;
                    run_start[k] = produced;
                    if ((h & 1) == 0) {  // RLE: h / 2 copies of one value
                        long long n = h >> 1;
                        if (base + stop - q < vbytes) { shared_err = PQ_SHORT; break; }
                        run_value[k] = (long long)pq_le(q, (int)vbytes);
                        q += vbytes;
                        run_count[k] = n < count - produced ? n : count - produced;
                    } else {  // bit-packed: h / 2 groups of 8 values
                        long long n = (h >> 1) * 8;
                        n = n < count - produced ? n : count - produced;
                        // the bytes of the values used (a writer may leave the last
                        // group's padding out)
                        long long need = (n * width + 7) / 8, nbytes = (h >> 1) * width;
                        if (base + stop - q < need) { shared_err = PQ_SHORT; break; }
                        run_value[k] = -1;
                        run_pos[k] = q - base;
                        q += base + stop - q < nbytes ? base + stop - q : nbytes;
                        run_count[k] = n;
                    }
                    produced += run_count[k];
                    cursor = q - base;
                    ++k;
                }
                nruns = k;
            }
            __syncthreads();
            // read once between the barriers: thread 0 rewrites them only after the next one,
            // and expansion errors go to expand_err, so every thread takes the same branch
            const bool more = produced < count;
            if (shared_err != PQ_OK || nruns == 0) break;
            for (int r = 0; r < nruns; ++r) {
                const long long start = run_start[r], n = run_count[r], v = run_value[r];
                const unsigned char* packed = base + run_pos[r];
                for (long long i = threadIdx.x; i < n; i += blockDim.x) {
                    long long index = v;
                    if (v < 0) {
                        long long bit = i * width;
                        // at most 5 bytes hold a value of <= 32 bits at any bit offset;
                        // read only the bytes the value covers (the run's end is checked)
                        int first = (int)(bit & 7);
                        int nb = (first + width + 7) / 8;
                        unsigned long long w = pq_le(packed + (bit >> 3), nb);
                        index = (long long)((w >> first) & ((1ull << width) - 1));
                    }
                    if (index >= dict_count) {
                        atomicMax(&expand_err, PQ_DICT_INDEX);
                        continue;
                    }
                    narrow_ok &= pq_store<O>(out, start + i, pq_value<P>(dict + index * sizeof(P)));
                }
            }
            __syncthreads();
            if (!more) break;
        }
        if (!narrow_ok) atomicMax(&expand_err, PQ_NARROW);
        __syncthreads();
        if (threadIdx.x == 0) {
            int e = shared_err > expand_err ? shared_err : expand_err;
            if (e != PQ_OK) atomicMax(status + page_ids[pg], e);
        }
        __syncthreads();
    }
}
