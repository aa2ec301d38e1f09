"""Hypothesis strategies shared by the fuzz runs: the CPU's (``test_fuzz.py``) and the
device's (``test_gpu_fuzz.py``).

Hostile input: :func:`id_arrays` draws id arrays of every dtype mixing small ids with
values no engine can index (negative, 2**62, 2**63 - 1, NaN, fractions), and
:data:`NUM_NODES` vertex counts from none to far past any memory; a call on them must
return or raise one of concomp's documented errors (:func:`only_documented`).
Valid input: :func:`graphs` draws small graphs (up to 200 vertices and 600 edges)
with self loops, duplicate edges and isolated vertices, in int32 or int64 ids;
:func:`weights` draws weights with ties, signs and infinities.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from concomp.errors import ConcompError

FUZZ = settings(
    derandomize=True,
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

DTYPES = [
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "float32",
    "float64",
    "bool",
    "object",
]
SPECIAL = [
    -1,
    -(2**63),
    2**31 - 1,
    2**40,
    2**62,
    2**63 - 1,
    2**64 - 1,
    1e19,
    -1e19,
    float("nan"),
    float("inf"),
    0.5,
]


@st.composite
def id_arrays(draw, length: int) -> np.ndarray:
    dtype = draw(st.sampled_from(DTYPES))
    values = draw(
        st.lists(
            st.one_of(st.integers(0, 63), st.sampled_from(SPECIAL)),
            min_size=length,
            max_size=length,
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dtype == "object":
            return np.array(values, dtype=object)
        try:
            return np.array(values).astype(dtype)
        except (OverflowError, ValueError):
            return np.array(
                [v for v in values if isinstance(v, int) and 0 <= v < 64] or [0], dtype=dtype
            )


NUM_NODES = st.one_of(
    st.none(),
    st.integers(0, 80),
    st.sampled_from(
        [-1, 2**40, 2**62 + 1, 2**63 - 1, 2**64 + 1, 1.5, True, np.int64(7), np.uint64(2**63)]
    ),
)


def only_documented(call) -> None:
    """Run ``call``; an exception that is not concomp's own fails the test."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            call()
    except ConcompError:
        pass


class FuzzGraph(NamedTuple):
    """An edge list over the vertices ``0 .. n-1`` (ids of ``src.dtype``)."""

    src: np.ndarray
    dst: np.ndarray
    n: int


@st.composite
def graphs(draw, max_nodes: int = 200, max_edges: int = 600) -> FuzzGraph:
    """A small random graph: endpoints from a drawn span (fewer distinct endpoints make
    duplicate edges, a span below ``n`` leaves isolated vertices), a drawn share of
    self loops, ids optionally scattered by a permutation, int32 or int64 ids."""
    n = draw(st.integers(0, max_nodes))
    m = draw(st.integers(0, max_edges)) if n else 0
    dtype = draw(st.sampled_from(["int32", "int64"]))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    span = draw(st.integers(1, n)) if n else 1
    src, dst = rng.integers(0, span, m), rng.integers(0, span, m)
    loops = rng.random(m) < draw(st.sampled_from([0.0, 0.05, 0.5]))
    dst[loops] = src[loops]
    if n and draw(st.booleans()):
        perm = rng.permutation(n)
        src, dst = perm[src], perm[dst]
    return FuzzGraph(src.astype(dtype), dst.astype(dtype), n)


@st.composite
def weights(draw, m: int) -> np.ndarray:
    """One weight per edge: small integers (many ties), floats of both signs with an
    infinity, or all equal."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    kind = draw(st.sampled_from(["ties", "float", "equal"]))
    if kind == "ties":
        return rng.integers(-3, 4, m).astype(draw(st.sampled_from(["int32", "int64"])))
    if kind == "equal":
        return np.ones(m, dtype=np.float32)
    w = rng.normal(0, 10, m)
    # one infinity per draw: +inf and -inf in one forest would total NaN
    w[rng.random(m) < 0.05] = draw(st.sampled_from([np.inf, -np.inf]))
    return w
