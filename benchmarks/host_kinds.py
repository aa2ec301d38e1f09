"""Host input kinds of ``bench_host_input.py``, and the host memory one call adds.

Every kind is built from the same edges: ``src < dst`` int64 arrays over ``n`` vertices.
A builder returns the input and the bytes of vertex ids it holds (CSR: ``indptr`` and
``indices``; COO: ``row`` and ``col``; values the call never reads are left out; a file:
its size), which is what the input GB/s of the table divide by the median.

:func:`memory_probe` runs in a fresh process (``bench_host_input.py --memory-probe``):
it measures the peak resident memory during one call over the resident memory before
it, after a warm-up call on a tiny graph of the same kind and device, which loads the
compiled functions and, for the GPU, creates the CUDA context and its kernels, so that
their host memory is in the baseline and not counted as the call's. The peak is read as
:func:`concomp.bench.memory.peak_added` reads it (``VmHWM`` after a reset, else sampled).
``ru_maxrss`` is not used: Linux carries the parent's peak into a child across ``exec``,
so a child of a large benchmark process reports the parent's size.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components as scipy_cc

import concomp
from concomp.bench.host_input import SCIPY_KEY
from concomp.bench.memory import peak_added


def _pair(s, d, n, folder):
    return (s, d), s.nbytes + d.nbytes


def _int32_2m(s, d, n, folder):
    a = np.stack([s, d]).astype(np.int32)
    return a, a.nbytes


def _csr_one(s, d, n, folder):
    a = sp.csr_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(n, n))
    return a, a.indptr.nbytes + a.indices.nbytes


def _csr_symmetric(s, d, n, folder):
    one = _csr_one(s, d, n, folder)[0]
    a = (one + one.T).tocsr()
    return a, a.indptr.nbytes + a.indices.nbytes


def _coo(s, d, n, folder):
    a = sp.coo_array((np.ones(s.shape[0], np.float32), (s, d)), shape=(n, n))
    return a, a.row.nbytes + a.col.nbytes


def _pandas(s, d, n, folder):
    import pandas as pd

    f = pd.DataFrame({"src": s, "dst": d})
    return f, int(f.memory_usage(index=False).sum())


def _polars(s, d, n, folder):
    import polars as pl

    f = pl.DataFrame({"src": s, "dst": d})
    return f, int(f.estimated_size())


def _arrow(s, d, n, folder):
    import pyarrow as pa

    t = pa.table({"src": s, "dst": d})
    return t, int(t.nbytes)


def _torch(s, d, n, folder):
    import torch

    t = torch.from_numpy(np.stack([s, d]))
    return t, t.numel() * t.element_size()


def _parquet(s, d, n, folder):
    import pyarrow  # noqa: F401  (without it the kind is skipped, naming pyarrow)

    path = Path(folder) / f"edges-n{n}-m{s.shape[0]}.parquet"
    if not path.exists():  # written once per graph; the memory probes read the same file
        concomp.write_graph(concomp.Graph.from_edges(s, d, n), path)
    return str(path), path.stat().st_size


def read_file_bytes(path: str, threads: int | None = None) -> np.ndarray:
    """The bytes of the file ``path``, read into one array by ``threads`` threads (default:
    every core) each ``pread``-ing its share: what any reader of the file has to do
    before decoding it, at the best speed the host gives it."""
    from concurrent.futures import ThreadPoolExecutor

    size = os.path.getsize(path)
    out = np.empty(size, dtype=np.uint8)
    threads = max(1, threads or os.cpu_count() or 1)
    share = -(-size // threads) if size else 0
    fd = os.open(path, os.O_RDONLY)

    def part(i: int) -> None:
        lo, hi = i * share, min(size, (i + 1) * share)
        view = memoryview(out)[lo:hi]
        done = 0
        while done < hi - lo:  # pread may return less than asked
            got = os.preadv(fd, [view[done:]], lo + done)
            if got == 0:
                raise OSError(f"{path}: ended at byte {lo + done} of {size}")
            done += got

    try:
        with ThreadPoolExecutor(threads) as pool:
            list(pool.map(part, range(threads)))
    finally:
        os.close(fd)
    return out


#: name -> builder ``(src, dst, n, folder) -> (input, bytes of its vertex ids)``; a
#: builder raises ImportError when its library is missing.
KINDS: dict[str, Callable[..., tuple[Any, int]]] = {
    "numpy pair int64": _pair,
    "(2, m) int32": _int32_2m,
    "scipy csr one direction": _csr_one,
    "scipy csr symmetric": _csr_symmetric,
    "scipy coo": _coo,
    "pandas frame": _pandas,
    "polars frame": _polars,
    "pyarrow table": _arrow,
    "torch cpu edge_index": _torch,
    "parquet file": _parquet,
}


def _call(kind: str, device: str) -> Callable[[Any, int], Any]:
    if kind == SCIPY_KEY:
        return lambda graph, n: scipy_cc(graph, directed=False)
    return lambda graph, n: concomp.connected_components(graph, num_nodes=n, device=device)


def save_edges(folder: Path, s: np.ndarray, d: np.ndarray) -> None:
    """Store the edges where :func:`memory_probe` loads them."""
    np.save(folder / "src.npy", s)
    np.save(folder / "dst.npy", d)


def memory_probe(kind: str, device: str, folder: Path, n: int) -> dict[str, Any]:
    """Build ``kind`` (or SciPy's symmetric CSR for :data:`SCIPY_KEY`) from the edges
    :func:`save_edges` stored in ``folder``, warm up, and measure one call.

    Returns the component count, the baseline and peak resident bytes, the peak added
    (``added_bytes``) and how the peak was read (``method``).
    """
    build = KINDS["scipy csr symmetric" if kind == SCIPY_KEY else kind]
    call = _call(kind, device)
    tiny = np.arange(999, dtype=np.int64)  # a path of 1000 vertices
    call(build(tiny, tiny + 1, 1000, folder)[0], 1000)
    s, d = np.load(folder / "src.npy"), np.load(folder / "dst.npy")
    graph = build(s, d, n, folder)[0]
    del s, d  # the NumPy pair keeps them through `graph`
    gc.collect()
    out, mem = peak_added(lambda: call(graph, n))
    if mem is None:
        raise RuntimeError("no /proc/self/status here: host memory cannot be read")
    return {"count": int(out[0]), **mem}
