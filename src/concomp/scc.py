"""Strongly connected components: the public functions.

Layers: public function -> :func:`concomp.as_graph` (validation) -> dispatch
(cpu / gpu) -> engine driver (``_cpu.scc`` / ``_gpu.scc``). The engines return
root labels (each vertex's smallest strongly connected vertex); this module
numbers them like the weak components' canonical labels and builds the
condensation.

Direction: an arc ``(u, v)`` of an edge list, a ``(2, m)`` / ``(m, 2)`` array,
a data frame or a sparse matrix entry ``A[u, v]`` goes from ``u`` to ``v``.
A :class:`~concomp.Graph`, a NetworkX graph or a graph file keeps the direction
it declares; the edges of an undirected one go both ways (its strongly connected
components are then its connected components).
"""

from __future__ import annotations

import logging
import os
from typing import Any, Literal, NamedTuple, overload

from ._arrays import get_xp
from ._dispatch import choose_device, driver
from ._engine import SCC_ALGORITHMS
from ._input import as_graph
from .components import _check_output_device, _data_device, _place, _place_ids
from .errors import InvalidGraphError, InvalidVariantError
from .graph import Graph
from .options import Options, resolve_options
from .results import ComponentLabels

log = logging.getLogger("concomp")

__all__ = ["Condensation", "condensation", "is_strongly_connected", "strongly_connected_components"]


class Condensation(NamedTuple):
    """The condensation of a directed graph (see :func:`condensation`)."""

    #: Directed graph on the components ``0 .. k-1``: one arc ``a -> b`` for every pair
    #: of distinct components joined by at least one input arc, ascending, no self loops.
    graph: Graph
    #: Component of each vertex (the canonical labels of
    #: :func:`strongly_connected_components`), on the device that computed them.
    labels: Any
    #: The input's id of each vertex where it was renumbered, else None.
    node_ids: Any = None


def _declares_direction(graph: Any) -> bool:
    """Whether the input says itself if it is directed (a Graph, a NetworkX graph, a file)."""
    return isinstance(graph, (Graph, str, bytes, os.PathLike)) or callable(
        getattr(graph, "is_directed", None)
    )


def _directed_graph(graph: Any, num_nodes: int | None, renumber: str | bool) -> Graph:
    directed = None if _declares_direction(graph) else True
    return as_graph(graph, num_nodes, directed=directed, with_weights=False, renumber=renumber)


def _check_algorithm(algorithm: Any, dev: str) -> str:
    mine = SCC_ALGORITHMS[dev]
    if not isinstance(algorithm, str) or algorithm.lower() not in ("auto", *mine):
        other = "gpu" if dev == "cpu" else "cpu"
        hint = (
            f" (it runs on the {other} engine: pass device={other!r})"
            if isinstance(algorithm, str) and algorithm.lower() in SCC_ALGORITHMS[other]
            else ""
        )
        raise InvalidVariantError(
            f"argument `algorithm`: {algorithm!r} is not a strongly connected component "
            f"algorithm of the {dev} engine{hint}. Fix: pass 'auto' or one of {mine}."
        )
    return algorithm.lower()


def _prepared(
    graph: Any,
    num_nodes: int | None,
    device: str,
    algorithm: Any,
    options: Options | None,
    renumber: str | bool,
) -> tuple[str, Graph, Graph, str, Options]:
    """``(device, validated graph, the graph on that device, algorithm, options)``."""
    opts = resolve_options(options)
    g = _directed_graph(graph, num_nodes, renumber)
    dev = choose_device(g, device, what="strongly_connected_components")
    algo = _check_algorithm(algorithm, dev)
    return dev, g, (g if g.device == dev else g.to(dev)), algo, opts


def _numbered(
    prepared: tuple[str, Graph, Graph, str, Options], count_only: bool = False
) -> tuple[int, Any]:
    """``(count, canonical labels)`` of a :func:`_prepared` run, labels on the engine's
    device: from the engine at once where it numbers them itself, else from its root
    labels (with ``count_only``, the labels may be None where they would cost more)."""
    dev, _, run, algo, opts = prepared
    found = driver(dev, "scc", "scc_component_labels")(run, algo, opts, count_only)
    if found is not None:
        return found[0], found[1]
    roots = driver(dev, "scc", "scc_labels")(run, algo, opts)
    if count_only:
        return int(driver(dev, "components", "count_roots")(roots)), None
    count, labels = driver(dev, "components", "canonical_labels")(roots)
    return count, labels


@overload
def strongly_connected_components(
    graph: Any,
    *,
    device: str = ...,
    algorithm: str = ...,
    return_labels: Literal[True] = ...,
    canonical: bool = ...,
    num_nodes: int | None = ...,
    output_device: str | None = ...,
    options: Options | None = ...,
    renumber: str | bool = ...,
) -> ComponentLabels: ...


@overload
def strongly_connected_components(
    graph: Any,
    *,
    device: str = ...,
    algorithm: str = ...,
    return_labels: Literal[False],
    canonical: bool = ...,
    num_nodes: int | None = ...,
    output_device: str | None = ...,
    options: Options | None = ...,
    renumber: str | bool = ...,
) -> int: ...


@overload
def strongly_connected_components(
    graph: Any,
    *,
    device: str = ...,
    algorithm: str = ...,
    return_labels: bool = ...,
    canonical: bool = ...,
    num_nodes: int | None = ...,
    output_device: str | None = ...,
    options: Options | None = ...,
    renumber: str | bool = ...,
) -> ComponentLabels | int: ...


def strongly_connected_components(
    graph: Any,
    *,
    device: str = "auto",
    algorithm: str = "auto",
    return_labels: bool = True,
    canonical: bool = True,
    num_nodes: int | None = None,
    output_device: str | None = None,
    options: Options | None = None,
    renumber: str | bool = "auto",
) -> ComponentLabels | int:
    """Strongly connected components: ``u`` and ``v`` share one when each reaches the other.

    Parameters
    ----------
    graph : graph-like
        Anything :func:`concomp.as_graph` accepts (see the module notes for which
        way the arcs go). Self loops and duplicate arcs are allowed.
    device : {"auto", "cpu", "gpu"}
        Engine, chosen as for :func:`concomp.connected_components`.
    algorithm : str
        ``"auto"``; on the CPU ``"tarjan"`` (serial depth-first search, linear)
        or ``"propagation"`` (parallel trimming and min-label propagation); on
        the GPU ``"propagation"`` or ``"fwbw"`` (forward-backward search from a
        pivot, then propagation). See the guide page on strong components for
        how ``auto`` chooses and whose work grows with the diameter.
    return_labels : bool
        When False only the count is returned.
    canonical : bool
        True numbers components by their smallest vertex, from 0 (as the weak
        components' labels); False returns root labels (each vertex's smallest
        strongly connected vertex).
    num_nodes : int, optional
        Vertex count for edge-list input (default max id + 1).
    output_device : {"cpu", "gpu"}, optional
        Where the labels go; default where the input lives.
    options : concomp.options.Options, optional
        Engine settings.
    renumber : {"auto", True, False}
        As for :func:`concomp.connected_components`; the ids come back as ``node_ids``.

    Returns
    -------
    ComponentLabels
        ``(n_components, labels)``, labels int32 (int64 when ``n`` needs it), NumPy
        or CuPy like the input; or the count alone with ``return_labels=False``.

    Raises
    ------
    InvalidGraphError
        Bad ids, shapes, dtypes or counts (the message names the argument and the fix).
    InvalidVariantError
        An ``algorithm`` the chosen engine does not have.
    DeviceUnavailableError
        ``device="gpu"`` where no GPU is usable.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> # 0 -> 1 -> 2 -> 1 and 3 -> 0: {1, 2} is one component, 0 and 3 are alone
    >>> concomp.strongly_connected_components((np.array([0, 1, 2, 3]), np.array([1, 2, 1, 0])))
    (3, array([0, 1, 1, 2], dtype=int32))
    >>> concomp.strongly_connected_components(np.array([[0, 1], [1, 0]]), return_labels=False)
    1

    References
    ----------
    Tarjan (1972); Alabandi, Sands, Biros, Burtscher, "A GPU algorithm for
    detecting strongly connected components", SC'23 (ECL-SCC); Fleischer,
    Hendrickson, Pinar, "On identifying strongly connected components in
    parallel" (forward-backward).
    """
    _check_output_device(output_device)
    prepared = _prepared(graph, num_nodes, device, algorithm, options, renumber)
    dev, g, run, algo, opts = prepared
    if canonical or not return_labels:
        count, labels = _numbered(prepared, count_only=not return_labels)
        if not return_labels:
            return int(count)
    else:
        labels = driver(dev, "scc", "scc_labels")(run, algo, opts)
        count = driver(dev, "components", "count_roots")(labels)
    want = output_device or _data_device(graph)
    return ComponentLabels(count, _place(labels, want), _place_ids(g.node_ids, want), canonical)


def is_strongly_connected(
    graph: Any,
    *,
    device: str = "auto",
    algorithm: str = "auto",
    num_nodes: int | None = None,
    options: Options | None = None,
    renumber: str | bool = "auto",
) -> bool:
    """Whether every vertex reaches every other one.

    Parameters are those of :func:`strongly_connected_components`.

    Raises
    ------
    InvalidGraphError
        The graph has no vertex (strong connectivity is undefined for the null graph,
        as in NetworkX).

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.is_strongly_connected(np.array([[0, 1], [1, 2], [2, 0]]))
    True
    >>> concomp.is_strongly_connected(np.array([[0, 1], [1, 2]]))
    False
    """
    count = strongly_connected_components(
        graph,
        device=device,
        algorithm=algorithm,
        return_labels=False,
        num_nodes=num_nodes,
        options=options,
        renumber=renumber,
    )
    if count == 0:
        raise InvalidGraphError(
            "argument `graph`: it has no vertex, and strong connectivity is undefined for "
            "the null graph. Fix: pass a graph with at least one vertex (num_nodes >= 1)."
        )
    return count == 1


def condensation(
    graph: Any,
    *,
    device: str = "auto",
    algorithm: str = "auto",
    num_nodes: int | None = None,
    options: Options | None = None,
    renumber: str | bool = "auto",
) -> Condensation:
    """The condensation: the directed acyclic graph of the strongly connected components.

    Component ``c`` is vertex ``c`` of the result (numbered as the canonical labels
    of :func:`strongly_connected_components`); an arc ``a -> b`` stands for every
    input arc from a vertex of ``a`` to a vertex of ``b != a``, once. Arrays stay
    on the device that computed them.

    Parameters are those of :func:`strongly_connected_components`.

    Returns
    -------
    Condensation
        ``(graph, labels, node_ids)``: the directed :class:`~concomp.Graph` of the
        components (arcs ascending by ``(a, b)``), the component of each vertex, and
        the input's vertex ids where they were renumbered (else None).

    Examples
    --------
    >>> import numpy as np, concomp
    >>> # two cycles {0, 1} and {2, 3}, joined 1 -> 2 twice, and 4 -> 0
    >>> arcs = np.array([[0, 1], [1, 0], [2, 3], [3, 2], [1, 2], [1, 2], [4, 0]])
    >>> dag, labels, _ = concomp.condensation(arcs)
    >>> dag
    Graph(n=3, m=2, directed, device='cpu')
    >>> labels.tolist(), [a.tolist() for a in dag.coo()]
    ([0, 0, 1, 1, 2], [[0, 2], [1, 0]])
    """
    prepared = _prepared(graph, num_nodes, device, algorithm, options, renumber)
    _, g, run, _, _ = prepared
    count, labels = _numbered(prepared)
    src, dst = run.coo()
    xp = get_xp(labels)
    a = labels[src].astype(xp.int64)
    b = labels[dst].astype(xp.int64)
    cross = a != b
    # one key per component pair: unique sorts them by (a, b) and drops repeats
    keys = xp.unique(a[cross] * count + b[cross])
    dt = labels.dtype
    dag = Graph.from_edges(
        (keys // count).astype(dt), (keys % count).astype(dt), num_nodes=count, directed=True
    )
    return Condensation(dag, labels, g.node_ids)
