"""Static connected components: the public functions.

Layers: public function -> :func:`concomp.as_graph` (validation) -> dispatch
(cpu / gpu) -> engine driver (``_cpu.components`` / ``_gpu.components``).
Connectivity is weak: edge directions are ignored.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, Literal, overload

from ._arrays import get_xp, is_cupy_array, is_cupy_sparse, is_torch_tensor, to_numpy
from ._arrays import to_device as _on_device
from ._dispatch import HOST_STREAM_MIN_EDGES, choose_device, driver
from ._host_input import host_route
from ._input import as_graph
from ._validate import _is_scipy_sparse
from .errors import InvalidGraphError, InvalidVariantError
from .graph import Graph
from .options import Options, resolve_options
from .results import ComponentLabels
from .streaming import host_roots, streams
from .variants import Variant, resolve_variant

log = logging.getLogger("concomp")

__all__ = [
    "connected_components",
    "number_connected_components",
    "component_sizes",
    "largest_component",
    "component_roots",
    "canonical_labels",
]


def component_roots(
    graph: Any,
    *,
    device: str = "auto",
    algorithm: Any = "auto",
    max_device_bytes: int | None = None,
    options: Options | None = None,
) -> Any:
    """Raw root labels: entry ``v`` is the smallest vertex id in ``v``'s component.

    Arrays stay on the device that computed them (NumPy for the CPU engine,
    CuPy for the GPU engine). Host data run on the GPU go through the streaming
    pipeline (:func:`concomp.stream_components`): edges cross the bus once, in
    pinned chunks that overlap the kernels, checked as they are staged. So does
    a host graph whose edges the device cannot hold whole (beyond
    ``max_device_bytes``, default the free device memory).
    """
    return _roots(graph, None, device, algorithm, max_device_bytes, options, False).roots


@dataclass(frozen=True)
class _Found:
    """What one run gave: root labels, or, where the engine answers more cheaply without
    them, the count alone or canonical labels with their count."""

    node_ids: Any  #: the input's id of each vertex, or None where vertex i is id i
    roots: Any = None
    count: int | None = None
    labels: Any = None  #: canonical, numbered by the engine


def _roots(
    graph: Any,
    num_nodes: int | None,
    device: str,
    algorithm: Any,
    max_device_bytes: int | None,
    options: Options | None,
    renumber: str | bool,
    answer: str = "roots",
) -> _Found:
    """Root labels and the vertex ids they index. With ``answer="count"`` the count
    alone instead, where the engine counts without roots (``component_count``); with
    ``answer="labels"``, canonical labels and their count instead, where the engine
    numbers them without roots (``component_labels``)."""
    opts = resolve_options(options)
    variant = resolve_variant(algorithm)
    route = host_route(
        graph,
        num_nodes,
        renumber,
        device,
        what="connected_components",
        min_edges=HOST_STREAM_MIN_EDGES,
    )
    if route is not None and route.device == "gpu" and streams(variant, "gpu"):
        log.debug("host edges on the GPU: streamed through pinned chunks")
        return _Found(None, roots=host_roots(route.edges, variant, max_device_bytes, opts))
    if route is not None and route.edges.src is not None and _is_scipy_sparse(graph):
        # a SciPy COO matrix: components need its pairs only, not the CSR (duplicates
        # summed by a sort per row) that numbers edges for the calls reporting edge ids
        e = route.edges
        g = Graph.from_edges(e.src, e.dst, num_nodes=graph.shape[0])
    else:
        g = as_graph(graph, num_nodes, with_weights=False, renumber=renumber)
    dev = choose_device(g, device, what="connected_components")
    if g.device != dev and (
        streams(variant, dev)
        or not driver(dev, "streaming", "fits_in_memory")(g, max_device_bytes, opts)
    ):
        # a host graph: streaming overlaps the transfer with the kernels, and holds
        # only the labels on the device
        log.debug("host graph on the %s engine: its edges stream in chunks", dev)
        roots = driver(dev, "streaming", "components_out_of_core")(
            g, variant, max_device_bytes, opts
        )
        return _Found(g.node_ids, roots=roots)
    if g.device != dev:
        g = g.to(dev)
    if variant is None:
        roots = driver(dev, "components", "auto_roots")(g, opts)
        if roots is not None:
            log.debug("algorithm=auto -> the %s engine's roots without its compiled kernels", dev)
            return _Found(g.node_ids, roots=roots)
        variant = driver(dev, "components", "auto_variant")(g, opts)
        log.debug("algorithm=auto -> %s on %s", variant, dev)
    elif not variant.supported_on(dev):
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} is not implemented by the {dev} engine; choose one of "
            f"concomp.all_variants(device={dev!r}) or device='gpu'."
        )
    if answer == "count":
        count = driver(dev, "components", "component_count")(g, variant, opts)
        if count is not None:
            return _Found(g.node_ids, count=count)
    elif answer == "labels":
        numbered = driver(dev, "components", "component_labels")(g, variant, opts)
        if numbered is not None:
            return _Found(g.node_ids, count=numbered[0], labels=numbered[1])
    roots = driver(dev, "components", "component_roots")(g, variant, opts)
    return _Found(g.node_ids, roots=roots)


def canonical_labels(roots: Any) -> tuple[int, Any]:
    """SciPy's numbering from root labels: components ordered by their smallest vertex."""
    return driver(_device_of(roots), "components", "canonical_labels")(roots)


def _device_of(a: Any) -> str:
    return "gpu" if is_cupy_array(a) else "cpu"


def _check_output_device(to_device: Any) -> None:
    if to_device is not None and to_device not in ("cpu", "gpu"):
        raise InvalidGraphError(
            f"argument `output_device`: {to_device!r} is not valid; use "
            "'cpu', 'gpu' or None (where the input lives). Fix: pass one "
            "of those."
        )


def _data_device(graph: Any) -> str:
    """Where the caller's graph data live: ``"gpu"`` for CuPy data, device torch
    tensors and device Graphs, else ``"cpu"``."""
    if isinstance(graph, Graph):
        return graph.device
    if is_cupy_array(graph) or is_cupy_sparse(graph):
        return "gpu"
    if is_torch_tensor(graph):
        return "gpu" if graph.is_cuda else "cpu"
    if isinstance(graph, tuple) and graph:
        return _data_device(graph[0])
    return "cpu"


def _place(labels: Any, want: str) -> Any:
    """Return labels on ``want`` (``"cpu"`` or ``"gpu"``)."""
    if want == "cpu":
        return to_numpy(labels)
    return _on_device(labels)


@overload
def connected_components(
    graph: Any,
    *,
    device: str = ...,
    algorithm: str | Variant = ...,
    return_labels: Literal[True] = ...,
    canonical: bool = ...,
    num_nodes: int | None = ...,
    output_device: str | None = ...,
    max_device_bytes: int | None = ...,
    options: Options | None = ...,
    renumber: str | bool = ...,
) -> ComponentLabels: ...


@overload
def connected_components(
    graph: Any,
    *,
    device: str = ...,
    algorithm: str | Variant = ...,
    return_labels: Literal[False],
    canonical: bool = ...,
    num_nodes: int | None = ...,
    output_device: str | None = ...,
    max_device_bytes: int | None = ...,
    options: Options | None = ...,
    renumber: str | bool = ...,
) -> int: ...


@overload
def connected_components(
    graph: Any,
    *,
    device: str = ...,
    algorithm: str | Variant = ...,
    return_labels: bool = ...,
    canonical: bool = ...,
    num_nodes: int | None = ...,
    output_device: str | None = ...,
    max_device_bytes: int | None = ...,
    options: Options | None = ...,
    renumber: str | bool = ...,
) -> ComponentLabels | int: ...


def connected_components(
    graph: Any,
    *,
    device: str = "auto",
    algorithm: str | Variant = "auto",
    return_labels: bool = True,
    canonical: bool = True,
    num_nodes: int | None = None,
    output_device: str | None = None,
    max_device_bytes: int | None = None,
    options: Options | None = None,
    renumber: str | bool = "auto",
) -> ComponentLabels | int:
    """Weakly connected components of any graph-like input.

    Parameters
    ----------
    graph : graph-like
        Anything :func:`concomp.as_graph` accepts: edge arrays, ``(2, m)``
        arrays, SciPy sparse, data frames, NetworkX graphs, CuPy / torch data,
        file paths, or a :class:`concomp.Graph`.
    device : {"auto", "cpu", "gpu"}
        Engine. ``"auto"`` (or the ``CONCOMP_DEVICE`` environment variable)
        uses the GPU for data already there or for large graphs when one is
        usable. ``"gpu"`` raises :class:`~concomp.DeviceUnavailableError` when
        it cannot run.
    algorithm : str or Variant
        ``"auto"``, a preset (``"afforest"``, ``"rem"``, ...) or a variant string
        such as ``"kout-async-halve-csr"`` (see :mod:`concomp.variants`).
    return_labels : bool
        As in SciPy: when False only the count is returned.
    canonical : bool
        True numbers components like SciPy (by their smallest vertex, from 0);
        False returns raw root labels (the smallest vertex id of each component).
    num_nodes : int, optional
        Vertex count for edge-list input (default max id + 1).
    output_device : {"cpu", "gpu"}, optional
        Where the labels go; default where the input lives.
    max_device_bytes : int, optional
        GPU only: device memory the run may take. A host graph whose edges do
        not fit streams its edges through the device in chunks (the labels must
        fit); default the free device memory.
    options : concomp.options.Options, optional
        Engine settings (default: the measured defaults).
    renumber : {"auto", True, False}
        Whether vertex ids are renumbered to dense positions first (strings,
        objects, negative or sparse 64-bit ids; the rule is under
        :func:`concomp.as_graph`). The ids then come back as ``node_ids``.

    Returns
    -------
    ComponentLabels
        The pair ``(n_components, labels)`` (a tuple): ``labels`` int32 (int64
        when ``n`` needs it), NumPy or CuPy like the input, one per vertex.
        Its ``node_ids`` is None when vertex ``i`` is the id ``i``, else the
        input's id of each vertex (``labels[i]`` belongs to ``node_ids[i]``).
        ``return_labels=False`` returns the count alone.

    Raises
    ------
    InvalidGraphError
        Bad ids, shapes, dtypes or counts (the message names the argument, the value
        and the fix), among them vertex counts beyond 2**62 or beyond what the
        host's memory holds at one label per vertex.
    DeviceMemoryError
        On the GPU, before anything is allocated: the run needs more than the
        device's total memory (or, found by CuPy's allocator, than is free).
    DeviceUnavailableError
        ``device="gpu"`` where no GPU is usable.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.connected_components((np.array([0, 3]), np.array([1, 4])), num_nodes=6)
    (4, array([0, 0, 1, 2, 2, 3], dtype=int32))
    >>> concomp.connected_components(np.array([[0, 2]]), return_labels=False)
    2

    Ids of any kind are renumbered and kept:

    >>> res = concomp.connected_components(np.array([[10**12, -7], [42, 43], [5, 42]]))
    >>> res.labels.tolist(), res.node_ids.tolist()
    ([0, 1, 1, 1, 0], [-7, 5, 42, 43, 1000000000000])

    References
    ----------
    Sutton, Ben-Nun, Barak: Afforest (k-out sampling); Hong, Dhulipala, Shun:
    GConn. Both in ``../shared/papers/``.
    """
    _check_output_device(output_device)  # before the run, not after it
    found = _roots(
        graph, num_nodes, device, algorithm, max_device_bytes, options, renumber,
        answer="count" if not return_labels else "labels" if canonical else "roots",
    )  # fmt: skip
    roots, node_ids = found.roots, found.node_ids
    if roots is None:  # the engine counted, or numbered the labels, without roots
        assert found.count is not None
        if found.labels is None:
            return found.count
        want = output_device or _data_device(graph)
        labels = _place(found.labels, want)
        return ComponentLabels(found.count, labels, _place_ids(node_ids, want), True)
    want = output_device or _data_device(graph)
    dev = _device_of(roots)
    if not return_labels:  # the count alone: no labels to number
        return driver(dev, "components", "count_roots")(roots)
    if canonical and dev == "gpu" and want == "cpu":
        # labels for the host: relabel on the device, come back through pinned buffers
        count, labels = driver(dev, "streaming", "stream_labels")(roots, max_device_bytes, True)
        return ComponentLabels(count, labels, _place_ids(node_ids, want))
    if canonical:
        count, labels = driver(dev, "components", "canonical_labels")(roots)
    else:
        count, labels = driver(dev, "components", "count_roots")(roots), roots
    return ComponentLabels(count, _place(labels, want), _place_ids(node_ids, want), canonical)


def _place_ids(node_ids: Any, want: str) -> Any:
    """Vertex ids beside the labels; strings and objects stay on the host."""
    if node_ids is None or node_ids.dtype.kind == "O":
        return node_ids
    return _place(node_ids, want)


def number_connected_components(graph: Any, **kwargs: Any) -> int:
    """Number of weakly connected components (isolated vertices count).

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.number_connected_components(np.array([[0, 1], [2, 3]]))
    2
    """
    return connected_components(graph, return_labels=False, **kwargs)


def component_sizes(graph: Any, **kwargs: Any) -> Any:
    """Size of each component, indexed by the canonical (SciPy) label.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.component_sizes((np.array([0, 1]), np.array([1, 2])), num_nodes=5).tolist()
    [3, 1, 1]
    """
    kwargs["canonical"] = True  # sizes are indexed by the canonical label
    count, labels = connected_components(graph, **kwargs)
    xp = get_xp(labels)
    return xp.bincount(labels, minlength=count)


def largest_component(graph: Any, **kwargs: Any) -> Any:
    """Sorted vertex ids of the largest component (ties: the lowest label wins).

    Renumbered input (see :func:`connected_components`) gives the input's ids.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.largest_component((np.array([0, 3, 4]), np.array([1, 4, 5]))).tolist()
    [3, 4, 5]
    >>> concomp.largest_component((np.array(["x", "y"]), np.array(["y", "x"]))).tolist()
    ['x', 'y']
    """
    res = connected_components(graph, **kwargs)
    count, labels = res
    if res.node_ids is not None:
        return res.components("size")[0] if count else res.node_ids[:0]
    xp = get_xp(labels)
    if count == 0:
        return xp.zeros(0, dtype=labels.dtype)
    sizes = xp.bincount(labels, minlength=count)
    best = int(xp.argmax(sizes))
    return xp.flatnonzero(labels == best).astype(labels.dtype)
