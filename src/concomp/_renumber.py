"""Renumbering: any vertex ids (strings, objects, sparse or negative 64-bit integers) as
the dense positions ``0 .. k-1`` the engines index, and the table that maps them back.

The rule of ``renumber="auto"`` (documented for users in :func:`concomp.as_graph`):

- ids that are not numbers (strings, bytes, Python objects, categorical or string
  columns, pyarrow string arrays) are renumbered;
- integer ids are renumbered when one is negative or beyond 2**62, or when the id
  span ``max id + 1`` exceeds both :data:`MIN_SPAN` and :data:`SPAN_RATIO` times
  the number of distinct ids (a label array indexed by id would then be mostly
  unused slots); never when the caller passes ``num_nodes`` (the caller declared
  the id space);
- float ids that are whole numbers are integer ids; any other float raises.

Renumbered vertices are the distinct ids in ascending order (``node_ids``), so vertex
``i`` is ``node_ids[i]`` and canonical labels number the components by their smallest
original id. Ids that cannot be ordered (mixed Python types) keep their order of first
appearance instead. Host data use :func:`pandas.factorize` (a hash pass) where pandas
is installed, else :func:`numpy.unique`; strings that pyarrow can hold take
:mod:`concomp._strings` first (the same numbering from the Arrow buffers, with no
Python object per id), and frame columns or pyarrow arrays already in Arrow reach it
through :func:`renumber_string_columns` without a conversion. CuPy data stay on the
device (sort, unique, binary search).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._arrays import get_xp, is_cupy_array
from ._checks import MAX_NODES
from .errors import InvalidGraphError

__all__ = [
    "MIN_SPAN",
    "SPAN_RATIO",
    "check_renumber",
    "is_numeric_ids",
    "might_renumber",
    "positions",
    "renumber_edges",
    "renumber_string_columns",
]

#: ``renumber="auto"`` keeps integer ids whose span ``max id + 1`` is at most this
#: (a label array of 2**24 entries takes 64 MiB in int32: never the reason a run fails).
MIN_SPAN = 1 << 24
#: ... and renumbers above it when the span exceeds this many times the distinct ids.
SPAN_RATIO = 4

_ALLOWED = ("auto", True, False)


def check_renumber(renumber: Any) -> str | bool:
    """``renumber`` as one of ``"auto"``, True, False, or an error naming the value."""
    if isinstance(renumber, (bool, np.bool_)):
        return bool(renumber)
    if isinstance(renumber, str) and renumber == "auto":
        return "auto"
    raise InvalidGraphError(
        f"argument `renumber`: {renumber!r} is not valid; allowed: 'auto', True, False. "
        "Fix: pass renumber='auto' (renumber ids that are not dense integers), True or False."
    )


def is_numeric_ids(a: Any) -> bool:
    """Whether ``a`` holds anything but strings, bytes and Python objects (the kinds
    renumbered as objects; complex, dates and the like go to the id checks, which
    refuse them)."""
    return is_cupy_array(a) or a.dtype.kind not in "OUS"


def might_renumber(lo: int, hi: int) -> bool:
    """Whether integer ids in ``[lo, hi]`` may need renumbering under ``"auto"`` (a test
    on the bounds alone; :func:`renumber_edges` counts the distinct ids to decide)."""
    return lo < 0 or hi > MAX_NODES or hi + 1 > MIN_SPAN


def renumber_edges(
    src: Any, dst: Any, renumber: str | bool, num_nodes: int | None
) -> tuple[Any, Any, Any] | None:
    """``(src, dst, node_ids)`` with ids replaced by positions into ``node_ids``, or None
    where ``renumber`` does not apply (the caller then checks the ids as they are).

    ``src`` and ``dst`` are 1-D arrays of one device (NumPy or CuPy).
    """
    _check_pair(src, dst)
    numeric = is_numeric_ids(src) and is_numeric_ids(dst)
    if not numeric:
        name = "dst" if is_numeric_ids(src) else "src"
        _check_object_ids(name, _dtype_name(src, dst), renumber, num_nodes)
        fast = _renumber_arrow(src, dst)
        if fast is not None:
            return fast
        return _renumber_host(
            np.asarray(src, dtype=object), np.asarray(dst, dtype=object), objects=True
        )
    if renumber is False or not all(a.dtype.kind in "iuf" for a in (src, dst)):
        return None  # booleans, complex numbers, dates: the id checks name them
    if num_nodes is not None and renumber == "auto":
        return None  # the caller declared the id space
    if num_nodes is not None:
        raise InvalidGraphError(
            f"argument `num_nodes`: {num_nodes} was given, but renumber=True numbers the "
            "vertices by their distinct ids. Fix: drop num_nodes, or pass renumber=False."
        )
    src, dst = _common(_whole(src, "src"), _whole(dst, "dst"))
    if renumber == "auto":
        if src.shape[0] == 0:
            return None
        lo, hi = _bounds(src, dst)
        if not might_renumber(lo, hi):
            return None
    out = _renumber_device(src, dst) if is_cupy_array(src) else _renumber_host(src, dst)
    if renumber == "auto" and lo >= 0 and hi <= MAX_NODES:
        if hi + 1 <= SPAN_RATIO * int(out[2].shape[0]):
            return None
    return out


def renumber_string_columns(
    src: Any, dst: Any, renumber: str | bool, num_nodes: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """:func:`renumber_edges` for string columns that hold their values in Arrow (pandas
    Arrow-backed and categorical columns, pyarrow arrays), read without a round trip
    through Python objects; None for any other column, where the caller takes
    :func:`renumber_edges` with NumPy arrays (the same codes and ``node_ids``)."""
    if not all(_arrow_held(a) for a in (src, dst)) or len(src) != len(dst):
        return None
    from ._strings import arrow_strings, renumber_strings  # numba loads on first use

    s, d = arrow_strings(src), arrow_strings(dst)
    if s is None or d is None:
        return None
    _check_object_ids("src", str(getattr(src, "dtype", None) or src.type), renumber, num_nodes)
    return renumber_strings(s, d)


def positions(node_ids: Any, values: Any) -> Any:
    """Positions of ``values`` in ``node_ids`` (every value must be there)."""
    xp = get_xp(node_ids)
    try:
        order = xp.argsort(node_ids, kind="stable")
        at = xp.searchsorted(node_ids[order], values)
        return order[xp.minimum(at, max(int(node_ids.shape[0]) - 1, 0))]
    except TypeError:  # ids of mixed Python types do not sort
        index = {v: i for i, v in enumerate(node_ids.tolist())}
        return np.fromiter((index[v] for v in values.tolist()), np.int64, len(values))


# --------------------------------------------------------------------------- helpers
def _check_pair(src: Any, dst: Any) -> None:
    for a, name in ((src, "src"), (dst, "dst")):
        if a.ndim != 1:
            raise InvalidGraphError(
                f"argument `{name}`: expected a 1-D array of vertex ids, got shape "
                f"{tuple(a.shape)}. Fix: pass a flat array (use .ravel())."
            )
    if src.shape[0] != dst.shape[0]:
        raise InvalidGraphError(
            f"arguments `src` and `dst` differ in length ({src.shape[0]} vs "
            f"{dst.shape[0]}). Fix: pass one source and one target per edge."
        )
    if get_xp(src) is not get_xp(dst):
        raise InvalidGraphError(
            "arguments `src` and `dst` live on different devices (one NumPy, "
            "one CuPy). Fix: move both to the same device."
        )


def _arrow_held(a: Any) -> bool:
    """Whether ``a`` is a pyarrow array or a pandas column whose values are not a
    NumPy array (Arrow-backed, categorical)."""
    mod = type(a).__module__.split(".")[0]
    if mod == "pyarrow":
        return hasattr(a, "type")
    return mod == "pandas" and hasattr(a, "dtype") and not isinstance(a.dtype, np.dtype)


def _check_object_ids(name: str, dtype: str, renumber: str | bool, num_nodes: int | None) -> None:
    """The errors for ids that are not numbers: they are always renumbered."""
    if renumber is False:
        raise InvalidGraphError(
            f"argument `{name}`: vertex ids must be integers with renumber=False, got dtype "
            f"{dtype}. Fix: pass renumber='auto' or True to have them renumbered, or convert "
            "with .astype(numpy.int64)."
        )
    if num_nodes is not None:
        raise InvalidGraphError(
            f"argument `num_nodes`: {num_nodes} was given, but the vertex ids are not integers "
            f"(dtype {dtype}) and are renumbered, so the count is the number of distinct ids. "
            "Fix: drop num_nodes, or pass integer ids."
        )


def _renumber_arrow(src: Any, dst: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """Host ids that pyarrow holds as strings, renumbered from the Arrow buffers
    (:mod:`concomp._strings`), or None (the object path then answers)."""
    from ._strings import arrow_strings, renumber_strings  # numba loads on first use

    s = arrow_strings(src)
    d = arrow_strings(dst) if s is not None else None
    if s is None or d is None:
        return None
    return renumber_strings(s, d)


def _dtype_name(src: Any, dst: Any) -> str:
    return str(dst.dtype if is_numeric_ids(src) else src.dtype)


def _whole(a: Any, name: str) -> Any:
    """Float ids as int64 when every one is a whole number (as the id checks read them)."""
    if a.dtype.kind != "f":
        return a
    xp = get_xp(a)
    bad = xp.flatnonzero(~xp.isfinite(a) | (a != xp.floor(a)))
    if bad.size:
        i = int(bad[0])
        raise InvalidGraphError(
            f"argument `{name}`: vertex id {float(a[i])!r} at position {i} is not an integer "
            f"(dtype {a.dtype}); ids must be whole numbers. Fix: remove NaN/fractional ids, or "
            "pass them as strings to have them renumbered."
        )
    big = xp.flatnonzero(xp.abs(a) >= 2.0**63)
    if big.size:
        i = int(big[0])
        raise InvalidGraphError(
            f"argument `{name}`: vertex id {float(a[i])!r} at position {i} is too large for "
            f"int64 (dtype {a.dtype}). Fix: pass the ids as integers (uint64 holds up to "
            "2**64 - 1) or as strings."
        )
    return a.astype(np.int64)


def _bounds(src: Any, dst: Any) -> tuple[int, int]:
    lo = min(int(src.min()), int(dst.min()))
    hi = max(int(src.max()), int(dst.max()))
    return lo, hi


def _common(src: Any, dst: Any) -> Any:
    """Both id arrays in one dtype that holds every value (int64 and uint64 mixed:
    the values decide; NumPy would promote them to float64 and lose precision)."""
    if src.dtype == dst.dtype:
        return src, dst
    kinds = {src.dtype.kind, dst.dtype.kind}
    if kinds == {"i", "u"} and 8 in (src.dtype.itemsize, dst.dtype.itemsize):
        signed, unsigned = (src, dst) if src.dtype.kind == "i" else (dst, src)
        if signed.shape[0] and int(signed.min()) < 0:
            if unsigned.shape[0] and int(unsigned.max()) > np.iinfo(np.int64).max:
                raise InvalidGraphError(
                    "arguments `src` and `dst`: ids mix negative int64 values and uint64 "
                    "values beyond 2**63, which no integer type holds both of. Fix: pass "
                    "both columns in one dtype (or as strings)."
                )
            return src.astype(np.int64), dst.astype(np.int64)
        return src.astype(np.uint64), dst.astype(np.uint64)
    dt = np.result_type(src.dtype, dst.dtype)
    return src.astype(dt, copy=False), dst.astype(dt, copy=False)


def _renumber_device(src: Any, dst: Any) -> tuple[Any, Any, Any]:
    """Device ids: the distinct ids sorted, then each id's position by binary search
    (the same calls run on NumPy, but a hash pass is faster on the host)."""
    xp = get_xp(src)
    ids = xp.unique(xp.concatenate((src, dst)))
    dt = _code_dtype(int(ids.shape[0]))
    s = xp.searchsorted(ids, src).astype(dt, copy=False)
    d = xp.searchsorted(ids, dst).astype(dt, copy=False)
    return s, d, ids


def _renumber_host(src: Any, dst: Any, objects: bool = False) -> tuple[Any, Any, Any]:
    """Host ids of any hashable kind: a hash pass over both columns, then the distinct
    ids sorted (first-appearance order where they do not sort)."""
    m = int(src.shape[0])
    both = np.concatenate((src, dst))
    codes, uniques = _factorize(both, objects)
    missing = np.flatnonzero(codes < 0)
    if missing.size:
        i = int(missing[0])
        name, pos = ("src", i) if i < m else ("dst", i - m)
        raise InvalidGraphError(
            f"argument `{name}`: vertex id {both[i]!r} at position {pos} is missing (None or "
            "NaN); every edge needs two ids. Fix: drop those edges (e.g. frame.dropna())."
        )
    try:
        order = np.argsort(uniques, kind="stable")
    except TypeError:  # mixed types: keep the order of first appearance
        order = None
    if order is not None:
        rank = np.empty(order.shape[0], dtype=np.int64)
        rank[order] = np.arange(order.shape[0])
        codes, uniques = rank[codes], uniques[order]
    codes = codes.astype(_code_dtype(int(uniques.shape[0])), copy=False)
    return codes[:m], codes[m:], uniques


def _code_dtype(k: int) -> Any:
    return np.int32 if k <= np.iinfo(np.int32).max else np.int64


def _factorize(values: np.ndarray, objects: bool) -> tuple[np.ndarray, np.ndarray]:
    """Codes (-1 for a missing id) and distinct values in order of first appearance."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None:
        codes, uniques = pd.factorize(values, sort=False)
        return np.asarray(codes), np.asarray(uniques, dtype=object if objects else values.dtype)
    if not objects:
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.reshape(-1), uniques
    missing = np.array([v is None or (isinstance(v, float) and v != v) for v in values], bool)
    codes = np.full(values.shape[0], -1, dtype=np.int64)
    index: dict[Any, int] = {}
    codes[~missing] = [index.setdefault(v, len(index)) for v in values[~missing].tolist()]
    uniques = np.empty(len(index), dtype=object)
    uniques[:] = list(index)
    return codes, uniques
