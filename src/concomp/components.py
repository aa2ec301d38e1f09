"""Static connected components: the public functions.

Layers: public function -> :func:`concomp.as_graph` (validation) -> dispatch
(cpu / gpu) -> engine driver (``_cpu.components`` / ``_gpu.components``).
Connectivity is weak: edge directions are ignored.
"""

from __future__ import annotations

import logging
from typing import Any, Literal, overload

from ._arrays import get_xp, is_cupy_array, to_numpy
from ._arrays import to_device as _on_device
from ._dispatch import choose_device, driver
from ._input import as_graph
from .errors import InvalidGraphError, InvalidVariantError
from .graph import Graph
from .options import Options, resolve_options
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
    CuPy for the GPU engine). A host graph that the chosen engine cannot hold
    whole (on the GPU: edges beyond ``max_device_bytes``, default the free
    device memory) is streamed through it in chunks (:func:`concomp.stream_components`).
    """
    g = as_graph(graph)
    opts = resolve_options(options)
    dev = choose_device(g, device, what="connected_components")
    variant = resolve_variant(algorithm)
    if g.device != dev and not driver(dev, "streaming", "fits_in_memory")(
        g, max_device_bytes, opts
    ):
        log.debug("edges exceed the %s engine's memory budget: streaming them in chunks", dev)
        return driver(dev, "streaming", "components_out_of_core")(
            g, variant, max_device_bytes, opts
        )
    if variant is None:
        variant = driver(dev, "components", "auto_variant")(g, opts)
        log.debug("algorithm=auto -> %s on %s", variant, dev)
    elif not variant.supported_on(dev):
        raise InvalidVariantError(
            f"algorithm={str(variant)!r} is not implemented by the {dev} engine; choose one of "
            f"concomp.all_variants(device={dev!r}) or device='gpu'."
        )
    return driver(dev, "components", "component_roots")(
        g if dev == g.device else g.to(dev), variant, opts
    )


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


def _place(labels: Any, like: Graph | Any, to_device: str | None) -> Any:
    """Return labels where the caller's data lives, or where ``to_device`` says."""
    _check_output_device(to_device)
    want = to_device or (like.device if isinstance(like, Graph) else _device_of(like))
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
) -> tuple[int, Any]: ...


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
) -> tuple[int, Any] | int: ...


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
) -> tuple[int, Any] | int:
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

    Returns
    -------
    n_components : int
    labels : ndarray
        int32 (int64 when ``n`` needs it), NumPy or CuPy like the input.

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.connected_components((np.array([0, 3]), np.array([1, 4])), num_nodes=6)
    (4, array([0, 0, 1, 2, 2, 3], dtype=int32))
    >>> concomp.connected_components(np.array([[0, 2]]), return_labels=False)
    2

    References
    ----------
    Sutton, Ben-Nun, Barak: Afforest (k-out sampling); Hong, Dhulipala, Shun:
    GConn. Both in ``../shared/papers/``.
    """
    g = as_graph(graph, num_nodes, with_weights=False)
    _check_output_device(output_device)  # before the run, not after it
    roots = component_roots(
        g, device=device, algorithm=algorithm, max_device_bytes=max_device_bytes, options=options
    )
    dev = _device_of(roots)
    if canonical:
        count, labels = driver(dev, "components", "canonical_labels")(roots)
    else:
        count, labels = driver(dev, "components", "count_roots")(roots), roots
    if not return_labels:
        return count
    return count, _place(labels, g, output_device)


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

    Examples
    --------
    >>> import numpy as np, concomp
    >>> concomp.largest_component((np.array([0, 3, 4]), np.array([1, 4, 5]))).tolist()
    [3, 4, 5]
    """
    count, labels = connected_components(graph, **kwargs)
    xp = get_xp(labels)
    if count == 0:
        return xp.zeros(0, dtype=labels.dtype)
    sizes = xp.bincount(labels, minlength=count)
    best = int(xp.argmax(sizes))
    return xp.flatnonzero(labels == best).astype(labels.dtype)
