"""Array-module generic (NumPy or CuPy) versions of the generator kernels.

The GPU branch of :mod:`concomp.generators` runs these with ``xp = cupy``; the CPU
branch uses the numba kernels of :mod:`concomp.generators._host` for speed, and the tests run
these with ``xp = numpy`` to check that both give the same bits. Work is done in
chunks so temporaries stay bounded on the device.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "mix64_int",
    "words",
    "rmat_edges",
    "uniform_edges",
    "feistel_permutation",
    "symmetric_csr",
    "pair_weights",
    "values_from_words",
    "uniform_points",
    "barabasi_albert",
]

_MASK64 = (1 << 64) - 1
_GAMMA = 0x9E3779B97F4A7C15
_M1 = 0xBF58476D1CE4E5B9
_M2 = 0x94D049BB133111EB
_CHUNK = 1 << 24
_U = np.uint64


def mix64_int(z: int) -> int:
    """splitmix64 output for state ``z`` on Python ints (used for seeds and keys)."""
    z = (z + _GAMMA) & _MASK64
    z = ((z ^ (z >> 30)) * _M1) & _MASK64
    z = ((z ^ (z >> 27)) * _M2) & _MASK64
    return z ^ (z >> 31)


def words(xp: Any, key: int, counters: Any) -> Any:
    """Counter-based random words ``mix64(key + counter * GAMMA)`` (uint64)."""
    z = counters.astype(xp.uint64, copy=False) * _U(_GAMMA) + _U(key)
    z = z + _U(_GAMMA)
    z = (z ^ (z >> _U(30))) * _U(_M1)
    z = (z ^ (z >> _U(27))) * _U(_M2)
    return z ^ (z >> _U(31))


def rmat_edges(
    xp: Any, key: int, scale: int, m: int, thresholds: tuple[int, ...], perm: Any, dtype: Any
) -> tuple[Any, Any]:
    """R-MAT endpoints; same bits as :func:`concomp.generators._host.rmat_edges`."""
    ta, tab, tabc = (_U(t) for t in thresholds)
    per_edge = (scale + 1) // 2
    src = xp.empty(m, dtype=dtype)
    dst = xp.empty(m, dtype=dtype)
    for start in range(0, m, _CHUNK):
        stop = min(m, start + _CHUNK)
        base = xp.arange(start, stop, dtype=xp.uint64) * _U(per_edge)
        u = xp.zeros(stop - start, dtype=xp.uint64)
        v = xp.zeros(stop - start, dtype=xp.uint64)
        for level in range(scale):
            if level % 2 == 0:
                w = words(xp, key, base + _U(level // 2))
                r = w & _U(0xFFFFFFFF)
            else:
                r = w >> _U(32)
            shift = _U(scale - 1 - level)
            u |= (r >= tab).astype(xp.uint64) << shift
            v |= (((r >= ta) & (r < tab)) | (r >= tabc)).astype(xp.uint64) << shift
        if perm is not None:
            u, v = perm[u.astype(xp.int64)], perm[v.astype(xp.int64)]
        src[start:stop] = u
        dst[start:stop] = v
    return src, dst


def uniform_edges(xp: Any, key: int, n: int, m: int, dtype: Any) -> tuple[Any, Any]:
    """G(n, m) endpoints; same bits as :func:`concomp.generators._host.uniform_edges`."""
    src = xp.empty(m, dtype=dtype)
    dst = xp.empty(m, dtype=dtype)
    for start in range(0, m, _CHUNK):
        stop = min(m, start + _CHUNK)
        w = words(xp, key, xp.arange(start, stop, dtype=xp.uint64))
        src[start:stop] = ((w & _U(0xFFFFFFFF)) * _U(n)) >> _U(32)
        dst[start:stop] = ((w >> _U(32)) * _U(n)) >> _U(32)
    return src, dst


def _feistel(xp: Any, key: int, x: Any, half: int) -> Any:
    mask = _U((1 << half) - 1)
    left, right = x >> _U(half), x & mask
    for r in range(4):
        f = words(xp, key, (right << _U(2)) | _U(r)) & mask
        left, right = right, left ^ f
    return (left << _U(half)) | right


def feistel_permutation(xp: Any, key: int, n: int, half: int, dtype: Any) -> Any:
    """Keyed bijection of ``[0, n)``; same as
    :func:`concomp.generators._host.feistel_permutation`."""
    x = _feistel(xp, key, xp.arange(n, dtype=xp.uint64), half)
    out_of_range = xp.flatnonzero(x >= _U(n))
    # cycle walking: re-encrypt only the values that fell outside [0, n)
    while out_of_range.size:
        y = _feistel(xp, key, x[out_of_range], half)
        x[out_of_range] = y
        out_of_range = out_of_range[y >= _U(n)]
    return x.astype(dtype)


def symmetric_csr(xp: Any, src: Any, dst: Any, n: int, dtype: Any) -> tuple[Any, Any]:
    """Symmetric CSR without self loops or duplicates, by sorting 64-bit keys ``u*n+v``.

    Returns the same arrays as :func:`concomp.generators._host.symmetric_csr`.
    """
    keep = src != dst
    s = src[keep].astype(xp.int64)
    d = dst[keep].astype(xp.int64)
    keys = xp.unique(xp.concatenate([s * n + d, d * n + s]))
    del s, d
    rows = keys // n
    cols = (keys - rows * n).astype(dtype)
    indptr = xp.searchsorted(rows, xp.arange(n + 1, dtype=xp.int64), side="left")
    return indptr.astype(xp.int64), cols


def pair_weights(
    xp: Any, key: int, u: Any, v: Any, low: Any, span: Any, as_int: bool, dtype: Any
) -> Any:
    """Weights from a hash of ``(min(u, v), max(u, v))``; same as the numba kernels."""
    lo = xp.minimum(u, v).astype(xp.uint64)
    hi = xp.maximum(u, v).astype(xp.uint64)
    return values_from_words(xp, _words_keyed(xp, words(xp, key, lo), hi), low, span, as_int, dtype)


def values_from_words(xp: Any, w: Any, low: Any, span: Any, as_int: bool, dtype: Any) -> Any:
    """Integers ``low + w % span`` or floats ``low + span * U[0, 1)`` (53-bit ``U``)."""
    if as_int:
        return (xp.int64(low) + (w % _U(span)).astype(xp.int64)).astype(dtype)
    unit = (w >> _U(11)).astype(xp.float64) * (1.0 / 9007199254740992.0)
    return (low + span * unit).astype(dtype)


def _words_keyed(xp: Any, keys: Any, counters: Any) -> Any:
    # words() with one key per element (the numba kernels' word(word(key, lo), hi))
    z = counters * _U(_GAMMA) + keys
    z = z + _U(_GAMMA)
    z = (z ^ (z >> _U(30))) * _U(_M1)
    z = (z ^ (z >> _U(27))) * _U(_M2)
    return z ^ (z >> _U(31))


def uniform_points(xp: Any, key: int, n: int, dim: int) -> Any:
    """``n x dim`` float64 points uniform in the unit cube (53-bit resolution)."""
    w = words(xp, key, xp.arange(n * dim, dtype=xp.uint64))
    return ((w >> _U(11)).astype(xp.float64) * (1.0 / 9007199254740992.0)).reshape(n, dim)


def barabasi_albert(
    xp: Any, key: int, n: int, d: int, dtype: Any, max_rounds: int = 10_000
) -> tuple[Any, Any]:
    """Preferential attachment edges, vectorised (Batagelj-Brandes endpoint list).

    Vertices ``0..d`` start as a star around 0. Vertex ``v > d`` adds ``d`` edges; the
    target of its edge ``e`` copies a uniformly chosen earlier entry ``r_e`` of the
    endpoint list (entry ``2f`` is the source of edge ``f``, ``2f+1`` its target), which
    picks a vertex with probability proportional to its degree. Targets that copy
    targets are resolved for all edges at once by following the copy chains (about
    ``log2 m`` vectorised steps). A vertex's ``d`` targets must be distinct: repeated
    ones draw a new ``r_e`` and everything is resolved again, until none repeats.
    The result is a simple graph with exactly ``d * (n - d)`` edges.
    """
    m = d * (n - d)
    e = xp.arange(m, dtype=xp.int64)
    src = xp.where(e < d, e + 1, d + e // d)
    limit = 2 * d * (src - d)  # entries written before vertex src's first edge
    grown = xp.arange(d, m, dtype=xp.int64)
    r = xp.zeros(m, dtype=xp.int64)
    redraw = grown
    for rnd in range(max_rounds):
        w = words(xp, key, redraw.astype(xp.uint64) + _U(rnd * m))
        r[redraw] = (w % limit[redraw].astype(xp.uint64)).astype(xp.int64)
        dst = _resolve_targets(xp, r, src, d)
        redraw = _repeated_targets(xp, dst[d:].reshape(n - d - 1, d), d) + d
        if redraw.size == 0:
            return src.astype(dtype), dst.astype(dtype)
    raise RuntimeError(f"barabasi_albert: targets still repeat after {max_rounds} redraw rounds")


def _resolve_targets(xp: Any, r: Any, src: Any, d: int) -> Any:
    pos = r.copy()
    pos[:d] = 1  # star edges: target entry 2f+1 holds vertex 0
    # follow chains while the entry is the target (odd) of a grown edge (f >= d)
    active = xp.flatnonzero(((pos & 1) == 1) & ((pos >> 1) >= d))
    while active.size:
        pos[active] = r[pos[active] >> 1]
        active = active[((pos[active] & 1) == 1) & ((pos[active] >> 1) >= d)]
    return xp.where((pos & 1) == 0, src[pos >> 1], 0)


def _repeated_targets(xp: Any, targets: Any, d: int) -> Any:
    """Edge offsets (from edge ``d``) whose target repeats an earlier one of its vertex."""
    if targets.size == 0 or d == 1:
        return xp.zeros(0, dtype=xp.int64)
    # sorting target * d + slot orders ties by slot, the same on every device
    slots = xp.arange(d, dtype=xp.int64)
    keyed = xp.sort(targets * d + slots, axis=1)
    t, s = keyed // d, keyed % d
    rep = t[:, 1:] == t[:, :-1]
    rows = xp.nonzero(rep)[0]
    return rows * d + s[:, 1:][rep]
