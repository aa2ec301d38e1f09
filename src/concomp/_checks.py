"""Array-level input checks: ids, counts, CSR offsets, weights, sizes against memory.

They take and return arrays (NumPy or CuPy) and know nothing of :class:`~concomp.Graph`,
so that the graph container, the file readers and the validation of graph-like input
(:mod:`concomp._validate`) all build on them. Messages name the argument, the
offending value and its position, what is allowed, and the fix.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np

from ._arrays import get_xp, index_dtype_for, is_cupy_array, is_torch_tensor
from .errors import InvalidGraphError

__all__ = [
    "MAX_NODES",
    "check_count",
    "check_ids",
    "check_indptr",
    "check_num_nodes",
    "check_weights",
    "host_memory",
    "validate_csr",
    "validate_edges",
]

#: Largest vertex (and edge) count the engines index. They work in int64 and form
#: ``n + 1`` offsets, ``2 * m`` symmetrised entries and ``2 * n`` slots; 2**62 keeps
#: every such sum inside int64 (``np.arange(n)`` is silently empty from 2**63 - 1 on,
#: and the kernels would then write out of bounds).
MAX_NODES = 1 << 62
#: Bytes per vertex that any run needs at the very least (one int64 label per vertex).
BYTES_PER_NODE = 8

_SRC_NAMES = ("source", "src", "u", "from", "node_1", "id_1", "i", "row", "head")
_DST_NAMES = ("target", "dst", "v", "to", "node_2", "id_2", "j", "col", "tail")
_W_NAMES = ("weight", "weights", "w", "wt", "value", "rating")


# --------------------------------------------------------------------------- sizes
def host_memory() -> int:
    """Physical memory of this machine in bytes (2**62 where the platform cannot say).

    Physical rather than currently free memory: what other processes hold comes and
    goes, and a refusal should not depend on the moment.
    """
    try:
        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (ValueError, OSError, AttributeError):
        return 1 << 62


def check_count(
    count: int,
    name: str,
    *,
    what: str = "vertices",
    per_item: int = BYTES_PER_NODE,
    where: str | None = None,
    cause: str = "",
    fix: str = "relabel the vertices to 0 .. n-1 (dense ids, e.g. "
    "numpy.unique(ids, return_inverse=True))",
    error: type = InvalidGraphError,
    memory: int | None = None,
) -> int:
    """Return ``count`` as an int, or raise if the engines cannot index or hold it.

    The one up-front size check of every entry point (graphs, streams, incremental
    state, file headers): ``count`` must be at most :data:`MAX_NODES` (int64
    arithmetic) and ``count * per_item`` bytes must fit in this machine's memory.

    Parameters
    ----------
    count : int
        The vertex (or entry) count to check.
    name : str
        The argument it comes from (used as ``argument `name```), unless ``where``
        names the place instead (a file and line).
    what : str
        What is counted ("vertices", "entries").
    per_item : int
        Least bytes each counted item needs.
    cause : str
        Where the count comes from, e.g. "vertex id 9 at position 0 needs".
    fix : str
        The remedy the message proposes.
    error : type
        Exception class (``GraphFormatError`` for file headers).
    memory : int, optional
        Memory limit in bytes (default :func:`host_memory`).
    """
    count = int(count)
    head = where if where is not None else f"argument `{name}`"
    subject = f"{cause} {count} {what}" if cause else f"{count} {what}"
    if count > MAX_NODES:
        raise error(
            f"{head}: {subject} exceed what the engines can index (at most 2**62 = "
            f"{MAX_NODES}, to keep int64 offsets and sums exact). Fix: {fix}."
        )
    limit = host_memory() if memory is None else int(memory)
    need = count * per_item
    if need > limit:
        raise error(
            f"{head}: {subject} need at least {need / 2**30:.4g} GiB ({per_item} "
            f"bytes each), more than this machine's {limit / 2**30:.4g} GiB of memory. "
            f"Fix: {fix}."
        )
    return count


def check_num_nodes(n: Any, name: str = "num_nodes", **kwargs: Any) -> int:
    """``n`` as a vertex count the engines can index and memory can hold (see
    :func:`check_count`); ``n`` itself must already be a non-negative int."""
    return check_count(n, name, what="vertices", **kwargs)


# --------------------------------------------------------------------------- checks
def _as_array(a: Any, name: str) -> np.ndarray:
    try:
        return np.asarray(a)
    except Exception as exc:  # ragged lists and other odd objects
        raise InvalidGraphError(
            f"argument `{name}`: cannot convert {type(a).__name__} to an "
            f"array ({exc}). Fix: pass a 1-D integer array."
        ) from exc


def _as_id_array(a: Any, name: str) -> Any:
    if is_torch_tensor(a):
        a = _torch_to_array(a)
    return a if is_cupy_array(a) else _as_array(a, name)


_RANGE_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _id_range(a: Any, xp: Any) -> tuple[int, int]:
    """The smallest and largest entry of the non-empty integer array ``a``: large
    C-contiguous int32/int64 host arrays in one parallel pass
    (:func:`concomp._shared.staging.edge_id_range`, by the rule of
    :func:`_fused_host_pass`), others with NumPy, so that no dtype costs one more
    compilation."""
    if (
        xp is np
        and a.dtype in _RANGE_DTYPES
        and a.flags.c_contiguous
        and _fused_host_pass(a.shape[0])
    ):
        from ._shared.staging import edge_id_range

        return edge_id_range(a, a[:0])
    return int(a.min()), int(a.max())


def check_ids(a: Any, name: str, num_nodes: int | None) -> Any:
    """Return ``a`` as an integer id array; raise for bad dtype, NaN, negatives, ids >= n."""
    xp = get_xp(a)
    if a.ndim != 1:
        raise InvalidGraphError(
            f"argument `{name}`: expected a 1-D array of vertex ids, got shape "
            f"{tuple(a.shape)}. Fix: pass a flat array (use .ravel())."
        )
    kind = a.dtype.kind
    if kind == "b" or kind not in "iuf":
        raise InvalidGraphError(
            f"argument `{name}`: vertex ids must be integers, got dtype "
            f"{a.dtype}. Fix: convert with .astype(numpy.int64)."
        )
    if kind == "f":
        bad = xp.flatnonzero(~xp.isfinite(a) | (a != xp.floor(a)))
        if bad.size:
            i = int(bad[0])
            raise InvalidGraphError(
                f"argument `{name}`: vertex id {float(a[i])!r} at position {i} is not an integer "
                f"(dtype {a.dtype}); ids must be whole numbers. Fix: remove NaN/fractional ids or "
                "map labels to integers first."
            )
        big = xp.flatnonzero(xp.abs(a) > MAX_NODES)
        if big.size:
            i = int(big[0])
            raise InvalidGraphError(
                f"argument `{name}`: vertex id {float(a[i])!r} at position {i} is too large"
                f"{' in magnitude' if a[i] < 0 else ''}; ids must lie in [0, 2**62] (int64 "
                "indexing). Fix: relabel the vertices to 0 .. n-1."
            )
        a = a.astype(np.int64)
    if a.size == 0:
        return a.astype(np.int64) if kind == "f" else a
    lo, hi = _id_range(a, xp)
    if lo < 0:
        i = int(xp.flatnonzero(a < 0)[0])
        raise InvalidGraphError(
            f"argument `{name}`: vertex id {int(a[i])} at position {i} is negative; ids must lie "
            f"in [0, num_nodes). Fix: shift ids to start at 0 (0-based) or drop the edge."
        )
    if hi > MAX_NODES:
        i = int(xp.flatnonzero(a > MAX_NODES)[0])
        raise InvalidGraphError(
            f"argument `{name}`: vertex id {int(a[i])} at position {i} is too large; ids must "
            f"lie in [0, 2**62] (int64 indexing). Fix: relabel the vertices to 0 .. n-1."
        )
    if kind == "u" and a.dtype.itemsize >= 8:
        a = a.astype(np.int64)  # every id is <= 2**62 now
    if num_nodes is None:
        i = int(xp.argmax(a))
        check_num_nodes(hi + 1, name, cause=f"vertex id {hi} at position {i} implies")
    else:
        if hi >= num_nodes:
            i = int(xp.flatnonzero(a >= num_nodes)[0])
            raise InvalidGraphError(
                f"argument `{name}`: vertex id {int(a[i])} at position {i} is >= num_nodes="
                f"{num_nodes}; ids must lie in [0, {num_nodes}). Fix: pass num_nodes > {hi} or "
                "remove the edge."
            )
    return a


def check_weights(w: Any, m: int, name: str = "weights") -> Any:
    """Return ``w`` as a numeric 1-D array of length ``m``; NaN raises."""
    if w is None:
        return None
    if is_torch_tensor(w):
        w = _torch_to_array(w)
    w = w if is_cupy_array(w) else _as_array(w, name)
    xp = get_xp(w)
    if w.ndim == 0:
        w = xp.full(m, w)
    if w.ndim != 1 or w.shape[0] != m:
        raise InvalidGraphError(
            f"argument `{name}`: expected {m} weights (one per edge), got "
            f"shape {tuple(w.shape)}. Fix: pass one weight per edge."
        )
    if w.dtype.kind == "b":
        w = w.astype(np.int8)
    if w.dtype.kind not in "iuf":
        raise InvalidGraphError(
            f"argument `{name}`: weights must be numbers, got dtype {w.dtype}."
            " Fix: convert with .astype(float)."
        )
    if w.dtype.kind == "f" and w.size and _may_hold_nan(w):
        nan = xp.flatnonzero(xp.isnan(w))
        if nan.size:
            raise InvalidGraphError(
                f"argument `{name}`: weight NaN at position {int(nan[0])} ({int(nan.size)} NaN in "
                "all); weights must be numbers (+inf and -inf are allowed). Fix: drop those edges "
                "or replace NaN with a number."
            )
    return w


def _may_hold_nan(w: Any) -> bool:
    """False when a device array is known to hold no NaN: one fused pass, where CuPy's
    ``isnan`` and ``flatnonzero`` compile several kernels in a new process."""
    if not is_cupy_array(w):
        return True
    from ._gpu._compat import fused_nan_count

    count = fused_nan_count(w)
    return count is None or count > 0


def _resolve_n(num_nodes: Any, *arrays: Any, name: str = "num_nodes") -> int | None:
    if num_nodes is None:
        return None
    if isinstance(num_nodes, (bool, np.bool_)) or not isinstance(num_nodes, (int, np.integer)):
        raise InvalidGraphError(
            f"argument `{name}`: expected a non-negative int, got "
            f"{num_nodes!r}. Fix: pass an int (or None for max id + 1)."
        )
    if num_nodes < 0:
        raise InvalidGraphError(
            f"argument `{name}`: {num_nodes} is negative. Fix: pass a count >= 0."
        )
    return check_num_nodes(
        int(num_nodes),
        name,
        fix="pass the number of vertices the graph "
        "has; ids must be dense (relabel them to 0 .. n-1)",
    )


def validate_edges(
    src: Any,
    dst: Any,
    num_nodes: int | None = None,
    *,
    weights: Any = None,
    stats: dict | None = None,
) -> tuple[int, Any, Any, Any]:
    """``(n, src, dst, weights)`` checked and cast to the index type (the arrays of a
    :class:`~concomp.Graph` built from two id arrays). ``stats``, a dict, receives the
    GPU probe's answers where the fused device checks gathered them in their download
    (:class:`concomp._gpu.probe_launch.CheckProbe`; device arrays with ``num_nodes`` given)."""
    src, dst = _as_id_array(src, "src"), _as_id_array(dst, "dst")
    if get_xp(src) is not get_xp(dst):
        raise InvalidGraphError(
            "arguments `src` and `dst` live on different devices (one NumPy, "
            "one CuPy). Fix: move both to the same device."
        )
    n = _resolve_n(num_nodes)
    staged = _host_edges_staged(src, dst, n)
    if staged is not None:  # checked and narrowed in one pass: nothing left to cast
        n, src, dst = staged
        return n, src, dst, check_weights(weights, int(src.shape[0]))
    fast = _device_edges_valid(src, dst, n, stats)
    if fast is not None:
        n = fast
    else:
        src, dst = check_ids(src, "src", n), check_ids(dst, "dst", n)
    if src.shape[0] != dst.shape[0]:
        raise InvalidGraphError(
            f"arguments `src` and `dst` differ in length ({src.shape[0]} vs "
            f"{dst.shape[0]}). Fix: pass one source and one target per edge."
        )
    m = int(src.shape[0])
    if n is None:
        n = 0 if m == 0 else int(max(int(src.max()), int(dst.max()))) + 1
    w = check_weights(weights, m)
    dt = index_dtype_for(n, 2 * m)
    return n, src.astype(dt, copy=False), dst.astype(dt, copy=False), w


def validate_csr(
    indptr: Any,
    indices: Any,
    num_nodes: int | None = None,
    *,
    weights: Any = None,
    stats: dict | None = None,
    symmetric: bool = False,
) -> tuple[int, Any, Any, Any]:
    """``(n, indptr, indices, weights)`` checked and cast to the index type (the arrays of
    a :class:`~concomp.Graph` built from CSR arrays; the i-th stored entry is edge ``i``).
    ``stats``, a dict, receives the GPU probe's answers where the fused device checks
    gathered them in their download (:class:`concomp._gpu.probe_launch.CheckProbe`), with the
    degree spread when the CSR is ``symmetric`` (its rows are the degrees)."""
    indptr, indices = _as_id_array(indptr, "indptr"), _as_id_array(indices, "indices")
    if indptr.ndim != 1 or indptr.shape[0] < 1:
        raise InvalidGraphError(
            f"argument `indptr`: expected a 1-D array of length n + 1, got "
            f"shape {tuple(indptr.shape)}. Fix: pass a CSR row pointer."
        )
    if indptr.dtype.kind not in "iu":
        # a float row pointer would be truncated silently by the cast to the index type
        raise InvalidGraphError(
            f"argument `indptr`: offsets must be integers, got dtype "
            f"{indptr.dtype}. Fix: pass an integer row pointer (e.g. "
            "indptr.astype(numpy.int64) after checking it)."
        )
    if indptr.dtype.kind == "u" and indptr.dtype.itemsize >= 8:
        if indptr.shape[0] and int(indptr.max()) > MAX_NODES:
            raise InvalidGraphError(
                f"argument `indptr`: offset {int(indptr.max())} exceeds "
                "2**62 (int64 indexing). Fix: rebuild the CSR arrays."
            )
        indptr = indptr.astype(np.int64)
    rows = int(indptr.shape[0]) - 1
    n = (
        check_num_nodes(rows, "indptr", cause="a row pointer of length n + 1 means")
        if num_nodes is None
        else _resolve_n(num_nodes)
    )
    if n != rows:
        raise InvalidGraphError(
            f"argument `indptr`: length {rows + 1} means {rows} rows but "
            f"num_nodes={n}; the matrix must be square. Fix: pass n + 1 "
            "offsets."
        )
    if not _device_csr_valid(indptr, indices, n, stats, symmetric):
        indices = check_ids(indices, "indices", n)
        check_indptr(indptr, int(indices.shape[0]))
    m = int(indices.shape[0])
    w = check_weights(weights, m)
    dt = index_dtype_for(n, 2 * m)
    return n, indptr.astype(dt, copy=False), indices.astype(dt, copy=False), w


#: Edges from which host edge arrays are checked and narrowed in one parallel pass
#: (:func:`concomp._shared.staging.stage_edges`) even where numba is not loaded yet:
#: above the NumPy start's bound (``concomp._cpu.numpy_start.MAX_EDGES``, which a test
#: keeps equal), where the compiled kernels will run anyway. Below it, the pass runs
#: only in a process that has loaded numba, so a first small call never loads it.
FUSED_HOST_EDGES = 1 << 20


def _fused_host_pass(m: int) -> bool:
    """Whether host ids of ``m`` entries are checked in one compiled parallel pass (see
    :data:`FUSED_HOST_EDGES`)."""
    from ._shared.staging import NUMBA_LOADED_MIN

    return m > FUSED_HOST_EDGES or ("numba" in sys.modules and m >= NUMBA_LOADED_MIN)


def _host_edges_staged(src: Any, dst: Any, n: int | None) -> tuple[int, Any, Any] | None:
    """``(n, src, dst)`` of valid host edge arrays whose ids fit int32, checked and cast
    to int32 in one parallel pass (the range and the copy in the same read, where the
    general path reads each array three times); None sends the input to the general
    checks (device arrays, other dtypes, ids past int32, small inputs before numba is
    loaded, or anything wrong, whose message they word)."""
    if is_cupy_array(src) or is_cupy_array(dst):
        return None
    if not (isinstance(src, np.ndarray) and isinstance(dst, np.ndarray)):
        return None
    m = src.shape[0] if src.ndim == 1 else -1
    if m < 1 or dst.ndim != 1 or dst.shape[0] != m:
        return None
    if not all(a.dtype.kind == "i" or (a.dtype.kind == "u" and a.dtype.itemsize <= 4)
               for a in (src, dst)):  # fmt: skip
        return None
    if not _fused_host_pass(m):
        return None
    from ._shared.staging import edge_id_range, stage_edges

    if n is not None and index_dtype_for(n, 2 * m) != np.int32:
        return None
    if src.dtype == np.int32 and dst.dtype == np.int32:  # kept as given: the range alone
        out_src, out_dst = src, dst
        lo, hi = edge_id_range(src, dst)
    else:
        out_src, out_dst = np.empty(m, np.int32), np.empty(m, np.int32)
        lo, hi = stage_edges(src, dst, out_src, out_dst)
    count = _count_of_range(lo, hi, n)
    if count is None or index_dtype_for(count, 2 * m) != np.int32:
        return None
    return count, out_src, out_dst


def _count_of_range(lo: int, hi: int, n: int | None) -> int | None:
    """The vertex count of edges whose ids span ``[lo, hi]``: ``n`` where they lie in
    ``[0, n)``, ``hi + 1`` where ``n`` is None (if that count is allowed); None for ids
    out of range, which the general checks then find and word the error for."""
    if lo < 0 or hi > MAX_NODES or (n is not None and hi >= n):
        return None
    if n is not None:
        return n
    try:
        return check_num_nodes(hi + 1, "src", cause=f"vertex id {hi} implies")
    except InvalidGraphError:
        return None


def _device_edges_valid(src: Any, dst: Any, n: int | None, stats: dict | None = None) -> int | None:
    """The vertex count of valid device edge arrays, checked in one fused pass per array
    and one host read (:mod:`concomp._gpu.checks`); None sends the input to the
    general checks (host arrays, other dtypes, or anything wrong, whose message they
    word). ``stats`` receives the probe's answers read in that download (valid input
    with ``n`` given)."""
    if not (is_cupy_array(src) and is_cupy_array(dst)):
        return None
    from ._gpu._compat import fused_check_dtype, fused_id_range

    if not (fused_check_dtype(src) and fused_check_dtype(dst)):
        return None
    if src.shape[0] != dst.shape[0] or not src.size:
        return None
    lo, hi, probed = fused_id_range(src, dst, n if stats is not None else None)
    count = _count_of_range(lo, hi, n)
    if count is not None and stats is not None and probed is not None:
        stats.update(probed)  # probed only where n was given
    return count


def _device_csr_valid(
    indptr: Any, indices: Any, n: int, stats: dict | None = None, symmetric: bool = False
) -> bool:
    """Whether device CSR arrays pass every check of :func:`validate_csr` on the ids and
    the row pointer, found in one fused pass each and one host read; False sends the
    input to the general checks (which word the message, or pass host arrays).
    ``stats`` receives the probe's answers read in that download (valid input only)."""
    if not (is_cupy_array(indptr) and is_cupy_array(indices)):
        return False
    from ._gpu._compat import fused_check_dtype, fused_csr_facts

    if not (fused_check_dtype(indptr) and fused_check_dtype(indices)):
        return False
    f = fused_csr_facts(indptr, indices, n if stats is not None else None, symmetric)
    ids_ok = indices.size == 0 or (f["lo"] >= 0 and f["hi"] < n)
    ok = ids_ok and f["decreases"] == 0 and f["first"] == 0 and f["last"] == indices.shape[0]
    if ok and stats is not None and f["probe"] is not None:
        stats.update(f["probe"])
    return bool(ok)


#: Row pointers longer than this are checked on all cores (numba loads on first use).
_PARALLEL_INDPTR = 1 << 20


def _decreases(xp: Any, indptr: Any) -> bool:
    if indptr.shape[0] < 2:
        return False
    if xp is np and indptr.shape[0] > _PARALLEL_INDPTR and indptr.dtype.kind in "iu":
        # np.diff allocates a copy and runs on one core: most of a host CSR's check
        from ._shared.staging import first_decrease

        return first_decrease(indptr) >= 0
    return bool((xp.diff(indptr) < 0).any())


def check_indptr(indptr: Any, nnz: int) -> None:
    """Raise unless ``indptr`` starts at 0, never decreases and ends at ``nnz``."""
    xp = get_xp(indptr)
    if int(indptr[0]) != 0 or int(indptr[-1]) != nnz or _decreases(xp, indptr):
        raise InvalidGraphError(
            "argument `indptr`: must start at 0, never decrease and end at "
            f"len(indices)={nnz}. Fix: rebuild the CSR arrays."
        )


def _torch_to_array(t: Any) -> Any:
    if t.is_cuda:
        from ._gpu._compat import cupy_or_raise

        cupy = cupy_or_raise()
        return cupy.from_dlpack(t.detach())
    return t.detach().cpu().numpy()


def _pick(
    columns: list[str],
    explicit: str | None,
    names: tuple[str, ...],
    role: str,
    fallback: int | None,
) -> str | None:
    if explicit is not None:
        if explicit not in columns:
            raise InvalidGraphError(
                f"argument `{role}`: column {explicit!r} not in the frame "
                f"(columns: {columns}). Fix: pass an existing column name."
            )
        return explicit
    lower = {str(c).lower(): c for c in columns}
    for name in names:
        if name in lower:
            return lower[name]
    if fallback is not None and len(columns) > fallback:
        return columns[fallback]
    return None
