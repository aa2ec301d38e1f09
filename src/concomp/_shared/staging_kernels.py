"""The numba kernels behind :mod:`concomp._shared.staging` (parallel, all cores).

A module of their own so that importing the staging functions loads no numba:
small inputs are staged with NumPy (:data:`concomp._shared.staging.PARALLEL_MIN`),
and a process that only ever stages small host inputs for the GPU never pays
numba's start-up.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .threads import serialized

#: Ids handled per parallel task; large enough to amortise scheduling, small
#: enough to balance 16+ threads on a chunk of a few million edges.
BLOCK = 1 << 16


# Both kernels work on zero-based views of one block and keep min/max in the input
# type: with that, LLVM vectorises the loop (much faster than indexing the
# whole arrays at ``offset + i``, whose possibly negative index defeats it).
@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def stage(src, dst, out_src, out_dst, offset):
    m = src.shape[0]
    nblocks = (m + BLOCK - 1) // BLOCK
    los = np.empty(nblocks, np.int64)
    his = np.empty(nblocks, np.int64)
    for b in nb.prange(nblocks):
        start = b * BLOCK
        stop = min(start + BLOCK, m)
        s, d = src[start:stop], dst[start:stop]
        os, od = out_src[offset + start : offset + stop], out_dst[offset + start : offset + stop]
        lo = s[0]
        hi = s[0]
        for j in range(s.shape[0]):
            u = s[j]
            v = d[j]
            os[j] = u
            od[j] = v
            lo = min(lo, u)
            lo = min(lo, v)
            hi = max(hi, u)
            hi = max(hi, v)
        los[b] = lo
        his[b] = hi
    return los.min(), his.max()


@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def stage_csr(indptr, indices, start, stop, out_src, out_dst, offset):
    m = stop - start
    nblocks = (m + BLOCK - 1) // BLOCK
    los = np.empty(nblocks, np.int64)
    his = np.empty(nblocks, np.int64)
    for b in nb.prange(nblocks):
        first = start + b * BLOCK
        last = min(first + BLOCK, stop)
        d = indices[first:last]
        os = out_src[offset + first - start : offset + last - start]
        od = out_dst[offset + first - start : offset + last - start]
        # the columns: a plain copy with min/max, which LLVM vectorises
        lo = d[0]
        hi = d[0]
        for j in range(d.shape[0]):
            v = d[j]
            od[j] = v
            lo = min(lo, v)
            hi = max(hi, v)
        # the rows: one fill per row segment (a per-entry row test defeats vectorising
        # and made this pass several times slower than staging edge pairs). The row
        # holding ``first`` is the last row whose offset is <= first; empty rows cost
        # one step each, so all blocks together visit each row at most once.
        row = np.searchsorted(indptr, first, side="right") - 1
        pos = first
        while pos < last:
            end = min(indptr[row + 1], last)
            r = os.dtype.type(row)
            for j in range(pos - first, end - first):
                os[j] = r
            pos = max(pos, end)
            row += 1
        los[b] = lo
        his[b] = hi
    return los.min(), his.max()


@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def stage_columns(indptr, indices, start, stop, out_cols, r0, nseg, out_seg):
    m = stop - start
    nblocks = (m + BLOCK - 1) // BLOCK
    sblocks = (nseg + BLOCK - 1) // BLOCK
    los = np.zeros(nblocks, np.int64)
    his = np.zeros(nblocks, np.int64)
    for b in nb.prange(nblocks + sblocks):
        if b < nblocks:  # the columns: a copy with min/max, which LLVM vectorises
            first = start + b * BLOCK
            last = min(first + BLOCK, stop)
            d = indices[first:last]
            od = out_cols[first - start : last - start]
            lo = d[0]
            hi = d[0]
            for j in range(d.shape[0]):
                v = d[j]
                od[j] = v
                lo = min(lo, v)
                hi = max(hi, v)
            los[b] = lo
            his[b] = hi
        else:  # the rows' offsets relative to ``start``, clamped to the piece
            k0 = (b - nblocks) * BLOCK
            for k in range(k0, min(k0 + BLOCK, nseg)):
                out_seg[k] = min(max(indptr[r0 + k] - start, 0), m)
    return los.min(), his.max()


@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def id_range(src, dst):
    m = src.shape[0]
    nblocks = (m + BLOCK - 1) // BLOCK
    los = np.empty(nblocks, np.int64)
    his = np.empty(nblocks, np.int64)
    for b in nb.prange(nblocks):
        start = b * BLOCK
        stop = min(start + BLOCK, m)
        s, d = src[start:stop], dst[start:stop]
        lo = s[0]
        hi = s[0]
        for j in range(s.shape[0]):
            lo = min(lo, s[j])
            hi = max(hi, s[j])
        for j in range(d.shape[0]):
            lo = min(lo, d[j])
            hi = max(hi, d[j])
        los[b] = lo
        his[b] = hi
    return los.min(), his.max()


@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def decreasing_blocks(a):
    # one flag per block: a[i + 1] < a[i] for some i of the block (a block also looks
    # one entry past its end, so a drop across a block boundary is seen)
    m = a.shape[0] - 1
    nblocks = (m + BLOCK - 1) // BLOCK
    bad = np.zeros(max(nblocks, 1), np.bool_)
    for b in nb.prange(nblocks):
        start = b * BLOCK
        stop = min(start + BLOCK, m)
        lo, hi = a[start:stop], a[start + 1 : stop + 1]
        drop = False
        for j in range(lo.shape[0]):
            drop |= hi[j] < lo[j]
        bad[b] = drop
    return bad


@serialized
@nb.njit(parallel=True, cache=True, nogil=True, boundscheck=False)
def copy_ids(src, out):
    m = src.shape[0]
    for b in nb.prange((m + BLOCK - 1) // BLOCK):
        start = b * BLOCK
        stop = min(start + BLOCK, m)
        s, o = src[start:stop], out[start:stop]
        for j in range(s.shape[0]):
            o[j] = s[j]
