"""Batch validation, result placement and state files of :mod:`concomp.incremental`.

Split out of the public module: everything here is a plain function of the
caller's arrays (NumPy, CuPy, torch, lists), independent of the engines.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arrays import is_torch_tensor, to_numpy
from .._checks import check_count, check_ids
from ..errors import InvalidGraphError, InvalidStateError

INSERT, QUERY = 0, 1  #: op codes of ``IncrementalConnectivity.process`` (GConn's batches)
FORMAT_VERSION = 1  #: version of the .npz layout written by ``IncrementalConnectivity.save``
#: Host batches of at least this many entries go to the GPU through the pinned staging
#: slots (:func:`concomp._gpu.upload.edges_to_device`, whose slot holds this many
#: pairs); a smaller one crosses with ``cupy.asarray``: one slot has no copy to overlap,
#: and a small batch's time is mostly fixed costs that the staging pass would add to.
STAGED_MIN_ENTRIES = 1 << 21


# --------------------------------------------------------------------------- batches
def _is_cupy(a: Any) -> bool:
    # by module name only: _arrays.is_cupy_array's hasattr builds the CUDA array
    # interface dict, a measurable share of a small batch's host time
    return type(a).__module__.split(".")[0] == "cupy"


@dataclass
class Batch:
    """A batch normalised for the engine: id arrays int32/int64 of one dtype on its device."""

    kind: str  # "insert", "query" or "mixed"
    ops: Any
    u: Any
    v: Any
    names: tuple[str, str]
    like: str  # where the caller's data lives: results go back there
    span: tuple[int, int] | None = None  # (min, max) of u and v, where staging found it

    def raise_error(self, neg: int, bad: int) -> None:
        """Raise the message for a batch whose reduction found bad ids or op codes."""
        if neg:  # check_ids names the first offending id and its position
            check_ids(to_numpy(self.u), self.names[0], None)
            check_ids(to_numpy(self.v), self.names[1], None)
        ops = to_numpy(self.ops)
        i = int(np.flatnonzero((ops != INSERT) & (ops != QUERY))[0])
        raise InvalidGraphError(
            f"argument `ops`: code {ops[i]} at position {i} is not valid ({bad} bad codes); "
            f"use {INSERT} (insert) or {QUERY} (query). Fix: map the batch's op codes to 0/1."
        )


def _array(a: Any, name: str) -> Any:
    if is_torch_tensor(a):
        a = a.detach()
        if a.is_cuda:
            from .._gpu._compat import cupy_or_raise

            cupy = cupy_or_raise()
            a = cupy.from_dlpack(a)
        else:
            a = a.cpu().numpy()
    if not _is_cupy(a):
        try:
            a = np.asarray(a)
        except Exception as exc:  # ragged lists and other odd objects
            raise InvalidGraphError(
                f"argument `{name}`: cannot convert {type(a).__name__} to "
                f"an array ({exc}). Fix: pass a 1-D integer array."
            ) from exc
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise InvalidGraphError(
            f"argument `{name}`: expected a 1-D array, got shape "
            f"{tuple(a.shape)}. Fix: pass a flat array (use .ravel())."
        )
    return a


def _ids(a: Any, name: str) -> Any:
    a = _array(a, name)
    if a.dtype.kind == "b" or a.dtype.kind not in "iuf":
        raise InvalidGraphError(
            f"argument `{name}`: vertex ids must be integers, got dtype "
            f"{a.dtype}. Fix: convert with .astype(numpy.int64)."
        )
    if a.dtype.kind == "f" or a.dtype == np.uint64:  # NaN, fractions, ids beyond int64
        a = check_ids(a, name, None)
    return a if a.dtype in (np.int32, np.int64) else a.astype(np.int64)


def _ops(a: Any) -> Any:
    a = _array(a, "ops")
    if a.dtype.kind == "b" or a.shape[0] == 0:  # an empty list arrives as float64
        return a.astype(np.int8)
    if a.dtype.kind not in "iu":
        raise InvalidGraphError(
            f"argument `ops`: op codes must be integers (0 insert, 1 "
            f"query), got dtype {a.dtype}. Fix: pass an int8 array."
        )
    return a if a.dtype in (np.int8, np.int32, np.int64) else a.astype(np.int64)


def prepare(kind: str, ops: Any, u: Any, v: Any, names: tuple[str, str], device: str) -> Batch:
    """Check shapes and dtypes of a batch and move it to ``device`` (no reduction yet)."""
    like = "gpu" if _is_cupy(u) or (is_torch_tensor(u) and u.is_cuda) else "cpu"
    u, v = _ids(u, names[0]), _ids(v, names[1])
    if u.shape[0] != v.shape[0]:
        raise InvalidGraphError(
            f"arguments `{names[0]}` and `{names[1]}` differ in length "
            f"({u.shape[0]} vs {v.shape[0]}). Fix: pass one pair per op."
        )
    if ops is not None:
        ops = _ops(ops)
        if ops.shape[0] != u.shape[0]:
            raise InvalidGraphError(
                f"argument `ops`: {ops.shape[0]} codes for {u.shape[0]} "
                "pairs. Fix: pass one op code per pair."
            )
    if u.dtype != v.dtype:
        u, v = u.astype(np.int64), v.astype(np.int64)
    span = None
    if device == "gpu":
        from .._gpu._compat import cupy_module, staged_edges_to_device

        cp = cupy_module()
        if like == "cpu" and u.shape[0] >= STAGED_MIN_ENTRIES:
            # large host batches cross once through the pinned slots, narrowed to int32
            # while the ids fit, their range found in the same pass
            u, v, lo, hi = staged_edges_to_device([(u, v)])
            span = (lo, hi)
        else:
            u, v = cp.asarray(u), cp.asarray(v)
        ops = None if ops is None else cp.asarray(ops)
    else:
        u, v = to_numpy(u), to_numpy(v)
        ops = None if ops is None else to_numpy(ops)
    return Batch(kind, ops, u, v, names, like, span)


def place(result: Any, like: str) -> Any:
    """Return ``result`` on the device the caller's batch came from."""
    gpu = _is_cupy(result)
    if like == "cpu":
        return result.get() if gpu else result
    if not gpu:
        from .._gpu._compat import cupy_or_raise

        cupy = cupy_or_raise()
        return cupy.asarray(result)
    return result


def check_batch_size(batch_size: Any) -> int:
    """``batch_size`` as a Python int >= 1, or :class:`~concomp.InvalidGraphError`."""
    if (
        isinstance(batch_size, (bool, np.bool_))
        or not isinstance(batch_size, (int, np.integer))
        or batch_size < 1
    ):
        raise InvalidGraphError(
            f"argument `batch_size`: expected an int >= 1, got "
            f"{batch_size!r}. Fix: pass the number of entries per batch "
            "(the last batch may be shorter)."
        )
    return int(batch_size)


_META_INTS = ("num_nodes", "num_batches", "links")
_META_STRS = ("device", "algorithm")


def save_state(path: Any, arrays: dict[str, np.ndarray], **meta: Any) -> None:
    """Write a state file at exactly ``path``, atomically.

    The archive goes to a temporary file in the same directory, is flushed to disk,
    then renamed over ``path``: a full disk or a kill during the write leaves the
    previous file as it was. (``np.savez`` on a name writes in place and appends
    ``.npz`` to names without it; it is handed an open file instead.)
    """
    fields = {
        "format_version": np.int64(FORMAT_VERSION),
        **arrays,
        **{f"meta_{k}": np.asarray(val) for k, val in meta.items()},
    }
    if hasattr(path, "write"):  # an open file: the caller owns where the bytes go
        np.savez(path, **fields)
        return
    name = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(name))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix="." + os.path.basename(name) + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **fields)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, name)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # make the rename itself durable where possible
        dfd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def _state_error(label: Any, field: str, problem: str) -> InvalidStateError:
    return InvalidStateError(
        f"argument `path`: {label!r} holds an invalid "
        f"IncrementalConnectivity state: field `{field}` "
        f"{problem}. Fix: load a file written by "
        "IncrementalConnectivity.save (an edited or damaged state cannot be "
        "trusted; rebuild it from the edges)."
    )


def load_state(path: Any) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Read and check a state file: every field's dtype, shape and range, the parent
    forest (acyclic, roots the smallest ids), the hooks and the counters."""
    from .._shared.state import STATE_ARRAYS

    label = path if hasattr(path, "read") else os.fspath(path)
    if isinstance(label, bytes):
        label = os.fsdecode(label)
    fields: dict[str, np.ndarray] = {}
    if isinstance(label, str) and not os.path.exists(label) and os.path.exists(label + ".npz"):
        path = label = label + ".npz"  # where releases before 0.1 saved "name" to
    try:
        z = np.load(path, allow_pickle=False)
    except FileNotFoundError:
        raise
    except Exception as exc:  # zipfile, zlib, NumPy and pickle refusals have unrelated types
        raise InvalidStateError(
            f"argument `path`: {label!r} is not a readable state file "
            f"({type(exc).__name__}: {exc}). Fix: pass a file written by "
            "IncrementalConnectivity.save."
        ) from exc
    if not isinstance(z, np.lib.npyio.NpzFile):
        raise InvalidStateError(
            f"argument `path`: {label!r} holds a single array, not a saved "
            "IncrementalConnectivity state (an .npz archive). Fix: pass a "
            "file written by IncrementalConnectivity.save."
        )
    try:
        with z:
            for key in z.files:
                fields[key] = z[key]
    except Exception as exc:  # a damaged member shows only when it is read
        raise InvalidStateError(
            f"argument `path`: {label!r} is truncated or damaged "
            f"({type(exc).__name__}: {exc}). Fix: restore the file from a "
            "copy, or save the state again."
        ) from exc
    version = fields.get("format_version")
    if (
        version is None
        or version.shape != ()
        or version.dtype.kind not in "iu"
        or int(version) != FORMAT_VERSION
    ):
        raise _state_error(
            label,
            "format_version",
            f"is {None if version is None else version!r}"
            f", not {FORMAT_VERSION}: this is not a state file of this format",
        )
    meta: dict[str, Any] = {}
    for key in _META_INTS + _META_STRS:
        val = fields.get("meta_" + key)
        kinds = "iu" if key in _META_INTS else "U"
        if val is None or val.shape != () or val.dtype.kind not in kinds:
            raise _state_error(
                label,
                key,
                "is missing"
                if val is None
                else f"has dtype {val.dtype} and shape {val.shape}, expected a "
                f"{'integer' if kinds == 'iu' else 'string'} scalar",
            )
        meta[key] = val.item()
    for key in ("num_nodes", "num_batches", "links"):
        if meta[key] < 0:
            raise _state_error(label, key, f"is {meta[key]}, below 0")
    n = meta["num_nodes"]
    try:
        check_count(n, "num_nodes", per_item=28)
    except InvalidGraphError as exc:
        raise _state_error(label, "num_nodes", str(exc)) from None
    arrays = {}
    for key in STATE_ARRAYS:
        a = fields.get(key)
        if a is None:
            raise _state_error(label, key, "is missing")
        if a.ndim != 1 or a.dtype.kind != "i" or a.dtype.itemsize not in (4, 8):
            raise _state_error(
                label,
                key,
                f"has dtype {a.dtype} and shape {a.shape}; expected a 1-D int32 or int64 array",
            )
        if a.shape[0] != n:
            raise _state_error(label, key, f"has length {a.shape[0]}, but num_nodes is {n}")
        arrays[key] = a
    _check_forest(label, arrays, meta)
    return meta, arrays


def _check_forest(label: str, a: dict[str, np.ndarray], meta: dict[str, Any]) -> None:
    """Parents and hooks as the engines leave them, checked in a few vectorised passes.

    Every union links the larger root under the smaller and compression only moves a
    pointer further down, so ``0 <= parents[i] <= i`` with equality exactly at roots:
    that alone rules out cycles (ids fall strictly along any path). The root that a
    union demotes records its forest edge, so the hooked vertices are exactly the
    non-roots, and their number is the link counter.
    """
    p = a["parents"]
    n = p.shape[0]
    ids = np.arange(n, dtype=np.int64)
    bad = np.flatnonzero((p < 0) | (p > ids))
    if bad.size:
        i = int(bad[0])
        raise _state_error(
            label,
            "parents",
            f"has parents[{i}] = {int(p[i])}; a parent must "
            f"lie in [0, {i}] (0 <= parents[i] <= i), so the forest cannot hold "
            "a cycle or an id out of range",
        )
    nonroot = p != ids
    links = int(np.count_nonzero(nonroot))
    if meta["links"] != links:
        raise _state_error(
            label,
            "links",
            f"is {meta['links']}, but the parents hold {links} "
            "links (num_nodes minus the number of roots)",
        )
    batch, pos = a["hook_batch"], a["hook_pos"]
    hooked = batch >= 0
    odd = np.flatnonzero(hooked != nonroot)
    if odd.size:
        i = int(odd[0])
        raise _state_error(
            label,
            "hook_batch",
            f"has hook_batch[{i}] = {int(batch[i])} at a "
            f"{'non-root' if nonroot[i] else 'root'}; exactly the non-roots own "
            "a forest edge",
        )
    nb = meta["num_batches"]
    checks = (
        ("hook_batch", batch, 0, nb),
        ("hook_pos", pos, 0, 1 << 62),
        ("hook_src", a["hook_src"], 0, n),
        ("hook_dst", a["hook_dst"], 0, n),
    )
    for key, arr, lo, hi in checks:
        out = np.flatnonzero(hooked & ((arr < lo) | (arr >= hi)))
        if out.size:
            i = int(out[0])
            raise _state_error(label, key, f"has {key}[{i}] = {int(arr[i])}, outside [{lo}, {hi})")
        free = np.flatnonzero(~hooked & (arr != -1))
        if free.size:
            i = int(free[0])
            raise _state_error(
                label,
                key,
                f"has {key}[{i}] = {int(arr[i])} at a root; roots own no forest edge (-1)",
            )
