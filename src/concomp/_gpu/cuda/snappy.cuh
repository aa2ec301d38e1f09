// Snappy's raw format (a varint of the decompressed length, then literals and
// back-references) decompressed for the pages of concomp._gpu.parquet, by one thread or
// by a group of `lanes` threads of one warp that all walk the same page.
//
// A page's elements have to be taken in order (a back-reference copies the page's own
// earlier output), so a page's time is the latency of that chain, and an element holds
// only a few bytes (an id of three significant bytes is a literal and a copy of its
// zeros). The chain therefore stays out of global memory: the compressed bytes arrive as
// aligned 8-byte words staged a few words ahead, the output leaves as whole aligned words
// (bytes only at a page's two ends), and a copy reads the page's latest output from the
// word being filled or the one before (registers) or a ring of the last SN_RING words in
// shared memory. Reading a just-stored global byte back, as a byte-wise decoder does,
// waits for the round trip to L2 on every element. Pages that do not compress (random
// ids) are long literals, copied as whole words with many loads in flight.
//
// A group of lanes walks the chain in step, every lane the same elements with the same
// registers (their loads and stores of one address are one transaction, and no lane waits
// on another page's branches, as lanes decoding different pages do), and splits only the
// long literals, whose words do not depend on each other.
//
// Plain C++ apart from the qualifiers, so that the tests compile it for the host too.
#pragma once
#include "common.cuh"

#if defined(__CUDACC__) || defined(__CUDACC_RTC__)
#define SN_FN __device__ __forceinline__
#else
#define SN_FN static inline
#endif

#define PQ_OK 0
#define PQ_SNAPPY 1       // Snappy stream malformed
#define PQ_SNAPPY_SIZE 2  // decompressed size differs from the page header's

#define SN_RING 16       // aligned words of its page's latest output a thread keeps (2^k)
#define SN_IN_RING 16    // aligned words of input a thread stages (2^k)
#define SN_AHEAD 12      // words of input in flight ahead of the one read (< SN_IN_RING)
#define SN_BULK 16       // words a long literal's bulk copy moves per turn
#define SN_BULK_FROM 32  // literals of this many bytes or more are copied in bulk
#define SN_SPLIT_FROM 64  // words of a bulk literal from which a group's lanes share it

// Bytes 0 .. n-1 of a word (1 <= n <= 8).
SN_FN u64 sn_mask(int n) { return n >= 8 ? ~0ull : (1ull << (8 * n)) - 1; }

// The lanes of a group (`mask`) see each other's stores to the buffer.
SN_FN void sn_sync(unsigned mask) {
#if defined(__CUDA_ARCH__)
    __syncwarp(mask);
#else
    (void)mask;
#endif
}

// The 8 bytes that start `sh` bits (0, 8, .., 56) into the 16 bytes `lo`, `hi`.
SN_FN u64 sn_join(u64 lo, u64 hi, int sh) { return sh ? (lo >> sh) | (hi << (64 - sh)) : lo; }

// The compressed bytes as aligned words of the buffer, staged in a ring in shared memory
// SN_AHEAD words ahead of the one being read (asynchronous copies from sm_80 on, so that
// a load's latency passes while earlier elements are decoded); c0 and c1 hold words wi
// and wi+1, which the element at hand lies in.
struct SnIn {
    const u64* words;
    long long wi, wend;  // wend: one past the last word holding a byte of the page
    u64* ring;           // SN_IN_RING words, `stride` apart
    int stride;
    u64 c0, c1;
};

// Start loading word w into its ring slot (every call commits one group of copies, so
// that the count of groups in flight stays SN_AHEAD).
SN_FN void sn_request(SnIn& s, long long w) {
    u64* dst = s.ring + (w & (SN_IN_RING - 1)) * s.stride;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if (w < s.wend) {
        unsigned long long shared;
        asm("cvta.to.shared.u64 %0, %1;" : "=l"(shared) : "l"(dst));
        asm volatile("cp.async.ca.shared.global [%0], [%1], 8;" ::"r"((unsigned)shared),
                     "l"(s.words + w)
                     : "memory");
        if ((w & 15) == 0 && w + 64 < s.wend)  // the next lines on their way into L2
            asm volatile("prefetch.global.L2 [%0];" ::"l"(s.words + w + 64));
    }
    asm volatile("cp.async.commit_group;" ::: "memory");
#else
    *dst = w < s.wend ? s.words[w] : 0ull;
#endif
}

// Words wi and wi+1 into c0 and c1, once their copies have landed.
SN_FN void sn_ready(SnIn& s) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;" ::"n"(SN_AHEAD - 2) : "memory");
#endif
    s.c0 = s.ring[(s.wi & (SN_IN_RING - 1)) * s.stride];
    s.c1 = s.ring[((s.wi + 1) & (SN_IN_RING - 1)) * s.stride];
}

// Wait for the copies still in flight (a page may end well before its lookahead).
SN_FN void sn_settle() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

// Stage the words from the one holding byte `ip` on (nothing may be in flight).
SN_FN void sn_stage(SnIn& s, long long ip) {
    s.wi = ip >> 3;
    for (int k = 0; k < SN_AHEAD; ++k) sn_request(s, s.wi + k);
    sn_ready(s);
}

SN_FN void sn_begin(SnIn& s, const unsigned char* bytes, long long in_pos, long long in_len,
                    u64* ring, int stride) {
    s.words = (const u64*)bytes;
    s.wend = (in_pos + in_len + 7) >> 3;
    s.ring = ring;
    s.stride = stride;
    sn_stage(s, in_pos);
}

// Move on so that byte `ip` lies in word wi.
SN_FN void sn_advance(SnIn& s, long long ip) {
    if ((ip >> 3) == s.wi) return;
    while ((ip >> 3) > s.wi) {
        sn_request(s, s.wi + SN_AHEAD);
        s.wi += 1;
    }
    sn_ready(s);
}

// Start over at byte `ip`, far past the words staged (after a long literal's bulk copy).
SN_FN void sn_restart(SnIn& s, long long ip) {
    sn_settle();
    sn_stage(s, ip);
}

// Bytes ip .. ip+7 (ip in word wi); bytes past the page are garbage, and callers check
// the lengths before they use them.
SN_FN u64 sn_peek(const SnIn& s, long long ip) {
    const int sh = 8 * (int)(ip & 7);
    return sn_join(s.c0, s.c1, sh);
}

// The output: bytes [start, end) of the buffer, filled up to `at`; `pend` holds the
// bytes of the word containing `at` that lie below it (zero above), `prev` the word
// before (a copy of an 8-byte id's zeros reaches back into it).
struct SnOut {
    unsigned char* bytes;
    long long start, end, at;
    u64 pend, prev;
    u64* ring;   // SN_RING words, `stride` apart (a column of a block's shared array)
    int stride;
};

// Output word w is final: `prev` and the ring keep it for later copies.
SN_FN void sn_keep(SnOut& o, long long w, u64 v) {
    o.prev = v;
    o.ring[(w & (SN_RING - 1)) * o.stride] = v;
}

// Word w is complete (or the page ends in it): kept, and into the buffer, whole where
// the page holds the whole word, else byte by byte (another page owns the rest).
SN_FN void sn_store(SnOut& o, long long w, u64 v) {
    sn_keep(o, w, v);
    const long long lo = 8 * w, hi = lo + 8;
    if (lo >= o.start && hi <= o.end) {
        ((u64*)o.bytes)[w] = v;
        return;
    }
    const long long b0 = lo > o.start ? lo : o.start, b1 = hi < o.end ? hi : o.end;
    for (long long b = b0; b < b1; ++b) o.bytes[b] = (unsigned char)(v >> (8 * (b - lo)));
}

// Append n bytes (1 <= n <= 8; v's bytes above them are zero).
SN_FN void sn_emit(SnOut& o, u64 v, int n) {
    const int ph = (int)(o.at & 7);
    o.pend |= v << (8 * ph);
    if (ph + n >= 8) {
        sn_store(o, o.at >> 3, o.pend);
        o.pend = ph ? v >> (64 - 8 * ph) : 0ull;
    }
    o.at += n;
}

// Output word w (at most the one being filled): the filling word, the one before, the
// ring, or (older
// than the ring) the buffer, which this thread wrote long enough ago.
SN_FN u64 sn_word(const SnOut& o, long long w) {
    const long long cur = o.at >> 3;
    if (w == cur) return o.pend;
    if (w == cur - 1) return o.prev;
    if (cur - w < SN_RING) return o.ring[(w & (SN_RING - 1)) * o.stride];
    return ((const u64*)o.bytes)[w];
}

// Output bytes from .. from+7 (from >= start); those at or past `at` are garbage.
SN_FN u64 sn_fetch(const SnOut& o, long long from) {
    const int sh = 8 * (int)(from & 7);
    const u64 lo = sn_word(o, from >> 3);
    return sh ? (lo >> sh) | (sn_word(o, (from >> 3) + 1) << (64 - sh)) : lo;
}

// A literal of `len` bytes from `ip` (both checked to lie in the page) whose output starts
// on a word boundary: most pages of random ids do not compress, and Snappy stores them as
// literals of up to 64 KiB. Copied as whole words, SN_BULK at a time with all their loads
// in flight, instead of through the element chain 8 bytes a turn; a group of lanes
// (lane of lanes, `mask`) shares a literal of SN_SPLIT_FROM words or more, a word to each
// lane in turn so that a warp's loads and stores are whole lines. Returns the bytes left
// (fewer than 8).
SN_FN long long sn_bulk_literal(SnIn& in, SnOut& o, long long ip, long long len, int lane,
                                int lanes, unsigned mask) {
    const u64* src = in.words + (ip >> 3);
    u64* dst = (u64*)o.bytes + (o.at >> 3);
    const int sh = 8 * (int)(ip & 7);
    const long long nw = len >> 3;
    const long long last = in.wend - (ip >> 3);  // words of src that hold page bytes
    if (lanes > 1 && nw >= SN_SPLIT_FROM) {
        const long long turn = (long long)lanes * SN_BULK;
        for (long long k0 = 0; k0 < nw; k0 += turn) {
#if defined(__CUDA_ARCH__)
            if (k0 + turn + lane * SN_BULK < last)  // the next turn on its way into L2
                asm volatile("prefetch.global.L2 [%0];" ::"l"(src + k0 + turn + lane * SN_BULK));
#endif
            u64 lo[SN_BULK], hi[SN_BULK];
#pragma unroll
            for (int q = 0; q < SN_BULK; ++q) {
                const long long k = k0 + (long long)q * lanes + lane;
                lo[q] = k < nw ? src[k] : 0ull;
                hi[q] = k < nw && k + 1 < last ? src[k + 1] : 0ull;
            }
#pragma unroll
            for (int q = 0; q < SN_BULK; ++q) {
                const long long k = k0 + (long long)q * lanes + lane;
                if (k < nw) dst[k] = sn_join(lo[q], hi[q], sh);
            }
        }
        sn_sync(mask);  // later copies may read words another lane stored
        // every lane keeps the literal's last words, as the chain would have
        for (long long k = nw > SN_RING ? nw - SN_RING : 0; k < nw; ++k)
            sn_keep(o, (o.at >> 3) + k, sn_join(src[k], k + 1 < last ? src[k + 1] : 0ull, sh));
    } else {
        long long k = 0;
        for (; k + SN_BULK <= nw; k += SN_BULK) {
#if defined(__CUDA_ARCH__)
            if (k + 8 * SN_BULK < last)  // lines well ahead on their way into L2
                asm volatile("prefetch.global.L2 [%0];" ::"l"(src + k + 8 * SN_BULK));
#endif
            u64 a[SN_BULK + 1];
#pragma unroll
            for (int q = 0; q <= SN_BULK; ++q) a[q] = k + q < last ? src[k + q] : 0ull;
#pragma unroll
            for (int q = 0; q < SN_BULK; ++q) {
                const u64 v = sn_join(a[q], a[q + 1], sh);
                dst[k + q] = v;
                sn_keep(o, (o.at >> 3) + k + q, v);
            }
        }
        for (; k < nw; ++k) {
            const u64 hi = k + 1 < last ? src[k + 1] : 0ull;
            const u64 v = sn_join(src[k], hi, sh);
            dst[k] = v;
            sn_keep(o, (o.at >> 3) + k, v);
        }
    }
    o.at += 8 * nw;
    sn_restart(in, ip + 8 * nw);
    return len - 8 * nw;
}

// Decompress bytes [in_pos, in_pos + in_len) of `bytes` into [out_pos, out_pos + size);
// the rings: SN_RING words of output and SN_IN_RING of input, `stride` apart. The caller is
// lane `lane` of a group of `lanes` threads (`mask`, one warp's) that all call it for the
// same page with their own rings (one thread: 0, 1, any mask). Returns PQ_OK, PQ_SNAPPY
// or PQ_SNAPPY_SIZE, the same in every lane; nothing outside the output range is written
// and nothing past the input is trusted.
SN_FN int sn_decompress(unsigned char* bytes, long long in_pos, long long in_len,
                        long long out_pos, long long size, u64* ring, u64* in_ring, int stride,
                        int lane, int lanes, unsigned mask) {
    SnIn in;
    sn_begin(in, bytes, in_pos, in_len, in_ring, stride);
    long long ip = in_pos;
    const long long end = in_pos + in_len;
    u64 declared = 0;
    for (int shift = 0;; shift += 7) {
        if (ip >= end || shift > 35) return PQ_SNAPPY;
        const unsigned b = (unsigned)(sn_peek(in, ip) & 0xff);
        sn_advance(in, ++ip);
        declared |= (u64)(b & 0x7f) << shift;
        if (b < 0x80) break;
    }
    if (declared != (u64)size) return PQ_SNAPPY_SIZE;
    SnOut o;
    o.bytes = bytes;
    o.start = o.at = out_pos;
    o.end = out_pos + size;
    o.pend = o.prev = 0;
    o.ring = ring;
    o.stride = stride;
    while (ip < end) {
        const u64 p = sn_peek(in, ip);
        const unsigned tag = (unsigned)(p & 0xff);
        const unsigned t = tag & 3;
        long long len, off = 0;
        int head;  // bytes of the tag and what follows it
        if (t == 0) {  // a literal; lengths from 61 on follow the tag in 1..4 bytes
            len = tag >> 2;
            head = 1;
            if (len >= 60) {
                head += (int)len - 59;
                len = (long long)((p >> 8) & sn_mask((int)len - 59));
            }
            len += 1;
        } else if (t == 1) {
            head = 2;
            len = ((tag >> 2) & 7) + 4;
            off = ((long long)(tag >> 5) << 8) | (long long)((p >> 8) & 0xff);
        } else {
            head = t == 2 ? 3 : 5;
            len = (tag >> 2) + 1;
            off = (long long)((p >> 8) & sn_mask(head - 1));
        }
        if (end - ip < head || o.end - o.at < len) return PQ_SNAPPY;
        ip += head;
        sn_advance(in, ip);
        if (t == 0) {
            if (end - ip < len) return PQ_SNAPPY;
            if (len >= SN_BULK_FROM) {  // up to the next word boundary, then in bulk
                const int n = (int)((8 - (o.at & 7)) & 7);
                if (n) {
                    sn_emit(o, sn_peek(in, ip) & sn_mask(n), n);
                    ip += n;
                    len -= n;
                    sn_advance(in, ip);
                }
                const long long rest = sn_bulk_literal(in, o, ip, len, lane, lanes, mask);
                ip += len - rest;
                len = rest;
            }
            while (len > 0) {
                const int n = len < 8 ? (int)len : 8;
                sn_emit(o, sn_peek(in, ip) & sn_mask(n), n);
                ip += n;
                len -= n;
                sn_advance(in, ip);
            }
        } else {
            if (off == 0 || off > o.at - o.start) return PQ_SNAPPY;
            while (len > 0) {
                const int n = len < 8 ? (int)len : 8;
                u64 v = sn_fetch(o, o.at - off);
                if (off < 8) {  // the copy overlaps itself: its `off` bytes repeat
                    v &= sn_mask((int)off);
                    for (int have = (int)off; have < 8; have *= 2) v |= v << (8 * have);
                }
                sn_emit(o, v & sn_mask(n), n);
                len -= n;
            }
        }
    }
    if (o.at != o.end) return PQ_SNAPPY_SIZE;
    if (o.at & 7) sn_store(o, o.at >> 3, o.pend);  // the page's last, partial word
    return PQ_OK;
}
