"""concomp on Dask: connectivity of edge collections spread over a cluster.

Connectivity and minimum spanning forests decompose by forests: a spanning forest of
the union of the partitions' spanning forests spans the whole graph, and the minimum
spanning forest of the union of the partitions' minimum spanning forests (same tie
rule) is the global one. So each partition (Dask array block, data frame partition,
Parquet row group, file) is reduced to a forest of at most ``n - 1`` edges on the worker
that holds it, with the worker's engine (its GPU, or the CPU); the forests are merged
``split_every`` at a time up a tree (``1 + ceil(log_k W)`` rounds, at most
``(W - 1)(n - 1)`` edges moved between workers). For labels, the top round's
forests (at most ``split_every``) go straight into one components run, which takes
the place of the last merge.
Results equal those of the single-machine functions.

Functions
---------
connected_components, spanning_forest, minimum_spanning_forest
    Like :func:`concomp.connected_components` and friends, for Dask arrays, Dask data
    frames, lists of files and :func:`read_parquet_edges`.
read_parquet_edges, ParquetEdges
    Parquet files as partitions (one per row group), read inside the tasks.
label
    :func:`concomp.label` for chunked images and volumes (Dask arrays): chunks labelled
    where they are, joined across chunk boundaries, numbered like ``scipy.ndimage.label``.
local_gpu_cluster, gpu_worker_specs
    One worker per GPU, pinned with ``CUDA_VISIBLE_DEVICES``.

Fault tolerance is Dask's: a failed task is retried (``retries=``), and tasks lost
with a worker are recomputed. Needs ``pip install 'concomp[dask]'`` (dask, distributed);
``import concomp`` does not import Dask.

GPU workers
-----------
Run one worker process per GPU, each seeing only its own device. With
:func:`local_gpu_cluster` on one machine::

    from distributed import Client
    from concomp.dask import connected_components, local_gpu_cluster, read_parquet_edges

    with local_gpu_cluster() as cluster, Client(cluster):
        n, labels = connected_components(read_parquet_edges("edges/"), device="gpu")

On several machines start one ``dask worker`` per GPU with its own environment, e.g.
``CUDA_VISIBLE_DEVICES=0 dask worker tcp://scheduler:8786 --nthreads 1`` and
``CUDA_VISIBLE_DEVICES=1 dask worker ... --nthreads 1`` on each machine.

A GPU worker runs one task at a time by default. With many partitions, more threads
per worker (``local_gpu_cluster(nthreads=4)``, ``dask worker --nthreads 4``) read and
check the next partitions on the host while the GPU reduces one: the engine's calls
may run from several threads at once. They also hold several partitions on the GPU at
once, so leave one thread where a partition needs most of the device. A GPU worker's
resident memory also holds the CUDA context, pinned staging buffers and the Parquet
tables being read (several GiB with four threads on row groups of 2.5e7 edges): give
it a ``memory_limit`` well above that, since Dask pauses a worker at 80% of its limit.

Examples
--------
>>> import dask, dask.array as da, numpy as np
>>> import concomp.dask as cd
>>> edges = da.from_array(np.array([[0, 1], [2, 3], [1, 2], [5, 6]]), chunks=(2, 2))
>>> with dask.config.set(scheduler="synchronous"):
...     cd.connected_components(edges, device="cpu")
(3, array([0, 0, 0, 0, 1, 2, 2], dtype=int32))

On a cluster (closed at the end of the ``with`` block)::

    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1) as cluster, Client(cluster):
        n, labels = cd.connected_components(cd.read_parquet_edges("edges/"))
"""

from __future__ import annotations

try:
    import dask
    import dask.array  # noqa: F401
except ImportError as exc:  # pragma: no cover - depends on the environment
    raise ImportError(
        "concomp.dask needs Dask: pip install 'concomp[dask]' (dask[array,dataframe], "
        f"distributed). ({exc})"
    ) from exc

from ._api import connected_components, minimum_spanning_forest, spanning_forest
from ._cluster import gpu_worker_specs, local_gpu_cluster
from ._inputs import ParquetEdges, read_parquet_edges
from ._label import label

__all__ = [
    "connected_components",
    "spanning_forest",
    "minimum_spanning_forest",
    "read_parquet_edges",
    "ParquetEdges",
    "local_gpu_cluster",
    "gpu_worker_specs",
    "label",
]
