"""The edge-list record the test graphs are returned as."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["ZooGraph"]


class ZooGraph(NamedTuple):
    """An edge list over ``range(num_nodes)``; unpacks as ``src, dst, n``."""

    src: np.ndarray
    dst: np.ndarray
    num_nodes: int
