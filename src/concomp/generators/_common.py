"""Seeds, devices, argument checks and the permutation shared by the generator modules."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._dispatch import resolve_device as _resolve
from ..errors import InvalidGraphError
from . import _xp as _gen_xp


class _HostKernels:
    """The numba kernels of :mod:`concomp.generators._host`, imported on first use, so
    that importing the generators loads no numba."""

    def __getattr__(self, name: str) -> Any:
        from . import _host

        return getattr(_host, name)


host = _HostKernels()
_gen_cpu = host

__all__ = ["derive_keys", "resolve_device", "xp_for", "int_arg", "permutation"]

_MASK64 = (1 << 64) - 1
# one independent random stream per purpose, so that e.g. adding weights or a
# permutation never changes the edges drawn from the same seed
_STREAMS = {"rmat": 1, "perm": 2, "gnm": 3, "points": 4, "ba": 5, "weights": 6, "tree": 7}


def derive_keys(seed: Any, *streams: str) -> list[int]:
    """64-bit keys for the named streams from an int seed or a NumPy ``Generator``.

    A ``Generator`` is advanced by one draw, so consecutive calls differ but replay
    identically from the same generator state.
    """
    if isinstance(seed, np.random.Generator):
        base = int(seed.integers(0, 2**63, dtype=np.int64))
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, (bool, np.bool_)):
        base = int(seed) & _MASK64
    else:
        raise InvalidGraphError(
            f"argument `seed`: expected an int or numpy.random.Generator, "
            f"got {seed!r}. Fix: pass e.g. seed=0."
        )
    root = _gen_xp.mix64_int(base)
    return [_gen_xp.mix64_int(root ^ _gen_xp.mix64_int(_STREAMS[s] << 32)) for s in streams]


def resolve_device(device: str) -> str:
    """``"cpu"`` or ``"gpu"`` (see :func:`concomp._dispatch.resolve_device`): ``"auto"``
    picks a usable GPU, whatever the size, since generated data is born there."""
    return _resolve(device, data_device="cpu", num_edges=None, what="generator")


def xp_for(device: str) -> Any:
    """NumPy for ``"cpu"``; CuPy for ``"gpu"`` (raising ``DeviceUnavailableError`` if absent)."""
    if device == "cpu":
        return np
    from .._gpu._compat import cupy_or_raise

    return cupy_or_raise()


def int_arg(name: str, value: Any, lo: int, hi: int) -> int:
    """``value`` as an int in ``[lo, hi]``, else :class:`InvalidGraphError` saying so."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise InvalidGraphError(
            f"argument `{name}`: expected an int, got {value!r}. Fix: pass "
            f"an integer in [{lo}, {hi}]."
        )
    if not lo <= value <= hi:
        raise InvalidGraphError(
            f"argument `{name}`: {value} is outside [{lo}, {hi}]. Fix: pass a value in that range."
        )
    return int(value)


def permutation(xp: Any, key: int, n: int, dtype: Any) -> Any:
    """Keyed random permutation of ``[0, n)``: a Feistel bijection, so it needs no sort
    and is the same on every device."""
    bits = max(2, (n - 1).bit_length() if n > 1 else 0)
    half = (bits + 1) // 2
    if xp is np:
        out = np.empty(n, dtype=dtype)
        _gen_cpu.feistel_permutation(np.uint64(key), n, half, out)
        return out
    return _gen_xp.feistel_permutation(xp, key, n, half, dtype)
