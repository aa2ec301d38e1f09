"""The least device bytes each GPU driver allocates, for the up-front size check.

:func:`concomp._gpu._compat.check_device_fits` compares these sizes with the
device's total memory before a driver allocates or launches anything. They are
lower bounds, counting only the per-vertex and per-edge arrays a run always
allocates (never the temporaries of CuPy's sorts and scans, nor the graph's own
arrays, which are on the device already): a run they refuse can never fit, and a
run they let through that still does not fit fails in CuPy's allocator, which
:class:`concomp._gpu._compat.out_of_memory_guard` turns into the same error.
The incremental and streaming engines size their state themselves
(``IncrementalEngine.state_bytes``, ``Streamer._device_bytes``).
"""

from __future__ import annotations

import numpy as np

from .._rules import union_rule
from ..variants import Layout, Sampling, Variant

__all__ = ["msf_bytes", "static_run_bytes"]


def static_run_bytes(n: int, variant: Variant, dtype: np.dtype, record: bool) -> int:
    """Least device bytes of one static run of ``variant`` on ``n`` vertices.

    A union-find run (:class:`concomp._gpu.unionfind.UnionFindRun`) allocates,
    per vertex, the parents, the CSR layouts' queue, the rule's ``aux`` int, JTB's
    packed word and root minima, and with ``record`` the hook edge. Every other
    family keeps at least one label per vertex.

    Examples
    --------
    >>> import numpy as np
    >>> from concomp.variants import Variant
    >>> static_run_bytes(1000, Variant.parse("none-async-halve-coo"), np.dtype(np.int32), False)
    4000
    >>> static_run_bytes(1000, Variant.parse("kout-async-halve-csr"), np.dtype(np.int64), True)
    24000
    """
    it = np.dtype(dtype).itemsize
    n = max(int(n), 1)  # a run on no vertices still allocates one slot of each array
    if variant.family != "unionfind" or variant.sampling == Sampling.STAGES:
        return n * it
    row = union_rule(variant.finish)
    per_vertex = it
    if variant.layout == Layout.CSR:
        per_vertex += it
    if row.aux:
        per_vertex += 4
    if row.packed:
        per_vertex += 8 + it
    if record:
        per_vertex += it
    return n * per_vertex


def msf_bytes(n: int, m: int, dtype: np.dtype) -> int:
    """Least device bytes of a minimum spanning forest run on ``n`` vertices, ``m`` edges.

    Every path keys each edge by a 64-bit word and keeps at least four index arrays
    per vertex (Borůvka: parents, roots and two root lists; Prim: four candidate
    arrays). Graphs with no edges or fewer than two vertices allocate nothing.

    Examples
    --------
    >>> import numpy as np
    >>> msf_bytes(100, 300, np.dtype(np.int32))
    4000
    >>> msf_bytes(1, 300, np.dtype(np.int32))
    0
    """
    if m == 0 or n < 2:
        return 0
    return 8 * int(m) + 4 * int(n) * np.dtype(dtype).itemsize
