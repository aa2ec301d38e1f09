"""Edge weights (:func:`random_weights`, :func:`with_weights`) and the last step of
every generator, :func:`finish_graph` (raw edges -> cleaned, weighted Graph)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._arrays import get_xp, index_dtype_for, is_cupy_array, to_numpy
from .._checks import check_weights
from ..errors import InvalidGraphError
from ..graph import Graph
from . import _xp as _gen_xp
from ._common import derive_keys, resolve_device, xp_for
from ._common import host as _gen_cpu

__all__ = ["random_weights", "with_weights", "finish_graph"]


def random_weights(
    graph_or_m: Graph | int,
    *,
    low: float = 0,
    high: float = 1e6,
    dtype: str = "int",
    seed: Any = 0,
    device: str | None = None,
) -> Any:
    """Reproducible random edge weights, one per edge id.

    For a :class:`~concomp.Graph`, the weight of edge ``(u, v)`` is a hash of
    ``(min(u, v), max(u, v))`` and the seed, so the two stored directions of an
    undirected edge in a symmetric CSR (and repeated edges) get the same weight.
    For a count ``m``, weight ``i`` is a hash of ``i`` and the seed.

    Parameters
    ----------
    graph_or_m : Graph or int
        The graph (weights follow its edge ids) or a number of edges.
    low, high : float
        Range: integers uniform in ``[low, high]`` (both included), or floats
        uniform in ``[low, high)``.
    dtype : {"int", "float"}
        int32 (int64 when the range needs it) or float64.
    seed : int or numpy.random.Generator
        Seed; equal seeds give equal weights.
    device : {"cpu", "gpu", "auto"}, optional
        Where the weights live; default: the graph's device (``"cpu"`` for a count).

    Returns
    -------
    numpy.ndarray or cupy.ndarray

    Examples
    --------
    >>> from concomp.generators import grid, random_weights
    >>> g = grid(2, 2)
    >>> w = random_weights(g, high=9, seed=1)
    >>> g.csr()[1].tolist(), w.tolist()
    ([1, 2, 0, 3, 0, 3, 1, 2], [6, 5, 6, 2, 5, 9, 2, 9])
    """
    as_int, out_dtype, span = _weight_range(low, high, dtype)
    (key,) = derive_keys(seed, "weights")
    if isinstance(graph_or_m, Graph):
        g = graph_or_m
        w = _graph_weights(g, key, low, span, as_int, out_dtype)
    else:
        m = _count(graph_or_m)
        xp = xp_for(resolve_device(device or "cpu"))
        w = _gen_xp.values_from_words(
            xp, _gen_xp.words(xp, key, xp.arange(m, dtype=xp.uint64)), low, span, as_int, out_dtype
        )
    return _move(w, device)


def with_weights(graph: Graph, weights: Any) -> Graph:
    """A copy of ``graph`` (sharing its arrays) with one weight per edge id.

    Weights are validated (length, numeric, no NaN) and moved to the graph's device.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.generators import grid, with_weights
    >>> with_weights(grid(1, 2), np.array([5, 5]))
    Graph(n=2, m=2, undirected, weighted, device='cpu')
    """
    if not isinstance(graph, Graph):
        raise InvalidGraphError(
            f"argument `graph`: expected a concomp.Graph, got "
            f"{type(graph).__name__}. Fix: build one with concomp.as_graph."
        )
    w = check_weights(weights, graph.num_edges)
    w = _move(w, graph.device)
    g = Graph(
        graph.num_nodes,
        src=graph._src,
        dst=graph._dst,
        indptr=graph._indptr,
        indices=graph._indices,
        weights=w,
        directed=graph.directed,
        symmetric=graph.symmetric,
    )
    g._coo_to_csr, g._ucsr = graph._coo_to_csr, graph._ucsr
    return g


def finish_graph(
    xp: Any, src: Any, dst: Any, n: int, clean: bool, weights: Any, weight_key: int
) -> Graph:
    """Raw edges -> Graph: the symmetric CSR when ``clean``, then the requested weights
    (``None``, ``"int"``/``"float"`` for :func:`random_weights`, or an array)."""
    if clean:
        dt = index_dtype_for(n, 2 * max(1, 2 * src.shape[0]))
        if xp is np:
            indptr, indices = _gen_cpu.symmetric_csr(src, dst, n, dt)
        else:
            indptr, indices = _gen_xp.symmetric_csr(xp, src, dst, n, dt)
        g = Graph.from_csr(indptr, indices, n, symmetric=True)
    else:
        g = Graph.from_edges(src, dst, n)
    if weights is None:
        return g
    if isinstance(weights, str):
        return with_weights(g, random_weights(g, dtype=weights, seed=weight_key))
    return with_weights(g, weights)


def _weight_range(low: Any, high: Any, dtype: str) -> tuple[bool, Any, Any]:
    if dtype not in ("int", "float"):
        raise InvalidGraphError(
            f"argument `dtype`: {dtype!r} is not valid; allowed: 'int', "
            "'float'. Fix: pass one of those."
        )
    ok = (
        all(
            isinstance(x, (int, float, np.integer, np.floating)) and math.isfinite(x)
            for x in (low, high)
        )
        and low <= high
    )
    if dtype == "int":
        ok = ok and float(low).is_integer() and float(high).is_integer()
    if not ok:
        raise InvalidGraphError(
            f"arguments `low, high`: ({low!r}, {high!r}) is not a valid {dtype} range; need "
            f"finite numbers with low <= high{' and whole values' if dtype == 'int' else ''}. "
            "Fix: pass e.g. low=0, high=1e6."
        )
    if dtype == "float":
        return False, np.float64, float(high) - float(low)
    lo, hi = int(low), int(high)
    fits = -(2**31) <= lo and hi < 2**31
    return True, np.int32 if fits else np.int64, hi - lo + 1


def _count(m: Any) -> int:
    if isinstance(m, (bool, np.bool_)) or not isinstance(m, (int, np.integer)) or m < 0:
        raise InvalidGraphError(
            f"argument `graph_or_m`: expected a Graph or an edge count >= 0,"
            f" got {m!r}. Fix: pass a concomp.Graph or an int."
        )
    return int(m)


def _graph_weights(g: Graph, key: int, low: Any, span: Any, as_int: bool, dtype: Any) -> Any:
    lo = int(low) if as_int else float(low)
    if g.device == "cpu":
        out = np.empty(g.num_edges, dtype=dtype)
        if g._src is None:  # built from CSR: entries are edge ids, rows give the sources
            _gen_cpu.pair_weights_csr(np.uint64(key), g._indptr, g._indices, lo, span, as_int, out)
        else:
            _gen_cpu.pair_weights_coo(np.uint64(key), g._src, g._dst, lo, span, as_int, out)
        return out
    src, dst = g.coo()
    return _gen_xp.pair_weights(get_xp(src), key, src, dst, lo, span, as_int, dtype)


def _move(w: Any, device: str | None) -> Any:
    if device is None:
        return w
    device = resolve_device(device)
    if device == "cpu":
        return to_numpy(w)
    if is_cupy_array(w):
        return w
    return xp_for("gpu").asarray(w)
