"""Exceptions raised by concomp.

Every exception subclasses a builtin so that callers who catch ``ValueError``
or ``RuntimeError`` keep working, and every message names the argument, the
offending value (and its position where there is one), what is allowed, and
the fix.
"""

from __future__ import annotations

__all__ = [
    "ConcompError",
    "InvalidGraphError",
    "InvalidVariantError",
    "DeviceUnavailableError",
    "DeviceMemoryError",
    "GraphFormatError",
    "InvalidOptionsError",
    "EngineCapabilityError",
    "InvalidStateError",
    "InvalidImageError",
]


class ConcompError(Exception):
    """Base class of every exception concomp raises on purpose."""


class InvalidGraphError(ConcompError, ValueError):
    """The graph input (ids, shapes, dtypes, weights) is not valid."""


class InvalidVariantError(ConcompError, ValueError):
    """An algorithm / variant name or combination is not valid."""


class DeviceUnavailableError(ConcompError, RuntimeError):
    """``device="gpu"`` was asked for but the GPU engine cannot run here."""


class DeviceMemoryError(ConcompError, MemoryError):
    """The GPU ran out of memory; the message says how much was needed."""


class GraphFormatError(InvalidGraphError):
    """A graph file could not be parsed; the message names file, line and fix."""


class InvalidOptionsError(ConcompError, ValueError):
    """A field of :class:`concomp.options.Options` is not valid."""


class EngineCapabilityError(ConcompError, NotImplementedError):
    """The chosen engine does not implement a capability; the message names it and the fix."""


class InvalidStateError(ConcompError, ValueError):
    """A saved state file (``IncrementalConnectivity.save``) is unreadable or inconsistent;
    the message names the file and the field."""


class InvalidImageError(ConcompError, ValueError):
    """An image or volume to label (its dtype, shape, connectivity, structuring element,
    background or output) is not valid."""
