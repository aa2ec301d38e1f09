"""The dispatch layer: resolve the device, find the engine driver, log why.

This is the only module that reads ``CONCOMP_DEVICE``, asks whether a GPU is
usable, and imports engine modules. Public modules call :func:`choose_device`
(or :func:`resolve_device` where there is no :class:`Graph` yet) and then
:func:`driver` for the engine function they need; every choice is logged on the
``concomp.dispatch`` logger at debug level, with its reason.

Rules for ``device="auto"``: data already on the GPU stays there; host data goes
to the GPU when a GPU is usable and the work has at least ``min_edges`` edges
(below that the transfer and the launches cost more than the CPU engine needs);
otherwise the CPU. ``device="gpu"`` that cannot run raises
:class:`~concomp.errors.DeviceUnavailableError` with the reason.
"""

from __future__ import annotations

import functools
import importlib
import logging
import os
from types import ModuleType
from typing import Any

from ._engine import CONTRACT, ENGINE_PACKAGES
from .errors import DeviceUnavailableError, EngineCapabilityError, InvalidGraphError
from .graph import Graph

log = logging.getLogger("concomp.dispatch")

__all__ = [
    "GPU_MIN_EDGES",
    "choose_device",
    "driver",
    "engine_module",
    "requested_device",
    "resolve_device",
    "unsupported",
]

#: Below this many edges a host graph stays on the CPU: the transfer and the
#: kernel launches cost more than the CPU engine needs for the whole job.
GPU_MIN_EDGES = 2_000_000
#: Below this many edges, host edges that the GPU would take through the streaming
#: feed (``connected_components``) stay on the CPU: the feed's fixed cost (pinned
#: staging, launches, the labels' trip back) is more than the CPU engine's time for the
#: whole job. ``benchmarks/bench_host_input.py``'s size sweep measures where the two
#: meet on a given machine.
HOST_STREAM_MIN_EDGES = 300_000
_VALID = ("auto", "cpu", "gpu")


def requested_device(device: Any) -> str:
    """``device`` checked and lower-cased; ``None``/"auto" defer to ``CONCOMP_DEVICE``."""
    if device is None or (isinstance(device, str) and device.lower() == "auto"):
        env = os.environ.get("CONCOMP_DEVICE", "auto").strip().lower() or "auto"
        if env not in _VALID:
            raise InvalidGraphError(
                f"environment variable CONCOMP_DEVICE={env!r} is not valid; "
                f"use one of {_VALID}. Fix: unset it or set 'cpu'/'gpu'."
            )
        return env
    if not isinstance(device, str) or device.lower() not in _VALID:
        raise InvalidGraphError(f"argument `device`: {device!r} is not valid; use one of {_VALID}.")
    return device.lower()


def _gpu_status() -> tuple[bool, str]:
    from ._gpu._compat import gpu_status

    return gpu_status()


def resolve_device(
    device: Any,
    *,
    data_device: str = "cpu",
    num_edges: int | None = None,
    min_edges: int = GPU_MIN_EDGES,
    what: str = "the call",
) -> str:
    """``"cpu"`` or ``"gpu"`` for work on data living on ``data_device``.

    ``num_edges`` None means the size is unknown (a stream): ``auto`` then takes
    a usable GPU.
    """
    want = requested_device(device)
    if want == "cpu":
        log.debug("%s: device=cpu (requested)", what)
        return "cpu"
    if data_device == "gpu":
        log.debug("%s: device=gpu (the data is already on the GPU)", what)
        return "gpu"
    ok, reason = _gpu_status()
    if want == "gpu":
        if not ok:
            raise DeviceUnavailableError(
                f"device='gpu' cannot run here: {reason}. Fix: use device='cpu' or 'auto'."
            )
        log.debug("%s: device=gpu (requested; %s)", what, reason)
        return "gpu"
    if not ok:
        log.debug("%s: device=auto -> cpu (%s)", what, reason)
        return "cpu"
    if num_edges is not None and num_edges < min_edges:
        log.debug(
            "%s: device=auto -> cpu (%d edges < %d: the transfer would dominate)",
            what,
            num_edges,
            min_edges,
        )
        return "cpu"
    log.debug(
        "%s: device=auto -> gpu (%s edges, %s)",
        what,
        "unknown" if num_edges is None else num_edges,
        reason,
    )
    return "gpu"


def choose_device(
    graph: Graph, device: Any, *, min_edges: int = GPU_MIN_EDGES, what: str = "the call"
) -> str:
    """Return ``"cpu"`` or ``"gpu"`` for running ``graph`` (see :func:`resolve_device`)."""
    return resolve_device(
        device, data_device=graph.device, num_edges=graph.num_edges, min_edges=min_edges, what=what
    )


def engine_module(dev: str, module: str) -> ModuleType:
    """The engine module ``module`` (a key of :data:`concomp._engine.CONTRACT`) of ``dev``."""
    if module not in CONTRACT:
        raise KeyError(f"{module!r} is not an engine module; the contract has {sorted(CONTRACT)}")
    return importlib.import_module(f"{ENGINE_PACKAGES[dev]}.{module}")


def unsupported(dev: str, module: str, name: str) -> str | None:
    """The reason ``dev``'s engine gives for lacking ``module.name``, or None if it has it."""
    package = importlib.import_module(ENGINE_PACKAGES[dev])
    return getattr(package, "UNSUPPORTED", {}).get(f"{module}.{name}")


@functools.cache
def driver(dev: str, module: str, name: str) -> Any:
    """The engine function or class ``module.name`` of ``dev`` (looked up once: a public
    call asks for several drivers, and small graphs make every microsecond count).

    Raises :class:`~concomp.errors.EngineCapabilityError` naming the capability
    and the reason where the engine declares it unsupported.
    """
    if name not in CONTRACT.get(module, ()):
        raise KeyError(f"{module}.{name} is not part of the engine contract")
    reason = unsupported(dev, module, name)
    if reason is not None:
        other = "cpu" if dev == "gpu" else "gpu"
        raise EngineCapabilityError(
            f"the {dev} engine does not implement {module}.{name}: {reason}. Fix: use "
            f"device={other!r}."
        )
    return getattr(engine_module(dev, module), name)
