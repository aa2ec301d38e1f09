"""A local cluster with one worker per GPU, pinned by ``CUDA_VISIBLE_DEVICES``."""

from __future__ import annotations

import os
from typing import Any

__all__ = ["gpu_worker_specs", "local_gpu_cluster"]


def _visible_gpus() -> list[str]:
    env = os.environ.get("CUDA_VISIBLE_DEVICES")
    if env is not None:
        return [g.strip() for g in env.split(",") if g.strip()]
    from .._gpu._compat import cupy_module, gpu_status

    if not gpu_status()[0]:
        return []
    return [str(i) for i in range(cupy_module().cuda.runtime.getDeviceCount())]


def gpu_worker_specs(
    gpus: Any = None, *, env: dict[str, str] | None = None, **worker_options: Any
) -> dict[str, dict[str, Any]]:
    """Worker specs for :class:`distributed.SpecCluster`: one ``Nanny`` per GPU, each with
    one thread and ``CUDA_VISIBLE_DEVICES`` set to its GPU (and ``NCCL_NVLS_ENABLE=0``).

    ``gpus`` is a count or a list of device ids (default: every visible GPU).

    Examples
    --------
    >>> from concomp.dask import gpu_worker_specs
    >>> spec = gpu_worker_specs(["0", "1"], memory_limit="8GiB")
    >>> sorted(spec), spec["gpu-1"]["options"]["env"]["CUDA_VISIBLE_DEVICES"]
    (['gpu-0', 'gpu-1'], '1')
    """
    from distributed import Nanny

    if gpus is None:
        ids = _visible_gpus()
    elif isinstance(gpus, int):
        ids = [str(i) for i in range(gpus)]
    else:
        ids = [str(g) for g in gpus]
    specs = {}
    for gpu in ids:
        worker_env = {"CUDA_VISIBLE_DEVICES": gpu, "NCCL_NVLS_ENABLE": "0", **(env or {})}
        options = {"nthreads": 1, "env": worker_env, **worker_options}
        specs[f"gpu-{gpu}"] = {"cls": Nanny, "options": options}
    return specs


def local_gpu_cluster(gpus: Any = None, **worker_options: Any) -> Any:
    """A :class:`distributed.SpecCluster` on this machine with one worker per GPU.

    Each worker process sees only its own GPU (``CUDA_VISIBLE_DEVICES``), so
    ``device="gpu"`` (or ``"auto"``) runs each partition on that worker's GPU. No
    dask-cuda is needed. ``worker_options`` go to each ``Nanny`` (``memory_limit``,
    ``nthreads``: one by default; more let a worker read and check partitions on the host
    while its GPU reduces another, see "GPU workers" in :mod:`concomp.dask`).

    Examples
    --------
    >>> from distributed import Client                          # doctest: +SKIP
    >>> from concomp.dask import local_gpu_cluster, connected_components
    >>> with local_gpu_cluster() as cluster, Client(cluster):    # doctest: +SKIP
    ...     n, labels = connected_components(read_parquet_edges("edges/"), device="gpu")
    """
    from distributed import Scheduler, SpecCluster

    workers = gpu_worker_specs(gpus, **worker_options)
    if not workers:
        raise RuntimeError("local_gpu_cluster: no GPU is visible here; use LocalCluster for CPUs.")
    scheduler = {"cls": Scheduler, "options": {"dashboard_address": ":0"}}
    return SpecCluster(workers=workers, scheduler=scheduler)
