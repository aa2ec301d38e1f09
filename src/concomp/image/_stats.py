"""Region statistics of a labelled image: sizes, bounding boxes and centroids."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._arrays import get_xp

__all__ = ["LabelStats"]


@dataclass(frozen=True)
class LabelStats:
    """Statistics of labels 1 to N: row ``k`` describes label ``k + 1``.

    Attributes
    ----------
    sizes : array of int64, shape (N,)
        Pixels per label (0 for a label that does not occur).
    bbox_start, bbox_stop : arrays of int64, shape (N, ndim)
        The bounding box ``[start, stop)`` per axis, as ``scipy.ndimage.find_objects``
        slices it (an absent label has ``start > stop``).
    centroids : array of float64, shape (N, ndim)
        Mean coordinate per axis (NaN for an absent label).
    """

    sizes: Any
    bbox_start: Any
    bbox_stop: Any
    centroids: Any

    @classmethod
    def from_sums(cls, sizes: Any, starts: Any, stops: Any, sums: Any) -> LabelStats:
        """Build from an engine's one-pass sums (coordinate sums, not means)."""
        xp = get_xp(sizes)
        centroids = sums / xp.maximum(sizes, 1)[:, None].astype(np.float64)
        centroids[sizes == 0] = np.nan
        return cls(sizes, starts, stops, centroids)

    @property
    def num(self) -> int:
        """The number of labels ``N``."""
        return int(self.sizes.shape[0])

    def slices(self) -> list[tuple[slice, ...] | None]:
        """The bounding boxes as tuples of slices (None for an absent label), like
        ``scipy.ndimage.find_objects``."""
        starts, stops, sizes = self.bbox_start.tolist(), self.bbox_stop.tolist(), self.sizes
        return [
            tuple(slice(a, b) for a, b in zip(lo, hi)) if int(sizes[k]) else None
            for k, (lo, hi) in enumerate(zip(starts, stops))
        ]
