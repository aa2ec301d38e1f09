"""Parsing of generator spec strings (``"rmat:scale=16,ef=16,seed=1"``) and the suite table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidGraphError

__all__ = ["parse_spec", "suite_args", "SUITE_NAMES"]


def _to_int(text: str) -> int:
    value = float(text) if any(ch in text for ch in ".eE") else int(text, 0)
    if float(value) != int(value):
        raise ValueError(f"{text!r} is not a whole number")
    return int(value)


def _to_number(text: str) -> float | int:
    try:
        return int(text, 0)
    except ValueError:
        return float(text)


def _to_bool(text: str) -> bool:
    low = text.strip().lower()
    if low in ("1", "true", "yes", "on", "y", "t"):
        return True
    if low in ("0", "false", "no", "off", "n", "f"):
        return False
    raise ValueError(f"{text!r} is not a boolean (use 1/0, true/false)")


_COMMON: dict[str, tuple[str, Callable[[str], Any]]] = {
    "seed": ("seed", _to_int),
    "weights": ("weights", str),
    "device": ("device", str),
}
_RMAT = {
    "scale": ("scale", _to_int),
    "ef": ("edge_factor", _to_number),
    "edge_factor": ("edge_factor", _to_number),
    "permute": ("permute", _to_bool),
    "clean": ("clean", _to_bool),
}
_PROBS = {p: (p, float) for p in "abcd"}

# CLI name -> (function in concomp.generators, accepted keys -> (argument, converter))
_GENERATORS: dict[str, tuple[str, dict[str, tuple[str, Callable[[str], Any]]]]] = {
    "rmat": ("rmat", {**_RMAT, **_PROBS}),
    "er": ("erdos_renyi_rmat", _RMAT),
    "cong": ("cong", _RMAT),
    "gnm": ("gnm", {"n": ("n", _to_int), "m": ("m", _to_int), "clean": ("clean", _to_bool)}),
    "grid": (
        "grid",
        {
            "rows": ("rows", _to_int),
            "cols": ("cols", _to_int),
            "torus": ("torus", _to_bool),
            "permute": ("permute", _to_bool),
        },
    ),
    "knn": ("knn_geometric", {"n": ("n", _to_int), "k": ("k", _to_int), "dim": ("dim", _to_int)}),
    "delaunay": ("delaunay", {"n": ("n", _to_int)}),
    "ba": (
        "barabasi_albert",
        {"n": ("n", _to_int), "m": ("m_attach", _to_int), "m_attach": ("m_attach", _to_int)},
    ),
    "suite": ("suite", {"name": ("name", str), "quick": ("quick", _to_bool)}),
}

# spec keys each generator needs
_REQUIRED = {
    "rmat": ("scale",),
    "er": ("scale",),
    "cong": ("scale",),
    "gnm": ("n", "m"),
    "grid": ("rows", "cols"),
    "knn": ("n",),
    "delaunay": ("n",),
    "ba": ("n", "m"),
    "suite": ("name",),
}

# suite name -> (function, full-size args, quick args, keyword args)
_SUITE: dict[str, tuple[str, tuple, tuple, dict]] = {
    "rmat22": ("rmat", (22, 16), (16, 16), {}),
    "er22": ("erdos_renyi_rmat", (22, 16), (16, 16), {}),
    "gridp4k": ("grid", (4096, 4096), (256, 256), {"permute": True}),
    "cong22": ("cong", (22, 16), (16, 16), {}),
}
SUITE_NAMES = tuple(_SUITE)


def _bad(spec: str, what: str, fix: str) -> InvalidGraphError:
    return InvalidGraphError(f"argument `spec`: {what} in {spec!r}; {fix}")


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"name:key=value,..."`` -> (generator function name, keyword arguments)."""
    if not isinstance(spec, str):
        raise InvalidGraphError(
            f"argument `spec`: expected a string, got {type(spec).__name__}."
            " Fix: pass e.g. 'rmat:scale=16'."
        )
    name, _, body = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in _GENERATORS:
        raise _bad(
            spec,
            f"unknown generator {name!r}",
            f"valid generators: {', '.join(_GENERATORS)}. Fix: write e.g. "
            "'rmat:scale=16,ef=16,seed=1'.",
        )
    func, keys = _GENERATORS[name]
    common = {k: v for k, v in _COMMON.items() if not (name == "suite" and k == "weights")}
    allowed = {**keys, **common}
    valid = ", ".join(allowed)
    kwargs: dict[str, Any] = {}
    for item in filter(None, (part.strip() for part in body.split(","))):
        key, eq, text = (part.strip() for part in item.partition("="))
        if not eq:
            if name == "suite" and "name" not in kwargs:
                key, text = "name", key
            else:
                raise _bad(
                    spec,
                    f"item {item!r} is not key=value",
                    f"valid keys for {name}: {valid}. Fix: write {name}:key=value,...",
                )
        if key not in allowed:
            raise _bad(
                spec,
                f"unknown key {key!r} for generator {name!r}",
                f"valid keys for {name}: {valid}. Fix: use one of those.",
            )
        arg, convert = allowed[key]
        try:
            kwargs[arg] = convert(text)
        except ValueError as exc:
            raise _bad(
                spec, f"bad value for {key!r} ({exc})", "Fix: give a number (or 1/0 for flags)."
            ) from None
    missing = [k for k in _REQUIRED[name] if allowed[k][0] not in kwargs]
    if missing:
        raise _bad(
            spec,
            f"generator {name!r} needs {', '.join(missing)}",
            f"valid keys for {name}: {valid}. Fix: add {missing[0]}=...",
        )
    return func, kwargs


def suite_args(name: str, quick: bool) -> tuple[str, tuple, dict]:
    """(function name, positional args, keyword args) of a benchmark graph."""
    if name not in _SUITE:
        raise InvalidGraphError(
            f"argument `name`: unknown benchmark graph {name!r}; valid: "
            f"{', '.join(_SUITE)}. Fix: pass one of those."
        )
    func, full, small, kwargs = _SUITE[name]
    return func, small if quick else full, dict(kwargs)
