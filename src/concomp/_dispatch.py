"""Choose the engine: ``device="auto" | "cpu" | "gpu"``, logging the reason for every choice."""

from __future__ import annotations

import logging
import os

from .errors import DeviceUnavailableError, InvalidGraphError
from .graph import Graph

log = logging.getLogger("concomp.dispatch")

__all__ = ["choose_device", "GPU_MIN_EDGES"]

#: Below this many edges a host graph stays on the CPU: the transfer and the
#: kernel launches cost more than the CPU engine needs for the whole job.
GPU_MIN_EDGES = 2_000_000
_VALID = ("auto", "cpu", "gpu")


def _requested(device: str | None) -> str:
    if device is None or device == "auto":
        env = os.environ.get("CONCOMP_DEVICE", "auto").strip().lower() or "auto"
        if env not in _VALID:
            raise InvalidGraphError(f"environment variable CONCOMP_DEVICE={env!r} is not valid; "
                                    f"use one of {_VALID}. Fix: unset it or set 'cpu'/'gpu'.")
        return env
    if not isinstance(device, str) or device.lower() not in _VALID:
        raise InvalidGraphError(f"argument `device`: {device!r} is not valid; use one of "
                                f"{_VALID}.")
    return device.lower()


def choose_device(graph: Graph, device: str | None, *, min_edges: int = GPU_MIN_EDGES) -> str:
    """Return ``"cpu"`` or ``"gpu"`` for running ``graph``.

    ``"gpu"`` that cannot run raises :class:`DeviceUnavailableError` with the
    reason; ``"auto"`` uses the GPU when the data is already there, or when a GPU
    is usable and the graph is large enough to pay for the transfer.
    """
    want = _requested(device)
    if want == "cpu":
        log.debug("device=cpu: requested")
        return "cpu"
    if graph.device == "gpu":
        log.debug("device=gpu: the graph's arrays are already on the GPU")
        return "gpu"
    from ._gpu._compat import gpu_status

    ok, reason = gpu_status()
    if want == "gpu":
        if not ok:
            raise DeviceUnavailableError(f"device='gpu' cannot run here: {reason}. Fix: use "
                                         "device='cpu' or 'auto'.")
        log.debug("device=gpu: requested (%s)", reason)
        return "gpu"
    if not ok:
        log.debug("device=auto -> cpu: %s", reason)
        return "cpu"
    if graph.num_edges < min_edges:
        log.debug("device=auto -> cpu: %d edges < %d, transfer would dominate",
                  graph.num_edges, min_edges)
        return "cpu"
    log.debug("device=auto -> gpu: %d edges, %s", graph.num_edges, reason)
    return "gpu"
