"""Batch validation, result placement and state files of :mod:`concomp.incremental`.

Split out of the public module: everything here is a plain function of the
caller's arrays (NumPy, CuPy, torch, lists), independent of the engines.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arrays import is_torch_tensor, to_numpy
from .._validate import check_ids
from ..errors import InvalidGraphError

INSERT, QUERY = 0, 1  #: op codes of ``IncrementalConnectivity.process`` (GConn's batches)
FORMAT_VERSION = 1  #: version of the .npz layout written by ``IncrementalConnectivity.save``


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

    def raise_error(self, neg: int, bad: int) -> None:
        """Raise the message for a batch whose reduction found bad ids or op codes."""
        if neg:  # check_ids names the first offending id and its position
            check_ids(to_numpy(self.u), self.names[0], None)
            check_ids(to_numpy(self.v), self.names[1], None)
        ops = to_numpy(self.ops)
        i = int(np.flatnonzero((ops != INSERT) & (ops != QUERY))[0])
        raise InvalidGraphError(
            f"argument `ops`: code {ops[i]} at position {i} is not valid ({bad} bad codes); "
            f"use {INSERT} (insert) or {QUERY} (query). Fix: map the batch's op codes to 0/1.")


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
            raise InvalidGraphError(f"argument `{name}`: cannot convert {type(a).__name__} to "
                                    f"an array ({exc}). Fix: pass a 1-D integer array.") from exc
    if a.ndim == 0:
        a = a.reshape(1)
    if a.ndim != 1:
        raise InvalidGraphError(f"argument `{name}`: expected a 1-D array, got shape "
                                f"{tuple(a.shape)}. Fix: pass a flat array (use .ravel()).")
    return a


def _ids(a: Any, name: str) -> Any:
    a = _array(a, name)
    if a.dtype.kind == "b" or a.dtype.kind not in "iuf":
        raise InvalidGraphError(f"argument `{name}`: vertex ids must be integers, got dtype "
                                f"{a.dtype}. Fix: convert with .astype(numpy.int64).")
    if a.dtype.kind == "f" or a.dtype == np.uint64:  # NaN, fractions, ids beyond int64
        a = check_ids(a, name, None)
    return a if a.dtype in (np.int32, np.int64) else a.astype(np.int64)


def _ops(a: Any) -> Any:
    a = _array(a, "ops")
    if a.dtype.kind == "b" or a.shape[0] == 0:  # an empty list arrives as float64
        return a.astype(np.int8)
    if a.dtype.kind not in "iu":
        raise InvalidGraphError(f"argument `ops`: op codes must be integers (0 insert, 1 "
                                f"query), got dtype {a.dtype}. Fix: pass an int8 array.")
    return a if a.dtype in (np.int8, np.int32, np.int64) else a.astype(np.int64)


def prepare(kind: str, ops: Any, u: Any, v: Any, names: tuple[str, str], device: str) -> Batch:
    """Check shapes and dtypes of a batch and move it to ``device`` (no reduction yet)."""
    like = "gpu" if _is_cupy(u) or (is_torch_tensor(u) and u.is_cuda) else "cpu"
    u, v = _ids(u, names[0]), _ids(v, names[1])
    if u.shape[0] != v.shape[0]:
        raise InvalidGraphError(f"arguments `{names[0]}` and `{names[1]}` differ in length "
                                f"({u.shape[0]} vs {v.shape[0]}). Fix: pass one pair per op.")
    if ops is not None:
        ops = _ops(ops)
        if ops.shape[0] != u.shape[0]:
            raise InvalidGraphError(f"argument `ops`: {ops.shape[0]} codes for {u.shape[0]} "
                                    "pairs. Fix: pass one op code per pair.")
    if u.dtype != v.dtype:
        u, v = u.astype(np.int64), v.astype(np.int64)
    if device == "gpu":
        from .._gpu._compat import cupy_module

        cp = cupy_module()
        u, v = cp.asarray(u), cp.asarray(v)
        ops = None if ops is None else cp.asarray(ops)
    else:
        u, v = to_numpy(u), to_numpy(v)
        ops = None if ops is None else to_numpy(ops)
    return Batch(kind, ops, u, v, names, like)


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
    if isinstance(batch_size, (bool, np.bool_)) or not isinstance(batch_size, (int, np.integer)) \
            or batch_size < 1:
        raise InvalidGraphError(f"argument `batch_size`: expected an int >= 1, got "
                                f"{batch_size!r}. Fix: pass the number of entries per batch "
                                "(the last batch may be shorter).")
    return int(batch_size)


def save_state(path: Any, arrays: dict[str, np.ndarray], **meta: Any) -> None:
    np.savez(path, format_version=np.int64(FORMAT_VERSION), **arrays,
             **{f"meta_{k}": np.asarray(val) for k, val in meta.items()})


def load_state(path: Any) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    from .._shared.state import STATE_ARRAYS

    with np.load(path, allow_pickle=False) as z:
        if "format_version" not in z.files or int(z["format_version"]) != FORMAT_VERSION:
            raise InvalidGraphError(f"argument `path`: {path!r} is not a saved "
                                    f"IncrementalConnectivity (format {FORMAT_VERSION}). Fix: "
                                    "pass a file written by IncrementalConnectivity.save.")
        meta = {k[5:]: z[k].item() for k in z.files if k.startswith("meta_")}
        arrays = {name: z[name] for name in STATE_ARRAYS}
    return meta, arrays
