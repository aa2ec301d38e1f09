"""The engine interface: what ``_cpu/`` and ``_gpu/`` each implement, with one signature.

An engine is a package (``concomp._cpu``, ``concomp._gpu``) with one module per
capability, named as in :data:`CONTRACT`, each defining the functions and
classes listed there with the signatures of the protocols below. Arrays are the
engine's own (NumPy on the CPU, CuPy on the GPU); a driver receives a
:class:`~concomp.Graph` already on its device and an
:class:`~concomp.options.Options`, and never validates user input.

An engine that lacks a capability says so in its package's ``UNSUPPORTED``
mapping (``"module.name"`` to the reason); :func:`concomp._dispatch.driver`
then raises :class:`~concomp.errors.EngineCapabilityError` with that reason.
``tests/test_engine_mirror.py`` checks that both engines define every name of
the contract with one signature, or declare it unsupported.
"""

from __future__ import annotations

from typing import Any, Protocol

from .graph import Graph
from .options import Options
from .variants import Variant

__all__ = ["CONTRACT", "ENGINE_PACKAGES", "SCC_ALGORITHMS", "IncrementalEngine", "Streamer"]

#: The engine packages, by device name.
ENGINE_PACKAGES = {"cpu": "concomp._cpu", "gpu": "concomp._gpu"}

#: Engine module -> the names every engine defines in it (or declares unsupported).
CONTRACT: dict[str, tuple[str, ...]] = {
    "components": (
        "component_roots",
        "component_count",
        "component_labels",
        "auto_roots",
        "auto_variant",
        "canonical_labels",
        "count_roots",
        "sampling_coverage",
    ),
    "forest": ("spanning_forest_ids", "auto_forest_ids", "records_forest"),
    "msf": ("minimum_spanning_forest_ids", "auto_msf_ids", "msf_ids_by_position"),
    "incremental": ("IncrementalEngine",),
    "streaming": (
        "Streamer",
        "fits_in_memory",
        "components_out_of_core",
        "stream_labels",
        "default_variant",
        "parquet_chunks",
    ),
    "scc": ("strong_component_labels", "scc_labels", "scc_component_labels", "scc_algorithm"),
    "label": ("label_image", "region_stats"),
}

#: Strongly connected component algorithms each engine implements (``algorithm=`` of
#: :func:`concomp.strongly_connected_components`, besides ``"auto"``).
SCC_ALGORITHMS: dict[str, tuple[str, ...]] = {
    "cpu": ("tarjan", "propagation"),
    "gpu": ("propagation", "fwbw"),
}


# --------------------------------------------------------------------------- components
def component_roots(graph: Graph, variant: Variant, options: Options) -> Any:
    """Entry ``v`` is the smallest vertex id of ``v``'s component (the engine's array type)."""
    raise NotImplementedError  # a signature specification, never called


def component_count(graph: Graph, variant: Variant, options: Options) -> int | None:
    """The number of components of ``graph`` under ``variant`` where the engine counts
    them more cheaply than from :func:`component_roots`' roots, else None."""
    raise NotImplementedError


def component_labels(graph: Graph, variant: Variant, options: Options) -> tuple[int, Any] | None:
    """``(count, labels)`` numbered like :func:`canonical_labels` where the engine
    computes them more cheaply than from :func:`component_roots`' roots, else None."""
    raise NotImplementedError


def auto_roots(graph: Graph, options: Options) -> Any:
    """Roots for ``algorithm="auto"`` that the engine gives without running
    :func:`auto_variant`'s variant (the CPU engine: small graphs in NumPy while its
    compiled kernels are not loaded), or None."""
    raise NotImplementedError


def auto_variant(graph: Graph, options: Options, *, forest: bool = False) -> Variant:
    """The variant ``algorithm="auto"`` runs on ``graph`` (``forest``: for a spanning
    forest, which needs a root-based variant)."""
    raise NotImplementedError


def canonical_labels(roots: Any) -> tuple[int, Any]:
    """``(count, labels)`` numbered like SciPy (by smallest vertex) from root labels."""
    raise NotImplementedError


def count_roots(roots: Any) -> int:
    """Number of components in root labels (entries with ``roots[v] == v``)."""
    raise NotImplementedError


def sampling_coverage(graph: Graph, variant: Variant, options: Options) -> dict[str, float]:
    """How much of ``graph`` the sampler of a sampled union-find ``variant`` covers
    (GConn's Table 3): ``coverage``, the share of vertices carrying the most frequent
    label after sampling (the finish skips their rows); ``inter_component``, the share
    of CSR entries (self loops left out) whose endpoints carry different labels then
    (what the finish must still unite); ``k0``, the leading entries of every row the
    sampler covered."""
    raise NotImplementedError


# --------------------------------------------------------------------------- forest, msf
def spanning_forest_ids(graph: Graph, variant: Variant, options: Options) -> tuple[Any, int]:
    """``(ascending int64 input edge ids of a spanning forest, number of components)``."""
    raise NotImplementedError


def auto_forest_ids(graph: Graph, options: Options) -> tuple[Any, int] | None:
    """A spanning forest for ``algorithm="auto"`` (as :func:`spanning_forest_ids` returns
    one) that the engine gives without running its auto variant (the CPU engine: small
    graphs in NumPy while its compiled kernels are not loaded), or None."""
    raise NotImplementedError


def records_forest(variant: Variant) -> bool:
    """Whether this engine's run of ``variant`` records a spanning forest (see
    :meth:`concomp._rules.UnionRule.records_forest` and :data:`concomp._rules.FOREST_FAMILIES`)."""
    raise NotImplementedError


def minimum_spanning_forest_ids(
    graph: Graph, algorithm: str, maximum: bool, options: Options
) -> Any:
    """Input edge ids of the minimum (maximum) spanning forest under the tie rule
    (weight, min(u, v), max(u, v), edge id); ``algorithm`` is "boruvka", "prim" or
    "kruskal"."""
    raise NotImplementedError


def auto_msf_ids(graph: Graph, maximum: bool, options: Options) -> Any:
    """The forest :func:`minimum_spanning_forest_ids` returns, for ``algorithm="auto"``,
    given without the engine's compiled kernels (the CPU engine: small graphs in NumPy
    while its kernels are not loaded), or None."""
    raise NotImplementedError


def msf_ids_by_position(src: Any, dst: Any, weights: Any, n: int) -> Any:
    """Ascending positions of the minimum spanning forest of the edges ``(src, dst)``
    under SciPy's tie rule (weight, then position), as ``concomp.csgraph`` promises."""
    raise NotImplementedError


# --------------------------------------------------------------------------- streaming, scc
def fits_in_memory(graph: Graph, max_device_bytes: int | None, options: Options) -> bool:
    """Whether the engine can hold ``graph`` whole (else it streams it)."""
    raise NotImplementedError


def components_out_of_core(
    graph: Graph, variant: Variant | None, max_device_bytes: int | None, options: Options
) -> Any:
    """Root labels of a host graph too large for the engine, streamed through it in chunks."""
    raise NotImplementedError


def stream_labels(roots: Any, max_device_bytes: int | None, to_host: bool) -> tuple[int, Any]:
    """``(count, canonical labels)`` of a stream's roots within the memory budget; ``to_host``
    returns NumPy labels."""
    raise NotImplementedError


def default_variant() -> Variant:
    """The union-find variant a stream runs with when ``algorithm="auto"``."""
    raise NotImplementedError


def parquet_chunks(name: str, columns: tuple[str, str], opened: Any = None) -> Any:
    """The source and target ``columns`` of the Parquet file ``name`` decoded by the
    engine itself: an iterator of ``(where, src, dst)``, the ids of some row groups (named
    by ``where``) as the engine's arrays, or None where the file is beyond its decoder
    (the caller reads it with pyarrow). ``opened``: the file as a
    ``pyarrow.parquet.ParquetFile`` where the caller has one (its footer is not read
    again)."""
    raise NotImplementedError


def strong_component_labels(indptr: Any, indices: Any) -> tuple[int, Any]:
    """``(count, labels)`` of the strongly connected components of a directed CSR."""
    raise NotImplementedError


def scc_labels(graph: Graph, algorithm: str, options: Options) -> Any:
    """Entry ``v`` is the smallest vertex of ``v``'s strongly connected component (arcs
    ``u -> v`` of a directed graph; both directions of an undirected graph's edges);
    ``algorithm`` is one of :data:`SCC_ALGORITHMS` for this engine, or ``"auto"``."""
    raise NotImplementedError


def scc_component_labels(
    graph: Graph, algorithm: str, options: Options, count_only: bool = False
) -> tuple[int, Any] | None:
    """``(count, labels)`` of the strongly connected components numbered like
    :func:`canonical_labels` where the engine computes them more cheaply than from
    :func:`scc_labels`' roots, else None (arguments as for :func:`scc_labels`); with
    ``count_only``, ``(count, None)`` where the count comes without the labels."""
    raise NotImplementedError


def scc_algorithm(graph: Graph, options: Options) -> str:
    """The strongly connected component algorithm ``algorithm="auto"`` runs on ``graph``."""
    raise NotImplementedError


# --------------------------------------------------------------------------- label
def label_image(
    image: Any, offsets: Any, background: Any, multilabel: bool, out: Any, options: Options
) -> tuple[int, Any]:
    """``(count, labels)`` of a C-contiguous image of 2 or more dimensions on the engine's
    device, under the earlier-neighbour ``offsets`` (NumPy ``(k, ndim)``, see
    :mod:`concomp._shared.grid`): background 0, regions ``1 .. count`` in raster order of
    first appearance. ``out``: None (smallest unsigned dtype), a dtype, or an array to
    fill; :class:`OverflowError` where the count does not fit it."""
    raise NotImplementedError


def region_stats(labels: Any, count: int) -> tuple[Any, Any, Any, Any]:
    """``(sizes, starts, stops, coordinate sums)`` of labels ``1 .. count`` in one pass."""
    raise NotImplementedError


class IncrementalEngine(Protocol):
    """Union-find state over batches of inserts and queries (``concomp.incremental``)."""

    device: str
    capacity: int

    def __init__(self, variant: Variant, capacity: int, dtype: Any, options: Options) -> None: ...

    def resize(self, capacity: int, dtype: Any) -> None: ...

    def state_bytes(self, capacity: int, dtype: Any) -> int: ...

    def memory_limit(self) -> int: ...

    def roots(self, n: int) -> Any: ...

    def forest(self, n: int) -> tuple[Any, Any, Any, Any]: ...

    def export(self, n: int) -> dict[str, Any]: ...

    def restore(self, arrays: dict[str, Any], links: int) -> None: ...

    def bounds(self, ops: Any, u: Any, v: Any) -> tuple[int, int, int]: ...

    def run(self, kind: str, ops: Any, u: Any, v: Any, batch: int) -> Any: ...

    def run_stream(self, kind: str, ops: Any, u: Any, v: Any, first: int, size: int) -> Any: ...

    def find(self, v: Any) -> Any: ...

    def num_links(self) -> int: ...


class Streamer(Protocol):
    """Union-find labels fed one edge chunk at a time (``concomp.stream_components``)."""

    def __init__(
        self,
        num_nodes: int | None,
        variant: Variant,
        options: Options,
        *,
        max_device_bytes: int | None = None,
        index_dtype: Any = None,
        one_way: bool = False,
    ) -> None: ...

    def ensure_nodes(self, n: int) -> None: ...

    def add(self, src: Any, dst: Any, check: Any) -> None: ...

    def add_csr(self, indptr: Any, indices: Any, check: Any) -> None: ...

    def roots(self) -> Any: ...
