"""Hostile inputs for every entry point, with the documented error each must raise.

The same table serves both engines: :func:`hostile_cases` builds its inputs with the
array module given (NumPy, or CuPy for the GPU; torch tensors where a torch device is
named), so the CPU suite checks the table itself and the GPU suite replays it on the
device, where a missed check would end in a kernel fault rather than an exception.

Sizes "past the memory" are one vertex more than the engine's memory holds at one
label each, so the run is refused before anything is allocated: by the host-memory
check of the vertex count (:class:`~concomp.InvalidGraphError`) where the host
cannot hold that many labels either, else by the GPU drivers' size check
(:class:`~concomp.DeviceMemoryError`).

Examples
--------
>>> import numpy as np
>>> from concomp.testing.hostile import hostile_cases
>>> cases = hostile_cases(np, "cpu")
>>> case = next(c for c in cases if c.name == "cc_negative_id")
>>> case.errors, case.pattern
((<class 'concomp.errors.InvalidGraphError'>,), '`src`: vertex id -1 at position 1 is negative')
>>> case.check()
'InvalidGraphError'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arrays import INT32_MAX, sparse_module
from .._checks import BYTES_PER_NODE, host_memory
from ..components import connected_components
from ..errors import ConcompError, DeviceMemoryError, InvalidGraphError
from ..forest import spanning_forest
from ..graph import Graph
from ..incremental import IncrementalConnectivity
from ..msf import minimum_spanning_forest
from ..streaming import stream_components

__all__ = ["HostileCase", "engine_memory", "hostile_cases", "past_memory"]

BIG = 2**63 - 1
#: Bytes per vertex of the incremental state that the host-memory check of
#: ``IncrementalConnectivity(num_nodes)`` counts.
INCREMENTAL_BYTES_PER_NODE = 28


@dataclass(frozen=True)
class HostileCase:
    """One hostile call and what it must raise.

    Attributes
    ----------
    name : str
        Entry point and input, e.g. ``"incremental_growth_past_memory"``.
    call : callable
        The call, with its inputs built already.
    errors : tuple of exception classes
        The documented errors it may raise (subclasses of ``ConcompError``).
    pattern : str
        A regular expression the message must match (it names the argument or value).
    """

    name: str
    call: Callable[[], Any]
    errors: tuple[type[ConcompError], ...]
    pattern: str

    def check(self) -> str:
        """Run the call; return the name of the error it raised, or raise AssertionError
        (no error, another error, or a message that does not match ``pattern``)."""
        try:
            self.call()
        except self.errors as exc:
            if re.search(self.pattern, str(exc)) is None:
                raise AssertionError(
                    f"{self.name}: {type(exc).__name__} message does not match "
                    f"{self.pattern!r}: {exc}"
                ) from exc
            return type(exc).__name__
        except Exception as exc:
            raise AssertionError(
                f"{self.name}: expected {[e.__name__ for e in self.errors]}, got "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        raise AssertionError(f"{self.name}: returned without raising")


def engine_memory(device: str) -> int:
    """Memory of the engine that runs on ``device``: the GPU's total memory, or the host's."""
    if device == "gpu":
        from .._gpu._compat import device_total_bytes

        return device_total_bytes()
    return host_memory()


def past_memory(memory: int) -> int:
    """The fewest vertices whose labels (int32 while the count fits, else int64) need
    more than ``memory`` bytes.

    Examples
    --------
    >>> past_memory(80 * 2**30) * 8 > 80 * 2**30, past_memory(2**30)
    (True, 268435457)
    """
    n = memory // 8 + 1
    return n if n > INT32_MAX else memory // 4 + 1


def _refused_by(device: str, n: int, host_bytes_per_node: int = BYTES_PER_NODE) -> tuple:
    """The error that refuses ``n`` vertices past the engine's memory: the host check of
    the vertex count where the host cannot hold them, else the GPU size check."""
    if device == "gpu" and n * host_bytes_per_node <= host_memory():
        return (DeviceMemoryError,)
    return (InvalidGraphError,)


def hostile_cases(
    xp: Any, device: str, *, memory: int | None = None, torch_device: str | None = None
) -> list[HostileCase]:
    """The hostile calls of every entry point, inputs built with ``xp`` for ``device``.

    Parameters
    ----------
    xp : module
        ``numpy`` or ``cupy``: the array module of the inputs.
    device : {"cpu", "gpu"}
        The engine every call asks for.
    memory : int, optional
        Bytes of the engine's memory (default :func:`engine_memory`).
    torch_device : str, optional
        Also build torch tensors on this device (``"cuda"``) for the torch cases.

    Returns
    -------
    list of HostileCase
    """
    mem = engine_memory(device) if memory is None else int(memory)
    n_past = past_memory(mem)
    refused = _refused_by(device, n_past)
    sp = sparse_module(xp.zeros(1))

    def a(values: list, dtype: Any = None) -> Any:
        return xp.asarray(np.array(values, dtype=dtype))

    def cc(graph: Any, **kw: Any) -> Callable[[], Any]:
        return lambda: connected_components(graph, device=device, **kw)

    pair = (a([0, 1]), a([1, 2]))
    size = r"need(s)? at least \d|bytes"
    cases = [
        HostileCase(
            "cc_negative_id",
            cc((a([0, -1]), a([1, 2])), num_nodes=3),
            (InvalidGraphError,),
            r"`src`: vertex id -1 at position 1 is negative",
        ),
        HostileCase(
            "cc_fractional_id",
            cc((a([0.0, 1.5]), a([1.0, 2.0]))),
            (InvalidGraphError,),
            r"`src`: vertex id 1\.5 at position 1 is not an integer",
        ),
        HostileCase(
            "cc_nan_id",
            cc((a([0.0, 1.0]), a([1.0, np.nan]))),
            (InvalidGraphError,),
            r"`dst`: vertex id nan at position 1 is not an integer",
        ),
        HostileCase(
            "cc_bool_ids",
            cc((a([True, False]), a([False, True]))),
            (InvalidGraphError,),
            r"`src`: vertex ids must be integers, got dtype bool",
        ),
        HostileCase(
            "cc_id_out_of_range",
            cc((a([0, 5]), a([1, 2])), num_nodes=3),
            (InvalidGraphError,),
            r"`src`: vertex id 5 at position 1 is >= num_nodes=3",
        ),
        HostileCase(
            "cc_length_mismatch",
            cc((a([0, 1, 2]), a([1, 2]))),
            (InvalidGraphError,),
            r"differ in length \(3 vs 2\)",
        ),
        HostileCase(
            "cc_2d_ids",
            cc((a([[0, 1], [1, 2]]), a([[1, 2], [2, 0]]))),
            (InvalidGraphError,),
            r"`src`: expected a 1-D array",
        ),
        HostileCase(
            "cc_2xm_negative",
            cc(a([[0, 1], [-4, 2]]), renumber=False),
            (InvalidGraphError,),
            r"`dst`: vertex id -4 at position 0 is negative",
        ),
        HostileCase(
            "cc_num_nodes_2_62",
            cc(pair, num_nodes=2**62),
            (InvalidGraphError, DeviceMemoryError),
            rf"`num_nodes`: {2**62} vertices need at least|needs at least \d+ bytes",
        ),
        HostileCase(
            "cc_num_nodes_int64_max",
            cc(pair, num_nodes=BIG),
            (InvalidGraphError,),
            rf"`num_nodes`: {BIG} vertices exceed what the engines can index",
        ),
        HostileCase(
            "cc_num_nodes_past_memory",
            cc(pair, num_nodes=n_past),
            refused,
            size,
        ),
        HostileCase(
            "cc_graph_past_memory",
            lambda: connected_components(Graph.from_edges(*pair, n_past), device=device),
            refused,
            size,
        ),
        HostileCase(
            "cc_id_int64_max_no_renumber",
            cc((a([0]), a([BIG])), renumber=False),
            (InvalidGraphError,),
            rf"`dst`: vertex id {BIG} at position 0 is too large",
        ),
        HostileCase(
            "cc_id_int64_max_num_nodes",
            cc((a([0]), a([BIG])), num_nodes=3),
            (InvalidGraphError,),
            rf"`dst`: vertex id {BIG} at position 0 is too large",
        ),
        HostileCase(
            "cc_id_uint64_max",
            cc((a([0], np.uint64), a([2**64 - 1], np.uint64)), renumber=False),
            (InvalidGraphError,),
            rf"`dst`: vertex id {2**64 - 1} at position 0 is too large",
        ),
        HostileCase(
            "csr_broken_indptr",
            lambda: connected_components(Graph.from_csr(a([0, 2, 1]), a([1, 0])), device=device),
            (InvalidGraphError,),
            r"`indptr`: must start at 0, never decrease",
        ),
        HostileCase(
            "csr_float_indptr",
            lambda: connected_components(
                Graph.from_csr(a([0.0, 1.0, 2.0]), a([1, 0])), device=device
            ),
            (InvalidGraphError,),
            r"`indptr`: offsets must be integers",
        ),
        HostileCase(
            "csr_not_square",
            lambda: connected_components(
                sp.csr_matrix(xp.ones((2, 3), dtype=np.float32)), device=device
            ),
            (InvalidGraphError,),
            r"must be square, got shape \(2, 3\)",
        ),
        HostileCase(
            "forest_negative_id",
            lambda: spanning_forest((a([0, -1]), a([1, 2])), num_nodes=3, device=device),
            (InvalidGraphError,),
            r"`src`: vertex id -1 at position 1 is negative",
        ),
        HostileCase(
            "forest_num_nodes_past_memory",
            lambda: spanning_forest(pair, num_nodes=n_past, device=device),
            refused,
            size,
        ),
        HostileCase(
            "msf_nan_weight",
            lambda: minimum_spanning_forest((*pair, a([1.0, np.nan])), device=device),
            (InvalidGraphError,),
            r"`weights`: weight NaN at position 1",
        ),
        HostileCase(
            "msf_weights_misshaped",
            lambda: minimum_spanning_forest(pair, a([1.0, 2.0, 3.0]), device=device),
            (InvalidGraphError,),
            r"`weights`: expected 2 weights",
        ),
        HostileCase(
            "msf_weights_2d",
            lambda: minimum_spanning_forest(pair, a([[1.0], [2.0]]), device=device),
            (InvalidGraphError,),
            r"`weights`: expected 2 weights",
        ),
        HostileCase(
            "msf_id_int64_max_no_renumber",
            lambda: minimum_spanning_forest(
                (a([0]), a([BIG]), a([1.0])), device=device, renumber=False
            ),
            (InvalidGraphError,),
            rf"`dst`: vertex id {BIG} at position 0 is too large",
        ),
        HostileCase(
            "msf_graph_past_memory",
            lambda: minimum_spanning_forest(
                Graph.from_edges(*pair, n_past, weights=a([1.0, 2.0])), device=device
            ),
            refused,
            size,
        ),
        HostileCase(
            "incremental_num_nodes_2_62",
            lambda: IncrementalConnectivity(2**62, device=device),
            (InvalidGraphError,),
            rf"`num_nodes`: {2**62} vertices need at least",
        ),
        HostileCase(
            "incremental_num_nodes_past_memory",
            lambda: IncrementalConnectivity(n_past, device=device),
            _refused_by(device, n_past, INCREMENTAL_BYTES_PER_NODE),
            size,
        ),
        HostileCase(
            "incremental_negative_id",
            lambda: IncrementalConnectivity(device=device).insert(a([0, -1]), a([1, 2])),
            (InvalidGraphError,),
            r"`src`: vertex id -1 at position 1 is negative",
        ),
        HostileCase(
            "incremental_nan_id",
            lambda: IncrementalConnectivity(device=device).insert(a([0.0]), a([np.nan])),
            (InvalidGraphError,),
            r"`dst`: vertex id nan at position 0 is not an integer",
        ),
        HostileCase(
            "incremental_bool_ids",
            lambda: IncrementalConnectivity(device=device).insert(a([True]), a([False])),
            (InvalidGraphError,),
            r"`src`: vertex ids must be integers, got dtype bool",
        ),
        HostileCase(
            "incremental_length_mismatch",
            lambda: IncrementalConnectivity(device=device).insert(a([0, 1]), a([1])),
            (InvalidGraphError,),
            r"differ in length \(2 vs 1\)",
        ),
        HostileCase(
            "incremental_bad_op_code",
            lambda: IncrementalConnectivity(device=device).process(a([0, 7]), *pair),
            (InvalidGraphError,),
            r"`ops`: code 7 at position 1 is not valid",
        ),
        HostileCase(
            "incremental_growth_past_memory",
            lambda: _grown(device, a([0]), a([n_past - 1])),
            (DeviceMemoryError,) if device == "gpu" else (InvalidGraphError,),
            rf"vertex id {n_past - 1} needs state for {n_past} vertices",
        ),
        HostileCase(
            "incremental_growth_to_int64_max",
            lambda: _grown(device, a([0]), a([BIG])),
            (DeviceMemoryError,) if device == "gpu" else (InvalidGraphError,),
            rf"vertex id {BIG} needs state for {BIG + 1} vertices",
        ),
        HostileCase(
            "stream_negative_id",
            lambda: stream_components([(a([0, -1]), a([1, 2]))], device=device),
            (InvalidGraphError,),
            r"chunk 0: .*`src`: vertex id -1 at position 1 is negative",
        ),
        HostileCase(
            "stream_fractional_id",
            lambda: stream_components([(a([0.5]), a([1.0]))], device=device),
            (InvalidGraphError,),
            r"chunk 0: .*`src`: vertex id 0\.5 at position 0 is not an integer",
        ),
        HostileCase(
            "stream_id_out_of_range",
            lambda: stream_components([pair], num_nodes=2, device=device),
            (InvalidGraphError,),
            r"chunk 0: .*`dst`: vertex id 2 at position 1 is >= num_nodes=2",
        ),
        HostileCase(
            "stream_num_nodes_2_62",
            lambda: stream_components([pair], num_nodes=2**62, device=device),
            (InvalidGraphError,),
            rf"`num_nodes`: {2**62} vertices need at least",
        ),
        HostileCase(
            "stream_chunk_id_2_62",
            lambda: stream_components([(a([0]), a([2**62]))], device=device),
            (InvalidGraphError,),
            rf"chunk 0: .*`dst`: vertex id {2**62} at position 0 implies",
        ),
        HostileCase(
            "stream_chunk_id_int64_max",
            lambda: stream_components([(a([0]), a([BIG]))], device=device),
            (InvalidGraphError,),
            rf"chunk 0: .*`dst`: vertex id {BIG} at position 0 is too large",
        ),
        HostileCase(
            "stream_chunk_id_past_memory",
            lambda: stream_components([(a([0]), a([n_past - 1]))], device=device),
            refused,
            size,
        ),
    ]
    if xp is not np:
        host_pair = (np.array([0, 1]), np.array([1, 2]))
        cases.append(
            HostileCase(
                "cc_host_pairs_past_memory",
                cc(host_pair, num_nodes=n_past),
                refused,
                size,
            )
        )
    if torch_device is not None:
        cases.extend(_torch_cases(device, torch_device, n_past, refused, size))
    return cases


def _grown(device: str, u: Any, v: Any) -> None:
    """Insert into a fresh structure that holds a few vertices (the growth is the test)."""
    ic = IncrementalConnectivity(4, device=device)
    ic.insert(u, v)


def _torch_cases(
    device: str, torch_device: str, n_past: int, refused: tuple, size: str
) -> list[HostileCase]:
    import torch

    def t(values: list, dtype: Any = torch.int64) -> Any:
        return torch.tensor(values, dtype=dtype, device=torch_device)

    edge_index = torch.stack([t([0, 1]), t([1, 2])])
    return [
        HostileCase(
            "torch_negative_id",
            lambda: connected_components(
                torch.stack([t([0, -1]), t([1, 2])]), device=device, renumber=False
            ),
            (InvalidGraphError,),
            r"`src`: vertex id -1 at position 1 is negative",
        ),
        HostileCase(
            "torch_float_id",
            lambda: connected_components(
                (t([0.5], torch.float32), t([1.0], torch.float32)), device=device
            ),
            (InvalidGraphError,),
            r"`src`: vertex id 0\.5 at position 0 is not an integer",
        ),
        HostileCase(
            "torch_id_int64_max_no_renumber",
            lambda: connected_components((t([0]), t([BIG])), device=device, renumber=False),
            (InvalidGraphError,),
            rf"`dst`: vertex id {BIG} at position 0 is too large",
        ),
        HostileCase(
            "torch_num_nodes_past_memory",
            lambda: connected_components(edge_index, num_nodes=n_past, device=device),
            refused,
            size,
        ),
        HostileCase(
            "torch_incremental_growth_to_int64_max",
            lambda: _grown(device, t([0]), t([BIG])),
            (DeviceMemoryError,) if device == "gpu" else (InvalidGraphError,),
            rf"vertex id {BIG} needs state for {BIG + 1} vertices",
        ),
    ]
